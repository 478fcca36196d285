// app/gui/lama_tab.h — the LAMA tab (LAMA Figure 4 and Table 6 on the user's model and data): which
// model, labelled file and part of its seeded split, which words, head and scale; a background run
// gives one density curve per rating in one small plot per word, the per-(word, rating) summary,
// the keywords per rating, and a document view that colours each word by its weight per head.
// One run of the `word-weights` descriptor gives all of it; its settings are the descriptor's
// fields, laid out here in rows of their own. Run, progress, cancel and saving with the session are
// AnalysisTab's.
#pragma once

#include "app/gui/analysis_tab.h"

#include <QMap>
#include <QString>

#include <vector>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPushButton;
class QTableView;

namespace aw {

class ResultTableModel;
class ResultPlot;
class WordWeightView;

class LamaTab : public AnalysisTab {
  Q_OBJECT

 public:
  static const QString kDefaultWords;  // the paper's six: amazing,happy,recommended,poor,terrible,worst
  LamaTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent);

  // The heads of the chosen model and its documents follow the models.
  void setModels(const std::vector<ModelSummary>& models) override;
  void clearResult() override;

  // Writes one result part ("occurrences", "density", "keywords") verbatim; false if there is none.
  bool exportPart(const QString& part, const QString& path) const;
  // A part of the result on view as the CSV the CLI writes ("" when there is none).
  QString part(const QString& name) const;
  // The document view on listed document `row` of the chooser, or on a typed text.
  void showListedDocument(int row);
  void showText(const QString& text);
  WordWeightView* documentView() const { return document_view_; }
  QComboBox* documentChooser() const { return document_box_; }
  QTableView* keywordView() const { return keyword_view_; }
  QTableView* shiftView() const { return shift_view_; }
  int listedDocumentCount() const { return static_cast<int>(listed_.size()); }

 protected:
  bool prepare(Run& run, QString* refusal) const override;
  // csv = the summary; parts "occurrences", "density", "keywords" and "description".
  void showOutput(const AnalysisOutput& output) override;
  void saveExtra(QJsonObject& entry) const override;
  void restoreExtra(const QJsonObject& entry, const QDir& base) override;

 private:
  void layOutForm();
  bool isLama(int model) const;
  QString dataPath() const;
  void fillHeadChoices();
  void reloadDocuments();
  void listDocuments();
  void addWord(const QString& word);
  void plotDensities(ResultPlot& plot, const PlotInput& input) const;
  void showCapture(const QString& heading, const QString& text);

  QLineEdit* words_edit_;
  QComboBox* head_box_;
  QComboBox* scale_box_;
  ResultTableModel* keyword_model_;
  QTableView* keyword_view_;
  ResultTableModel* shift_model_;  // each word's Mann–Whitney shift between pairs of ratings
  QTableView* shift_view_;
  QComboBox* document_box_;
  QCheckBox* only_with_words_;
  QLineEdit* typed_edit_;
  WordWeightView* document_view_;
  QMap<QString, QPushButton*> part_exports_;  // "occurrences", "density", "keywords" → its Export button
  std::vector<LabelledDocument> documents_;  // the chosen part of the data file
  std::vector<int> listed_;                  // indexes into documents_ shown in the chooser
  QString documents_key_;                    // model, file, part and seed documents_ was read for
  int shown_document_ = -1;                  // index into documents_ of the one on view (−1: none or typed)
};

}  // namespace aw

// app/gui/lama_tab.h — the LAMA tab (LAMA Figure 4 and Table 6 on the user's model and data): which
// model, labelled file and part of its seeded split, which words, head and scale; a background run
// gives one density curve per rating in one small plot per word, the per-(word, rating) summary,
// the keywords per rating, and a document view that colours each word by its weight per head.
// Run, progress, cancel and saving with the session are AnalysisTabs' (this is its "lama" panel).
#pragma once

#include "app/gui/model_session.h"

#include <QMap>
#include <QObject>
#include <QString>

#include <functional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace aw {

class AnalysisPanel;
class CsvTableModel;
struct CsvTable;
class ResultPlot;
class WordWeightView;

class LamaTab : public QObject {
  Q_OBJECT

 public:
  static const QString kDefaultWords;  // the paper's six: amazing,happy,recommended,poor,terrible,worst

  LamaTab(ModelSession* session, std::function<HeadGates(int model)> gates, QObject* parent = nullptr);

  AnalysisPanel* panel() const { return panel_; }
  // The run for the current settings on `model` (AnalysisTabs runs it on a worker thread).
  std::function<AnalysisOutput(const AnalysisProgress&)> job(int model) const;
  // A finished (or restored) run: csv = the summary, parts as ModelSession::lamaWordWeights names them.
  void showResult(const QString& csv, const QMap<QString, QString>& parts);
  void clear();
  // After AnalysisTabs filled the model chooser: the heads of the chosen model and its documents.
  void modelsChanged(const std::vector<ModelSummary>& models);

  // Writes one result part ("occurrences", "density", "keywords") verbatim; false if there is none.
  bool exportPart(const QString& part, const QString& path) const;
  QString part(const QString& name) const { return parts_.value(name); }
  // The document view on listed document `row` of the chooser, or on a typed text.
  void showListedDocument(int row);
  void showText(const QString& text);
  WordWeightView* documentView() const { return document_view_; }
  QComboBox* documentChooser() const { return document_box_; }
  QTableView* keywordView() const { return keyword_view_; }
  int listedDocumentCount() const { return static_cast<int>(listed_.size()); }

 private:
  int chosenModel() const;
  bool isLama(int model) const;
  void fillHeadChoices();
  void reloadDocuments();
  void listDocuments();
  void addWord(const QString& word);
  void plotDensities(ResultPlot& plot, const CsvTable& summary) const;
  void showCapture(const QString& heading, const QString& text);

  ModelSession* session_;
  std::function<HeadGates(int)> gates_;
  std::vector<ModelSummary> models_;
  AnalysisPanel* panel_;
  QComboBox* model_box_;
  QLineEdit* data_edit_;
  QComboBox* part_box_;
  QSpinBox* seed_box_;
  QLineEdit* words_edit_;
  QComboBox* head_box_;
  QComboBox* scale_box_;
  QSpinBox* top_box_;
  QSpinBox* min_count_box_;
  CsvTableModel* keyword_model_;
  QTableView* keyword_view_;
  QComboBox* document_box_;
  QCheckBox* only_with_words_;
  QLineEdit* typed_edit_;
  WordWeightView* document_view_;
  QMap<QString, QPushButton*> part_exports_;  // "occurrences", "density", "keywords" → its Export button
  QMap<QString, QString> parts_;
  std::vector<LabelledDocument> documents_;  // the chosen part of the data file
  std::vector<int> listed_;                  // indexes into documents_ shown in the chooser
  QString documents_key_;                    // model, file, part and seed documents_ was read for
  int shown_document_ = -1;                  // index into documents_ of the one on view (−1: none or typed)
};

}  // namespace aw

// app/gui/analysis_tab.h — one analysis tab, made from its descriptor alone (analysis/core/registry.h:
// its DesktopTab says how it chooses models, its plot kind which plot it draws): the model chooser(s),
// a settings form generated from the descriptor's fields (settings_form.h) with the heads panel's
// gates in its "Heads off" field, a background run through ModelSession::run with progress and
// cancel, the result table and its plot, head scores for the heads panel, and the tab's part of a
// saved session (settings by field name and the finished result, so reopening does not recompute).
// Tabs with more to show (top tokens, LAMA words) derive from it.
#pragma once

#include "app/gui/model_session.h"
#include "widgets/analysis_panel.h"

#include <QDir>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

class QComboBox;
template <typename T>
class QFutureWatcher;

namespace aw {

struct AnalysisDescriptor;
class AnalysisTab;
class SettingsForm;

// What every tab may ask of the window.
struct TabContext {
  ModelSession* session = nullptr;
  std::function<HeadGates(int model)> gates;     // the heads panel's state of a model
  std::function<QString()> sentence;             // the attention view's sentence
  std::function<QStringList(int model)> tokens;  // that sentence's tokens for a model (may be empty)
  // Shows a model's attention at a layer and head (0-based; head −1 the mean of the heads) on `text`, in a
  // window of its own titled by `what` ("the pair's clean prompt"), with `position`'s row outlined (−1:
  // none).
  std::function<void(int model, const QString& text, const QString& what, int layer, int head, int position)>
      show_attention;
};

// What a background run hands back to the UI thread.
struct AnalysisJobOutcome {
  AnalysisOutput output;
  QString error;  // one line for the user; empty on success
};

class AnalysisTab : public QObject {
  Q_OBJECT

 public:
  // `lay_out_form` false: the derived tab places the form's editors itself.
  AnalysisTab(const AnalysisDescriptor& descriptor, TabContext context, QObject* parent, bool lay_out_form = true);
  ~AnalysisTab() override;

  // The tab's id: its descriptor's name ("ablate").
  QString id() const;
  const AnalysisDescriptor& descriptor() const { return *descriptor_; }
  AnalysisPanel* panel() const { return panel_; }
  // The session's index of the model the result on view was computed on (−1: none).
  int resultModel() const { return result_model_; }
  SettingsForm* form() const { return form_; }
  QComboBox* modelChooser(int index = 0) const { return choosers_.value(index); }
  int chosenModel(int index = 0) const;

  virtual void setModels(const std::vector<ModelSummary>& models);
  // Writes the heads panel's gates of the models it would run into its "Heads off" field (a tab
  // whose analysis takes no gates has none); called when gates or the chosen models change.
  void refreshHeadsOff();
  void start();
  void cancel();
  bool isRunning() const;
  void waitForFinished();

  QJsonObject state(const QDir& base) const;
  void restore(const QJsonObject& entry, const QDir& base);
  virtual void clearResult();

 Q_SIGNALS:
  // A finished or restored run's scores per [layer][head] (damage sign applied), for the heads panel.
  void headScores(int model, const QString& label, const std::vector<std::vector<double>>& scores);
  void finished();

 protected:
  struct Run {
    QList<int> models;
    AnalysisSettings settings;  // the form's values, the heads off among them
  };
  // The models a run takes: every loaded model able to run it, or the chosen ones.
  QList<int> runModels() const;
  // Fills the run from the choosers, the heads panel and the form; false with a message to refuse.
  virtual bool prepare(Run& run, QString* refusal) const;
  virtual void showOutput(const AnalysisOutput& output);
  // The heads panel's name for a result's head scores: the descriptor's score_label.
  virtual QString scoreLabel(const AnalysisOutput& output) const;
  // The settings of the run the result on view came from (its text among them, where the tab reads
  // the Attention tab's sentence).
  const AnalysisSettings& resultSettings() const { return result_settings_; }
  // The position the map's `column` stands for in a result with a `position` column (the map shows
  // the positions the table has, in ascending order); −1 when there is none such.
  int positionOfColumn(int column) const;
  virtual void saveExtra(QJsonObject& /*entry*/) const {}
  virtual void restoreExtra(const QJsonObject& /*entry*/, const QDir& /*base*/) {}
  QComboBox* addModelChooser(const QString& label);
  const std::vector<ModelSummary>& models() const { return models_; }
  const AnalysisOutput& shown() const { return shown_; }

  TabContext context_;

 private:
  void finish();
  void updateApplicableFields();  // greys the settings the chosen models cannot use
  unsigned runKinds() const;  // ModelKindBit of the models a run would take

  const AnalysisDescriptor* descriptor_;
  AnalysisPanel* panel_;
  SettingsForm* form_;
  QList<QComboBox*> choosers_;
  std::vector<ModelSummary> models_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QFutureWatcher<AnalysisJobOutcome>* watcher_ = nullptr;
  AnalysisOutput shown_;  // the result on view: its tables and head scores
  int result_model_ = -1;  // the model the result on view was computed on (the first of several)
  int result_models_ = 0;  // how many models it was computed on
  AnalysisSettings result_settings_;  // and with what
};

}  // namespace aw

// app/gui/analysis_tabs.h — the analysis tabs of the main window (Table 1, ablation, importance,
// pruning, top-attended tokens, diagonal sweep): their settings forms, the background jobs that
// run them on the ModelSession (progress, cancel), the plots drawn from their CSV, and their part
// of a saved session (settings and finished results, so reopening does not recompute them).
#pragma once

#include "app/gui/model_session.h"

#include <QDir>
#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QStringList>

#include <atomic>
#include <functional>
#include <map>
#include <memory>

class QButtonGroup;
class QComboBox;
class QTabWidget;
class QWidget;
template <typename T>
class QFutureWatcher;

namespace aw {

class AnalysisPanel;
class LamaTab;

// What a background analysis hands back to the UI thread.
struct AnalysisJobOutcome {
  AnalysisOutput output;
  QString error;  // one line for the user; empty on success
};

class AnalysisTabs : public QObject {
  Q_OBJECT

 public:
  struct Context {
    ModelSession* session = nullptr;
    std::function<HeadGates(int model)> gates;           // the heads panel's state of a model
    std::function<QString()> sentence;                   // the attention view's sentence
    std::function<QStringList(int model)> tokens;        // that sentence's tokens for a model (may be empty)
  };

  AnalysisTabs(Context context, QTabWidget* tabs, QObject* parent = nullptr);
  ~AnalysisTabs() override;

  void setModels(const std::vector<ModelSummary>& models);
  // The data file every tab starts with (until the user picks another).
  void setDefaultCorpus(const QString& path);
  // The sentence's tokens changed: the top-tokens tab offers them as targets.
  void refreshTargets();

  // Panel ids: table1, ablation, importance, pruning, top_tokens, diag_sweep, lama.
  AnalysisPanel* panel(const QString& id) const;
  QStringList ids() const;
  void run(const QString& id);
  bool isRunning() const;
  LamaTab* lama() const { return lama_; }
  void cancelAll();

  // Settings and results of every tab; paths relative to `base` where they lie under it.
  QJsonObject state(const QDir& base) const;
  void restore(const QJsonObject& state, const QDir& base);
  void clearResults();

 Q_SIGNALS:
  // Scores per [layer][head] of a finished ablation (damage) or importance run, for the heads panel.
  void headScores(int model, const QString& label, const std::vector<std::vector<double>>& scores);
  void analysisFinished(const QString& id);

 private:
  struct Tab {
    AnalysisPanel* panel = nullptr;
    std::shared_ptr<std::atomic<bool>> cancel;
    QFutureWatcher<AnalysisJobOutcome>* watcher = nullptr;
    int model = -1;  // the model the last run used (for head scores)
    QMap<QString, QString> parts;  // a result's further CSVs (AnalysisOutput::parts), saved with it
  };

  void addTab(const QString& id, const QString& title, AnalysisPanel* panel);
  QWidget* corpusFields(AnalysisPanel* panel);
  QComboBox* modelChooser(AnalysisPanel* panel, const QString& name, const QString& label);
  CorpusSettings corpus(const AnalysisPanel* panel) const;
  void buildTableOne();
  void buildAblation();
  void buildImportance();
  void buildPruning();
  void buildTopTokens();
  void buildDiagonalSweep();
  void buildLama();
  void start(const QString& id);
  void finish(const QString& id);
  void showResult(const QString& id, const QString& csv, const QMap<QString, QString>& parts = {});
  int chosenModel(const AnalysisPanel* panel, const QString& name) const;

  Context context_;
  QTabWidget* tabs_;
  std::map<QString, Tab> tab_by_id_;
  QStringList order_;
  std::vector<ModelSummary> models_;
  QButtonGroup* target_buttons_ = nullptr;
  QWidget* target_row_ = nullptr;
  LamaTab* lama_ = nullptr;
};

}  // namespace aw

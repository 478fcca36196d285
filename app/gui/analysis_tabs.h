// app/gui/analysis_tabs.h — the analysis tabs of the main window, built from a table {descriptor name
// → description, plot, model choice, extras} (analysis_tabs.cpp) over the analysis registry: Table 1,
// ablation, importance, pruning, top-attended tokens, diagonal sweep and LAMA words. Each tab is an
// AnalysisTab (analysis_tab.h); this collection finds them by id, runs them, and saves and restores
// them with a session.
#pragma once

#include "app/gui/analysis_tab.h"

#include <QDir>
#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <vector>

class QTabWidget;

namespace aw {

class LamaTab;
class TopTokensTab;

class AnalysisTabs : public QObject {
  Q_OBJECT

 public:
  // Every analysis tab, in the order they appear.
  static const std::vector<TabSpec>& table();
  // A tab's id (its descriptor's name) from that name or from its id before descriptors ("table1"
  // → "stats"); "" when no tab has it.
  static QString tabId(const QString& id);

  AnalysisTabs(TabContext context, QTabWidget* tabs, QObject* parent = nullptr);
  ~AnalysisTabs() override;

  void setModels(const std::vector<ModelSummary>& models);
  // The data file every tab starts with (until the user picks another).
  void setDefaultCorpus(const QString& path);
  // The sentence's tokens changed: the top-tokens tab offers them as targets.
  void refreshTargets();

  // Ids are the descriptor names (stats, ablate, importance, prune, top-tokens, diag-sweep,
  // word-weights); the old ids (table1, ablation, pruning, top_tokens, diag_sweep, lama) work too.
  AnalysisTab* tab(const QString& id) const;
  AnalysisPanel* panel(const QString& id) const;
  QStringList ids() const;
  void run(const QString& id);
  bool isRunning() const;
  LamaTab* lama() const { return lama_; }
  TopTokensTab* topTokens() const { return top_tokens_; }
  void cancelAll();

  // Settings (by field name) and results of every tab; paths relative to `base` where they lie under it.
  QJsonObject state(const QDir& base) const;
  void restore(const QJsonObject& state, const QDir& base);
  void clearResults();

 Q_SIGNALS:
  // Scores per [layer][head] of a finished ablation (damage) or importance run, for the heads panel.
  void headScores(int model, const QString& label, const std::vector<std::vector<double>>& scores);
  void analysisFinished(const QString& id);

 private:
  std::vector<AnalysisTab*> tabs_;  // in table order
  LamaTab* lama_ = nullptr;
  TopTokensTab* top_tokens_ = nullptr;
};

}  // namespace aw

// app/gui/analysis_tabs.h — the analysis tabs of the main window: one for every descriptor of the
// analysis registry whose DesktopTab is shown, in its order (Table 1, ablation, importance, pruning,
// top-attended tokens, diagonal sweep, training, LAMA words, then any new analysis); the analyses of a
// group share one tab as its inner tabs (Circuits: path patching, edge attribution, composition). Each tab is an
// AnalysisTab (analysis_tab.h), or a tab class with extras where analysis_tabs.cpp names one; this
// collection finds them by id, runs them, and saves and restores them with a session.
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
  // The descriptors with a tab, in the order the tabs appear.
  static std::vector<const AnalysisDescriptor*> tabbed();
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
  // The heads panel's gates changed: every gated tab's "Heads off" field follows.
  void refreshHeadsOff();

  // Ids are the descriptor names (stats, ablate, importance, prune, top-tokens, diag-sweep,
  // word-weights); the old ids (table1, ablation, pruning, top_tokens, diag_sweep, lama) work too.
  AnalysisTab* tab(const QString& id) const;
  AnalysisPanel* panel(const QString& id) const;
  // The tab whose panel is `page` (a QTabWidget page), or the inner tab a group's page shows; nullptr
  // for the Attention tab.
  AnalysisTab* tabShowing(const QWidget* page) const;
  QStringList ids() const;
  // A group's page ("Circuits"), which holds its members' panels as inner tabs; nullptr for no such group.
  QTabWidget* group(const QString& name) const;
  // Runs the tab's analysis, showing it among its group's inner tabs.
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
  std::vector<AnalysisTab*> tabs_;  // in tab order
  std::vector<QTabWidget*> groups_;  // the groups' pages, each holding its members' panels
  LamaTab* lama_ = nullptr;
  TopTokensTab* top_tokens_ = nullptr;
};

}  // namespace aw

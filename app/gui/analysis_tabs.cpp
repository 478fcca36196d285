// app/gui/analysis_tabs.cpp — see analysis_tabs.h. Adding a tab for a new descriptor is one row of
// the table below (and, at most, a plot in analysis_plots.cpp).
#include "app/gui/analysis_tabs.h"

#include "app/gui/analysis_plots.h"
#include "app/gui/lama_tab.h"
#include "app/gui/settings_form.h"
#include "app/gui/top_tokens_tab.h"

#include <QLineEdit>
#include <QTabWidget>

namespace aw {

const std::vector<TabSpec>& AnalysisTabs::table() {
  static const std::vector<TabSpec> specs = [] {
    std::vector<TabSpec> rows;
    TabSpec stats;
    stats.name = "stats";
    stats.legacy_id = "table1";
    stats.description =
        "<b>Bird-Eye Table 1.</b> Per layer, over every head, row and window: CA = mean attention on the diagonal, "
        "HA(μ), HA(σ) = mean and standard deviation of the strictly lower-triangular weights, Ratio = CA / HA(μ). "
        "Runs every loaded causal language model with its current head gates.";
    stats.plotter = plot_table_one;
    stats.models = ModelChoice::EveryCausal;
    rows.push_back(stats);

    TabSpec ablate;
    ablate.name = "ablate";
    ablate.legacy_id = "ablation";
    ablate.description =
        "<b>Michel Tables 1–3.</b> <i>single</i>: the metric with each head switched off in turn (Δ against the "
        "current gates). <i>all-but-one</i>: per layer, each head kept alone; the best head per layer.";
    ablate.plotter = plot_ablation;
    ablate.score_label = "ablation damage";
    rows.push_back(ablate);

    TabSpec importance;
    importance.name = "importance";
    importance.legacy_id = "importance";
    importance.description =
        "<b>Michel §4.1.</b> I_h = mean over batches of |∂L/∂ξ_h|, each layer divided by its ℓ2 norm.";
    importance.plotter = plot_importance;
    importance.score_label = "importance";
    rows.push_back(importance);

    TabSpec prune;
    prune.name = "prune";
    prune.legacy_id = "pruning";
    prune.description =
        "<b>Michel Figure 3.</b> The metric as more and more heads are switched off, in ascending order of "
        "importance and of the single-head ablation damage (oracle). Runs on the full model (all heads on).";
    prune.plotter = plot_pruning;
    prune.gated = false;
    rows.push_back(prune);

    TabSpec top_tokens;
    top_tokens.name = "top-tokens";
    top_tokens.legacy_id = "top_tokens";
    top_tokens.description =
        "<b>Bird-Eye Table 3.</b> For the attention view's sentence and a target token t (click one), the top-k "
        "tokens attended from the row of token t−1, per layer, mean of the heads, for two models side by side.";
    top_tokens.models = ModelChoice::Two;
    top_tokens.hidden = {"text", "sentences", "target"};
    top_tokens.make = [](const TabSpec& spec, const TabContext& context, QObject* parent) -> AnalysisTab* {
      return new TopTokensTab(spec, context, parent);
    };
    rows.push_back(top_tokens);

    TabSpec diag_sweep;
    diag_sweep.name = "diag-sweep";
    diag_sweep.legacy_id = "diag_sweep";
    diag_sweep.description =
        "<b>Bird-Eye Table 2 / Figure 3.</b> The metric with the dot-product diagonal multiplied by each factor at "
        "inference; \"mask\" = DiagFreeMask (the diagonal removed except for row 0).";
    diag_sweep.plotter = plot_diagonal_sweep;
    rows.push_back(diag_sweep);

    TabSpec words;
    words.name = "word-weights";
    words.legacy_id = "lama";
    words.description = LamaTab::kDescription;
    words.prefers = "lama";
    words.make = [](const TabSpec& spec, const TabContext& context, QObject* parent) -> AnalysisTab* {
      return new LamaTab(spec, context, parent);
    };
    rows.push_back(words);
    return rows;
  }();
  return specs;
}

QString AnalysisTabs::tabId(const QString& id) {
  for (const auto& spec : table())
    if (spec.name == id || spec.legacy_id == id) return spec.name;
  return {};
}

AnalysisTabs::AnalysisTabs(TabContext context, QTabWidget* tabs, QObject* parent) : QObject(parent) {
  for (const auto& spec : table()) {
    auto* tab = spec.make ? spec.make(spec, context, this) : new AnalysisTab(spec, context, this);
    tabs_.push_back(tab);
    if (auto* lama = qobject_cast<LamaTab*>(tab)) lama_ = lama;
    if (auto* top = qobject_cast<TopTokensTab*>(tab)) top_tokens_ = top;
    tabs->addTab(tab->panel(), QString::fromStdString(tab->descriptor().title));
    connect(tab, &AnalysisTab::headScores, this, &AnalysisTabs::headScores);
    connect(tab, &AnalysisTab::finished, this, [this, id = spec.name] { Q_EMIT analysisFinished(id); });
  }
}

AnalysisTabs::~AnalysisTabs() {
  cancelAll();
  for (auto* tab : tabs_) tab->waitForFinished();
}

void AnalysisTabs::setModels(const std::vector<ModelSummary>& models) {
  for (auto* tab : tabs_) tab->setModels(models);
}

void AnalysisTabs::setDefaultCorpus(const QString& path) {
  for (auto* tab : tabs_)
    if (auto* edit = qobject_cast<QLineEdit*>(tab->form()->input("text")); edit && edit->text().isEmpty())
      edit->setText(path);
}

void AnalysisTabs::refreshTargets() {
  if (top_tokens_) top_tokens_->refreshTargets();
}

AnalysisTab* AnalysisTabs::tab(const QString& id) const {
  const auto name = tabId(id);
  for (auto* tab : tabs_)
    if (tab->spec().name == name) return tab;
  return nullptr;
}

AnalysisPanel* AnalysisTabs::panel(const QString& id) const {
  auto* found = tab(id);
  return found ? found->panel() : nullptr;
}

QStringList AnalysisTabs::ids() const {
  QStringList ids;
  for (auto* tab : tabs_) ids << tab->spec().name;
  return ids;
}

void AnalysisTabs::run(const QString& id) {
  if (auto* found = tab(id)) found->start();
}

bool AnalysisTabs::isRunning() const {
  for (auto* tab : tabs_)
    if (tab->isRunning()) return true;
  return false;
}

void AnalysisTabs::cancelAll() {
  for (auto* tab : tabs_) tab->cancel();
}

QJsonObject AnalysisTabs::state(const QDir& base) const {
  QJsonObject state;
  for (auto* tab : tabs_) state[tab->spec().name] = tab->state(base);
  return state;
}

void AnalysisTabs::restore(const QJsonObject& state, const QDir& base) {
  for (auto* tab : tabs_)
    if (state.contains(tab->spec().name)) tab->restore(state[tab->spec().name].toObject(), base);
  refreshTargets();
}

void AnalysisTabs::clearResults() {
  for (auto* tab : tabs_) tab->clearResult();
}

}  // namespace aw

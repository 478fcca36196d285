// app/gui/analysis_tabs.cpp — see analysis_tabs.h. A new descriptor gets a plain tab by itself;
// a row in the table below gives it a plot (analysis_plots.cpp) or extras.
#include "app/gui/analysis_tabs.h"

#include "widgets/analysis_plots.h"
#include "app/gui/lama_tab.h"
#include "app/gui/settings_form.h"
#include "app/gui/top_tokens_tab.h"

#include "analysis/core/registry.h"

#include <QLineEdit>

#include <algorithm>
#include <QTabWidget>

namespace aw {

namespace {

const char* const kStatsDescription =
    "<b>Bird-Eye Table 1.</b> Per layer, over every head, row and window: CA = mean attention on the diagonal, "
    "HA(μ), HA(σ) = mean and standard deviation of the strictly lower-triangular weights (a translation encoder's "
    "rows are not causal: every off-diagonal weight), Ratio = CA / HA(μ). The dashed line and the uniform_ columns: "
    "the same for uniform attention over the same rows. Runs every loaded causal language model or translation "
    "model with its current head gates.";
const char* const kAblateDescription =
    "<b>Michel Tables 1–3.</b> <i>single</i>: the metric with each head switched off in turn (Δ against the "
    "current gates). <i>all-but-one</i>: per layer, each head kept alone; the best head per layer.";
const char* const kImportanceDescription =
    "<b>Michel §4.1.</b> I_h = mean over batches of |∂L/∂ξ_h|, each layer divided by its ℓ2 norm. "
    "<i>Epoch series</i>: I_h of each epoch checkpoint the run kept (train --keep-epochs), heads × epochs.";
const char* const kPruneDescription =
    "<b>Michel Figure 3.</b> The metric as more and more heads are switched off, in ascending order of "
    "importance and of the single-head ablation damage (oracle). Runs on the full model (all heads on). "
    "<i>Epoch series</i> (Michel §6): for each epoch checkpoint the run kept (train --keep-epochs), the share of "
    "heads it can lose before the metric is more than <i>Max drop</i> % worse.";
const char* const kTopTokensDescription =
    "<b>Bird-Eye Table 3.</b> For the attention view's sentence and a target token t (click one), the top-k "
    "tokens attended from the row of token t−1, per layer, mean of the heads, for two models side by side.";
const char* const kTrainingDescription =
    "<b>Bird-Eye Figures 4–5.</b> Training and validation loss per epoch of every loaded model's run, read from "
    "the training.json that <i>attention-cli train</i> wrote into its folder (models trained before the history "
    "was kept are left out).";
const char* const kDiagSweepDescription =
    "<b>Bird-Eye Table 2 / Figure 3.</b> The metric with the dot-product diagonal multiplied by each factor at "
    "inference; \"mask\" = DiagFreeMask (the diagonal removed except for row 0). With a bootstrap, the band is the "
    "95 % interval of each point's difference from the model as trained (paired over the windows).";

template <typename Tab>
AnalysisTab* make_tab(const TabSpec& spec, const TabContext& context, QObject* parent) {
  return new Tab(spec, context, parent);
}

// The rows of the table below, then a plain tab for every other descriptor of the registry that
// wants one: a new analysis has a tab (form, run, table, export) without a row here.
std::vector<TabSpec> with_registry_tabs(std::vector<TabSpec> specs) {
  for (const auto& descriptor : analysis_registry()) {
    const auto name = QString::fromStdString(descriptor.name);
    const bool listed = std::any_of(specs.begin(), specs.end(), [&](const TabSpec& spec) { return spec.name == name; });
    if (listed || !descriptor.desktop_tab) continue;
    TabSpec spec;
    spec.name = name;
    spec.description = QString("<b>%1.</b> %2.").arg(QString::fromStdString(descriptor.title),
                                                     QString::fromStdString(descriptor.summary).toHtmlEscaped());
    spec.score_label = QString::fromStdString(descriptor.title).toLower();
    specs.push_back(spec);
  }
  return specs;
}

}  // namespace

const std::vector<TabSpec>& AnalysisTabs::table() {
  // name, old id, description, plot, models, gated, fields the tab fills, head-score colouring,
  // whether the chooser prefers a model able to run it, the tab's class when it has extras.
  static const std::vector<TabSpec> specs = with_registry_tabs({
      {"stats", "table1", kStatsDescription, plot_table_one, ModelChoice::EveryAble},
      {"ablate", "ablation", kAblateDescription, plot_ablation, ModelChoice::One, true, {}, "ablation damage"},
      {"importance", "importance", kImportanceDescription, plot_importance, ModelChoice::One, true, {}, "importance"},
      {"prune", "pruning", kPruneDescription, plot_pruning, ModelChoice::One, false},
      {"top-tokens", "top_tokens", kTopTokensDescription, {}, ModelChoice::Two, true, {"text", "sentences", "target"},
       {}, {}, make_tab<TopTokensTab>},
      {"diag-sweep", "diag_sweep", kDiagSweepDescription, plot_diagonal_sweep},
      {"training", "training", kTrainingDescription, plot_training, ModelChoice::EveryAble, false},
      {"word-weights", "lama", LamaTab::kDescription, {}, ModelChoice::One, true, {}, {}, true, make_tab<LamaTab>},
  });
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

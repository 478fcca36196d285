// app/gui/analysis_tabs.cpp — see analysis_tabs.h.
#include "app/gui/analysis_tabs.h"

#include "app/gui/lama_tab.h"
#include "widgets/analysis_panel.h"
#include "widgets/result_plot.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QToolButton>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace aw {
namespace {

constexpr int kProgressIntervalMs = 100;  // progress reaches the UI at most this often

// Table rows grouped by a text column, in first-seen order: {group, row indexes}.
std::vector<std::pair<QString, std::vector<int>>> group_rows(const CsvTable& table, int column) {
  std::vector<std::pair<QString, std::vector<int>>> groups;
  for (int row = 0; row < table.rows.size(); ++row) {
    const auto key = column >= 0 ? table.rows[row].value(column) : QString();
    auto found = std::find_if(groups.begin(), groups.end(), [&](const auto& group) { return group.first == key; });
    if (found == groups.end()) groups.push_back({key, {row}});
    else found->second.push_back(row);
  }
  return groups;
}

// values[layer − 1][head − 1] from a table with 1-based `layer` and `head` columns.
QVector<QVector<double>> layer_head_matrix(const CsvTable& table, const QString& value_column) {
  QVector<QVector<double>> values;
  const int layer_col = table.column("layer"), head_col = table.column("head"), value_col = table.column(value_column);
  for (int row = 0; row < table.rows.size(); ++row) {
    const int layer = static_cast<int>(table.number(row, layer_col)), head = static_cast<int>(table.number(row, head_col));
    if (layer < 1 || head < 1) continue;
    while (values.size() < layer) values.append(QVector<double>());
    while (values[layer - 1].size() < head) values[layer - 1].append(NAN);
    values[layer - 1][head - 1] = table.number(row, value_col);
  }
  return values;
}

std::vector<std::vector<double>> to_scores(const QVector<QVector<double>>& values) {
  std::vector<std::vector<double>> scores;
  for (const auto& row : values) scores.emplace_back(row.begin(), row.end());
  return scores;
}

QString metric_label(const CsvTable& table) {
  const auto metric = table.commentValue("metric");
  return metric.isEmpty() ? QString("metric") : metric;
}

void plot_table_one(ResultPlot& plot, const CsvTable& table) {
  const int model_col = table.column("model"), layer_col = table.column("layer"), head_col = table.column("head"),
            ratio_col = table.column("Ratio");
  QStringList categories;
  QVector<PlotSeries> series;
  for (const auto& [model, rows] : group_rows(table, model_col)) {
    PlotSeries bars{model, {}, {}};
    QStringList model_categories;
    for (int row : rows) {
      bars.y << table.number(row, ratio_col);
      model_categories << (head_col >= 0 ? QString("L%1 H%2").arg(table.rows[row].value(layer_col), table.rows[row].value(head_col))
                                         : QString("layer %1").arg(table.rows[row].value(layer_col)));
    }
    if (model_categories.size() > categories.size()) categories = model_categories;
    series << bars;
  }
  plot.showBars("Ratio = CA / HA(μ) per layer", categories, series, "Ratio");
}

void plot_ablation(ResultPlot& plot, const CsvTable& table) {
  const auto metric = metric_label(table);
  if (table.column("best_head") >= 0) {  // all-but-one: the best lone head's delta per layer
    PlotSeries bars{"best head alone", {}, {}};
    QStringList layers;
    for (int row = 0; row < table.rows.size(); ++row) {
      layers << QString("layer %1 (H%2)").arg(table.rows[row].value(0), table.rows[row].value(1));
      bars.y << table.number(row, table.column("delta"));
    }
    plot.showBars("Each layer with only its best head: Δ" + metric, layers, {bars}, "Δ " + metric);
    return;
  }
  plot.showMatrix("Δ" + metric + " with one head off (baseline " + table.commentValue("baseline") + ")",
                  layer_head_matrix(table, "delta"), "L", "H", "Δ " + metric, true);
}

void plot_importance(ResultPlot& plot, const CsvTable& table) {
  plot.showMatrix("Head importance I_h", layer_head_matrix(table, "importance"), "L", "H", "importance", false);
}

void plot_pruning(ResultPlot& plot, const CsvTable& table) {
  QVector<PlotSeries> series;
  for (const auto& [order, rows] : group_rows(table, table.column("order"))) {
    PlotSeries curve{order + " order", {}, {}};
    for (int row : rows) {
      curve.x << table.number(row, table.column("percent_pruned"));
      curve.y << table.number(row, table.column("metric"));
    }
    series << curve;
  }
  plot.showCurves("Pruning heads (Michel Figure 3)", series, "% of heads pruned", metric_label(table));
}

void plot_diagonal_sweep(ResultPlot& plot, const CsvTable& table) {
  PlotSeries curve{"diagonal × factor", {}, {}};
  QVector<ReferenceLine> references;
  for (int row = 0; row < table.rows.size(); ++row) {
    const auto factor = table.rows[row].value(table.column("factor"));
    const double metric = table.number(row, table.column("metric"));
    bool numeric = false;
    const double x = factor.toDouble(&numeric);
    if (numeric) curve.x << x, curve.y << metric;
    else references << ReferenceLine{"DiagFreeMask", metric};
  }
  plot.showCurves("Metric with the attention diagonal scaled (Bird-Eye Figure 3)", {curve}, "diagonal factor",
                  metric_label(table), references);
}

// Each settings widget is saved under its object name; path fields carry the "path" property.
QJsonObject widget_settings(const QWidget* root, const QDir& base) {
  QJsonObject settings;
  for (auto* edit : root->findChildren<QLineEdit*>()) {
    if (edit->objectName().isEmpty()) continue;
    const bool is_path = edit->property("path").toBool() && !edit->text().isEmpty();
    settings[edit->objectName()] = is_path ? base.relativeFilePath(edit->text()) : edit->text();
  }
  for (auto* spin : root->findChildren<QSpinBox*>())
    if (!spin->objectName().isEmpty()) settings[spin->objectName()] = spin->value();
  for (auto* box : root->findChildren<QComboBox*>())
    if (!box->objectName().isEmpty()) settings[box->objectName()] = box->currentIndex();
  for (auto* check : root->findChildren<QCheckBox*>())
    if (!check->objectName().isEmpty()) settings[check->objectName()] = check->isChecked();
  return settings;
}

void restore_widget_settings(QWidget* root, const QJsonObject& settings, const QDir& base) {
  for (auto* edit : root->findChildren<QLineEdit*>())
    if (settings.contains(edit->objectName())) {
      const auto text = settings[edit->objectName()].toString();
      edit->setText(edit->property("path").toBool() && !text.isEmpty() ? QDir::cleanPath(base.absoluteFilePath(text)) : text);
    }
  for (auto* spin : root->findChildren<QSpinBox*>())
    if (settings.contains(spin->objectName())) spin->setValue(settings[spin->objectName()].toInt());
  for (auto* box : root->findChildren<QComboBox*>())
    if (settings.contains(box->objectName())) {
      const int index = settings[box->objectName()].toInt();
      if (index >= 0 && index < box->count()) box->setCurrentIndex(index);
    }
  for (auto* check : root->findChildren<QCheckBox*>())
    if (settings.contains(check->objectName())) check->setChecked(settings[check->objectName()].toBool());
}

}  // namespace

AnalysisTabs::AnalysisTabs(Context context, QTabWidget* tabs, QObject* parent)
    : QObject(parent), context_(std::move(context)), tabs_(tabs) {
  buildTableOne();
  buildAblation();
  buildImportance();
  buildPruning();
  buildTopTokens();
  buildDiagonalSweep();
  buildLama();
}

AnalysisTabs::~AnalysisTabs() {
  cancelAll();
  for (auto& [id, tab] : tab_by_id_)
    if (tab.watcher) tab.watcher->waitForFinished();
}

void AnalysisTabs::addTab(const QString& id, const QString& title, AnalysisPanel* panel) {
  tab_by_id_[id].panel = panel;
  order_ << id;
  tabs_->addTab(panel, title);
  connect(panel, &AnalysisPanel::runRequested, this, [this, id] { start(id); });
  connect(panel, &AnalysisPanel::cancelRequested, this, [this, id] {
    if (auto& cancel = tab_by_id_[id].cancel) *cancel = true;
  });
}

QWidget* AnalysisTabs::corpusFields(AnalysisPanel* panel) {
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* path = new QLineEdit;
  path->setObjectName("corpus");
  path->setProperty("path", true);
  path->setPlaceholderText("text file (language models) or label<TAB>text lines (classifiers)");
  auto* browse = new QPushButton("Browse…");
  connect(browse, &QPushButton::clicked, panel, [panel, path] {
    const auto file = QFileDialog::getOpenFileName(panel, "Data file", path->text());
    if (!file.isEmpty()) path->setText(file);
  });
  auto* window = new QSpinBox;
  window->setObjectName("window");
  window->setRange(2, 4096);
  window->setValue(64);
  window->setPrefix("window ");
  window->setToolTip("Tokens per window (language models)");
  auto* batch = new QSpinBox;
  batch->setObjectName("batch");
  batch->setRange(1, 512);
  batch->setValue(8);
  batch->setPrefix("batch ");
  layout->addWidget(path, 1);
  layout->addWidget(browse);
  layout->addWidget(window);
  layout->addWidget(batch);
  panel->settingsForm()->addRow("Data", row);
  return row;
}

QComboBox* AnalysisTabs::modelChooser(AnalysisPanel* panel, const QString& name, const QString& label) {
  auto* box = new QComboBox;
  box->setObjectName(name);
  box->setProperty("modelChooser", true);
  box->setMinimumContentsLength(16);
  panel->settingsForm()->addRow(label, box);
  return box;
}

int AnalysisTabs::chosenModel(const AnalysisPanel* panel, const QString& name) const {
  auto* box = panel->findChild<QComboBox*>(name);
  return box ? box->currentIndex() : -1;
}

CorpusSettings AnalysisTabs::corpus(const AnalysisPanel* panel) const {
  CorpusSettings settings;
  settings.path = panel->findChild<QLineEdit*>("corpus")->text().trimmed();
  settings.window = panel->findChild<QSpinBox*>("window")->value();
  settings.batch = panel->findChild<QSpinBox*>("batch")->value();
  return settings;
}

void AnalysisTabs::buildTableOne() {
  auto* panel = new AnalysisPanel(
      "<b>Bird-Eye Table 1.</b> Per layer, over every head, row and window: CA = mean attention on the diagonal, "
      "HA(μ), HA(σ) = mean and standard deviation of the strictly lower-triangular weights, Ratio = CA / HA(μ). "
      "Runs every loaded causal language model with its current head gates.");
  corpusFields(panel);
  auto* per_head = new QCheckBox("per head");
  per_head->setObjectName("per_head");
  auto* first_row = new QCheckBox("include row 0 (as in the paper)");
  first_row->setObjectName("first_row");
  first_row->setChecked(true);
  auto* options = new QWidget;
  auto* options_layout = new QHBoxLayout(options);
  options_layout->setContentsMargins(0, 0, 0, 0);
  options_layout->addWidget(per_head);
  options_layout->addWidget(first_row);
  options_layout->addStretch(1);
  panel->settingsForm()->addRow("Options", options);
  panel->setPlotter(plot_table_one);
  addTab("table1", "Table 1", panel);
}

void AnalysisTabs::buildAblation() {
  auto* panel = new AnalysisPanel(
      "<b>Michel Tables 1–3.</b> <i>single</i>: the metric with each head switched off in turn (Δ against the "
      "current gates). <i>all-but-one</i>: per layer, each head kept alone; the best head per layer.");
  modelChooser(panel, "model", "Model");
  auto* mode = new QComboBox;
  mode->setObjectName("mode");
  mode->addItems({"single", "all-but-one"});
  panel->settingsForm()->addRow("Mode", mode);
  corpusFields(panel);
  panel->setPlotter(plot_ablation);
  addTab("ablation", "Ablation", panel);
}

void AnalysisTabs::buildImportance() {
  auto* panel = new AnalysisPanel(
      "<b>Michel §4.1.</b> I_h = mean over batches of |∂L/∂ξ_h|, each layer divided by its ℓ2 norm.");
  modelChooser(panel, "model", "Model");
  auto* normalize = new QCheckBox("divide each layer by its ℓ2 norm");
  normalize->setObjectName("normalize");
  normalize->setChecked(true);
  panel->settingsForm()->addRow("Options", normalize);
  corpusFields(panel);
  panel->setPlotter(plot_importance);
  addTab("importance", "Importance", panel);
}

void AnalysisTabs::buildPruning() {
  auto* panel = new AnalysisPanel(
      "<b>Michel Figure 3.</b> The metric as more and more heads are switched off, in ascending order of importance "
      "and of the single-head ablation damage (oracle). Runs on the full model (all heads on).");
  modelChooser(panel, "model", "Model");
  auto* step = new QSpinBox;
  step->setObjectName("step");
  step->setRange(1, 100);
  step->setValue(10);
  step->setSuffix(" % per step");
  panel->settingsForm()->addRow("Step", step);
  corpusFields(panel);
  panel->setPlotter(plot_pruning);
  addTab("pruning", "Pruning", panel);
}

void AnalysisTabs::buildTopTokens() {
  auto* panel = new AnalysisPanel(
      "<b>Bird-Eye Table 3.</b> For the attention view's sentence and a target token t (click one), the top-k tokens "
      "attended from the row of token t−1, per layer, mean of the heads, for two models side by side.");
  modelChooser(panel, "model_a", "Model A");
  modelChooser(panel, "model_b", "Model B");
  auto* k = new QSpinBox;
  k->setObjectName("k");
  k->setRange(1, 10);
  k->setValue(3);
  panel->settingsForm()->addRow("Top k", k);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFixedHeight(48);
  target_row_ = new QWidget;
  new QHBoxLayout(target_row_);
  target_row_->layout()->setContentsMargins(0, 0, 0, 0);
  scroll->setWidget(target_row_);
  target_buttons_ = new QButtonGroup(this);
  target_buttons_->setExclusive(true);
  panel->settingsForm()->addRow("Target", scroll);
  auto* target = new QSpinBox;  // holds the clicked token's position, saved with the session
  target->setObjectName("target");
  target->setRange(-1, 100000);
  target->setValue(-1);
  target->hide();
  connect(target_buttons_, &QButtonGroup::idClicked, target, &QSpinBox::setValue);
  panel->setPlotVisible(false);
  addTab("top_tokens", "Top tokens", panel);
  connect(panel->findChild<QComboBox*>("model_a"), &QComboBox::currentIndexChanged, this, [this] { refreshTargets(); });
  target->setParent(panel);
}

void AnalysisTabs::buildDiagonalSweep() {
  auto* panel = new AnalysisPanel(
      "<b>Bird-Eye Table 2 / Figure 3.</b> The metric with the dot-product diagonal multiplied by each factor at "
      "inference; \"mask\" = DiagFreeMask (the diagonal removed except for row 0).");
  modelChooser(panel, "model", "Model");
  auto* factors = new QLineEdit("0,0.2,0.4,0.6,0.8,1,1.2,1.4,1.6,1.8,2,mask");
  factors->setObjectName("factors");
  panel->settingsForm()->addRow("Factors", factors);
  corpusFields(panel);
  panel->setPlotter(plot_diagonal_sweep);
  addTab("diag_sweep", "Diagonal sweep", panel);
}

void AnalysisTabs::buildLama() {
  lama_ = new LamaTab(context_.session, context_.gates, this);
  addTab("lama", "LAMA words", lama_->panel());
}

void AnalysisTabs::setModels(const std::vector<ModelSummary>& models) {
  models_ = models;
  for (auto& [id, tab] : tab_by_id_)
    for (auto* box : tab.panel->findChildren<QComboBox*>()) {
      if (!box->property("modelChooser").toBool()) continue;
      const int previous = box->currentIndex();
      const QSignalBlocker block(box);
      box->clear();
      for (const auto& model : models) box->addItem(QString("%1 (%2)").arg(model.name, model.architecture));
      // Model B defaults to the second model, so "two models side by side" works at once; a chooser
      // that prefers an architecture (the LAMA tab) starts on the first model of it.
      int fallback = box->objectName() == "model_b" ? std::min<int>(1, models.size() - 1) : 0;
      const auto prefers = box->property("prefers").toString();
      const auto preferred = std::find_if(models.begin(), models.end(), [&](const auto& m) { return m.architecture == prefers; });
      if (!prefers.isEmpty() && preferred != models.end()) fallback = static_cast<int>(preferred - models.begin());
      // A preferred model that arrives later replaces a fallback that was not of its kind.
      const bool keep = previous >= 0 && previous < box->count() &&
                        (prefers.isEmpty() || models[previous].architecture == prefers || preferred == models.end());
      box->setCurrentIndex(keep ? previous : fallback);
    }
  refreshTargets();
  lama_->modelsChanged(models);
}

void AnalysisTabs::setDefaultCorpus(const QString& path) {
  for (auto& [id, tab] : tab_by_id_)
    if (auto* edit = tab.panel->findChild<QLineEdit*>("corpus"); edit && edit->text().isEmpty()) edit->setText(path);
}

void AnalysisTabs::refreshTargets() {
  auto* panel = tab_by_id_["top_tokens"].panel;
  auto* target = panel->findChild<QSpinBox*>("target");
  const auto tokens = context_.tokens ? context_.tokens(chosenModel(panel, "model_a")) : QStringList();
  for (auto* button : target_buttons_->buttons()) {
    target_buttons_->removeButton(button);
    delete button;
  }
  // Position 0 cannot be a target: nothing precedes it.
  const int chosen = target->value() >= 1 && target->value() < tokens.size() ? target->value() : tokens.size() - 1;
  for (int position = 1; position < tokens.size(); ++position) {
    auto* button = new QToolButton;
    button->setText(tokens[position]);
    button->setToolTip(QString("target position %1").arg(position));
    button->setCheckable(true);
    button->setChecked(position == chosen);
    target_buttons_->addButton(button, position);
    target_row_->layout()->addWidget(button);
  }
  if (tokens.size() < 2) {
    auto* hint = new QToolButton;
    hint->setText("run a sentence of two or more tokens in the Attention tab");
    hint->setEnabled(false);
    target_buttons_->addButton(hint, -1);
    target_row_->layout()->addWidget(hint);
  }
  target->setValue(tokens.size() >= 2 ? chosen : -1);
}

AnalysisPanel* AnalysisTabs::panel(const QString& id) const {
  const auto found = tab_by_id_.find(id);
  return found == tab_by_id_.end() ? nullptr : found->second.panel;
}

QStringList AnalysisTabs::ids() const { return order_; }
void AnalysisTabs::run(const QString& id) { start(id); }

bool AnalysisTabs::isRunning() const {
  for (const auto& [id, tab] : tab_by_id_)
    if (tab.panel->isRunning()) return true;
  return false;
}

void AnalysisTabs::cancelAll() {
  for (auto& [id, tab] : tab_by_id_)
    if (tab.cancel) *tab.cancel = true;
}

void AnalysisTabs::start(const QString& id) {
  auto& tab = tab_by_id_[id];
  auto* panel = tab.panel;
  if (panel->isRunning()) return;
  if (models_.empty()) {
    panel->showMessage("No model loaded: File → Open checkpoint folder…", true);
    return;
  }
  auto* session = context_.session;
  std::function<AnalysisOutput(const AnalysisProgress&)> job;
  tab.model = chosenModel(panel, "model");
  const int model = tab.model;
  if (id == "table1") {
    QList<int> models;
    std::vector<HeadGates> gates;
    for (int i = 0; i < static_cast<int>(models_.size()); ++i)
      if (models_[i].causal && !models_[i].classifier) models << i, gates.push_back(context_.gates(i));
    if (models.isEmpty()) {
      panel->showMessage("Table 1 needs a causal language model; none is loaded", true);
      return;
    }
    const auto data = corpus(panel);
    const bool per_head = panel->findChild<QCheckBox*>("per_head")->isChecked();
    const bool first_row = panel->findChild<QCheckBox*>("first_row")->isChecked();
    job = [=](const AnalysisProgress& progress) { return session->tableOne(models, gates, data, per_head, first_row, progress); };
  } else if (id == "ablation") {
    const auto gates = context_.gates(model);
    const auto data = corpus(panel);
    const bool all_but_one = panel->findChild<QComboBox*>("mode")->currentIndex() == 1;
    job = [=](const AnalysisProgress& progress) { return session->ablation(model, gates, data, all_but_one, progress); };
  } else if (id == "importance") {
    const auto gates = context_.gates(model);
    const auto data = corpus(panel);
    const bool normalize = panel->findChild<QCheckBox*>("normalize")->isChecked();
    job = [=](const AnalysisProgress& progress) { return session->importance(model, gates, data, normalize, progress); };
  } else if (id == "pruning") {
    const auto data = corpus(panel);
    const int step = panel->findChild<QSpinBox*>("step")->value();
    job = [=](const AnalysisProgress& progress) { return session->pruning(model, data, step, progress); };
  } else if (id == "top_tokens") {
    const int a = chosenModel(panel, "model_a"), b = chosenModel(panel, "model_b");
    QList<int> models{a};
    if (b != a) models << b;
    std::vector<HeadGates> gates;
    for (int m : models) gates.push_back(context_.gates(m));
    const auto sentence = context_.sentence();
    const int target = panel->findChild<QSpinBox*>("target")->value();
    const int k = panel->findChild<QSpinBox*>("k")->value();
    job = [=](const AnalysisProgress& progress) { return session->topTokens(models, gates, sentence, target, k, progress); };
  } else if (id == "lama") {
    job = lama_->job(model);
  } else if (id == "diag_sweep") {
    const auto gates = context_.gates(model);
    const auto data = corpus(panel);
    const auto factors = panel->findChild<QLineEdit*>("factors")->text();
    job = [=](const AnalysisProgress& progress) { return session->diagonalSweep(model, gates, data, factors, progress); };
  }

  tab.cancel = std::make_shared<std::atomic<bool>>(false);
  auto cancel = tab.cancel;
  QPointer<AnalysisPanel> target = panel;
  auto clock = std::make_shared<QElapsedTimer>();
  clock->start();
  // Runs on the worker thread: report at most every kProgressIntervalMs, and always the last step.
  AnalysisProgress progress = [cancel, target, clock](qint64 done, qint64 total, const QString& phase) {
    if (done == total || clock->elapsed() >= kProgressIntervalMs) {
      clock->restart();
      QMetaObject::invokeMethod(
          target.data(), [target, done, total, phase] { if (target) target->setProgress(done, total, phase); },
          Qt::QueuedConnection);
    }
    return !*cancel;
  };
  panel->setRunning(true);
  if (!tab.watcher) {
    tab.watcher = new QFutureWatcher<AnalysisJobOutcome>(this);
    connect(tab.watcher, &QFutureWatcher<AnalysisJobOutcome>::finished, this, [this, id] { finish(id); });
  }
  tab.watcher->setFuture(QtConcurrent::run([job, progress]() -> AnalysisJobOutcome {
    try {
      return {job(progress), {}};
    } catch (const std::exception& error) {
      return {{}, QString::fromUtf8(error.what())};
    }
  }));
}

void AnalysisTabs::finish(const QString& id) {
  auto& tab = tab_by_id_[id];
  const auto outcome = tab.watcher->result();
  tab.panel->setRunning(false);
  if (!outcome.error.isEmpty()) tab.panel->showMessage(outcome.error, true);
  else if (outcome.output.cancelled) tab.panel->showMessage("Cancelled — the previous result (if any) is kept", false);
  else showResult(id, outcome.output.csv, outcome.output.parts);
  Q_EMIT analysisFinished(id);
}

void AnalysisTabs::showResult(const QString& id, const QString& csv, const QMap<QString, QString>& parts) {
  auto& tab = tab_by_id_[id];
  tab.parts = parts;
  if (id == "lama") lama_->showResult(csv, parts);
  else tab.panel->setResult(csv);
  const auto& table = tab.panel->table();
  if (id == "importance" && table.column("importance") >= 0) {
    Q_EMIT headScores(tab.model, "importance", to_scores(layer_head_matrix(table, "importance")));
  } else if (id == "ablation" && table.column("head") >= 0) {
    auto scores = to_scores(layer_head_matrix(table, "delta"));
    // Colour by damage: perplexity going up and accuracy going down both count as harm.
    if (metric_label(table) == "accuracy")
      for (auto& layer : scores)
        for (auto& value : layer) value = -value;
    Q_EMIT headScores(tab.model, "ablation damage", scores);
  }
}

QJsonObject AnalysisTabs::state(const QDir& base) const {
  QJsonObject state;
  for (const auto& id : order_) {
    const auto& tab = tab_by_id_.at(id);
    QJsonObject entry{{"settings", widget_settings(tab.panel, base)}};
    if (!tab.panel->csv().isEmpty()) {
      entry["csv"] = tab.panel->csv();
      entry["model"] = tab.model;
      QJsonObject parts;
      for (auto part = tab.parts.begin(); part != tab.parts.end(); ++part) parts[part.key()] = part.value();
      if (!parts.isEmpty()) entry["parts"] = parts;
    }
    state[id] = entry;
  }
  return state;
}

void AnalysisTabs::restore(const QJsonObject& state, const QDir& base) {
  for (const auto& id : order_) {
    if (!state.contains(id)) continue;
    const auto entry = state[id].toObject();
    auto& tab = tab_by_id_[id];
    restore_widget_settings(tab.panel, entry["settings"].toObject(), base);
    if (entry.contains("csv")) {
      tab.model = entry["model"].toInt(-1);
      QMap<QString, QString> parts;
      const auto saved_parts = entry["parts"].toObject();
      for (auto part = saved_parts.begin(); part != saved_parts.end(); ++part) parts[part.key()] = part.value().toString();
      showResult(id, entry["csv"].toString(), parts);
    }
  }
  refreshTargets();
  lama_->modelsChanged(models_);  // its data file and split may have changed
}

void AnalysisTabs::clearResults() {
  lama_->clear();
  for (auto& [id, tab] : tab_by_id_) {
    tab.parts.clear();
    tab.panel->setResult({});
    tab.panel->plot()->clear("Run the analysis to see its plot");
  }
}

}  // namespace aw

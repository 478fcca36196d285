// app/gui/analysis_tab.cpp — see analysis_tab.h.
#include "app/gui/analysis_tab.h"

#include "analysis/core/registry.h"
#include "app/gui/settings_form.h"
#include "app/gui/token_display.h"
#include "table/csv_format.h"
#include "widgets/model_box.h"
#include "widgets/result_plot.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QJsonArray>
#include <QLineEdit>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <iterator>
#include <set>

namespace aw {
namespace {

constexpr int kProgressIntervalMs = 100;  // progress reaches the UI at most this often

QJsonArray to_json(const std::vector<std::vector<double>>& values) {
  QJsonArray layers;
  for (const auto& layer : values) {
    QJsonArray heads;
    for (double value : layer) heads.append(value);
    layers.append(heads);
  }
  return layers;
}

std::vector<std::vector<double>> from_json(const QJsonArray& layers) {
  std::vector<std::vector<double>> values;
  for (const auto& layer : layers) {
    values.emplace_back();
    for (const auto& head : layer.toArray()) values.back().push_back(head.toDouble());
  }
  return values;
}


// The rich text over a tab's form: the descriptor's own, or its title and summary.
QString tab_description(const AnalysisDescriptor& descriptor) {
  if (!descriptor.tab.description.empty()) return QString::fromStdString(descriptor.tab.description);
  return QString("<b>%1.</b> %2.").arg(QString::fromStdString(descriptor.title),
                                      QString::fromStdString(descriptor.summary).toHtmlEscaped());
}

}  // namespace

AnalysisTab::AnalysisTab(const AnalysisDescriptor& descriptor, TabContext context, QObject* parent, bool lay_out_form)
    : QObject(parent), context_(std::move(context)), descriptor_(&descriptor) {
  panel_ = new AnalysisPanel(tab_description(descriptor));
  form_ = new SettingsForm(descriptor, panel_);
  if (descriptor.tab.models == TabModels::One) addModelChooser("Model");
  if (descriptor.tab.models == TabModels::Two) addModelChooser("Model A"), addModelChooser("Model B");
  if (auto* heads_off = qobject_cast<QLineEdit*>(form_->input("heads-off")))
    heads_off->setPlaceholderText("every head on — the heads panel fills this");
  if (lay_out_form) form_->addRowsTo(panel_->settingsForm());
  QList<QPair<QString, QString>> other_tables;
  for (const auto& [part, title] : descriptor.tab.other_tables)
    other_tables.append({QString::fromStdString(part), QString::fromStdString(title)});
  panel_->setOtherTables(other_tables);
  if (const auto* kind = find_plot_kind(descriptor.plot))
    panel_->setPlotter([draw = kind->draw](ResultPlot& plot, const PlotInput& input) {
      PlotInput shown = input;  // the table's tokens as the rest of the window shows them
      shown.token_text = shown_token;
      draw(plot, shown);
    });
  else panel_->setPlotVisible(false);
  connect(panel_, &AnalysisPanel::runRequested, this, &AnalysisTab::start);
  connect(panel_, &AnalysisPanel::cancelRequested, this, &AnalysisTab::cancel);
}

QString AnalysisTab::id() const { return QString::fromStdString(descriptor_->name); }

AnalysisTab::~AnalysisTab() {
  cancel();
  waitForFinished();
}

QComboBox* AnalysisTab::addModelChooser(const QString& label) {
  auto* box = new QComboBox;
  box->setObjectName(choosers_.isEmpty() ? "model" : QString("model_%1").arg(choosers_.size() + 1));
  box->setMinimumContentsLength(16);
  panel_->settingsForm()->addRow(label, box);
  choosers_ << box;
  connect(box, &QComboBox::currentIndexChanged, this, [this] {
    updateApplicableFields();
    refreshHeadsOff();
  });
  return box;
}

int AnalysisTab::chosenModel(int index) const {
  auto* box = choosers_.value(index);
  return box ? box->currentIndex() : -1;
}

void AnalysisTab::setModels(const std::vector<ModelSummary>& models) {
  models_ = models;
  const auto able = [this](const ModelSummary& model) { return model.analyses.contains(id()); };
  const auto preferred = std::find_if(models.begin(), models.end(), able);
  for (int index = 0; index < choosers_.size(); ++index) {
    auto* box = choosers_[index];
    const int previous = box->currentIndex();
    const QSignalBlocker block(box);
    QStringList names, architectures;
    for (const auto& model : models) names << model.name, architectures << model.architecture;
    fill_model_box(box, names, architectures);
    // The second chooser starts on the second model, so "two models side by side" works at once; a
    // tab that prefers a model able to run it (LAMA words) starts on the first such model.
    int fallback = std::min<int>(index, static_cast<int>(models.size()) - 1);
    if (descriptor_->tab.prefers_able && preferred != models.end())
      fallback = static_cast<int>(preferred - models.begin());
    // A preferred model that arrives later replaces a fallback that was not of its kind.
    // A second chooser left on the first one's model (all there was) moves on when another arrives.
    const bool keep = previous >= 0 && previous < box->count() &&
                      (!descriptor_->tab.prefers_able || able(models[previous]) ||
                       preferred == models.end()) &&
                      !(index > 0 && previous == choosers_[0]->currentIndex() && fallback != previous);
    box->setCurrentIndex(keep ? previous : fallback);
  }
  updateApplicableFields();
  refreshHeadsOff();
}

QList<int> AnalysisTab::runModels() const {
  QList<int> models;
  if (descriptor_->tab.models == TabModels::EveryAble) {
    for (int model = 0; model < static_cast<int>(models_.size()); ++model)
      if (models_[model].analyses.contains(id())) models << model;
    return models;
  }
  for (int index = 0; index < choosers_.size(); ++index)
    if (chosenModel(index) >= 0 && !models.contains(chosenModel(index))) models << chosenModel(index);
  return models;
}

void AnalysisTab::refreshHeadsOff() {
  if (!descriptor_->gated() || !context_.session || !context_.gates) return;
  QStringList groups;
  bool any_off = false;
  for (int model : runModels()) {
    const auto gates = context_.gates(model);
    any_off = any_off || gates.offCount() > 0;
    groups << (gates.offCount() > 0 ? context_.session->headsOffText(model, gates) : QString("none"));
  }
  form_->setValue("heads-off", any_off ? groups.join(";") : QString());
}

// A classifier reads each example whole: the window is a language model's setting.
unsigned AnalysisTab::runKinds() const {
  unsigned kinds = 0;
  for (int model : runModels()) {
    if (model < 0 || model >= static_cast<int>(models_.size())) continue;
    const auto& summary = models_[static_cast<size_t>(model)];
    kinds |= summary.classifier ? kClassifiers : summary.translation ? kTranslationModels : kLanguageModels;
  }
  return kinds;
}

void AnalysisTab::updateApplicableFields() { form_->setModelKinds(runKinds()); }

bool AnalysisTab::prepare(Run& run, QString* refusal) const {
  run.models = runModels();
  if (descriptor_->tab.models == TabModels::EveryAble && run.models.isEmpty()) {
    *refusal = QString::fromStdString(descriptor_->title + " needs " + requirement_text(descriptor_->models) +
                                      "; none is loaded");
    return false;
  }
  // What the models cannot use stays out of their run (a classifier's window would be refused): the
  // form leaves out what it greys, for these models.
  form_->setModelKinds(runKinds());
  run.settings = form_->values();
  if (!descriptor_->tab.sentence_field.empty()) {  // the text the Attention tab shows
    const auto sentence = context_.sentence ? context_.sentence().trimmed() : QString();
    if (sentence.isEmpty()) {
      *refusal = "Type a sentence in the Attention tab first";
      return false;
    }
    run.settings[QString::fromStdString(descriptor_->tab.sentence_field)] = sentence;
  }
  return true;
}

int AnalysisTab::positionOfColumn(int column) const {
  const auto& table = panel_->table();
  if (!panel_->hasResult() || table.column("position") < 0 || column < 0) return -1;
  std::set<int> positions;
  for (int row = 0; row < table.row_count(); ++row)
    positions.insert(static_cast<int>(table.number(row, table.column("position"))));
  return column < static_cast<int>(positions.size()) ? *std::next(positions.begin(), column) : -1;
}

void AnalysisTab::start() {
  if (isRunning()) return;
  if (models_.empty()) {
    panel_->showMessage("No model loaded: File → Open checkpoint folder…", true);
    return;
  }
  Run run;
  QString refusal;
  if (!prepare(run, &refusal)) {
    panel_->showMessage(refusal, true);
    return;
  }
  result_model_ = run.models.value(0, -1);
  result_models_ = static_cast<int>(run.models.size());
  result_settings_ = run.settings;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto cancel = cancel_;
  QPointer<AnalysisPanel> target = panel_;
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
  panel_->setRunning(true);
  if (!watcher_) {
    watcher_ = new QFutureWatcher<AnalysisJobOutcome>(this);
    connect(watcher_, &QFutureWatcher<AnalysisJobOutcome>::finished, this, &AnalysisTab::finish);
  }
  auto* session = context_.session;
  const auto name = id();
  watcher_->setFuture(QtConcurrent::run([session, name, run, progress]() -> AnalysisJobOutcome {
    try {
      return {session->run(name, run.models, run.settings, progress), {}};
    } catch (const std::exception& error) {
      return {{}, QString::fromUtf8(error.what())};
    }
  }));
}

void AnalysisTab::cancel() {
  if (cancel_) *cancel_ = true;
}

bool AnalysisTab::isRunning() const { return panel_->isRunning(); }

void AnalysisTab::waitForFinished() {
  if (watcher_) watcher_->waitForFinished();
}

void AnalysisTab::finish() {
  const auto outcome = watcher_->result();
  if (!outcome.error.isEmpty()) {
    panel_->endRun(AnalysisPanel::RunEnd::Failed);
    panel_->showMessage(outcome.error, true);
  } else if (outcome.output.cancelled) {
    panel_->endRun(AnalysisPanel::RunEnd::Cancelled);
    panel_->showMessage("Cancelled — the previous result (if any) is kept", false);
  } else {
    panel_->endRun(AnalysisPanel::RunEnd::Done);
    showOutput(outcome.output);
  }
  Q_EMIT finished();
}

void AnalysisTab::showOutput(const AnalysisOutput& output) {
  shown_ = output;
  // Exports are named for the analysis and its model: ablate_vanilla_lm.csv; a run over several models
  // for the first and how many (stats_vanilla_lm_and_2_more.csv), not as if it were the first alone.
  const bool known = result_model_ >= 0 && result_model_ < static_cast<int>(models_.size());
  panel_->setExportName(id() + (known ? "_" + models_[static_cast<size_t>(result_model_)].name : QString()) +
                        (known && result_models_ > 1 ? QString("_and_%1_more").arg(result_models_ - 1) : QString()));
  if (output.hasResult()) panel_->setResult(output.mainTable(), output.tables);
  else panel_->clearResult();
  if (!output.notes.isEmpty()) panel_->showMessage(output.notes.join("; "), false);
  const auto label = scoreLabel(output);
  if (output.head_scores && !label.isEmpty()) {
    const int model = output.head_scores->model >= 0 ? output.head_scores->model : result_model_;
    Q_EMIT headScores(model, label, output.head_scores->damage());
  }
}

QString AnalysisTab::scoreLabel(const AnalysisOutput& /*output*/) const {
  return QString::fromStdString(descriptor_->tab.score_label);
}

void AnalysisTab::clearResult() {
  shown_ = {};
  panel_->clearResult();
  panel_->plot()->clear("Run the analysis to see its plot");
}

QJsonObject AnalysisTab::state(const QDir& base) const {
  QJsonObject entry{{"settings", form_->save(base)}};
  QJsonArray chosen;
  for (int index = 0; index < choosers_.size(); ++index) chosen.append(chosenModel(index));
  if (!chosen.isEmpty()) entry["models"] = chosen;
  if (shown_.hasResult()) {
    entry["csv"] = QString::fromStdString(write_csv(shown_.mainTable()));
    entry["model"] = result_model_;
    entry["models"] = result_models_;  // how many it ran on (read with a default of 1: older sessions)
    QJsonObject parts;
    for (const auto& [name, table] : shown_.tables)
      if (name != shown_.main) parts[QString::fromStdString(name)] = QString::fromStdString(write_csv(table));
    if (!shown_.description.isEmpty()) parts["description"] = shown_.description;
    if (!parts.isEmpty()) entry["parts"] = parts;
    if (const auto& scores = shown_.head_scores)
      entry["head_scores"] = QJsonObject{{"label", QString::fromStdString(scores->label)},
                                         {"damage_sign", scores->damage_sign},
                                         {"model", scores->model},
                                         {"values", to_json(scores->values)}};
  }
  saveExtra(entry);
  return entry;
}

void AnalysisTab::restore(const QJsonObject& entry, const QDir& base) {
  form_->restore(entry["settings"].toObject(), base);
  const auto chosen = entry["models"].toArray();
  for (int index = 0; index < choosers_.size() && index < chosen.size(); ++index) {
    const int model = chosen[index].toInt(-1);
    if (model >= 0 && model < choosers_[index]->count()) choosers_[index]->setCurrentIndex(model);
  }
  restoreExtra(entry, base);
  if (!entry.contains("csv")) return;
  result_model_ = entry["model"].toInt(-1);
  result_models_ = entry["models"].toInt(1);
  // Saved as the CSVs the CLI writes (older sessions too), read back as tables.
  AnalysisOutput output;
  output.main = descriptor_->stdout_part;
  output.tables[output.main] = read_csv(entry["csv"].toString().toStdString());
  const auto parts = entry["parts"].toObject();
  for (auto part = parts.begin(); part != parts.end(); ++part) {
    if (part.key() == "description") output.description = part.value().toString();
    else output.tables[part.key().toStdString()] = read_csv(part.value().toString().toStdString());
  }
  if (entry.contains("head_scores")) {
    const auto scores = entry["head_scores"].toObject();
    output.head_scores = HeadScores{scores["label"].toString().toStdString(), from_json(scores["values"].toArray()),
                                    scores["damage_sign"].toInt(1), scores["model"].toInt(result_model_)};
  }
  showOutput(output);
}

}  // namespace aw

// app/gui/head_types_tab.cpp — see head_types_tab.h.
#include "app/gui/head_types_tab.h"

#include "analysis/core/descriptor.h"
#include "widgets/result_plot.h"
#include "widgets/top_heads_table.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QJsonObject>
#include <QLabel>

#include <cmath>

namespace aw {
namespace {

const char* const kNoScatter = "—";

// The `score` field's choices: the scores, in the table's order.
QStringList score_names(const AnalysisDescriptor& descriptor) {
  QStringList names;
  if (const auto* field = descriptor.field("score"))
    for (const auto& choice : field->choices) names << QString::fromStdString(choice);
  return names;
}

// values[layer − 1][head − 1] of one score column.
std::vector<std::vector<double>> score_grid(const ResultTable& table, const std::string& score) {
  std::vector<std::vector<double>> grid;
  const int layer_col = table.column("layer"), head_col = table.column("head"), score_col = table.column(score);
  if (layer_col < 0 || head_col < 0 || score_col < 0) return grid;
  for (int row = 0; row < table.row_count(); ++row) {
    const auto layer = static_cast<size_t>(table.number(row, layer_col)), head = static_cast<size_t>(table.number(row, head_col));
    if (layer < 1 || head < 1) continue;
    if (grid.size() < layer) grid.resize(layer);
    if (grid[layer - 1].size() < head) grid[layer - 1].resize(head, NAN);
    grid[layer - 1][head - 1] = table.number(row, score_col);
  }
  return grid;
}

}  // namespace

HeadTypesTab::HeadTypesTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent)
    : AnalysisTab(descriptor, context, parent) {
  const auto names = score_names(descriptor);
  auto* controls = new QWidget;
  auto* row = new QHBoxLayout(controls);
  row->setContentsMargins(0, 0, 0, 0);
  score_ = new QComboBox;
  score_->addItems(names);
  score_->setCurrentText("induction");
  score_->setToolTip("The score mapped over layers × heads, and the heads panel's colouring");
  against_ = new QComboBox;
  against_->addItem(kNoScatter);
  against_->addItems(names);
  against_->setToolTip("A second score: the map becomes a scatter, a point per head, this score across");
  row->addWidget(new QLabel("Show"));
  row->addWidget(score_);
  row->addWidget(new QLabel("against"));
  row->addWidget(against_);
  row->addStretch(1);
  top_heads_ = new TopHeadsTable(3);
  panel()->addResultViews(top_heads_, controls);
  connect(score_, &QComboBox::currentTextChanged, this, [this] { showChosen(); });
  connect(against_, &QComboBox::currentTextChanged, this, [this] { showChosen(); });
  connect(top_heads_, &TopHeadsTable::headClicked, this, [this](int, int, const QString& score) {
    against_->setCurrentText(kNoScatter);
    score_->setCurrentText(score);
  });
  // The plot reads the choosers: the map of one score, or a scatter of two.
  panel()->setPlotter([this](ResultPlot& plot, const PlotInput& input) {
    PlotInput chosen = input;
    chosen.score = score_->currentText().toStdString();
    if (against_->currentText() != kNoScatter) {
      chosen.scatter_x = against_->currentText().toStdString();
      chosen.scatter_y = chosen.score;
    }
    if (const auto* kind = find_plot_kind("head-types")) kind->draw(plot, chosen);
  });
}

void HeadTypesTab::showOutput(const AnalysisOutput& output) {
  {
    // A fresh run maps the score it coloured the heads panel by; a restored session its saved view.
    const QSignalBlocker score_blocker(score_), against_blocker(against_);
    if (!pending_view_.isEmpty()) {
      score_->setCurrentText(pending_view_.value("score").toString());
      against_->setCurrentText(pending_view_.value("against").toString(kNoScatter));
      pending_view_ = {};
    } else if (output.head_scores) {
      score_->setCurrentText(QString::fromStdString(output.head_scores->label));
    }
  }
  AnalysisTab::showOutput(output);
  if (output.hasResult()) top_heads_->setResult(output.mainTable());
  else top_heads_->clearResult();
}

QString HeadTypesTab::scoreLabel(const AnalysisOutput& /*output*/) const { return score_->currentText(); }

void HeadTypesTab::showChosen() {
  panel()->redrawPlot();
  if (!shown().hasResult() || !shown().head_scores) return;
  const int model = shown().head_scores->model >= 0 ? shown().head_scores->model : resultModel();
  const auto score = score_->currentText();
  Q_EMIT headScores(model, score, score_grid(shown().mainTable(), score.toStdString()));
}

void HeadTypesTab::saveExtra(QJsonObject& entry) const {
  entry["view"] = QJsonObject{{"score", score_->currentText()}, {"against", against_->currentText()}};
}

void HeadTypesTab::restoreExtra(const QJsonObject& entry, const QDir& /*base*/) {
  pending_view_ = entry.value("view").toObject();
  if (!entry.contains("csv")) pending_view_ = {};  // no result to show it on
}

}  // namespace aw

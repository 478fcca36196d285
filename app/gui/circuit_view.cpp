// app/gui/circuit_view.cpp — see circuit_view.h.
#include "app/gui/circuit_view.h"

#include "app/gui/analysis_tabs.h"
#include "app/gui/model_session.h"
#include "app/gui/settings_form.h"
#include "widgets/analysis_panel.h"
#include "widgets/circuit_edges.h"
#include "widgets/circuit_graph.h"
#include "widgets/export_folder.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QTextStream>
#include <QVBoxLayout>

namespace aw {

CircuitView::CircuitView(AnalysisTabs* analyses, TabContext context, QWidget* parent)
    : QWidget(parent), analyses_(analyses), context_(std::move(context)) {
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel("<b>Circuit view.</b> The last result of an analysis of this tab as a graph: layers as "
                           "columns, heads (and MLPs) as nodes, an edge wherever its |value| reaches the threshold. "
                           "Click an edge for its numbers.");
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("Edges"));
  source_ = new QComboBox;
  source_->setObjectName("source");
  source_->addItem("Edge attribution", "eap");
  source_->addItem("Path patching", "path-patch");
  source_->addItem("Composition", "composition");
  controls->addWidget(source_);
  controls->addSpacing(12);
  controls->addWidget(new QLabel("Threshold"));
  threshold_ = new QSlider(Qt::Horizontal);
  threshold_->setObjectName("threshold");
  threshold_->setRange(0, 100);
  threshold_->setValue(5);
  threshold_->setToolTip("Edges whose |value| is at least this share of the largest are drawn");
  controls->addWidget(threshold_, 1);
  count_ = new QLabel;
  count_->setMinimumWidth(150);
  controls->addWidget(count_);
  for (const auto& [text, suffix] : {std::pair{"Export SVG…", "svg"}, {"Export PNG…", "png"}, {"Export PDF…", "pdf"}}) {
    auto* button = new QPushButton(text);
    connect(button, &QPushButton::clicked, this, [this, suffix = QString(suffix)] {
      const auto path = QFileDialog::getSaveFileName(this, "Export the circuit", suggested_export_path("circuit." + suffix),
                                                     suffix.toUpper() + " (*." + suffix + ")");
      if (path.isEmpty()) return;
      QString error;
      if (exportTo(path, &error)) remember_export(path);
      else details_->setText(error);
    });
    controls->addWidget(button);
  }
  layout->addLayout(controls);
  graph_ = new CircuitGraph;
  graph_->setObjectName("circuit_graph");
  layout->addWidget(graph_, 1);
  auto* below = new QHBoxLayout;
  details_ = new QLabel("No edge chosen");
  details_->setObjectName("edge_details");
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  below->addWidget(details_, 1);
  pair_ = new QComboBox;
  pair_->setObjectName("pair");
  pair_->setMinimumContentsLength(24);
  pair_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  below->addWidget(pair_);
  heads_ = new QPushButton("Both heads' attention");
  heads_->setToolTip("The chosen edge's sender and receiver heads' attention on the chosen prompt, each in a window");
  below->addWidget(heads_);
  layout->addLayout(below);

  connect(source_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(threshold_, &QSlider::valueChanged, this, [this](int value) {
    graph_->setThreshold(value / 100.0);
    count_->setText(QString("%1 of %2 edges").arg(graph_->shownEdges().size()).arg(graph_->graph().edges.size()));
    if (graph_->selectedEdge() < 0) details_->setText("No edge chosen");
  });
  connect(graph_, &CircuitGraph::edgeClicked, this, &CircuitView::showEdge);
  connect(heads_, &QPushButton::clicked, this, [this] { showHeads(); });
  connect(analyses_, &AnalysisTabs::analysisFinished, this, [this](const QString& id) {
    // A finished circuit analysis shows itself: its graph is what the user just asked for.
    const int index = source_->findData(id);
    if (index < 0) return;
    if (index != source_->currentIndex()) source_->setCurrentIndex(index);  // refreshes
    else refresh();
  });
  refresh();
}

void CircuitView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  const auto* tab = analyses_->tab(sourceId());
  const auto table_rows = tab ? tab->panel()->table().row_count() : 0;
  // Redrawn only when what it shows is out of date (a selection survives switching tabs).
  if (static_cast<int64_t>(graph_->graph().edges.size()) == 0 && table_rows > 0) refresh();
}

QString CircuitView::sourceId() const { return source_->currentData().toString(); }

void CircuitView::refresh() {
  auto* tab = analyses_->tab(sourceId());
  model_ = tab ? tab->resultModel() : -1;
  std::vector<int> heads;
  QStringList layer_names;
  if (model_ >= 0 && context_.session && model_ < context_.session->count()) {
    const auto& summary = context_.session->summary(model_);
    for (const auto count : summary.heads_per_block) heads.push_back(count);
    layer_names = summary.layer_names;
  }
  graph_->setGraph(tab && model_ >= 0 ? circuit_edges(sourceId(), tab->panel()->table(), heads, layer_names)
                                      : CircuitGraphData{});
  graph_->setThreshold(threshold_->value() / 100.0);
  count_->setText(QString("%1 of %2 edges").arg(graph_->shownEdges().size()).arg(graph_->graph().edges.size()));
  details_->setText("No edge chosen");
  // The prompts a pair file offers (composition has none: the Attention tab's sentence).
  prompts_.clear();
  pair_->clear();
  const auto* pairs = tab ? qobject_cast<QLineEdit*>(tab->form()->input("pairs")) : nullptr;
  if (pairs && !pairs->text().isEmpty()) {
    QFile file(pairs->text());
    if (file.open(QIODevice::ReadOnly | QIODevice::Text)) {
      QTextStream in(&file);
      while (!in.atEnd()) {
        // clean, corrupted, answer, foil; a translation model's: clean source, corrupted source,
        // translation, answer, foil (its attention is shown on the clean source).
        const auto fields = in.readLine().split('\t');
        if (fields.size() != 4 && fields.size() != 5) continue;
        prompts_ << fields[0];
        pair_->addItem(QString("%1: %2 → %3").arg(prompts_.size()).arg(fields[0], fields[fields.size() - 2]));
      }
    }
  } else if (context_.sentence) {
    prompts_ << context_.sentence();
    pair_->addItem("the Attention tab's sentence");
  }
}

void CircuitView::showEdge(int index) {
  const auto& edges = graph_->graph().edges;
  if (index < 0 || index >= static_cast<int>(edges.size())) return;
  const auto& edge = edges[index];
  details_->setText("<b>" + edge.label().toHtmlEscaped() + "</b>: " + edge.detail.toHtmlEscaped().replace("\n", " · "));
}

bool CircuitView::showHeads() {
  const int index = graph_->selectedEdge();
  const int chosen = pair_->currentIndex();
  if (index < 0 || model_ < 0 || chosen < 0 || chosen >= prompts_.size() || !context_.show_attention) return false;
  const auto& edge = graph_->graph().edges[index];
  bool shown = false;
  for (const auto& node : {edge.sender, edge.receiver}) {
    if (node.kind != CircuitNode::Head) continue;
    context_.show_attention(model_, prompts_[chosen], pair_->currentText(), node.layer, node.head, -1);
    shown = true;
  }
  return shown;
}

bool CircuitView::exportTo(const QString& path, QString* error) {
  const auto suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "svg") return graph_->saveSvg(path, error);
  if (suffix == "png") return graph_->savePng(path, error);
  if (suffix == "pdf") return graph_->savePdf(path, error);
  if (error) *error = path + ": the circuit exports as .svg, .png or .pdf";
  return false;
}

}  // namespace aw

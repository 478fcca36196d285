// widgets/circuit_graph.cpp — see circuit_graph.h. The painting is one function of an area, so the
// window, the SVG, the PNG and the PDF are the same drawing.
#include "widgets/circuit_graph.h"

#include <QFileInfo>
#include <QImage>
#include <QMouseEvent>
#include <QPageSize>
#include <QPainter>
#include <QPainterPath>
#include <QPainterPathStroker>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace aw {

QString CircuitNode::label() const {
  switch (kind) {
    case Input: return "input";
    case Head: return QString("%1.%2").arg(layer + 1).arg(head + 1);
    case Mlp: return QString("mlp %1").arg(layer + 1);
    case Logits: return "logits";
  }
  return {};
}

QString CircuitEdge::label() const {
  return sender.label() + " → " + (input.isEmpty() ? QString() : input + " ") + receiver.label();
}

namespace {

constexpr double kTitleHeight = 20, kHeaderHeight = 18, kLegendHeight = 22, kLeftMargin = 40, kRightMargin = 12;
const QColor kPositive(178, 24, 43), kNegative(33, 102, 172);

double edge_width(double value, double largest) { return 0.6 + 4.4 * std::abs(value) / std::max(largest, 1e-300); }

}  // namespace

struct CircuitGraph::Layout {
  QRectF plot;
  bool input = false, logits = false;
  int columns = 1, rows = 1;
  double column_width = 1, row_height = 1, radius = 4;
};

CircuitGraph::CircuitGraph(QWidget* parent) : QWidget(parent) {
  setMouseTracking(false);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setToolTip("Click an edge to see its numbers");
}

void CircuitGraph::setGraph(CircuitGraphData data) {
  data_ = std::move(data);
  selected_ = -1;
  update();
}

void CircuitGraph::setThreshold(double share) {
  threshold_ = std::clamp(share, 0.0, 1.0);
  const auto shown = shownEdges();
  if (selected_ >= 0 && std::find(shown.begin(), shown.end(), selected_) == shown.end()) selected_ = -1;
  update();
}

double CircuitGraph::largest() const {
  double most = 0;
  for (const auto& edge : data_.edges)
    if (std::isfinite(edge.value)) most = std::max(most, std::abs(edge.value));
  return most;
}

std::vector<int> CircuitGraph::shownEdges() const {
  std::vector<int> shown;
  const double most = largest(), floor = threshold_ * most;
  for (int i = 0; i < static_cast<int>(data_.edges.size()); ++i) {
    const double value = data_.edges[i].value;
    if (std::isfinite(value) && most > 0 && std::abs(value) >= floor && value != 0) shown.push_back(i);
  }
  std::stable_sort(shown.begin(), shown.end(), [&](int a, int b) {
    return std::abs(data_.edges[a].value) < std::abs(data_.edges[b].value);
  });
  return shown;
}

void CircuitGraph::selectEdge(int index) {
  selected_ = index >= 0 && index < static_cast<int>(data_.edges.size()) ? index : -1;
  update();
}

CircuitGraph::Layout CircuitGraph::layout(const QRectF& area) const {
  Layout at;
  for (const auto& edge : data_.edges) {
    at.input = at.input || edge.sender.kind == CircuitNode::Input;
    at.logits = at.logits || edge.receiver.kind == CircuitNode::Logits;
  }
  const int layers = static_cast<int>(data_.heads_per_layer.size());
  const int heads = data_.heads_per_layer.empty() ? 1 : *std::max_element(data_.heads_per_layer.begin(), data_.heads_per_layer.end());
  at.columns = std::max(1, layers + (at.input ? 1 : 0) + (at.logits ? 1 : 0));
  at.rows = std::max(1, heads + (data_.mlps ? 1 : 0));
  at.plot = area.adjusted(kLeftMargin, kTitleHeight + kHeaderHeight, -kRightMargin, -kLegendHeight);
  at.column_width = at.plot.width() / at.columns;
  at.row_height = at.plot.height() / at.rows;
  at.radius = std::clamp(std::min(at.column_width, at.row_height) * 0.22, 2.5, 12.0);
  return at;
}

QPointF CircuitGraph::centre(const Layout& at, const CircuitNode& node) const {
  const int layers = static_cast<int>(data_.heads_per_layer.size());
  int column = 0;
  double row = (at.rows - 1) / 2.0;
  switch (node.kind) {
    case CircuitNode::Input: column = 0; break;
    case CircuitNode::Logits: column = layers + (at.input ? 1 : 0); break;
    case CircuitNode::Head: column = node.layer + (at.input ? 1 : 0), row = node.head; break;
    case CircuitNode::Mlp: column = node.layer + (at.input ? 1 : 0), row = at.rows - 1; break;
  }
  return {at.plot.left() + (column + 0.5) * at.column_width, at.plot.top() + (row + 0.5) * at.row_height};
}

QPointF CircuitGraph::nodeCentre(const CircuitNode& node) const { return centre(layout(rect()), node); }

QPainterPath CircuitGraph::edgePath(const Layout& at, const CircuitEdge& edge) const {
  const double r = at.radius;
  const double port = edge.input == "q" ? -0.5 * r : edge.input == "v" ? 0.5 * r : 0.0;
  const auto from = centre(at, edge.sender), to = centre(at, edge.receiver);
  QPainterPath path;
  if (std::abs(to.x() - from.x()) < 1e-6) {  // a head into its own layer's MLP: a bow to the right
    const QPointF start = from + QPointF(r, 0), end = to + QPointF(r, port);
    const double bow = 0.4 * at.column_width;
    path.moveTo(start);
    path.cubicTo(start + QPointF(bow, 0), end + QPointF(bow, 0), end);
    return path;
  }
  const QPointF start = from + QPointF(r, 0), end = to + QPointF(-r, port);
  const double reach = std::max(12.0, 0.45 * (end.x() - start.x()));
  path.moveTo(start);
  path.cubicTo(start + QPointF(reach, 0), end - QPointF(reach, 0), end);
  return path;
}

int CircuitGraph::edgeAt(const QPointF& point) const {
  const auto at = layout(rect());
  const auto shown = shownEdges();
  const double most = largest();
  for (auto it = shown.rbegin(); it != shown.rend(); ++it) {  // the topmost first
    QPainterPathStroker stroker;
    stroker.setWidth(std::max(7.0, edge_width(data_.edges[*it].value, most) + 4));
    if (stroker.createStroke(edgePath(at, data_.edges[*it])).contains(point)) return *it;
  }
  return -1;
}

void CircuitGraph::mousePressEvent(QMouseEvent* event) {
  const int index = edgeAt(event->position());
  selectEdge(index);
  if (index >= 0) Q_EMIT edgeClicked(index);
}

void CircuitGraph::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  draw(painter, rect());
}

void CircuitGraph::draw(QPainter& painter, const QRectF& area) const {
  painter.fillRect(area, Qt::white);
  painter.setRenderHint(QPainter::Antialiasing);
  const auto at = layout(area);
  const auto shown = shownEdges();
  const double most = largest();
  auto font = painter.font();
  font.setBold(true);
  painter.setFont(font);
  painter.setPen(Qt::black);
  const auto title = data_.edges.empty()
                         ? QString("Run an analysis of the Circuits tab to draw its edges")
                         : QString("%1 — %2 of %3 edges, |value| ≥ %4")
                               .arg(data_.title)
                               .arg(shown.size())
                               .arg(data_.edges.size())
                               .arg(threshold_ * most, 0, 'g', 3);
  painter.drawText(QRectF(area.left(), area.top(), area.width(), kTitleHeight), Qt::AlignCenter, title);
  font.setBold(false);
  painter.setFont(font);
  painter.setPen(QColor(80, 80, 80));
  const int layers = static_cast<int>(data_.heads_per_layer.size());
  auto header = [&](int column, const QString& text) {
    painter.drawText(QRectF(at.plot.left() + column * at.column_width, area.top() + kTitleHeight, at.column_width,
                            kHeaderHeight),
                     Qt::AlignCenter, text);
  };
  if (at.input) header(0, "input");
  for (int l = 0; l < layers; ++l) {
    const bool named = l < data_.column_names.size();
    header(l + (at.input ? 1 : 0), named ? data_.column_names[l]
                                   : at.column_width >= 40 ? QString("layer %1").arg(l + 1) : QString("L%1").arg(l + 1));
  }
  if (at.logits) header(layers + (at.input ? 1 : 0), "logits");
  if (at.row_height >= 10) {
    const int heads = at.rows - (data_.mlps ? 1 : 0);
    for (int row = 0; row < at.rows; ++row)
      painter.drawText(QRectF(area.left(), at.plot.top() + row * at.row_height, kLeftMargin - 4, at.row_height),
                       Qt::AlignRight | Qt::AlignVCenter, row < heads ? QString("H%1").arg(row + 1) : QString("MLP"));
  }

  // The edges, the largest on top; the selected one outlined.
  std::vector<CircuitNode> touched;
  for (const int i : shown) {
    const auto& edge = data_.edges[i];
    touched.push_back(edge.sender), touched.push_back(edge.receiver);
    const auto path = edgePath(at, edge);
    const double width = edge_width(edge.value, most);
    if (i == selected_) painter.strokePath(path, QPen(Qt::black, width + 3, Qt::SolidLine, Qt::RoundCap));
    auto colour = edge.value >= 0 ? kPositive : kNegative;
    colour.setAlpha(i == selected_ ? 255 : 190);
    const auto style = edge.input == "k" ? Qt::DashLine : edge.input == "v" ? Qt::DotLine : Qt::SolidLine;
    painter.strokePath(path, QPen(colour, width, style, Qt::RoundCap));
  }
  // The nodes: filled where a drawn edge touches them.
  auto node = [&](const CircuitNode& which) {
    const bool used = std::find(touched.begin(), touched.end(), which) != touched.end();
    painter.setPen(QPen(QColor(90, 90, 90), 1));
    painter.setBrush(used ? QColor(120, 120, 120) : QColor(228, 228, 228));
    painter.drawEllipse(centre(at, which), at.radius, at.radius);
  };
  if (at.input) node({CircuitNode::Input});
  for (int l = 0; l < layers; ++l) {
    for (int h = 0; h < data_.heads_per_layer[l]; ++h) node({CircuitNode::Head, l, h});
    if (data_.mlps && (data_.mlp_columns.empty() || data_.mlp_columns[static_cast<size_t>(l)])) node({CircuitNode::Mlp, l});
  }
  if (at.logits) node({CircuitNode::Logits});

  painter.setPen(QColor(80, 80, 80));
  painter.drawText(QRectF(area.left(), area.bottom() - kLegendHeight, area.width(), kLegendHeight), Qt::AlignCenter,
                   "red: positive · blue: negative · width ∝ |value| · into a head: q solid, k dashed, v dotted");
}

bool CircuitGraph::saveSvg(const QString& path, QString* error) const {
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(size());
  svg.setViewBox(QRect(QPoint(0, 0), size()));
  svg.setTitle(data_.title);
  QPainter painter;
  if (!painter.begin(&svg) || !QFileInfo(path).exists()) {
    if (error) *error = path + ": cannot be written";
    return false;
  }
  draw(painter, QRectF(QPointF(0, 0), QSizeF(size())));
  painter.end();
  return true;
}

bool CircuitGraph::savePng(const QString& path, QString* error) const {
  QImage image(size() * 2, QImage::Format_ARGB32);
  image.setDevicePixelRatio(2);
  QPainter painter(&image);
  draw(painter, QRectF(QPointF(0, 0), QSizeF(size())));
  painter.end();
  if (image.save(path, "PNG")) return true;
  if (error) *error = path + ": cannot be written";
  return false;
}

bool CircuitGraph::savePdf(const QString& path, QString* error) const {
  QPdfWriter pdf(path);
  pdf.setPageSize(QPageSize(QSizeF(size()), QPageSize::Point));
  pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
  pdf.setResolution(72);
  QPainter painter;
  if (!painter.begin(&pdf)) {
    if (error) *error = path + ": cannot be written";
    return false;
  }
  draw(painter, QRectF(QPointF(0, 0), QSizeF(size())));
  painter.end();
  return true;
}

}  // namespace aw

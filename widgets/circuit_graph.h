// widgets/circuit_graph.h — a model's circuit drawn as a graph: the input, each layer's heads (and MLP)
// and the logits as nodes in columns, layer by layer; an edge for each sender → receiver value whose
// magnitude reaches a threshold (a share of the largest), red for positive and blue for negative values,
// its width by magnitude; an edge into a head's query, key or value solid, dashed or dotted. A click
// selects an edge (edgeClicked); the drawing exports as SVG, PNG or PDF. Plain data in: the edges come
// from a result table (circuit_edges.h).
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QPainter;
class QPainterPath;

namespace aw {

struct CircuitNode {
  enum Kind { Input, Head, Mlp, Logits };
  Kind kind = Input;
  int layer = -1;  // 0-based; −1 for the input and the logits
  int head = -1;   // heads only
  bool operator==(const CircuitNode& other) const {
    return kind == other.kind && layer == other.layer && head == other.head;
  }
  QString label() const;  // "input", "1.3", "mlp 1", "logits" (1-based)
};

struct CircuitEdge {
  CircuitNode sender, receiver;
  QString input;   // "q", "k" or "v" for a head's input, else empty
  double value = 0;
  QString detail;  // what a click shows: the edge's row of its table
  QString label() const;  // "1.3 → k 2.1"
};

struct CircuitGraphData {
  std::vector<int> heads_per_layer;  // the columns' heads
  QStringList column_names;          // per column ("enc 1", "cross 2"); empty: "layer 1", "layer 2", …
  bool mlps = false;                 // each layer's column ends with its MLP
  std::vector<bool> mlp_columns;     // with mlps, the columns that have one (empty: every column; a
                                     // translation model's decoder self-attention columns have none)
  QString title;                     // what the values are ("EAP-IG score, induction_lm")
  std::vector<CircuitEdge> edges;
};

class CircuitGraph : public QWidget {
  Q_OBJECT

 public:
  explicit CircuitGraph(QWidget* parent = nullptr);

  void setGraph(CircuitGraphData data);
  const CircuitGraphData& graph() const { return data_; }
  // Edges whose |value| is at least `share` (0–1) of the largest |value| are drawn.
  void setThreshold(double share);
  double threshold() const { return threshold_; }
  // Indices of the edges drawn, smallest |value| first (the order they are painted in).
  std::vector<int> shownEdges() const;
  // −1: none. A selection the threshold hides is dropped.
  int selectedEdge() const { return selected_; }
  void selectEdge(int index);
  // The edge drawn at `point` (widget coordinates), the topmost; −1 where none is.
  int edgeAt(const QPointF& point) const;
  // Where a node's centre is in the widget.
  QPointF nodeCentre(const CircuitNode& node) const;

  // The drawing at `size` into a file; false with `error` set when it cannot be written.
  bool saveSvg(const QString& path, QString* error = nullptr) const;
  bool savePng(const QString& path, QString* error = nullptr) const;
  bool savePdf(const QString& path, QString* error = nullptr) const;

  QSize sizeHint() const override { return {640, 420}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 Q_SIGNALS:
  void edgeClicked(int index);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  struct Layout;  // the columns, rows and node radius of an area
  Layout layout(const QRectF& area) const;
  QPointF centre(const Layout& at, const CircuitNode& node) const;
  QPainterPath edgePath(const Layout& at, const CircuitEdge& edge) const;
  void draw(QPainter& painter, const QRectF& area) const;
  double largest() const;

  CircuitGraphData data_;
  double threshold_ = 0.2;
  int selected_ = -1;
};

}  // namespace aw

// app/gui/circuit_view.h — the Circuits tab's Circuit view: the last result of path patching, edge
// attribution or composition (chosen under Edges) drawn as a graph of the model (widgets/circuit_graph.h);
// a slider sets the threshold, a share of the largest |value|; a click on an edge shows its numbers, and
// "Both heads' attention" opens the sender's and the receiver's attention on the chosen pair's clean
// prompt (composition: on the Attention tab's sentence); the drawing exports as SVG, PNG or PDF.
#pragma once

#include "app/gui/analysis_tab.h"

#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;

namespace aw {

class AnalysisTabs;
class CircuitGraph;

class CircuitView : public QWidget {
  Q_OBJECT

 public:
  CircuitView(AnalysisTabs* analyses, TabContext context, QWidget* parent = nullptr);

  CircuitGraph* graph() const { return graph_; }
  QComboBox* source() const { return source_; }
  QSlider* threshold() const { return threshold_; }
  QLabel* details() const { return details_; }
  QComboBox* pairChooser() const { return pair_; }
  // Redraws from the chosen analysis's last result (and re-reads its pairs file).
  void refresh();
  // The selected edge's heads' attention on the chosen prompt, each in a window of its own; false
  // when no edge between heads is selected or no model computed the result.
  bool showHeads();
  // The drawing into `path`, as its suffix says (.svg, .png, .pdf); false with `error` set otherwise.
  bool exportTo(const QString& path, QString* error);

 protected:
  // Shown again: a result restored with a session, or run while the view was hidden, is drawn.
  void showEvent(QShowEvent* event) override;

 private:
  void showEdge(int index);
  QString sourceId() const;

  AnalysisTabs* analyses_;
  TabContext context_;
  QComboBox* source_;
  QSlider* threshold_;
  QLabel* count_;
  CircuitGraph* graph_;
  QLabel* details_;
  QComboBox* pair_;
  QPushButton* heads_;
  QStringList prompts_;  // the clean prompts of the source's pairs file, in its order
  int model_ = -1;       // the session index of the model the shown result is of
};

}  // namespace aw

// widgets/attention_overview.h — every layer and head of one capture at a glance: a grid of small
// heatmaps (rows = layers, first column = mean of the heads, then one column per head), viridis on
// the large view's colour scale (colour_scale.h; each thumbnail scaled on its own under auto, log and
// per row), switched-off heads marked, and a strip of colour under each head for the scores the heads
// panel is coloured by. Clicking one selects it for the large view.
// It keeps the matrices it was given, so the large view shows them without computing them again.
// A thumbnail is rendered when it is first painted (only those a scroll area shows: 16 layers × 33
// columns of a 1B model are not all on screen), once per capture or colour scale, never on a
// selection change.
#pragma once

#include "widgets/attention_matrix.h"
#include "widgets/cell_wrap.h"
#include "widgets/colour_scale.h"
#include "widgets/head_gates.h"
#include "widgets/layer_labels.h"
#include "widgets/query_groups.h"

#include <QImage>
#include <QWidget>

#include <vector>

namespace aw {

class AttentionOverview : public QWidget {
  Q_OBJECT

 public:
  explicit AttentionOverview(QWidget* parent = nullptr);

  // matrices[layer][0] is the mean of the heads, matrices[layer][1 + h] head h.
  void setMatrices(std::vector<std::vector<AttentionMatrix>> matrices);
  // Renders the thumbnails again under `scale` (a change only).
  void setColourScale(ColourScale scale);
  // The matrix of a thumbnail (head −1 = mean); an empty matrix when there is none.
  const AttentionMatrix& matrix(int layer, int head) const;
  // How many thumbnails have been rendered since construction (tests check what recomputes them,
  // and that those a scroll area hides are not).
  int renderCount() const { return render_count_; }
  void setGates(const HeadGates& gates);
  // The rows' names (empty: "L1", "L2", …).
  void setLayerNames(const QStringList& names);
  // Per layer, the query heads of each key/value head: their thumbnails sit together, a wider gap
  // between groups (as the heads panel). Empty: no groups.
  void setQueryGroups(const std::vector<std::vector<int>>& groups);
  // Head scores [layer][head] (a finished analysis's, the heads panel's colouring) as a strip under each
  // head's thumbnail, viridis over their range; empty = none.
  void setHeadScores(std::vector<std::vector<double>> scores, const QString& label);
  const std::vector<std::vector<double>>& headScores() const { return scores_; }
  // Highlights a thumbnail; head −1 = the mean column.
  void setCurrent(int layer, int head);
  void clear();

  // The thumbnail's rectangle (head −1 = mean) in widget coordinates.
  QRect thumbnailRect(int layer, int head) const;
  int layerCount() const { return static_cast<int>(images_.size()); }
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;  // a few columns across; the rest wrap (cell_wrap.h)
  int heightForWidth(int width) const override;
  CellWrap wrapAt(int width) const;  // how a layer's mean and heads wrap at a width

 Q_SIGNALS:
  void thumbnailClicked(int layer, int head);  // head −1 = mean of heads

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  int columnCount() const;
  int thumbnailSide() const;
  int layerGap() const;
  void fitHeight();  // the least height: the wrapped rows' at the current width
  int labelWidth() const;
  QString layerName(int layer) const { return labels_.name(layer); }

  std::vector<std::vector<AttentionMatrix>> matrices_;  // [layer][column]
  mutable std::vector<std::vector<QImage>> images_;    // [layer][column]; null until first painted
  void renderThumbnails();  // forgets every rendered image (they are made again when painted)
  const QImage& image(int layer, int column) const;

  mutable int render_count_ = 0;
  ColourScale scale_ = ColourScale::Fixed;
  HeadGates gates_;
  QueryGroups groups_;
  LayerLabels labels_;
  int current_layer_ = -1, current_head_ = -1;
  std::vector<std::vector<double>> scores_;
};

}  // namespace aw

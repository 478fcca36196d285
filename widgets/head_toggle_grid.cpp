// widgets/head_toggle_grid.cpp — see head_toggle_grid.h.
#include "widgets/head_toggle_grid.h"

#include "widgets/score_legend.h"

#include <QGridLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace aw {
namespace {

constexpr int kCell = 34;         // cell side in pixels, when there is room
constexpr int kMinCell = 12;      // the least: 12 × 12 heads then take 28 + 12 × 15 pixels
constexpr int kGap = 3;
constexpr int kGroupGap = 6;      // extra space between the query heads of two key/value heads
constexpr int kLayerGap = 5;      // extra space between layers whose heads wrap onto several rows
constexpr int kRowLabelWidth = 28;
constexpr int kHeaderHeight = 18;
constexpr int kLeastAcross = 8;   // heads side by side at the panel's least width
// The panel's width, whatever the model and colouring (it changed from 190 to 330 pixels between
// models and moved every tab sideways): 12 heads fit at the smallest cells, more wrap.
constexpr int kPanelWidth = 220;

}  // namespace

HeadCellGrid::HeadCellGrid(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void HeadCellGrid::setGates(const HeadGates& gates) {
  const bool shape_changed = gates.on.size() != gates_.on.size() || gates.total() != gates_.total();
  gates_ = gates;
  if (shape_changed) {
    scores_.clear();
    selected_layer_ = selected_head_ = -1;
    updateGeometry();
    fitHeight();
  }
  update();
}

void HeadCellGrid::setQueryGroups(const std::vector<std::vector<int>>& groups) {
  groups_ = QueryGroups::of(groups);
  updateGeometry();
  fitHeight();
  update();
}

int HeadCellGrid::groupOf(int layer, int head) const { return groups_.groupOf(layer, head); }

void HeadCellGrid::setScores(const std::vector<std::vector<double>>& scores, const QString& label) {
  scores_ = scores;
  score_label_ = label;
  update();
}

void HeadCellGrid::setSelected(int layer, int head) {
  selected_layer_ = layer;
  selected_head_ = head;
  update();
}

int HeadCellGrid::maxHeads() const {
  size_t heads = 0;
  for (const auto& layer : gates_.on) heads = std::max(heads, layer.size());
  return static_cast<int>(heads);
}

void HeadCellGrid::setLayerNames(const QStringList& names) {
  labels_.names = names;
  updateGeometry();
  update();
}

// Wide enough for the layers' names and a wrapped row's "33…" (the head it starts with).
int HeadCellGrid::labelWidth() const {
  return std::max(labels_.width(fontMetrics(), kRowLabelWidth), fontMetrics().horizontalAdvance(QString("%1…").arg(maxHeads())) + 6);
}

QString HeadCellGrid::layerPhrase(int layer) const {
  return labels_.names.isEmpty() ? QString("layer %1").arg(layer + 1) : labels_.name(layer);
}

CellWrap HeadCellGrid::wrapAt(int width) const {
  return CellWrap::fit(maxHeads(), width - labelWidth() - groups_.maxBoundaries() * kGroupGap, kMinCell + kGap,
                       groups_.uniformSize());
}

int HeadCellGrid::rowsDown() const {
  return std::max<int>(1, static_cast<int>(gates_.on.size())) * wrapAt(width()).bands;
}

int HeadCellGrid::layerGap() const { return wrapAt(width()).wrapped() ? kLayerGap : 0; }

int HeadCellGrid::cellSide() const {
  // As large as the widget allows, between kMinCell and kCell: a 12 × 12-head model's panel shrinks
  // with its dock instead of widening the window; a layer too wide for the smallest cells wraps.
  const auto wrap = wrapAt(width());
  const int layers = std::max<int>(1, static_cast<int>(gates_.on.size()));
  const int across = (width() - labelWidth() - groups_.maxBoundaries() * kGroupGap) / wrap.per_band - kGap;
  const int down = (height() - kHeaderHeight - layers * layerGap()) / rowsDown() - kGap;
  return std::clamp(std::min(across, down), kMinCell, kCell);
}

QRect HeadCellGrid::cellRect(int layer, int head) const {
  const int side = cellSide();
  const auto wrap = wrapAt(width());
  const int band = wrap.band(head);
  // Group gaps count from the band's first head: a wrapped band starts at the label again.
  const int gaps = groups_.boundariesBefore(layer, head) - groups_.boundariesBefore(layer, wrap.first(band));
  return {labelWidth() + wrap.column(head) * (side + kGap) + gaps * kGroupGap,
          kHeaderHeight + (layer * wrap.bands + band) * (side + kGap) + layer * layerGap(), side, side};
}

QSize HeadCellGrid::sizeHint() const {
  return {labelWidth() + maxHeads() * (kCell + kGap) + groups_.maxBoundaries() * kGroupGap,
          kHeaderHeight + static_cast<int>(gates_.on.size()) * (kCell + kGap)};
}

// A few heads across at the smallest cells; the rest wrap. The height follows the width.
QSize HeadCellGrid::minimumSizeHint() const {
  const int width = labelWidth() + std::min(maxHeads(), kLeastAcross) * (kMinCell + kGap) + groups_.maxBoundaries() * kGroupGap;
  return {width, heightForWidth(width)};
}

// The least height is the wrapped rows' at the width the scroll area gives (a scroll area asks a
// height-for-width widget at its size hint's width, not its own).
void HeadCellGrid::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitHeight();
}

void HeadCellGrid::fitHeight() {
  const int needed = heightForWidth(width());
  if (minimumHeight() != needed) setMinimumHeight(needed);
  Q_EMIT heightNeeded(std::max(sizeHint().height(), needed));
}

int HeadCellGrid::heightForWidth(int width) const {
  const int layers = static_cast<int>(gates_.on.size());
  const auto wrap = wrapAt(width);
  return kHeaderHeight + layers * wrap.bands * (kMinCell + kGap) + (wrap.wrapped() ? layers * kLayerGap : 0);
}

QPair<int, int> HeadCellGrid::cellAt(const QPoint& position) const {
  for (int layer = 0; layer < static_cast<int>(gates_.on.size()); ++layer)
    for (int head = 0; head < static_cast<int>(gates_.on[layer].size()); ++head)
      if (cellRect(layer, head).contains(position)) return {layer, head};
  return {-1, -1};
}

ScoreScale HeadCellGrid::scoreRange() const { return score_range(scores_); }

void HeadCellGrid::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const bool coloured = !scores_.empty();
  const auto scale = scoreRange();
  auto small = font();
  small.setPointSizeF(font().pointSizeF() * 0.85);
  painter.setFont(small);
  const int side = cellSide();
  const auto wrap = wrapAt(width());
  // "H1" over wide cells; over narrow ones the number alone, every other one when they are narrowest.
  // Wrapped, the header numbers the first band; a later band's row says which head it starts with.
  const int label_step = side < 16 ? 2 : 1;
  for (int head = 0; head < std::min(maxHeads(), wrap.per_band); head += label_step)
    painter.drawText(QRect(cellRect(0, head).center().x() - 20, 0, 40, kHeaderHeight), Qt::AlignCenter,
                     side >= 26 ? QString("H%1").arg(head + 1) : QString::number(head + 1));
  for (int layer = 0; layer < static_cast<int>(gates_.on.size()); ++layer) {
    const auto row = cellRect(layer, 0);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(0, row.top() + side / 2 - 10, labelWidth() - 4, 20), Qt::AlignRight | Qt::AlignVCenter,
                     labels_.name(layer));
    painter.setPen(palette().color(QPalette::PlaceholderText));
    for (int band = 1; band < wrap.bands && wrap.first(band) < static_cast<int>(gates_.on[layer].size()); ++band)
      painter.drawText(QRect(0, cellRect(layer, wrap.first(band)).top() + side / 2 - 10, labelWidth() - 4, 20),
                       Qt::AlignRight | Qt::AlignVCenter, QString("%1…").arg(wrap.first(band) + 1));
    for (int head = 0; head < static_cast<int>(gates_.on[layer].size()); ++head) {
      const auto rect = cellRect(layer, head);
      const bool on = gates_.on[layer][head];
      QColor fill(0x3b, 0x52, 0x8b);  // viridis' blue: "on" without a score
      if (coloured && layer < static_cast<int>(scores_.size()) && head < static_cast<int>(scores_[layer].size()))
        fill = score_colour(scores_[layer][head], scale);
      // A head the score does not cover (NaN: composition out of the last layer) is an empty outline.
      const bool unscored = on && fill.alpha() == 0;
      if (!on) fill = QColor(0xd0, 0xd0, 0xd0);
      painter.setPen(unscored ? QPen(palette().color(QPalette::Mid), 1) : QPen(Qt::NoPen));
      painter.setBrush(fill);
      const int radius = std::min(4, side / 4), inset = side / 4;
      painter.drawRoundedRect(rect, radius, radius);
      if (!on) {  // a cross, so "off" reads without colour
        painter.setPen(QPen(QColor(0x80, 0x80, 0x80), 2));
        painter.drawLine(rect.topLeft() + QPoint(inset, inset), rect.bottomRight() - QPoint(inset, inset));
        painter.drawLine(rect.topRight() + QPoint(-inset, inset), rect.bottomLeft() + QPoint(inset, -inset));
      }
      if (layer == selected_layer_ && head == selected_head_) {
        painter.setPen(QPen(QColor(0xe6, 0x55, 0x0d), 3));
        painter.setBrush(Qt::NoBrush);
        painter.drawRoundedRect(rect.adjusted(1, 1, -1, -1), radius, radius);
      }
    }
  }
}

void HeadCellGrid::mousePressEvent(QMouseEvent* event) {
  const auto [layer, head] = cellAt(event->position().toPoint());
  if (layer < 0) return;
  setSelected(layer, head);
  if (event->button() == Qt::LeftButton) {
    Q_EMIT cellClicked(layer, head);
  } else if (event->button() == Qt::RightButton) {
    QMenu menu(this);
    menu.addAction(QString("Keep only head %1 in %2").arg(head + 1).arg(layerPhrase(layer)), this,
                   [this, layer = layer, head = head] { Q_EMIT keepOnlyRequested(layer, head); });
    menu.exec(event->globalPosition().toPoint());
  }
}

bool HeadCellGrid::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    const auto [layer, head] = cellAt(help->pos());
    if (layer >= 0) {
      auto text = QString("%1, head %2: %3").arg(layerPhrase(layer)).arg(head + 1).arg(gates_.on[layer][head] ? "on" : "off");
      if (groupOf(layer, head) >= 0)
        text += QString("\nreads key/value head %1 (of %2)").arg(groupOf(layer, head) + 1).arg(groups_.groupsIn(layer));
      if (layer < static_cast<int>(scores_.size()) && head < static_cast<int>(scores_[layer].size()))
        text += QString("\n%1: %2").arg(score_label_).arg(scores_[layer][head], 0, 'g', 4);
      QToolTip::showText(help->globalPos(), text, this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

HeadToggleGrid::HeadToggleGrid(QWidget* parent) : QWidget(parent), grid_(new HeadCellGrid) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  summary_ = new QLabel;
  summary_->setStyleSheet("font-weight: bold;");
  layout->addWidget(summary_);
  scroll_ = new QScrollArea;
  scroll_->setWidget(grid_);
  scroll_->setWidgetResizable(true);  // the grid fills the panel, and scrolls below its least size
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // heads wrap instead
  scroll_->setFrameShape(QFrame::NoFrame);
  layout->addWidget(scroll_, 1);
  legend_ = new ScoreLegend;
  legend_->hide();
  layout->addWidget(legend_);
  layout->addStretch(0);  // room the grid does not need goes below the legend, which stays under the cells
  auto* buttons = new QGridLayout;  // two by two keeps the panel narrow
  int added = 0;
  auto add_button = [&](const QString& text, const QString& tip, auto&& action) {
    auto* button = new QPushButton(text);
    button->setToolTip(tip);
    connect(button, &QPushButton::clicked, this, action);
    buttons->addWidget(button, added / 2, added % 2);
    ++added;
    return button;
  };
  add_button("All on", "Switch every head on", [this] { allOn(); });
  add_button("Invert", "Switch every head that is on off, and the others on", [this] { invert(); });
  keep_only_button_ = add_button("Keep only", "Keep only the selected head in its layer (right-click a cell works too)",
                                 [this] { keepOnly(grid_->selectedLayer(), grid_->selectedHead()); });
  add_button("Reset", "All heads on; clear the colouring and the selection", [this] { reset(); });
  layout->addLayout(buttons);
  // No taller than the grid at its largest cells (or, wrapped, at its smallest): the legend then sits
  // right under the cells.
  connect(grid_, &HeadCellGrid::heightNeeded, this,
          [this](int height) { scroll_->setMaximumHeight(height + 2 * scroll_->frameWidth() + 2); });
  connect(grid_, &HeadCellGrid::cellClicked, this, [this](int layer, int head) { toggle(layer, head); });
  connect(grid_, &HeadCellGrid::keepOnlyRequested, this, [this](int layer, int head) { keepOnly(layer, head); });
  updateSummary();
}

void HeadToggleGrid::setGates(const HeadGates& gates) {
  grid_->setGates(gates);
  updateSummary();
}

QSize HeadToggleGrid::sizeHint() const { return {kPanelWidth, QWidget::sizeHint().height()}; }
QSize HeadToggleGrid::minimumSizeHint() const { return {kPanelWidth * 3 / 4, QWidget::minimumSizeHint().height()}; }

void HeadToggleGrid::apply(const HeadGates& gates) {
  if (gates == grid_->gates()) return;
  grid_->setGates(gates);
  updateSummary();
  Q_EMIT gatesChanged(gates);
}

void HeadToggleGrid::toggle(int layer, int head) {
  auto gates = grid_->gates();
  if (layer < 0 || layer >= static_cast<int>(gates.on.size()) || head < 0 || head >= static_cast<int>(gates.on[layer].size())) return;
  gates.on[layer][head] = !gates.on[layer][head];
  apply(gates);
}

void HeadToggleGrid::keepOnly(int layer, int head) {
  auto gates = grid_->gates();
  if (layer < 0 || layer >= static_cast<int>(gates.on.size()) || head < 0 || head >= static_cast<int>(gates.on[layer].size())) return;
  for (size_t h = 0; h < gates.on[layer].size(); ++h) gates.on[layer][h] = static_cast<int>(h) == head;
  grid_->setSelected(layer, head);
  apply(gates);
}

void HeadToggleGrid::allOn() {
  auto gates = grid_->gates();
  for (auto& layer : gates.on) std::fill(layer.begin(), layer.end(), true);
  apply(gates);
}

void HeadToggleGrid::invert() {
  auto gates = grid_->gates();
  for (auto& layer : gates.on) layer.flip();
  apply(gates);
}

void HeadToggleGrid::setScores(const std::vector<std::vector<double>>& scores, const QString& label) {
  grid_->setScores(scores, label);
  legend_->setScale(label, grid_->scoreRange());
  legend_->setVisible(!scores.empty());
}

void HeadToggleGrid::reset() {
  setScores({}, {});
  grid_->setSelected(-1, -1);
  allOn();
}

QString HeadToggleGrid::summaryText() const { return summary_->text(); }

void HeadToggleGrid::updateSummary() {
  summary_->setText(grid_->gates().on.empty() ? QString("no model") : grid_->gates().summary());
}

}  // namespace aw

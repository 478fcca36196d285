// widgets/attention_overview.cpp — see attention_overview.h.
#include "widgets/attention_overview.h"

#include "widgets/color_maps.h"
#include "widgets/score_legend.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace aw {
namespace {

constexpr int kLabelWidth = 30;  // wide enough for "L12"
constexpr int kHeaderHeight = 18;
constexpr int kGap = 6;
constexpr int kGroupGap = 8;  // extra space between the query heads of two key/value heads
// Small enough that a 12-head model's 13 columns fit a 400-pixel side panel: every head in view
// before any scrolling (at 40 pixels an 8-head model showed H1–H6 and a horizontal scrollbar).
constexpr int kMinSide = 22;
constexpr int kMaxSide = 160;
constexpr int kLeastAcross = 6;  // heads beside the mean at the least width; more wrap (cell_wrap.h)
constexpr int kLayerGap = 8;     // extra space between layers whose columns wrap onto several rows

// One matrix as an image under a colour scale, one pixel per cell (scaled up without smoothing when
// painted).
QImage matrix_image(const AttentionMatrix& matrix, QCPColorGradient& gradient, ColourScale scale) {
  QImage image(std::max(1, matrix.cols), std::max(1, matrix.rows), QImage::Format_RGB32);
  image.fill(Qt::white);
  const auto scaled = scale_weights(matrix, scale);
  const QCPRange range(scaled.low, scaled.high);
  for (int row = 0; row < matrix.rows; ++row) {
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(row));
    for (int col = 0; col < matrix.cols; ++col)
      line[col] = gradient.color(scaled.values[static_cast<size_t>(row) * matrix.cols + col], range, scaled.logarithmic);
  }
  return image;
}

}  // namespace

AttentionOverview::AttentionOverview(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setToolTip("Click a thumbnail to show it large");
}

void AttentionOverview::setMatrices(std::vector<std::vector<AttentionMatrix>> matrices) {
  matrices_ = std::move(matrices);
  renderThumbnails();
}

void AttentionOverview::setColourScale(ColourScale scale) {
  if (scale == scale_) return;
  scale_ = scale;
  renderThumbnails();
}

void AttentionOverview::renderThumbnails() {
  images_.clear();
  for (const auto& layer : matrices_) images_.emplace_back(layer.size());
  // Thumbnails never shrink below kMinSide: they wrap, and a scroll area takes over downwards.
  setMinimumWidth(minimumSizeHint().width());
  fitHeight();
  updateGeometry();
  update();
}

void AttentionOverview::setLayerNames(const QStringList& names) {
  labels_.names = names;
  updateGeometry();
  update();
}

const QImage& AttentionOverview::image(int layer, int column) const {
  auto& image = images_[layer][column];
  if (image.isNull()) {
    static auto gradient = viridis_gradient();
    image = matrix_image(matrices_[layer][column], gradient, scale_);
    ++render_count_;
  }
  return image;
}

// Wide enough for the layers' names and a wrapped row's "33…" (the head it starts with).
int AttentionOverview::labelWidth() const {
  return std::max(labels_.width(fontMetrics(), kLabelWidth), fontMetrics().horizontalAdvance(QString("%1…").arg(columnCount())) + 6);
}

void AttentionOverview::setQueryGroups(const std::vector<std::vector<int>>& groups) {
  groups_ = QueryGroups::of(groups);
  if (!images_.empty()) setMinimumWidth(minimumSizeHint().width()), fitHeight();  // the gaps widen it
  updateGeometry();
  update();
}

void AttentionOverview::setGates(const HeadGates& gates) {
  gates_ = gates;
  update();
}

void AttentionOverview::setCurrent(int layer, int head) {
  current_layer_ = layer;
  current_head_ = head;
  update();
}

const AttentionMatrix& AttentionOverview::matrix(int layer, int head) const {
  static const AttentionMatrix none;
  if (layer < 0 || layer >= static_cast<int>(matrices_.size())) return none;
  const auto& row = matrices_[layer];
  return head + 1 >= 0 && head + 1 < static_cast<int>(row.size()) ? row[head + 1] : none;
}

void AttentionOverview::clear() {
  matrices_.clear();
  images_.clear();
  // The placeholder takes the scroll area's size: the old thumbnails' minimum left scrollbars around it.
  setMinimumSize(0, 0);
  fitHeight();
  updateGeometry();
  update();
}

int AttentionOverview::columnCount() const {
  size_t columns = 0;
  for (const auto& row : images_) columns = std::max(columns, row.size());
  return static_cast<int>(columns);
}

// The heads wrap beside the mean's column (which stays alone on the left): a band of whole key/value
// groups, so that every band's gaps fall in the same places.
CellWrap AttentionOverview::wrapAt(int width) const {
  const int room = width - labelWidth() - (kMinSide + kGap) - groups_.maxBoundaries() * kGroupGap;
  return CellWrap::fit(std::max(1, columnCount() - 1), room, kMinSide + kGap, groups_.uniformSize());
}

int AttentionOverview::layerGap() const { return wrapAt(width()).wrapped() ? kLayerGap : 0; }

int AttentionOverview::thumbnailSide() const {
  if (images_.empty()) return kMinSide;
  const auto wrap = wrapAt(width());
  const int layers = std::max<int>(1, images_.size());
  const int by_width = (width() - labelWidth() - groups_.maxBoundaries() * kGroupGap) / (wrap.per_band + 1) - kGap;
  const int by_height = (height() - kHeaderHeight - layers * layerGap()) / (layers * wrap.bands) - kGap;
  return std::clamp(std::min(by_width, by_height), kMinSide, kMaxSide);
}

QRect AttentionOverview::thumbnailRect(int layer, int head) const {
  const int side = thumbnailSide();
  const auto wrap = wrapAt(width());
  const int band = head < 0 ? 0 : wrap.band(head), column = head < 0 ? 0 : 1 + wrap.column(head);
  // Group gaps count from the band's first head.
  const int gaps = head < 0 ? 0 : groups_.boundariesBefore(layer, head) - groups_.boundariesBefore(layer, wrap.first(band));
  return {labelWidth() + column * (side + kGap) + gaps * kGroupGap,
          kHeaderHeight + (layer * wrap.bands + band) * (side + kGap) + layer * layerGap(), side, side};
}

QSize AttentionOverview::sizeHint() const {
  return {labelWidth() + columnCount() * (kMinSide + kGap) + groups_.maxBoundaries() * kGroupGap,
          kHeaderHeight + static_cast<int>(images_.size()) * (kMinSide + kGap)};
}

QSize AttentionOverview::minimumSizeHint() const {
  if (images_.empty()) return {0, 0};
  const int width = labelWidth() + (1 + std::min(columnCount() - 1, kLeastAcross)) * (kMinSide + kGap) +
                    groups_.maxBoundaries() * kGroupGap;
  return {width, heightForWidth(width)};
}

// The least height is the wrapped rows' at the width the scroll area gives: it scrolls down to
// them. (A scroll area asks a height-for-width widget at its size hint's width, not its own.)
void AttentionOverview::fitHeight() {
  const int needed = images_.empty() ? 0 : heightForWidth(width());
  if (minimumHeight() != needed) setMinimumHeight(needed);
}

void AttentionOverview::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitHeight();
}

int AttentionOverview::heightForWidth(int width) const {
  const int layers = static_cast<int>(images_.size());
  const auto wrap = wrapAt(width);
  return kHeaderHeight + layers * wrap.bands * (kMinSide + kGap) + (wrap.wrapped() ? layers * kLayerGap : 0);
}

void AttentionOverview::paintEvent(QPaintEvent* event) {
  QPainter painter(this);
  if (images_.empty()) {
    painter.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                     "Run a sentence to see every layer and head");
    return;
  }
  auto small = font();
  small.setPointSizeF(font().pointSizeF() * 0.85);
  painter.setFont(small);
  const int side = thumbnailSide();
  const auto wrap = wrapAt(width());
  // Wrapped, the header names the first band's columns; a later band's row says which head it starts with.
  for (int column = 0; column < std::min(columnCount(), wrap.per_band + 1); ++column) {
    // Small thumbnails take the short labels: "μ" for the mean, the head's number alone.
    auto label = column == 0 ? QString("mean") : QString("H%1").arg(column);
    if (painter.fontMetrics().horizontalAdvance(label) > side + kGap) label = column == 0 ? QString("μ") : QString::number(column);
    painter.drawText(QRect(thumbnailRect(0, column - 1).left() - kGap / 2, 0, side + kGap, kHeaderHeight), Qt::AlignCenter,
                     label);
  }
  const auto range = score_range(scores_);
  for (int layer = 0; layer < static_cast<int>(images_.size()); ++layer) {
    const auto first = thumbnailRect(layer, -1);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(0, first.top(), labelWidth() - 4, side), Qt::AlignRight | Qt::AlignVCenter, layerName(layer));
    painter.setPen(palette().color(QPalette::PlaceholderText));
    for (int band = 1; band < wrap.bands && wrap.first(band) + 1 < static_cast<int>(images_[layer].size()); ++band)
      painter.drawText(QRect(0, thumbnailRect(layer, wrap.first(band)).top(), labelWidth() - 4, side),
                       Qt::AlignRight | Qt::AlignVCenter, QString("%1…").arg(wrap.first(band) + 1));
    for (int column = 0; column < static_cast<int>(images_[layer].size()); ++column) {
      const int head = column - 1;
      const auto target = thumbnailRect(layer, head);
      if (!event->rect().intersects(target.adjusted(-3, -3, 3, 3))) continue;  // scrolled out of view
      painter.drawImage(target, image(layer, column));  // no smoothing: one block per cell
      if (head >= 0 && !gates_.on.empty() && !gates_.isOn(layer, head)) {
        painter.fillRect(target, QColor(255, 255, 255, 170));
        painter.setPen(QColor(0x60, 0x60, 0x60));
        painter.drawText(target, Qt::AlignCenter, "off");
      }
      // The score strip fills most of the gap under the thumbnail: it covers none of the map.
      if (head >= 0 && layer < static_cast<int>(scores_.size()) && head < static_cast<int>(scores_[layer].size()))
        painter.fillRect(QRect(target.left(), target.bottom() + 2, target.width(), kGap - 2),
                         score_colour(scores_[layer][head], range));
      if (layer == current_layer_ && head == current_head_) {
        painter.setPen(QPen(QColor(0xe6, 0x55, 0x0d), 3));
        painter.drawRect(target.adjusted(-2, -2, 1, 1));
      }
    }
  }
}

void AttentionOverview::setHeadScores(std::vector<std::vector<double>> scores, const QString& label) {
  scores_ = std::move(scores);
  const auto range = score_range(scores_);
  setToolTip(scores_.empty() ? QString() : QString("The strip under each head: %1, %2").arg(label, score_scale_phrase(range)));
  update();
}

void AttentionOverview::mousePressEvent(QMouseEvent* event) {
  const auto position = event->position().toPoint();
  for (int layer = 0; layer < static_cast<int>(images_.size()); ++layer)
    for (int column = 0; column < static_cast<int>(images_[layer].size()); ++column)
      if (thumbnailRect(layer, column - 1).contains(position)) {
        setCurrent(layer, column - 1);
        Q_EMIT thumbnailClicked(layer, column - 1);
        return;
      }
}

}  // namespace aw

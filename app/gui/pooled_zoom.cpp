// app/gui/pooled_zoom.cpp — see pooled_zoom.h.
#include "app/gui/pooled_zoom.h"

#include "app/gui/capture_matrices.h"
#include "widgets/attention_heatmap.h"

#include <QEvent>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>
#include <qcustomplot.h>

#include <algorithm>

namespace aw {
namespace {

// Fewer rows than this cost no more to make than they take to look at: a small view gets room to pan.
constexpr int kMinRegionTokens = 256;
constexpr double kWheelOut = 1.25;  // one wheel notch out, as the heatmap zooms (1 / 0.8)

qint64 area(const QRect& rect) { return static_cast<qint64>(rect.width()) * rect.height(); }

// One axis of a region for a view of `count` tokens from `first`: twice as many (no fewer than
// kMinRegionTokens, no more than `cap` or the text), centred on the view, inside the text.
std::pair<int, int> widened(int first, int count, int cap, int total) {
  const int span = std::max(count, std::min({std::max(2 * count, kMinRegionTokens), cap, total}));
  const int start = std::clamp(first + count / 2 - span / 2, 0, std::max(0, total - span));
  return {start, span};
}

// "queries 2,049–2,560 × keys 1–512"
QString tokens_text(const QRect& tokens) {
  return QString("queries %1 × keys %2")
      .arg(token_span_text(tokens.y(), tokens.y() + tokens.height()), token_span_text(tokens.x(), tokens.x() + tokens.width()));
}

}  // namespace

PooledZoom::PooledZoom(AttentionHeatmap* heatmap, QObject* parent) : QObject(parent), heatmap_(heatmap) {
  bar_ = new QWidget;
  auto* layout = new QHBoxLayout(bar_);
  layout->setContentsMargins(4, 0, 4, 0);
  status_ = new QLabel;
  status_->setWordWrap(true);
  whole_button_ = new QPushButton("Whole map");
  whole_button_->setToolTip("Every block of the text again (or double-click the map)");
  layout->addWidget(status_, 1);
  layout->addWidget(whole_button_);
  bar_->hide();
  connect(whole_button_, &QPushButton::clicked, this, &PooledZoom::showWholeMap);
  settle_.setSingleShot(true);
  settle_.setInterval(kSettleMs);
  connect(&settle_, &QTimer::timeout, this, &PooledZoom::settled);
  connect(heatmap_, &AttentionHeatmap::visibleCellsChanged, this, &PooledZoom::onVisibleCellsChanged);
  heatmap_->plot()->installEventFilter(this);  // before the heatmap's own filter: a wheel out past a region
  heatmap_->installEventFilter(this);          // shown or hidden: the bar with it
}

bool PooledZoom::pooled() const { return source_.capture.pool > 1 && static_cast<bool>(source_.capture.region); }

QRect PooledZoom::tokensOf(const QRect& blocks) const {
  const int pool = source_.capture.pool;
  const QPoint first(blocks.x() * pool, blocks.y() * pool);
  const QPoint last(std::min((blocks.right() + 1) * pool, length()) - 1, std::min((blocks.bottom() + 1) * pool, length()) - 1);
  return QRect(first, last);
}

QRect PooledZoom::blocksOf(const QRect& tokens) const {
  const int pool = source_.capture.pool;
  return QRect(QPoint(tokens.left() / pool, tokens.top() / pool), QPoint(tokens.right() / pool, tokens.bottom() / pool));
}

QRect PooledZoom::around(const QRect& view) const {
  const auto [first_col, cols] = widened(view.x(), view.width(), kRegionTokens, length());
  const auto [first_row, rows] = widened(view.y(), view.height(), kRegionTokens, length());
  return {first_col, first_row, cols, rows};
}

bool PooledZoom::fits(const QRect& tokens) const {
  return tokens.isValid() && tokens.width() <= kRegionTokens && tokens.height() <= kRegionTokens;
}

bool PooledZoom::holdsWanted() const {
  return held_.block.values && held_.serial == source_.serial && held_.layer == source_.layer && held_.tokens == region_;
}

QRect PooledZoom::regionTokens() const { return shown_.tokens; }

bool PooledZoom::isBusy() const { return settle_.isActive() || running_ || (mode_ == Mode::Region && !holdsWanted()); }

QString PooledZoom::statusText() const { return status_->text(); }

bool PooledZoom::show(const AttentionCapture& capture, int serial, int layer, int head, const QString& model_name,
                      const HeadGates& gates) {
  const bool other_text = capture.text != source_.capture.text || capture.pool != source_.capture.pool ||
                          capture.length() != source_.capture.length();
  source_ = {capture, serial, layer, head, model_name, gates};
  if (other_text || !pooled()) {  // another text opens on its whole map
    mode_ = Mode::Pooled;
    held_ = {};
    error_.clear();
    returning_ = false;
    last_blocks_ = {};
  }
  refreshBar();
  if (mode_ != Mode::Region) return false;
  const bool held_current = held_.block.values && held_.serial == serial && held_.layer == layer;
  if (held_current && (shown_.serial != serial || shown_.layer != layer || shown_.head != head || shown_.tokens != held_.tokens))
    apply();
  if (!holdsWanted()) request();
  if (!showsRegion()) return false;  // the pooled map stays up, zoomed in, until the region comes
  // The region on screen is another layer's or run's: greyed (unless the view's own note is up).
  if (!held_current && !heatmap_->isStale())
    grey(QString("making %1 of layer %2 at full resolution…").arg(tokens_text(region_)).arg(layer + 1));
  return true;
}

void PooledZoom::pooledShown() {
  shown_ = {};
  if (greyed_) {
    heatmap_->setStale({});
    greyed_ = false;
  }
  if (!returning_) return;
  returning_ = false;
  applying_ = true;
  if (return_blocks_.isValid()) heatmap_->setVisibleCells(return_blocks_);
  else heatmap_->resetZoom();
  applying_ = false;
  last_blocks_ = heatmap_->visibleCells();
  refreshBar();
}

void PooledZoom::clear() {
  source_ = {};
  mode_ = Mode::Pooled;
  held_ = {};
  shown_ = {};
  error_.clear();
  returning_ = false;
  settle_.stop();
  refreshBar();
}

void PooledZoom::showTokens(const QRect& tokens) {
  const QRect inside = tokens & QRect(0, 0, length(), length());
  if (inside.isEmpty()) return;
  if (!pooled()) {
    heatmap_->setVisibleCells(inside);  // a short text's cells are its tokens
    return;
  }
  settle_.stop();
  if (!fits(inside)) {
    if (showsRegion()) return leaveRegion(blocksOf(inside));
    mode_ = Mode::Pooled;
    applying_ = true;
    heatmap_->setVisibleCells(blocksOf(inside));
    applying_ = false;
    last_blocks_ = heatmap_->visibleCells();
    return refreshBar();
  }
  if (showsRegion() && mode_ == Mode::Region && shown_.tokens.contains(inside)) {
    heatmap_->setVisibleCells(inside.translated(-shown_.tokens.topLeft()));
    return;
  }
  if (!showsRegion()) {  // the blocks meanwhile, so the map already shows where the region will be
    applying_ = true;
    heatmap_->setVisibleCells(blocksOf(inside));
    applying_ = false;
    last_blocks_ = heatmap_->visibleCells();
  }
  enterRegion(inside);
}

void PooledZoom::showWholeMap() {
  settle_.stop();
  if (showsRegion() || mode_ == Mode::Region) return leaveRegion({});
  heatmap_->resetZoom();
}

void PooledZoom::onVisibleCellsChanged(const QRect& cells) {
  if (applying_ || !pooled() || returning_) return;
  if (showsRegion()) {
    view_ = cells.translated(shown_.tokens.topLeft());
    titleView();
  } else if (!heatmap_->isZoomed()) {  // the whole pooled map: nothing to make
    last_blocks_ = cells;
    settle_.stop();
    if (mode_ == Mode::Region) {
      mode_ = Mode::Pooled;
      refreshBar();
    }
    return;
  }
  settle_.start();
}

void PooledZoom::settled() {
  if (!pooled() || heatmap_->matrix().rows == 0) return;
  const QRect visible = heatmap_->visibleCells();
  if (!showsRegion()) {  // the pooled map is on screen
    const auto& block = source_.capture.layers[static_cast<size_t>(source_.layer)];
    if (heatmap_->matrix().rows != block.rows || heatmap_->matrix().cols != block.cols) return;
    // Only a zoom in opens a region: after zooming out of one, a pan over the blocks stays on them.
    const bool zoomed_in = !last_blocks_.isValid() || area(visible) < area(last_blocks_);
    last_blocks_ = visible;
    const QRect tokens = tokensOf(visible);
    if (fits(tokens) && (zoomed_in || mode_ == Mode::Region)) return enterRegion(tokens);
    if (mode_ == Mode::Region) {  // zoomed out again before the region came: it is no longer wanted
      mode_ = Mode::Pooled;
      refreshBar();
    }
    return;
  }
  if (mode_ != Mode::Region) return;
  const QRect& shown = shown_.tokens;
  view_ = visible.translated(shown.topLeft());
  // At an edge of the region where the text goes on: the region around the view, so the pan goes on.
  const bool at_edge = (visible.left() == 0 && shown.left() > 0) || (visible.top() == 0 && shown.top() > 0) ||
                       (visible.right() == shown.width() - 1 && shown.right() < length() - 1) ||
                       (visible.bottom() == shown.height() - 1 && shown.bottom() < length() - 1);
  const QRect wanted = around(view_);
  if (!at_edge || wanted == region_) return;
  region_ = wanted;
  request();
  refreshBar();
}

void PooledZoom::enterRegion(const QRect& view) {
  mode_ = Mode::Region;
  view_ = view;
  region_ = around(view);
  error_.clear();
  if (holdsWanted()) apply();  // back to the tokens last made: shown again as they are
  else request();
  refreshBar();
}

void PooledZoom::leaveRegion(const QRect& blocks) {
  mode_ = Mode::Pooled;
  settle_.stop();
  return_blocks_ = blocks;
  returning_ = true;
  refreshBar();
  Q_EMIT pooledMapWanted();  // the view sets the pooled map (made again first if not held), then pooledShown()
}

void PooledZoom::request() {
  if (running_ || holdsWanted()) return;  // when the one under way is over, the newest wanted is made
  running_ = true;
  auto* watcher = new QFutureWatcher<Made>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    const auto made = watcher->result();
    watcher->deleteLater();
    onMade(made);
  });
  const Source& s = source_;
  watcher->setFuture(QtConcurrent::run([capture = s.capture, serial = s.serial, layer = s.layer, head = s.head,
                                        tokens = region_, name = s.model_name, gates = s.gates]() -> Made {
    Made made{serial, layer, head, tokens, {}, {}, {}};
    try {
      made.block = capture.region(layer, tokens.y(), tokens.y() + tokens.height(), tokens.x(), tokens.x() + tokens.width());
      made.matrix = region_matrix(capture, made.block, tokens, layer, head, name, gates);
    } catch (const std::exception& error) {
      made.error = QString::fromUtf8(error.what());
    }
    return made;
  }));
  refreshBar();
}

void PooledZoom::onMade(const Made& made) {
  running_ = false;
  const bool wanted = mode_ == Mode::Region && made.serial == source_.serial && made.layer == source_.layer &&
                      made.tokens == region_;
  if (!wanted) {  // superseded by a later zoom, pan, layer or run
    if (mode_ == Mode::Region) request();
    return refreshBar();
  }
  if (!made.error.isEmpty()) {
    error_ = QString("%1 could not be made at full resolution: %2").arg(tokens_text(made.tokens), made.error);
    return leaveRegion(blocksOf(view_));
  }
  held_ = made;
  apply();
}

void PooledZoom::apply() {
  const auto matrix = held_.head == source_.head ? held_.matrix
                                                 : region_matrix(source_.capture, held_.block, held_.tokens, source_.layer,
                                                                 source_.head, source_.model_name, source_.gates);
  const bool same_tokens = showsRegion() && shown_.tokens == held_.tokens;
  applying_ = true;
  heatmap_->setMatrix(matrix);  // the same tokens (a head or layer change): the zoom within them stays
  const QRect view = view_ & held_.tokens;
  if (!same_tokens) heatmap_->setVisibleCells((view.isEmpty() ? held_.tokens : view).translated(-held_.tokens.topLeft()));
  applying_ = false;
  shown_ = {source_.serial, source_.layer, source_.head, held_.tokens};
  view_ = heatmap_->visibleCells().translated(held_.tokens.topLeft());
  titleView();
  if (greyed_) {
    heatmap_->setStale({});
    greyed_ = false;
  }
  refreshBar();
}

void PooledZoom::titleView() {
  // The title names the tokens on view, as the axes do, not the whole region made around them.
  heatmap_->setTitle(region_title(source_.capture, view_ & shown_.tokens, source_.layer, source_.head,
                                  source_.model_name, source_.gates));
}

void PooledZoom::grey(const QString& note) {
  heatmap_->setStale(note);
  greyed_ = true;
}

void PooledZoom::refreshBar() {
  bar_->setVisible(pooled() && !heatmap_->isHidden());
  if (!pooled()) return;
  QString text;
  if (!error_.isEmpty()) {
    text = "<span style='color:#b00'>" + error_.toHtmlEscaped() + "</span>";
  } else if (mode_ == Mode::Pooled) {
    text = QString("Means of %1 × %1-token blocks · zoom in to %2 tokens or fewer to see them at full resolution")
               .arg(source_.capture.pool)
               .arg(QLocale(QLocale::English).toString(kRegionTokens));
  } else if (holdsWanted() && showsRegion()) {
    text = QString("<b>%1 at full resolution</b> · zoom out for block means")
               .arg(tokens_text(shown_.tokens).toHtmlEscaped());
  } else {
    text = QString("Making %1 of layer %2 at full resolution…").arg(tokens_text(region_)).arg(source_.layer + 1).toHtmlEscaped();
  }
  status_->setText(text);
}

bool PooledZoom::eventFilter(QObject* watched, QEvent* event) {
  if (watched == heatmap_) {
    if (event->type() == QEvent::Show || event->type() == QEvent::Hide) refreshBar();
    return false;
  }
  if (!showsRegion() || mode_ != Mode::Region) return false;
  if (event->type() == QEvent::MouseButtonDblClick && static_cast<QMouseEvent*>(event)->button() == Qt::LeftButton) {
    leaveRegion({});
    return true;
  }
  if (event->type() != QEvent::Wheel || heatmap_->isZoomed()) return false;
  const auto* wheel = static_cast<QWheelEvent*>(event);
  if (wheel->angleDelta().y() >= 0) return false;
  // A wheel out with the whole region on show: a larger region while there is one, else the blocks.
  const QRect larger = around(shown_.tokens);
  if (larger != shown_.tokens) {
    view_ = shown_.tokens;
    region_ = larger;
    request();
    refreshBar();
    return true;
  }
  const QRect blocks = blocksOf(shown_.tokens);
  const QPoint centre = blocks.center();
  const QSize wider(static_cast<int>(blocks.width() * kWheelOut) + 1, static_cast<int>(blocks.height() * kWheelOut) + 1);
  leaveRegion(QRect(QPoint(centre.x() - wider.width() / 2, centre.y() - wider.height() / 2), wider));
  return true;
}

}  // namespace aw

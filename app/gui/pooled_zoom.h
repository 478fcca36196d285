// app/gui/pooled_zoom.h — a long text's map at full resolution where the view is zoomed in far enough.
// The Attention tab shows a text of more than AttentionCapture::kFullMapTokens tokens as block means
// (`pool` × `pool` tokens). Once a zoom in leaves at most kRegionTokens tokens on show on both axes,
// this makes those tokens' weights, with a margin to pan in, on a worker (AttentionCapture::region,
// from the state entering the layer) and swaps them in, labelled with the tokens; a pan to the
// region's edge makes the region around the view. Zooming out past the region, a double-click or
// Whole map shows the block means again. A layer, head or gate change keeps showing the same tokens.
// One per heatmap, with a bar above it that says what is shown.
#pragma once

#include "app/gui/model_session.h"
#include "widgets/attention_matrix.h"

#include <QObject>
#include <QRect>
#include <QTimer>

class QLabel;
class QPushButton;

namespace aw {

class AttentionHeatmap;

class PooledZoom : public QObject {
  Q_OBJECT

 public:
  // Per axis, as many tokens as a short text's whole map shows.
  static constexpr int kRegionTokens = AttentionCapture::kFullMapTokens;
  // A wheel or a drag is many small steps: the view is acted on once it rests this long.
  static constexpr int kSettleMs = 150;

  explicit PooledZoom(AttentionHeatmap* heatmap, QObject* parent = nullptr);

  // For the view to put above the heatmap: what is shown and a Whole map button; shown only while the
  // map is a pooled one and the heatmap is.
  QWidget* bar() const { return bar_; }

  // The view's capture, layer and head for this heatmap, at every refresh. True when this shows them
  // (a region at full resolution, or the region shown so far, greyed, while this layer's is made);
  // false when the caller shows the map itself (the pooled map, a short text's), then calls pooledShown().
  bool show(const AttentionCapture& capture, int serial, int layer, int head, const QString& model_name,
            const HeadGates& gates);
  // The caller has just set the pooled map: the blocks a region was left at are shown.
  void pooledShown();
  void clear();  // no capture to show

  // Shows `tokens` (0-based, x = keys, y = queries): at full resolution when they span at most
  // kRegionTokens on both axes, else the blocks that hold them; on a short text, those cells.
  void showTokens(const QRect& tokens);
  void showWholeMap();  // every block again

  bool isRegion() const { return mode_ == Mode::Region; }  // a region is shown or wanted
  QRect regionTokens() const;  // the tokens of the region on the heatmap; empty when it shows none
  bool isBusy() const;         // a zoom waits to rest, or a region is being made
  QString statusText() const;

 Q_SIGNALS:
  void pooledMapWanted();  // back from a region: the view shows its pooled map again

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  enum class Mode { Pooled, Region };
  struct Source {
    AttentionCapture capture;
    int serial = -1, layer = 0, head = -1;
    QString model_name;
    HeadGates gates;
  };
  struct Made {  // a region made on the worker, or why not
    int serial = -1, layer = -1, head = -1;
    QRect tokens;
    WeightBlock block;
    AttentionMatrix matrix;  // for `head`, made there too: the UI thread only paints
    QString error;
  };

  bool pooled() const;  // the source is a pooled map whose regions can be made
  int length() const { return source_.capture.length(); }
  QRect tokensOf(const QRect& blocks) const;
  QRect blocksOf(const QRect& tokens) const;
  QRect around(const QRect& view) const;  // the region made for a view: twice its span, at most kRegionTokens
  bool fits(const QRect& tokens) const;
  bool holdsWanted() const;   // held_ is the region wanted, of the source's run and layer
  bool showsRegion() const { return shown_.tokens.isValid(); }
  void onVisibleCellsChanged(const QRect& cells);
  void settled();
  void enterRegion(const QRect& view);
  void leaveRegion(const QRect& blocks);  // empty: the whole map
  void request();
  void onMade(const Made& made);
  void apply();
  void titleView();  // the region's title for the tokens on view
  void grey(const QString& note);
  void refreshBar();

  AttentionHeatmap* heatmap_;
  QWidget* bar_;
  QLabel* status_;
  QPushButton* whole_button_;
  QTimer settle_;
  Source source_;
  Mode mode_ = Mode::Pooled;
  QRect region_;        // the region's tokens, shown or wanted
  QRect view_;          // the tokens on show within it
  Made held_;           // the last region made
  bool running_ = false;
  struct Shown {
    int serial = -1, layer = -1, head = -2;
    QRect tokens;  // invalid: the heatmap shows no region
  } shown_;
  QRect last_blocks_;    // the pooled view when it last rested: a zoom in leaves fewer blocks
  QRect return_blocks_;  // where the pooled map opens when a region is left
  bool returning_ = false;
  bool applying_ = false;  // the heatmap's changes made here are not the user's zoom
  bool greyed_ = false;    // the heatmap's stale note is this one's
  QString error_;
};

}  // namespace aw

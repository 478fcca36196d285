// widgets/attention_heatmap.h — one attention matrix as a heatmap: QCPColorMap without
// interpolation, viridis on a colour scale of the user's choice (fixed [0, 1] by default, so heads
// stay comparable; the map's own maximum; logarithmic; or each row divided by its maximum, for long
// sequences whose weights are all near 1/n), the scale named in the title (and so in an exported
// image), query 0 on top, token labels on both axes (rotated, thinned by the pixels available), and a
// hover readout "query → key: weight" with enough digits for small weights. Long texts are read by
// zooming: the wheel zooms around the pointer, a drag pans, Shift+drag zooms to a box, a double-click
// (or Reset zoom) shows the whole map again; the colour range stays the whole map's. Find a token,
// export what is on screen (PNG, SVG, PDF) and copy the visible cells as tab-separated values.
#pragma once

#include "widgets/attention_matrix.h"
#include "widgets/colour_scale.h"

#include <QPointF>
#include <QRect>
#include <QTimer>
#include <QWidget>

class QAction;
class QCPItemRect;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QLabel;
class QRubberBand;

namespace aw {

class AttentionHeatmap : public QWidget {
  Q_OBJECT

 public:
  explicit AttentionHeatmap(QWidget* parent = nullptr);

  // A matrix of the same size as the one shown keeps the zoom (a head or layer change stays on the
  // region being read); any other size shows the whole map.
  void setMatrix(const AttentionMatrix& matrix);
  const AttentionMatrix& matrix() const { return matrix_; }
  void setColourScale(ColourScale scale);
  ColourScale colourScale() const { return scale_; }
  QString titleText() const { return full_title_; }  // the matrix's title and the scale in use (not elided)
  // A new title for the matrix on show (what a zoom within it shows), the scale's line kept.
  void setTitle(const QString& title);
  // Lines the title takes at the current width (a long one wraps), and a floor the title is padded
  // to, so maps side by side keep their top edges level when only one title wraps.
  int titleLines() const { return title_lines_; }
  void setMinimumTitleLines(int lines);
  // While a new run for this map is under way: the old map greyed and `note` ("running bet_sf…")
  // over it; empty `note` = current again.
  void setStale(const QString& note);
  bool isStale() const;
  // What the map says while it has no matrix (no model, no sentence run yet), in place of the plot.
  void setPlaceholder(const QString& text);
  QString placeholderText() const { return placeholder_text_; }

  // "query → key: 0.123" (small weights in scientific notation, 4 significant digits) for a cell, or
  // an empty string outside the matrix.
  QString cellText(int row, int col) const;
  // The cell under a widget-local position, or (-1, -1).
  QPoint cellAt(const QPoint& position) const;
  // The tooltip over a cell: its cellText (escaped) above the navigation hint.
  QString hoverText(const QPoint& cell) const;

  // --- The visible region, in cells: x = key column, y = query row. ---
  static constexpr int kMinVisibleCells = 3;  // zoom in stops here: a cell is then a third of the map
  static constexpr int kFoundTokenCells = 32;  // a found token is shown with this many cells around it
  // The cells at least partly on screen (the whole matrix unless zoomed; empty without a matrix).
  QRect visibleCells() const;
  bool isZoomed() const;
  // Shows `cells` edge to edge, clamped to the matrix and widened to kMinVisibleCells per axis.
  void setVisibleCells(const QRect& cells);
  // Scales the visible span by `factor` (< 1 zooms in) keeping cell coordinate `around` where it is
  // on screen, within the same limits.
  void zoomBy(double factor, const QPointF& around);
  void resetZoom();

  // The next token after `after` (wrapping) whose key label (x) or query label (y) contains `text`,
  // case-insensitive: x and y are its index on the axes where it matches, else −1; (−1, −1) if none.
  QPoint findToken(const QString& text, int after = -1) const;
  // Centres the view on `token` (a findToken result) along the axes where it matched, zoomed in to
  // kFoundTokenCells if more is shown, and outlines its row, column or cell.
  void showToken(const QPoint& token);
  // The cells showToken outlined (x: keys, y: queries, in cells; a row spans every key), or a null
  // rect when none is outlined.
  QRect outlinedCells() const;
  // findToken after the token this last found (from the start for new text), then showToken: the
  // match, or (−1, −1) with the view unchanged.
  QPoint findNextToken(const QString& text);

  // Writes what is on screen (the visible region, the title, the colour scale) as PNG (twice the
  // screen's pixels), SVG or PDF, by `path`'s suffix. Returns "" or the reason it could not.
  QString exportView(const QString& path);
  // The visible cells as tab-separated values (heatmap_region.h: region_tsv).
  QString regionText() const;
  void copyRegion() const;  // regionText() to the clipboard

  // The hook for a caller that fills in the region being looked at (visibleCellsChanged), e.g. one
  // that shows an approximate or placeholder map first and computes the visible cells exactly on
  // demand: replaces the weights of `cells` with `detail` (detail.rows == cells.height(),
  // detail.cols == cells.width(); its labels are not used), keeping the view, the labels and the
  // found token. The colours follow the current scale over the whole map (fixed 0–1: unchanged).
  // Returns "" or what does not fit, with the sizes. Units are the shown matrix' cells: a caller
  // whose cells are blocks of tokens maps them itself. To replace every weight, setMatrix with a
  // matrix of the same size keeps the view as well.
  QString setRegionDetail(const QRect& cells, const AttentionMatrix& detail);

  // The context menu's actions (Export view…, Copy region, Reset zoom), for a window's own menus.
  QList<QAction*> viewActions() const;

  QCustomPlot* plot() const { return plot_; }
  QCPColorMap* colorMap() const { return color_map_; }

 Q_SIGNALS:
  void titleLinesChanged(int lines);
  void cellHovered(int row, int col, float weight);
  void cellClicked(int row, int col);  // a press and release on one cell without a drag
  // The visible cells changed (zoom, pan, reset, a matrix of another size): a caller can compute this
  // region in full and hand it back through setRegionDetail. It comes at every step of a drag or a
  // wheel: a caller that computes wait for the pointer to rest (a single-shot timer).
  void visibleCellsChanged(const QRect& cells);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  bool updateTicks();  // token labels for the visible cells; whether they changed
  // Shows these axis ranges (cell units) after clamping them to the matrix; ticks, replot, signal.
  void setView(double key_lower, double key_upper, double query_lower, double query_upper);
  bool handleMouse(QEvent* event);  // wheel, drag, box zoom, double-click; true when it used the event
  void showContextMenu(const QPoint& position);
  void exportWithDialog();
  void paintCells();  // the matrix's cells and the colour range under the current scale
  void elideTitle();  // each title line wrapped, then cut with "…", to the plot's width, so it never overflows

  AttentionMatrix matrix_;
  ColourScale scale_ = ColourScale::Fixed;
  QCustomPlot* plot_;
  QCPColorMap* color_map_;
  QCPColorScale* color_scale_;
  QCPTextElement* title_;
  QLabel* stale_note_;
  QString stale_text_;
  QLabel* placeholder_;
  QString placeholder_text_ = "Type a sentence and press Enter";
  void updatePlaceholder();
  QRubberBand* rubber_band_;
  QCPItemRect* found_outline_;
  QAction* export_action_;
  QAction* copy_action_;
  QAction* reset_action_;
  QRect visible_;            // last reported by visibleCellsChanged
  int last_found_ = -1;      // the token findNextToken found last, and for which text
  QString last_find_text_;
  enum class Drag { None, Pan, Box };
  Drag drag_ = Drag::None;
  bool ticks_replotted_ = false;  // the last layout changed the labels and asked for one more
  bool dragged_ = false;     // moved past the drag distance since the press (not a click)
  QPoint press_position_;
  QTimer click_timer_;       // a click is a cell's once the double-click interval passes without a second
  QPoint clicked_cell_;
  double press_key_lower_ = 0, press_key_upper_ = 0, press_query_lower_ = 0, press_query_upper_ = 0;
  QString full_title_;
  QString scale_caption_;  // the title's last line: the colour scale in use
  int title_lines_ = 0;
  int minimum_title_lines_ = 0;
};

}  // namespace aw

// tests/widgets/test_attention_heatmap_view.cpp — zooming into the attention heatmap
// (widgets/attention_heatmap_view.cpp) under QT_QPA_PLATFORM=offscreen: the wheel zooms around the
// pointer, a drag pans, Shift+drag zooms to a box, a double-click shows the whole map, the tick labels
// follow the visible tokens, a token is found and shown, the visible cells are copied as TSV, the view
// is exported as PNG, PDF and SVG, a region's weights are replaced without moving the view, and a region
// of a longer text numbers its axes as the text does.
#include "widgets/attention_heatmap.h"
#include "widgets/attention_matrix.h"
#include "widgets/heatmap_find_bar.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QLineEdit>
#include <QMenu>
#include <QFile>
#include <QRubberBand>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace aw;

namespace {

// `size` × `size` tokens "t0", "t1", …; cell (row, col) weighs (row × size + col) / 10000 so every
// cell is told apart.
AttentionMatrix numbered(int size) {
  AttentionMatrix matrix;
  matrix.rows = matrix.cols = size;
  for (int row = 0; row < size; ++row)
    for (int col = 0; col < size; ++col) matrix.weights.push_back(static_cast<float>(row * size + col) / 10000);
  for (int i = 0; i < size; ++i) matrix.row_labels << QString("t%1").arg(i);
  matrix.col_labels = matrix.row_labels;
  matrix.title = "numbered";
  return matrix;
}

// A shown 600 × 600 heatmap of `matrix`, laid out.
void show(AttentionHeatmap& heatmap, const AttentionMatrix& matrix) {
  heatmap.resize(600, 600);
  heatmap.show();
  heatmap.setMatrix(matrix);
  heatmap.plot()->replot();
}

// The pixel at the centre of cell (col, row).
QPoint pixel_of(const AttentionHeatmap& heatmap, double col, double row) {
  return {qRound(heatmap.plot()->xAxis->coordToPixel(col)), qRound(heatmap.plot()->yAxis->coordToPixel(row))};
}

void send_mouse(QWidget* widget, QEvent::Type type, const QPoint& at, Qt::MouseButton button,
                Qt::MouseButtons held, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
  QMouseEvent event(type, QPointF(at), widget->mapToGlobal(QPointF(at)), button, held, modifiers);
  QApplication::sendEvent(widget, &event);
}

// Press, move halfway, move on and release: what a hand does.
void drag(QWidget* widget, const QPoint& from, const QPoint& to, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
  send_mouse(widget, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton, modifiers);
  send_mouse(widget, QEvent::MouseMove, (from + to) / 2, Qt::NoButton, Qt::LeftButton, modifiers);
  send_mouse(widget, QEvent::MouseMove, to, Qt::NoButton, Qt::LeftButton, modifiers);
  send_mouse(widget, QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton, modifiers);
}

void wheel(QWidget* widget, const QPoint& at, int notches) {
  QWheelEvent event(QPointF(at), widget->mapToGlobal(QPointF(at)), QPoint(), QPoint(0, 120 * notches),
                    Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(widget, &event);
}

QMap<double, QString> ticks(QCPAxis* axis) { return qSharedPointerCast<QCPAxisTickerText>(axis->ticker())->ticks(); }

}  // namespace

class AttentionHeatmapViewTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void wheelZoomsAroundThePointer() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    QSignalSpy changed(&heatmap, &AttentionHeatmap::visibleCellsChanged);
    const auto colour_range = heatmap.colorMap()->dataRange();
    const QPoint at = pixel_of(heatmap, 7, 12);
    const double key = heatmap.plot()->xAxis->pixelToCoord(at.x()), query = heatmap.plot()->yAxis->pixelToCoord(at.y());
    wheel(heatmap.plot(), at, 2);
    QVERIFY(heatmap.isZoomed());
    QVERIFY(qAbs(heatmap.plot()->xAxis->range().size() - 20 * 0.8 * 0.8) < 1e-9);
    // The coordinate under the pointer is where it was, and so (after the replot) is its cell.
    QVERIFY(qAbs(heatmap.plot()->xAxis->pixelToCoord(at.x()) - key) < 1e-9);
    QVERIFY(qAbs(heatmap.plot()->yAxis->pixelToCoord(at.y()) - query) < 1e-9);
    heatmap.plot()->replot();
    QCOMPARE(heatmap.cellAt(at), QPoint(7, 12));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.last().at(0).toRect(), heatmap.visibleCells());
    QCOMPARE(heatmap.colorMap()->dataRange(), colour_range);  // the colour scale is the whole map's
    // Zooming in stops at kMinVisibleCells across; zooming out at the whole matrix.
    wheel(heatmap.plot(), at, 30);
    QCOMPARE(heatmap.plot()->xAxis->range().size(), double(AttentionHeatmap::kMinVisibleCells));
    QCOMPARE(heatmap.plot()->yAxis->range().size(), double(AttentionHeatmap::kMinVisibleCells));
    wheel(heatmap.plot(), at, -30);
    QCOMPARE(heatmap.visibleCells(), QRect(0, 0, 20, 20));
    QVERIFY(!heatmap.isZoomed());
  }

  void dragPansByTheCellsMoved() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    heatmap.setVisibleCells(QRect(5, 5, 8, 8));
    QCOMPARE(heatmap.visibleCells(), QRect(5, 5, 8, 8));
    heatmap.plot()->replot();  // the axes' new labels may move the margins
    QSignalSpy clicked(&heatmap, &AttentionHeatmap::cellClicked);
    // Drag the map 2 cells left and 3 cells up: the view moves 2 cells right and 3 down.
    const QPoint from = pixel_of(heatmap, 9, 9), to = pixel_of(heatmap, 7, 6);
    const double key_pixel = 8.0 / heatmap.plot()->axisRect()->width(), query_pixel = 8.0 / heatmap.plot()->axisRect()->height();
    drag(heatmap.plot(), from, to);
    QVERIFY2(qAbs(heatmap.plot()->xAxis->range().lower - 6.5) <= key_pixel,
             qPrintable(QString::number(heatmap.plot()->xAxis->range().lower)));
    QVERIFY2(qAbs(heatmap.plot()->yAxis->range().lower - 7.5) <= query_pixel,
             qPrintable(QString::number(heatmap.plot()->yAxis->range().lower)));
    QCOMPARE(heatmap.plot()->xAxis->range().size(), 8.0);  // a pan never zooms
    QCOMPARE(clicked.count(), 0);                           // a drag is no click
    // Past the edge: the view stops at the matrix' first cell.
    drag(heatmap.plot(), pixel_of(heatmap, 6.6, 9), pixel_of(heatmap, 14.4, 9));
    QCOMPARE(heatmap.plot()->xAxis->range().lower, -0.5);
  }

  void clickWithoutDragNamesTheCell() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    QSignalSpy clicked(&heatmap, &AttentionHeatmap::cellClicked);
    QTest::mouseClick(heatmap.plot(), Qt::LeftButton, Qt::NoModifier, pixel_of(heatmap, 3, 11));
    QCOMPARE(clicked.count(), 0);  // said once no second click can follow
    QTRY_COMPARE(clicked.count(), 1);
    QCOMPARE(clicked.first().at(0).toInt(), 11);  // row
    QCOMPARE(clicked.first().at(1).toInt(), 3);   // column
    QVERIFY(!heatmap.isZoomed());
  }

  void shiftDragZoomsToTheBox() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    drag(heatmap.plot(), pixel_of(heatmap, 7, 5), pixel_of(heatmap, 2, 1), Qt::ShiftModifier);  // any corner first
    QCOMPARE(heatmap.visibleCells(), QRect(2, 1, 6, 5));  // keys 2–7, queries 1–5
    QCOMPARE(heatmap.plot()->xAxis->range().lower, 1.5);
    QCOMPARE(heatmap.plot()->xAxis->range().upper, 7.5);
    QVERIFY(!heatmap.plot()->findChild<QRubberBand*>()->isVisible());
  }

  // A double-click shows the whole map and chooses no cell: its first click is not a click on a cell
  // (it moved the Predictions to that row).
  void aDoubleClickIsNoClickOnACell() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    heatmap.setVisibleCells(QRect(3, 4, 5, 6));
    QSignalSpy clicked(&heatmap, &AttentionHeatmap::cellClicked);
    const QPoint at = pixel_of(heatmap, 5, 6);
    QTest::mouseClick(heatmap.plot(), Qt::LeftButton, Qt::NoModifier, at);
    QTest::mouseDClick(heatmap.plot(), Qt::LeftButton, Qt::NoModifier, at);
    QTest::qWait(2 * QApplication::doubleClickInterval());
    QCOMPARE(clicked.count(), 0);
    QVERIFY(!heatmap.isZoomed());
  }

  void doubleClickAndResetShowTheWholeMap() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    QAction* reset = heatmap.viewActions().at(2);
    QCOMPARE(reset->text(), QString("Reset zoom"));
    QVERIFY(!reset->isEnabled());
    heatmap.setVisibleCells(QRect(3, 4, 5, 6));
    QVERIFY(reset->isEnabled());
    QTest::mouseDClick(heatmap.plot(), Qt::LeftButton, Qt::NoModifier, pixel_of(heatmap, 5, 6));
    QCOMPARE(heatmap.visibleCells(), QRect(0, 0, 20, 20));
    QCOMPARE(heatmap.plot()->xAxis->range(), QCPRange(-0.5, 19.5));
    QCOMPARE(heatmap.plot()->yAxis->range(), QCPRange(-0.5, 19.5));
    heatmap.setVisibleCells(QRect(3, 4, 5, 6));
    reset->trigger();
    QCOMPARE(heatmap.visibleCells(), QRect(0, 0, 20, 20));
    QVERIFY(!heatmap.isZoomed());
    QCOMPARE(heatmap.plot()->xAxis->label(), QString("key (attended token)"));
  }

  // A matrix of the same size (another head) keeps the zoom; one of another size shows whole.
  void sameSizeMatrixKeepsTheZoom() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    heatmap.setVisibleCells(QRect(3, 4, 5, 6));
    auto other_head = numbered(20);
    other_head.title = "another head";
    heatmap.setMatrix(other_head);
    QCOMPARE(heatmap.visibleCells(), QRect(3, 4, 5, 6));
    heatmap.setMatrix(numbered(30));
    QCOMPARE(heatmap.visibleCells(), QRect(0, 0, 30, 30));
  }

  void tickLabelsAreTheVisibleTokens() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(200));
    QVERIFY(ticks(heatmap.plot()->xAxis).size() < 200);  // the whole map: thinned
    heatmap.setVisibleCells(QRect(100, 40, 6, 5));
    const QMap<double, QString> keys{{100, "t100"}, {101, "t101"}, {102, "t102"}, {103, "t103"}, {104, "t104"}, {105, "t105"}};
    const QMap<double, QString> queries{{40, "t40"}, {41, "t41"}, {42, "t42"}, {43, "t43"}, {44, "t44"}};
    QCOMPARE(ticks(heatmap.plot()->xAxis), keys);
    QCOMPARE(ticks(heatmap.plot()->yAxis), queries);
    // The axes' titles say which tokens are on show (from 1), so an exported view does too.
    QCOMPARE(heatmap.plot()->xAxis->label(), QString("key (attended token) · 101–106 of 200"));
    QCOMPARE(heatmap.plot()->yAxis->label(), QString("query (attending token) · 41–45 of 200"));
    // 60 visible cells on ~500 pixels: thinned again, but only visible tokens.
    heatmap.setVisibleCells(QRect(100, 100, 60, 60));
    const auto thinned = ticks(heatmap.plot()->xAxis);
    QVERIFY(thinned.size() > 2 && thinned.size() < 60);
    for (auto tick = thinned.cbegin(); tick != thinned.cend(); ++tick) {
      QVERIFY(tick.key() >= 100 && tick.key() < 160);
      QCOMPARE(tick.value(), QString("t%1").arg(tick.key()));
    }
  }

  // A region of a longer text (a pooled map's tokens at full resolution) numbers its axes as the
  // text does, whole or zoomed.
  void aRegionsAxesNumberTheTextsTokens() {
    AttentionHeatmap heatmap;
    auto region = numbered(100);
    region.first_row = 2048;
    region.first_col = 500;
    region.text_length = 8192;
    show(heatmap, region);
    QCOMPARE(heatmap.plot()->xAxis->label(), QString("key (attended token) · 501–600 of 8,192"));
    QCOMPARE(heatmap.plot()->yAxis->label(), QString("query (attending token) · 2,049–2,148 of 8,192"));
    heatmap.setVisibleCells(QRect(10, 20, 5, 6));
    QCOMPARE(heatmap.plot()->xAxis->label(), QString("key (attended token) · 511–515 of 8,192"));
    QCOMPARE(heatmap.plot()->yAxis->label(), QString("query (attending token) · 2,069–2,074 of 8,192"));
  }

  void findTokenFindsTheNextMatchAndWraps() {
    AttentionHeatmap heatmap;
    auto matrix = numbered(200);
    matrix.row_labels[30] = matrix.col_labels[30] = "Paris";
    matrix.row_labels[150] = matrix.col_labels[150] = "paris";
    show(heatmap, matrix);
    QCOMPARE(heatmap.findToken("PARIS"), QPoint(30, 30));
    QCOMPARE(heatmap.findToken("paris", 30), QPoint(150, 150));
    QCOMPARE(heatmap.findToken("paris", 150), QPoint(30, 30));  // wraps
    QCOMPARE(heatmap.findToken("London"), QPoint(-1, -1));
    // Jumping: centred on the token, zoomed in to kFoundTokenCells, then on to the next one.
    QCOMPARE(heatmap.findNextToken("paris"), QPoint(30, 30));
    QCOMPARE(heatmap.plot()->xAxis->range().center(), 30.0);
    QCOMPARE(heatmap.plot()->yAxis->range().center(), 30.0);
    QCOMPARE(heatmap.plot()->xAxis->range().size(), double(AttentionHeatmap::kFoundTokenCells));
    QCOMPARE(heatmap.findNextToken("paris"), QPoint(150, 150));
    QCOMPARE(heatmap.plot()->xAxis->range().center(), 150.0);
    QCOMPARE(heatmap.findNextToken("paris"), QPoint(30, 30));
    const QRect before = heatmap.visibleCells();
    QCOMPARE(heatmap.findNextToken("London"), QPoint(-1, -1));
    QCOMPARE(heatmap.visibleCells(), before);  // none: the view stays
    // Near the edge the view stays inside the matrix.
    matrix.row_labels[2] = matrix.col_labels[2] = "Lyon";
    heatmap.setMatrix(matrix);
    heatmap.findNextToken("lyon");
    QCOMPARE(heatmap.plot()->xAxis->range().lower, -0.5);
  }

  // The find bar: Enter jumps to the next match on each shown map, and says when there is none.
  void findBarJumpsOnEnterAndSaysNone() {
    AttentionHeatmap heatmap, hidden;
    auto matrix = numbered(100);
    matrix.row_labels[60] = matrix.col_labels[60] = "Paris";
    show(heatmap, matrix);
    hidden.setMatrix(matrix);  // never shown: a compared map with compare off
    HeatmapFindBar bar;
    bar.setHeatmaps({&heatmap, &hidden});
    bar.show();
    QTest::keyClicks(bar.edit(), "pari");
    QTest::keyClick(bar.edit(), Qt::Key_Return);
    QCOMPARE(heatmap.plot()->xAxis->range().center(), 60.0);
    QVERIFY(!hidden.isZoomed());
    QCOMPARE(bar.note(), QString());
    bar.edit()->clear();
    QTest::keyClicks(bar.edit(), "zebra");
    QTest::keyClick(bar.edit(), Qt::Key_Return);
    QCOMPARE(bar.note(), QString("no token 'zebra'"));
    QCOMPARE(heatmap.plot()->xAxis->range().center(), 60.0);  // the view stays
  }

  void regionTextOfAZoomedRegion() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    heatmap.setVisibleCells(QRect(1, 2, 4, 3));  // keys 1–4, queries 2–4
    QCOMPARE(heatmap.visibleCells(), QRect(1, 2, 4, 3));
    const QString expected = "\tt1\tt2\tt3\tt4\n"
                             "t2\t0.0041\t0.0042\t0.0043\t0.0044\n"
                             "t3\t0.0061\t0.0062\t0.0063\t0.0064\n"
                             "t4\t0.0081\t0.0082\t0.0083\t0.0084\n";
    QCOMPARE(heatmap.regionText(), expected);
    heatmap.viewActions().at(1)->trigger();  // Copy region
    QCOMPARE(QApplication::clipboard()->text(), expected);
  }

  void exportWritesPngPdfAndSvg() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    heatmap.setVisibleCells(QRect(2, 2, 6, 6));
    QTemporaryDir dir;
    const auto png = dir.filePath("view.png"), pdf = dir.filePath("view.pdf"), svg = dir.filePath("view.svg");
    QCOMPARE(heatmap.exportView(png), QString());
    QCOMPARE(QImage(png).size(), heatmap.plot()->size() * 2);  // twice the screen's pixels
    QCOMPARE(heatmap.exportView(pdf), QString());
    QFile pdf_file(pdf);
    QVERIFY(pdf_file.open(QIODevice::ReadOnly));
    QVERIFY(pdf_file.read(4) == "%PDF");
    QCOMPARE(heatmap.exportView(dir.filePath("view.SVG")), QString());  // the suffix in any case
    QFile svg_file(dir.filePath("view.SVG"));
    QVERIFY(svg_file.open(QIODevice::ReadOnly));
    const QByteArray svg_text = svg_file.readAll();
    QVERIFY(svg_text.contains("<svg"));
    QVERIFY(svg_text.contains("t5"));  // the visible tokens' labels, as text
    QCOMPARE(heatmap.exportView(dir.filePath("view.bmp")),
             QString("cannot export to '%1': the name must end in .png, .svg or .pdf").arg(dir.filePath("view.bmp")));
    QCOMPARE(heatmap.exportView("/nonexistent-folder/view.png"), QString("could not write '/nonexistent-folder/view.png'"));
    QCOMPARE(heatmap.visibleCells(), QRect(2, 2, 6, 6));  // exporting leaves the view alone
  }

  // Right-click offers the three actions; the tooltip tells how to zoom.
  void contextMenuAndTooltipOfferTheView() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    QVERIFY(heatmap.plot()->toolTip().contains("Shift+drag: zoom to a box"));
    QStringList offered;
    QTimer::singleShot(0, &heatmap, [&offered] {
      auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
      if (!menu) return;
      for (auto* action : menu->actions()) offered << action->text();
      menu->close();
    });
    Q_EMIT heatmap.plot()->customContextMenuRequested(pixel_of(heatmap, 5, 5));
    QCOMPARE(offered, (QStringList{"Export view…", "Copy region", "Reset zoom"}));
  }

  void regionDetailReplacesWeightsWithoutMovingTheView() {
    AttentionHeatmap heatmap;
    show(heatmap, numbered(20));
    heatmap.setVisibleCells(QRect(4, 4, 6, 6));
    AttentionMatrix detail;
    detail.rows = 2;
    detail.cols = 3;
    detail.weights = {0.5f, 0.25f, 0.125f, 1.0f, 0.0f, 0.75f};
    QCOMPARE(heatmap.setRegionDetail(QRect(5, 6, 3, 2), detail), QString());
    QCOMPARE(heatmap.matrix().at(6, 5), 0.5f);
    QCOMPARE(heatmap.matrix().at(7, 7), 0.75f);
    QCOMPARE(heatmap.colorMap()->data()->cell(5, 7), 1.0);  // (key, query) painted
    QCOMPARE(heatmap.matrix().at(6, 4), static_cast<float>(6 * 20 + 4) / 10000);  // outside the region: as was
    QCOMPARE(heatmap.visibleCells(), QRect(4, 4, 6, 6));
    QCOMPARE(heatmap.setRegionDetail(QRect(18, 0, 3, 2), detail), QString("queries 0–1, keys 18–20 are not all inside the 20×20 map"));
    QCOMPARE(heatmap.setRegionDetail(QRect(0, 0, 2, 2), detail),
             QString("detail of 2×3 (6 weights) does not fill a region of 2×2 cells"));
  }
};

QTEST_MAIN(AttentionHeatmapViewTests)
#include "test_attention_heatmap_view.moc"

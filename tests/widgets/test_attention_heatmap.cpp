// tests/widgets/test_attention_heatmap.cpp — the attention heatmap (widgets/attention_heatmap.h) under
// QT_QPA_PLATFORM=offscreen: its colour-map data, ticks (thinned for long texts), hover text (kept while
// the pointer rests), the four colour scales, titles wrapped, padded and elided to the map's width, greyed
// while stale, and a single LAMA row scaled to its largest weight.
#include "tests/widgets/attention_matrices.h"
#include "widgets/attention_heatmap.h"
#include "widgets/attention_matrix.h"
#include "widgets/color_maps.h"
#include "widgets/colour_scale.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QHelpEvent>
#include <QSignalSpy>
#include <QToolTip>
#include <QLabel>
#include <QTest>

using namespace aw;

namespace {

using aw::test::three_by_three;

// The heatmap's title element after `title` is laid out at `width` pixels (a resize lays it out).
QCPTextElement* title_at_width(AttentionHeatmap& heatmap, const QString& title, int width) {
  heatmap.resize(width + 10, 300);
  heatmap.show();
  auto matrix = three_by_three();
  matrix.title = title;
  heatmap.setMatrix(matrix);
  heatmap.resize(width, 300);
  QTest::qWait(20);
  return qobject_cast<QCPTextElement*>(heatmap.plot()->plotLayout()->element(0, 0));
}

}  // namespace

class AttentionHeatmapTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void heatmapSetsColourMapDataAndLabels() {
    AttentionHeatmap heatmap;
    heatmap.resize(500, 500);
    heatmap.setMatrix(three_by_three());
    auto* data = heatmap.colorMap()->data();
    QCOMPARE(data->keySize(), 3);
    QCOMPARE(data->valueSize(), 3);
    // Cell (key = column, value = row).
    QCOMPARE(data->cell(1, 1), 0.75);
    QCOMPARE(data->cell(0, 2), 0.5);
    QCOMPARE(data->cell(2, 0), 0.0);
    const auto x_ticks = qSharedPointerCast<QCPAxisTickerText>(heatmap.plot()->xAxis->ticker())->ticks();
    const auto y_ticks = qSharedPointerCast<QCPAxisTickerText>(heatmap.plot()->yAxis->ticker())->ticks();
    QCOMPARE(x_ticks.value(0), QString("the"));
    QCOMPARE(x_ticks.value(2), QString("sat"));
    QCOMPARE(y_ticks.value(1), QString("cat"));
    QVERIFY(heatmap.plot()->yAxis->rangeReversed());  // query 0 on top
    QCOMPARE(heatmap.colorMap()->dataRange().lower, 0.0);
    QCOMPARE(heatmap.colorMap()->dataRange().upper, 1.0);
    QVERIFY(!heatmap.colorMap()->interpolate());
  }

  void heatmapHoverTextNamesQueryKeyAndWeight() {
    AttentionHeatmap heatmap;
    heatmap.setMatrix(three_by_three());
    QCOMPARE(heatmap.cellText(2, 1), QString("sat → cat: 0.125"));
    QCOMPARE(heatmap.cellText(1, 1), QString("cat → cat: 0.750"));
    QVERIFY(heatmap.cellText(3, 0).isEmpty());
    QVERIFY(heatmap.cellText(-1, 0).isEmpty());
  }

  // The four colour scales on a hand-made matrix: the data painted, the range, the title naming the
  // scale; a weight below 0.01 reads in scientific notation.
  void heatmapColourScales() {
    AttentionHeatmap heatmap;
    heatmap.resize(500, 500);
    auto matrix = three_by_three();
    matrix.weights = {0.002f, 0.0f, 0.0f, 0.25f, 0.5f, 0.0f, 0.004f, 0.001f, 0.0005f};  // rows need not sum here
    heatmap.setMatrix(matrix);
    QCOMPARE(heatmap.colourScale(), ColourScale::Fixed);
    QCOMPARE(heatmap.titleText(), QString("test\nscale 0–1"));
    QCOMPARE(heatmap.cellText(2, 2), QString("sat → sat: 5.000e-04"));
    QCOMPARE(heatmap.cellText(1, 0), QString("cat → the: 0.250"));
    heatmap.setColourScale(ColourScale::Auto);
    QCOMPARE(heatmap.colorMap()->dataRange().upper, 0.5);
    QCOMPARE(heatmap.titleText(), QString("test\nscale 0–0.5 (99th percentile of the map)"));  // 6 weights: the 6th
    heatmap.setColourScale(ColourScale::RowNormalised);
    auto* data = heatmap.colorMap()->data();
    QCOMPARE(data->cell(0, 0), 1.0);                               // 0.002 / 0.002
    QCOMPARE(data->cell(0, 1), 0.5);                               // 0.25 / 0.5
    QVERIFY(qAbs(data->cell(1, 2) - 0.25) < 1e-6);                 // 0.001 / 0.004
    QCOMPARE(heatmap.colorMap()->dataRange().upper, 1.0);
    heatmap.setColourScale(ColourScale::Log);
    QCOMPARE(heatmap.colorMap()->dataScaleType(), QCPAxis::stLogarithmic);
    QVERIFY(qAbs(heatmap.colorMap()->dataRange().lower - 0.0005) < 1e-9);  // the smallest positive weight
    QCOMPARE(heatmap.colorMap()->dataRange().upper, 0.5);
    QVERIFY(data->cell(1, 0) > 0);  // a zero sits at the floor, not at −∞
    QCOMPARE(heatmap.titleText(), QString("test\nlog scale"));
    // Weights within one decade: the scale still spans a decade, downwards — its top stays the largest
    // weight, never past 1 for probabilities.
    auto narrow = three_by_three();
    narrow.weights = {1.0f, 0.0f, 0.0f, 0.4f, 0.6f, 0.0f, 0.3f, 0.3f, 0.4f};
    heatmap.setMatrix(narrow);
    QCOMPARE(heatmap.colorMap()->dataRange().upper, 1.0);
    QVERIFY(qAbs(heatmap.colorMap()->dataRange().lower - 0.1) < 1e-7);
    heatmap.setMatrix(matrix);
    // The names the chooser shows go back to their scales.
    for (const auto scale : {ColourScale::Fixed, ColourScale::Auto, ColourScale::Log, ColourScale::RowNormalised})
      QCOMPARE(colour_scale_from_name(colour_scale_name(scale)), scale);
    // Back to the default: linear, 0–1 again.
    heatmap.setColourScale(ColourScale::Fixed);
    QCOMPARE(heatmap.colorMap()->dataScaleType(), QCPAxis::stLinear);
    QCOMPARE(heatmap.colorMap()->dataRange().upper, 1.0);
  }

  // A title wider than its map breaks between words onto a second line, whole when two lines hold it.
  void heatmapTitleWrapsToItsWidth() {
    AttentionHeatmap heatmap;
    const QString text = "bet_sf · layer 2 · mean of 8 heads (1 off, still in the mean)";
    auto* title = title_at_width(heatmap, text, 420);
    QVERIFY(title);
    const QStringList lines = title->text().split('\n');
    QCOMPARE(lines.size(), 3);  // too wide for one line: the title on two, then the scale
    QCOMPARE(lines[0] + ' ' + lines[1], text);
    QCOMPARE(lines[2], QString("scale 0–1"));
    for (const auto& line : lines) QVERIFY(QFontMetrics(title->font()).horizontalAdvance(line) <= 420);
  }

  // A floor on the title's lines pads it with blank lines (the natural count is still reported).
  void heatmapTitlePadsToAMinimum() {
    AttentionHeatmap heatmap;
    heatmap.resize(400, 300);
    heatmap.show();
    QSignalSpy changed(&heatmap, &AttentionHeatmap::titleLinesChanged);
    auto matrix = three_by_three();
    matrix.title = "short";
    heatmap.setMatrix(matrix);
    QCOMPARE(heatmap.titleLines(), 2);  // the title, then the scale
    QCOMPARE(changed.count(), 1);
    heatmap.setMinimumTitleLines(3);
    auto* title = qobject_cast<QCPTextElement*>(heatmap.plot()->plotLayout()->element(0, 0));
    QCOMPARE(title->text(), QString("short\nscale 0–1\n "));
    QCOMPARE(heatmap.titleLines(), 2);
    QCOMPARE(changed.count(), 1);
    heatmap.setMinimumTitleLines(0);
    QCOMPARE(title->text(), QString("short\nscale 0–1"));
  }

  // What two lines cannot hold is cut ("…") to fit, never past the edges; titleText() keeps it whole.
  void heatmapTitleElidesToItsWidth() {
    AttentionHeatmap heatmap;
    const QString text = "a_model_with_a_long_name · layer 12 · mean of 12 heads (3 off, still in the mean)";
    auto* title = title_at_width(heatmap, text, 250);
    QCOMPARE(heatmap.titleText(), text + "\nscale 0–1");
    QVERIFY(title);
    QVERIFY2(title->text().contains(QChar(0x2026)), qPrintable(title->text()));
    for (const auto& line : title->text().split('\n')) QVERIFY(QFontMetrics(title->font()).horizontalAdvance(line) <= 250);
  }

  void heatmapGreysWhileStale() {
    AttentionHeatmap heatmap;
    heatmap.resize(400, 300);
    heatmap.show();
    heatmap.setMatrix(three_by_three());
    QVERIFY(!heatmap.isStale());
    heatmap.setStale("running m…");
    QVERIFY(heatmap.isStale());
    QVERIFY(heatmap.plot()->graphicsEffect());
    heatmap.setStale({});
    QVERIFY(!heatmap.isStale());
    QVERIFY(!heatmap.plot()->graphicsEffect());
  }

  // Without a matrix the map shows its placeholder in place of the plot (an empty plot was a dark
  // block); a note while empty ("running m…") takes the placeholder's place.
  void heatmapWithoutAMatrixShowsItsPlaceholder() {
    AttentionHeatmap heatmap;
    heatmap.resize(400, 300);
    heatmap.show();
    QVERIFY(QTest::qWaitForWindowExposed(&heatmap));
    heatmap.setPlaceholder("No model loaded");
    heatmap.setMatrix({});
    const auto shown_text = [&heatmap] {
      for (const auto* label : heatmap.findChildren<QLabel*>())
        if (label->isVisible()) return label->text();
      return QString();
    };
    QVERIFY(!heatmap.plot()->isVisible());
    QCOMPARE(shown_text(), QString("No model loaded"));
    heatmap.setStale("running m…");
    QCOMPARE(shown_text(), QString("running m…"));
    heatmap.setStale({});
    heatmap.setMatrix(three_by_three());
    QVERIFY(heatmap.plot()->isVisible());
    QCOMPARE(shown_text(), QString());
  }

  void heatmapCellUnderThePointer() {
    AttentionHeatmap heatmap;
    heatmap.resize(500, 500);
    heatmap.show();
    heatmap.setMatrix(three_by_three());
    heatmap.plot()->replot();
    const auto centre = QPoint(static_cast<int>(heatmap.plot()->xAxis->coordToPixel(1)),
                               static_cast<int>(heatmap.plot()->yAxis->coordToPixel(2)));
    QCOMPARE(heatmap.cellAt(centre), QPoint(1, 2));  // (column, row)
  }

  void restingOnACellKeepsItsValue() {
    // Qt sends a ToolTip event when the pointer rests; the widget's own tooltip (the navigation hint)
    // used to replace the weight being read after about a second.
    AttentionHeatmap heatmap;
    heatmap.resize(500, 500);
    heatmap.show();
    heatmap.setMatrix(three_by_three());
    heatmap.plot()->replot();
    QVERIFY(QTest::qWaitForWindowExposed(&heatmap));
    const auto centre = QPoint(static_cast<int>(heatmap.plot()->xAxis->coordToPixel(1)),
                               static_cast<int>(heatmap.plot()->yAxis->coordToPixel(2)));
    QHelpEvent rest(QEvent::ToolTip, centre, heatmap.plot()->mapToGlobal(centre));
    QApplication::sendEvent(heatmap.plot(), &rest);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(heatmap.cellText(2, 1).toHtmlEscaped()), qPrintable(QToolTip::text()));
    // Off the cells (the title's corner) the hint alone.
    QToolTip::hideText();
    QHelpEvent off(QEvent::ToolTip, QPoint(2, 2), heatmap.plot()->mapToGlobal(QPoint(2, 2)));
    QApplication::sendEvent(heatmap.plot(), &off);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY(!QToolTip::text().contains("→"));
    QToolTip::hideText();
  }

  void longTokenListsAreThinned() {
    AttentionHeatmap heatmap;
    heatmap.resize(400, 400);
    heatmap.show();
    AttentionMatrix matrix;
    matrix.rows = matrix.cols = 200;
    matrix.weights.assign(200 * 200, 0.005f);
    for (int i = 0; i < 200; ++i) matrix.row_labels << QString("token%1").arg(i);
    matrix.col_labels = matrix.row_labels;
    heatmap.setMatrix(matrix);
    const auto ticks = qSharedPointerCast<QCPAxisTickerText>(heatmap.plot()->xAxis->ticker())->ticks();
    QVERIFY2(ticks.size() <= 48, qPrintable(QString("%1 labels").arg(ticks.size())));
    QVERIFY(ticks.size() >= 2);
  }

  void heatmapShowsASingleDistributionRowScaledToItsLargestWeight() {
    // LAMA: one row (the global context) over the words; weights near 1/n, so the scale tops out at the largest.
    AttentionMatrix matrix;
    matrix.rows = 1;
    matrix.cols = 4;
    matrix.weights = {0.1f, 0.4f, 0.2f, 0.3f};
    matrix.row_labels = QStringList{"context"};
    matrix.col_labels = QStringList{"good", "tasty", "cheap", "tea"};
    AttentionHeatmap heatmap;
    heatmap.resize(500, 400);
    heatmap.show();
    heatmap.setMatrix(matrix);
    QCOMPARE(heatmap.colorMap()->dataRange().upper, static_cast<double>(0.4f));
    QVERIFY(heatmap.colorMap()->data()->valueRange().size() > 0);  // a zero-height range would draw nothing
    QCOMPARE(heatmap.cellText(0, 1), QString("context → tasty: 0.400"));
    heatmap.plot()->replot();
    const auto image = heatmap.plot()->toPixmap().toImage();
    const int x = qRound(heatmap.plot()->xAxis->coordToPixel(1)), y = qRound(heatmap.plot()->yAxis->coordToPixel(0));
    auto gradient = viridis_gradient();
    QCOMPARE(QColor(image.pixel(x, y)), QColor(gradient.color(0.4, QCPRange(0.0, 0.4))));  // the top of the scale
  }
};

QTEST_MAIN(AttentionHeatmapTests)
#include "test_attention_heatmap.moc"

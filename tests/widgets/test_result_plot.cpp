// tests/widgets/test_result_plot.cpp — the plot of an analysis's result (widgets/result_plot.h) under
// QT_QPA_PLATFORM=offscreen: small multiples and back to one plot, interval bands and significance stars
// (pixel checked), a scatter of points only, a one-layer matrix.
#include "widgets/color_maps.h"
#include "widgets/result_plot.h"

#include <qcustomplot.h>

#include <QDir>
#include <QTest>

using namespace aw;

class ResultPlotTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void resultPlotSmallMultiplesThenBackToOnePlot() {
    ResultPlot plot;
    plot.resize(700, 500);
    const QVector<double> x{0.0, 1.0, 2.0};
    QVector<SmallPlot> plots{{"amazing", {{"5 ★", x, {1, 2, 1}, Qt::blue}, {"1 ★", x, {0, 1, 0}, Qt::red}}},
                             {"poor", {}},
                             {"worst", {{"1 ★", x, {2, 3, 2}, Qt::red}}}};
    plot.showSmallMultiples("densities", plots, 2, "weight", "density");
    QCOMPARE(plot.plot()->axisRects().size(), 3);
    QCOMPARE(plot.plot()->graphCount(), 3);
    QCOMPARE(plot.plot()->legend->itemCount(), 2);  // one entry per name, in sorted order
    QCOMPARE(plot.plot()->legend->itemWithPlottable(plot.plot()->graph(1)), plot.plot()->legend->item(0));  // "1 ★"
    QCOMPARE(plot.plot()->graph(2)->pen().color(), QColor(Qt::red));
    QCOMPARE(plot.plot()->axisRects()[2]->axis(QCPAxis::atLeft)->range().lower, 0.0);
    QVERIFY(!plot.plot()->axisRects()[1]->axis(QCPAxis::atBottom)->tickLabels());  // "poor" has nothing to draw
    QVERIFY(plot.savePng(QDir::temp().filePath("aw_small_multiples.png")));

    plot.showCurves("one", {{"curve", x, {1, 2, 3}, {}}}, "x", "y");
    QCOMPARE(plot.plot()->axisRects().size(), 1);
    QCOMPARE(plot.plot()->graphCount(), 1);
    QVERIFY(plot.plot()->xAxis->tickLabels());
    QCOMPARE(plot.plot()->xAxis->range().lower < 1.0 && plot.plot()->xAxis->range().upper > 2.0, true);
  }

  void resultPlotDrawsIntervalBandsAndSignificanceStars() {
    ResultPlot plot;
    plot.resize(600, 400);
    plot.show();
    PlotSeries curve{"importance order", {0.0, 50.0, 100.0}, {10, 12, 20}};
    curve.low = {10, 11, 15};
    curve.high = {10, 13, 25};
    curve.band_name = "importance: 95 % interval";
    plot.showCurves("pruning", {curve}, "% pruned", "perplexity");
    auto* chart = plot.plot();
    QCOMPARE(chart->graphCount(), 3);  // the band's lower edge, the band, the curve over them
    QCOMPARE(chart->graph(1)->channelFillGraph(), chart->graph(0));
    QCOMPARE(chart->graph(2)->name(), QString("importance order"));
    QCOMPARE(chart->legend->itemCount(), 2);
    QVERIFY(chart->legend->visible());
    QVERIFY(chart->yAxis->range().upper >= 25);  // the axis makes room for the band
    // At 95 % the band runs from 14.6 to 23.8 and the curve passes 19.2: inside the band and away
    // from the curve the background is tinted, below the band it is not.
    chart->replot();
    const auto image = chart->toPixmap().toImage();
    const QColor inside(image.pixel(qRound(chart->xAxis->coordToPixel(95)), qRound(chart->yAxis->coordToPixel(16.5))));
    const QColor outside(image.pixel(qRound(chart->xAxis->coordToPixel(95)), qRound(chart->yAxis->coordToPixel(12))));
    QCOMPARE(outside, QColor(Qt::white));
    QVERIFY(inside != QColor(Qt::white) && inside.blue() > inside.red());

    // A series without a band draws as before.
    plot.showCurves("plain", {{"curve", {0.0, 1.0}, {1, 2}, {}}}, "x", "y");
    QCOMPARE(chart->graphCount(), 1);
    QVERIFY(!chart->legend->visible());

    plot.showMatrix("Δ", {{0.1, 0.2}, {0.3, -0.1}}, "L", "H", "Δ", true, {}, {{false, true}, {false, false}});
    QCOMPARE(chart->itemCount(), 1);
    auto* star = qobject_cast<QCPItemText*>(chart->item(0));
    QVERIFY(star);
    QCOMPARE(star->text(), QString("*"));
    QCOMPARE(star->position->coords(), QPointF(2, 1));  // head 2 of layer 1
  }

  void resultPlotDrawsAScatterOfPointsOnly() {
    ResultPlot plot;
    plot.resize(500, 400);
    plot.showScatter("heads", {{"layer 1", {-1.0, 2.0}, {0.5, 3.0}, {}}, {"layer 2", {0.0}, {-2.0}, {}}}, "Δ on A", "Δ on B");
    auto* chart = plot.plot();
    QCOMPARE(chart->graphCount(), 2);
    QCOMPARE(chart->graph(0)->lineStyle(), QCPGraph::lsNone);
    QCOMPARE(chart->graph(1)->dataCount(), 1);
    QVERIFY(chart->legend->visible());
    QVERIFY(chart->xAxis->range().contains(-1.0) && chart->xAxis->range().contains(2.0));
    QVERIFY(chart->yAxis->range().contains(-2.0) && chart->yAxis->range().contains(3.0));
    QCOMPARE(chart->xAxis->label(), QString("Δ on A"));
  }

  void resultPlotDrawsAOneLayerMatrix() {
    // LAMA has one layer of heads: a layers × heads map with a single row must still be drawn.
    ResultPlot plot;
    plot.resize(600, 300);
    plot.show();
    plot.showMatrix("Δ", {{-0.2, 0.0, 0.2}}, "L", "H", "Δ", true);
    auto* map = qobject_cast<QCPColorMap*>(plot.plot()->plottable(0));
    QVERIFY(map);
    QVERIFY(map->data()->valueRange().size() > 0);
    plot.plot()->replot();
    const auto image = plot.plot()->toPixmap().toImage();
    const int x = qRound(plot.plot()->xAxis->coordToPixel(3)), y = qRound(plot.plot()->yAxis->coordToPixel(1));
    auto gradient = diverging_gradient();
    QCOMPARE(QColor(image.pixel(x, y)), QColor(gradient.color(0.2, QCPRange(-0.2, 0.2))));  // head 3: the red end
  }

  // A title wider than the matrix's column breaks between words onto a second line, each line within
  // the column (it was centred on the column and cut at both ends); the whole title stays title().
  void resultPlotWrapsALongTitleToItsColumn() {
    ResultPlot plot;
    plot.resize(520, 360);
    plot.show();
    const QString title = "Effect restored by each layer's resid_post at each position (32 pairs); * adjusted p ≤ 0.05";
    plot.showMatrix(title, {{0.1, 0.2}, {0.3, 0.4}}, "L", "", "effect", true);
    plot.plot()->replot();
    QTest::qWait(50);
    QCOMPARE(plot.title(), title);
    auto* element = qobject_cast<QCPTextElement*>(plot.plot()->plotLayout()->element(0, 0));
    QVERIFY(element);
    const auto lines = element->text().split('\n');
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines.join(' '), title);  // both lines hold it whole: nothing cut
    const QFontMetrics metrics(element->font());
    for (const auto& line : lines) QVERIFY(metrics.horizontalAdvance(line) <= element->outerRect().width());
    // Wide enough again: one line.
    plot.resize(1400, 360);
    plot.plot()->replot();
    QTest::qWait(50);
    QCOMPARE(element->text(), title);
  }
};

QTEST_MAIN(ResultPlotTests)
#include "test_result_plot.moc"

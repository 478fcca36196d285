// tests/test_widgets.cpp — the widgets under QT_QPA_PLATFORM=offscreen (Qt Test): the heatmap's
// data, ticks and hover text; the heads panel's clicks and buttons; the overview's clicks; CSV
// parsing and the analysis panel's export. No model involved.
#include "widgets/analysis_panel.h"
#include "widgets/analysis_plots.h"
#include "widgets/attention_heatmap.h"
#include "widgets/attention_overview.h"
#include "widgets/color_maps.h"
#include "table/csv_format.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/result_plot.h"
#include "widgets/word_weight_view.h"

#include <QDir>
#include <QScrollArea>
#include <QScrollBar>
#include <QFile>
#include <QTextBrowser>
#include <QUrl>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

using namespace aw;

namespace {

// A 3 × 3 causal matrix with known weights.
AttentionMatrix three_by_three() {
  AttentionMatrix matrix;
  matrix.rows = matrix.cols = 3;
  matrix.weights = {1.0f, 0.0f, 0.0f, 0.25f, 0.75f, 0.0f, 0.5f, 0.125f, 0.375f};
  matrix.row_labels = matrix.col_labels = QStringList{"the", "cat", "sat"};
  matrix.title = "test";
  return matrix;
}

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

class WidgetTests : public QObject {
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

  // Auto tops out at the nearest-rank 99th percentile of the positive weights: one weight of 1 among
  // 199 small ones (a causal map's row 0) does not set the scale.
  void autoScaleIsTheNinetyNinthPercentile() {
    AttentionMatrix matrix;
    matrix.rows = 20;
    matrix.cols = 20;
    matrix.weights.assign(400, 0.0f);
    for (int i = 0; i < 199; ++i) matrix.weights[200 + i] = 0.001f * static_cast<float>(i + 1);  // 0.001 … 0.199
    matrix.weights[0] = 1.0f;
    // 200 positive weights: the ⌈0.99 · 200⌉ = 198th smallest is 0.198.
    const auto scaled = scale_weights(matrix, ColourScale::Auto);
    QVERIFY(qAbs(scaled.high - 0.198) < 1e-6);
    QCOMPARE(scaled.caption, QString("scale 0–0.198 (99th percentile of the map)"));
    matrix.weights.assign(400, 0.0f);  // nothing positive: 0–1
    QCOMPARE(scale_weights(matrix, ColourScale::Auto).high, 1.0);
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

  void clickingACellTogglesItsGateOnce() {
    HeadToggleGrid panel;
    panel.setGates(HeadGates::allOn({4, 4}));
    panel.show();
    QSignalSpy changed(&panel, &HeadToggleGrid::gatesChanged);
    QTest::mouseClick(panel.grid(), Qt::LeftButton, {}, panel.grid()->cellRect(1, 2).center());
    QCOMPARE(changed.count(), 1);
    QVERIFY(!panel.gates().isOn(1, 2));
    QCOMPARE(panel.gates().offCount(), 1);
    QCOMPARE(panel.summaryText(), QString("1 of 8 heads off"));
    QTest::mouseClick(panel.grid(), Qt::LeftButton, {}, panel.grid()->cellRect(1, 2).center());
    QCOMPARE(changed.count(), 2);
    QVERIFY(panel.gates().isOn(1, 2));
  }

  void clickingBetweenCellsChangesNothing() {
    HeadToggleGrid panel;
    panel.setGates(HeadGates::allOn({2, 2}));
    panel.show();
    QSignalSpy changed(&panel, &HeadToggleGrid::gatesChanged);
    QTest::mouseClick(panel.grid(), Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(changed.count(), 0);
  }

  void keepOnlySwitchesTheLayersOtherHeadsOff() {
    HeadToggleGrid panel;
    panel.setGates(HeadGates::allOn({3, 3}));
    QSignalSpy changed(&panel, &HeadToggleGrid::gatesChanged);
    panel.keepOnly(0, 1);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(panel.gates().on[0], (std::vector<bool>{false, true, false}));
    QCOMPARE(panel.gates().on[1], (std::vector<bool>{true, true, true}));  // other layers untouched
    panel.keepOnly(0, 1);  // already so: no second signal
    QCOMPARE(changed.count(), 1);
  }

  void invertAndAllOn() {
    HeadToggleGrid panel;
    panel.setGates(HeadGates::allOn({2, 3}));
    panel.toggle(1, 0);
    panel.invert();
    QCOMPARE(panel.gates().offCount(), 4);
    QVERIFY(panel.gates().isOn(1, 0));
    panel.allOn();
    QCOMPARE(panel.gates().offCount(), 0);
    QCOMPARE(panel.summaryText(), QString("all 5 heads on"));
  }

  // Grouped-query attention at a 1B model's scale: 16 layers × 32 query heads over 8 key/value
  // heads. The groups' cells sit together with a wider gap between groups, the tooltip's key/value
  // head is the group's, and the panel scrolls rather than grow past its dock: every cell stays
  // clickable.
  void aGroupedQueryPanelOf512HeadsGroupsAndScrolls() {
    HeadToggleGrid panel;
    panel.setGates(HeadGates::allOn(std::vector<int>(16, 32)));
    panel.grid()->setQueryGroups(std::vector<std::vector<int>>(16, std::vector<int>(8, 4)));
    panel.resize(320, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCOMPARE(panel.width(), 320);
    auto* grid = panel.grid();
    const int within = grid->cellRect(0, 3).left() - grid->cellRect(0, 2).right();
    const int between = grid->cellRect(0, 4).left() - grid->cellRect(0, 3).right();
    QVERIFY2(between > within, qPrintable(QString("%1 vs %2").arg(between).arg(within)));
    QCOMPARE(grid->groupOf(5, 3), 0);
    QCOMPARE(grid->groupOf(5, 4), 1);
    QCOMPARE(grid->groupOf(5, 31), 7);
    QVERIFY(grid->width() > 320);  // wider than the panel: it scrolls
    QSignalSpy changed(&panel, &HeadToggleGrid::gatesChanged);
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->cellRect(15, 31).center());
    QCOMPARE(changed.count(), 1);
    QVERIFY(!panel.gates().isOn(15, 31));
    QCOMPARE(panel.summaryText(), QString("1 of 512 heads off"));
    // Groups of one head (every head its own key and value) are no grouping.
    grid->setQueryGroups(std::vector<std::vector<int>>(16, std::vector<int>(32, 1)));
    QCOMPARE(grid->groupOf(0, 5), -1);
  }

  // The overview sets groups apart the same way, after the mean column; a pruned layer's groups
  // (sizes 2 and 1) follow its own heads.
  void overviewThumbnailsAreGroupedByKeyValueHead() {
    AttentionOverview overview;
    overview.resize(900, 300);
    std::vector<std::vector<AttentionMatrix>> matrices = {std::vector<AttentionMatrix>(5, three_by_three()),
                                                          std::vector<AttentionMatrix>(4, three_by_three())};
    overview.setMatrices(matrices);
    overview.setQueryGroups({{2, 2}, {2, 1}});
    const auto gap = [&](int layer, int head) {  // space left of a head's thumbnail
      return overview.thumbnailRect(layer, head).left() - overview.thumbnailRect(layer, head - 1).right();
    };
    QVERIFY(gap(0, 2) > gap(0, 1));  // heads 3–4 read the second key/value head
    QCOMPARE(gap(0, 0), gap(0, 1));  // the mean column is not a group
    QVERIFY(gap(1, 2) > gap(1, 1));
    QCOMPARE(overview.thumbnailRect(1, 2).left(), overview.thumbnailRect(0, 2).left());
  }

  void setGatesDoesNotEmit() {
    HeadToggleGrid panel;
    QSignalSpy changed(&panel, &HeadToggleGrid::gatesChanged);
    auto gates = HeadGates::allOn({2});
    gates.on[0][1] = false;
    panel.setGates(gates);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(panel.gates(), gates);
  }

  void overviewThumbnailClickSelectsLayerAndHead() {
    AttentionOverview overview;
    overview.resize(600, 400);
    overview.show();
    std::vector<std::vector<AttentionMatrix>> matrices(2, std::vector<AttentionMatrix>(3, three_by_three()));
    overview.setMatrices(matrices);
    QSignalSpy clicked(&overview, &AttentionOverview::thumbnailClicked);
    QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.thumbnailRect(1, 0).center());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), 1);
    QCOMPARE(clicked.at(0).at(1).toInt(), 0);
    QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.thumbnailRect(0, -1).center());
    QCOMPARE(clicked.at(1).at(1).toInt(), -1);  // the mean column
  }

  // The thumbnails follow the colour scale: weights near 0.001 are one dark colour on 0–1 and spread
  // under auto; a scale change renders them again when painted, setting the same scale does not.
  void overviewThumbnailsFollowTheColourScale() {
    AttentionOverview overview;
    overview.resize(300, 200);
    overview.show();
    AttentionMatrix faint = three_by_three();
    faint.weights = {0.001f, 0.0f, 0.0f, 0.002f, 0.0005f, 0.0f, 0.003f, 0.001f, 0.0f};
    overview.setMatrices({{faint}});
    const auto pixel = [&] {  // the thumbnail's bottom-left cell (weight 0.003, the largest)
      const auto rect = overview.thumbnailRect(0, -1);
      return QColor(overview.grab().toImage().pixel(rect.left() + rect.width() / 6, rect.bottom() - rect.height() / 6));
    };
    const auto fixed = pixel();
    const int rendered = overview.renderCount();
    QCOMPARE(rendered, 1);
    overview.setColourScale(ColourScale::Auto);
    const auto automatic = pixel();
    QCOMPARE(overview.renderCount(), rendered + 1);
    QVERIFY2(automatic.lightness() > fixed.lightness() + 60,
             qPrintable(QString("%1 vs %2").arg(automatic.name(), fixed.name())));
    overview.setColourScale(ColourScale::Auto);
    pixel();
    QCOMPARE(overview.renderCount(), rendered + 1);
  }

  // A 1B-class model's overview (16 layers × mean + 32 heads) in a small scroll area renders only the
  // thumbnails it shows; scrolling renders the newly shown ones, none twice.
  void overviewRendersOnlyTheThumbnailsShown() {
    QScrollArea area;
    auto* overview = new AttentionOverview;
    area.setWidget(overview);
    area.setWidgetResizable(true);
    area.resize(400, 300);
    area.show();
    std::vector<std::vector<AttentionMatrix>> matrices(16, std::vector<AttentionMatrix>(33, three_by_three()));
    overview->setMatrices(matrices);
    QVERIFY(QTest::qWaitForWindowExposed(&area));
    area.grab();
    const int shown = overview->renderCount();
    QVERIFY2(shown > 0 && shown < 60, qPrintable(QString::number(shown)));
    area.horizontalScrollBar()->setValue(area.horizontalScrollBar()->maximum());
    area.verticalScrollBar()->setValue(area.verticalScrollBar()->maximum());
    area.grab();
    const int after_scroll = overview->renderCount();
    QVERIFY2(after_scroll > shown && after_scroll < 2 * 60, qPrintable(QString::number(after_scroll)));
    area.grab();
    QCOMPARE(overview->renderCount(), after_scroll);
  }

  void panelExportsTheCsvItWasGivenVerbatim() {
    AnalysisPanel panel("test");
    const QString csv = "# include_first_row=true\nmodel,layer,CA,HA_mean,HA_std,Ratio\nm,1,0.123456789,0.1,0.01,1.23456789\n";
    panel.setResult(read_csv(csv.toStdString()));
    QCOMPARE(panel.tableView()->model()->rowCount(), 1);
    QCOMPARE(panel.tableView()->model()->columnCount(), 6);
    QTemporaryDir dir;
    const auto path = dir.filePath("out.csv");
    QVERIFY(panel.exportCsv(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), csv);
    // Without a plot the PNG is the table at its own size, not the view's box (shown large here).
    panel.setPlotVisible(false);
    panel.resize(1200, 900);
    panel.show();
    QVERIFY(panel.exportPng(dir.filePath("out.png")));
    const QImage exported(dir.filePath("out.png"));
    QVERIFY(exported.save(AW_BUILD_DIR "/table_export.png"));
    QVERIFY2(exported.width() > 200 && exported.width() < panel.tableView()->width() && exported.height() < 120,
             qPrintable(QString("%1 × %2 (view %3 × %4)")
                            .arg(exported.width()).arg(exported.height())
                            .arg(panel.tableView()->width()).arg(panel.tableView()->height())));
    QVERIFY(panel.exportPdf(dir.filePath("out.pdf")));
    QVERIFY(QFileInfo(dir.filePath("out.pdf")).size() > 0);
  }

  void panelRunAndCancelButtonsFollowTheRunningState() {
    AnalysisPanel panel("test");
    QSignalSpy run(&panel, &AnalysisPanel::runRequested);
    QSignalSpy cancel(&panel, &AnalysisPanel::cancelRequested);
    QVERIFY(!panel.cancelButton()->isEnabled());
    QTest::mouseClick(panel.runButton(), Qt::LeftButton);
    QCOMPARE(run.count(), 1);
    panel.setRunning(true);
    QVERIFY(!panel.runButton()->isEnabled());
    QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
    QCOMPARE(cancel.count(), 1);
    panel.setRunning(false);
    QVERIFY(panel.runButton()->isEnabled());
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

  void wordWeightViewColoursWordsByWeightAndReportsThem() {
    WordWeightView view;
    // Two heads over three words: the mean is a 0.40, b 0.35, c 0.25.
    view.setDocument("doc", {"a", "b", "c"}, 2, {0.2f, 0.5f, 0.3f, 0.6f, 0.2f, 0.2f});
    QCOMPARE(view.weight(WordWeightView::kMeanOfHeads, 0), (static_cast<double>(0.2f) + static_cast<double>(0.6f)) / 2.0);
    QCOMPARE(view.weight(2, 0), static_cast<double>(0.6f));
    // Mean of heads: a (largest) gets the full colour, c (smallest) white.
    const auto html = view.html();
    QVERIFY2(html.contains("#f46d43"), qPrintable(html));
    QVERIFY(html.contains("#ffffff"));
    QVERIFY(!html.contains("H2"));
    view.setHeadChoice(WordWeightView::kEveryHead);
    QVERIFY(view.html().contains("H1") && view.html().contains("H2"));

    auto* browser = view.findChild<QTextBrowser*>();
    QSignalSpy clicked(&view, &WordWeightView::wordClicked);
    Q_EMIT browser->anchorClicked(QUrl("w:0:2"));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.first().first().toString(), QString("c"));
    Q_EMIT browser->highlighted(QUrl("w:0:1"));
    QCOMPARE(view.infoText(), QString("'b' (word 2 of 3, mean of the heads): weight 0.3500 = 1.05 × uniform (1/3)"));
  }

  // LAMA Figure 4 from word-weights' tables: its default title, or the one given (e.g. the head shown).
  void wordWeightsPlotTakesItsTitle() {
    ResultPlot plot;
    plot.resize(700, 500);
    const auto summary = read_csv("word,label,count,mean,median\ngreat,5,3,1.1,1.1\n");
    const ResultTables parts{{"density", read_csv("word,label,x,density\ngreat,5,1.0,0.5\ngreat,5,1.2,0.7\n")}};
    const auto title = [&plot] { return qobject_cast<QCPTextElement*>(plot.plot()->plotLayout()->element(0, 0))->text(); };
    const auto& draw = find_plot_kind("word-weights")->draw;
    draw(plot, PlotInput{summary, &parts, "weight × length"});
    QCOMPARE(title(), QString("Word weights per rating (LAMA Figure 4)"));
    draw(plot, PlotInput{summary, &parts, "weight × length", "head 2 of LAMA"});
    QCOMPARE(title(), QString("head 2 of LAMA"));
    QCOMPARE(plot.plot()->graphCount(), 1);
  }

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
};

QTEST_MAIN(WidgetTests)
#include "test_widgets.moc"

// tests/widgets/test_head_toggle_grid.cpp — the heads panel (widgets/head_toggle_grid.h) under
// QT_QPA_PLATFORM=offscreen: a click toggles one gate and emits once, Keep only / Invert / All on,
// grouped-query panels of 512 heads that scroll, 12 × 12 heads that do not, the scores' legend.
#include "widgets/head_gates.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/score_legend.h"

#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace aw;

class HeadToggleGridTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
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
  // head is the group's, and a layer's 32 heads wrap onto rows rather than run past the dock: every
  // head in view across, the layers scroll down, every cell clickable.
  void aGroupedQueryPanelOf512HeadsGroupsAndWraps() {
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
    auto* scroll = panel.findChild<QScrollArea*>();
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    QVERIFY(grid->wrapAt(grid->width()).wrapped());
    for (int head = 0; head < 32; ++head)
      QVERIFY2(grid->cellRect(15, head).right() < scroll->viewport()->width(), qPrintable(QString::number(head)));
    // Layer 2's first row sits under layer 1's last, with a gap between the layers.
    const int bands = grid->wrapAt(grid->width()).bands;
    QVERIFY(grid->cellRect(1, 0).top() > grid->cellRect(0, 31).bottom() + 2);
    QCOMPARE(grid->cellRect(0, grid->wrapAt(grid->width()).per_band).left(), grid->cellRect(0, 0).left());
    QVERIFY(bands >= 2 && bands <= 4);
    QSignalSpy changed(&panel, &HeadToggleGrid::gatesChanged);
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->cellRect(15, 31).center());
    QCOMPARE(changed.count(), 1);
    QVERIFY(!panel.gates().isOn(15, 31));
    QCOMPARE(panel.summaryText(), QString("1 of 512 heads off"));
    // Groups of one head (every head its own key and value) are no grouping.
    grid->setQueryGroups(std::vector<std::vector<int>>(16, std::vector<int>(32, 1)));
    QCOMPARE(grid->groupOf(0, 5), -1);
  }

  // A 12 × 12-head model (GPT-2 small's shape) shows every head without scrolling sideways, however
  // narrow the dock is asked to be: the panel keeps the width of the smallest cells.
  void twelveByTwelveHeadsShowWithoutScrollingSideways() {
    HeadToggleGrid panel;
    panel.setGates(HeadGates::allOn(std::vector<int>(12, 12)));
    panel.resize(120, 500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* scroll = panel.findChild<QScrollArea*>();
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    QVERIFY(panel.grid()->cellRect(11, 11).right() < scroll->viewport()->width());
  }

  // Coloured by scores, the panel shows its legend: the scores' name and the range of the colours.
  void scoresComeWithALegend() {
    HeadToggleGrid panel;
    panel.setGates(HeadGates::allOn({2, 2}));
    QVERIFY(panel.legend()->isHidden());
    panel.setScores({{0.5, 2.0}, {-1.0, NAN}}, "ablation damage");
    QVERIFY(!panel.legend()->isHidden());
    QCOMPARE(panel.legend()->label(), QString("ablation damage"));
    // Scores of both signs: the plots' blue–white–red, symmetric around 0, as the ablation plot draws them.
    QCOMPARE(panel.legend()->low(), -2.0);
    QCOMPARE(panel.legend()->high(), 2.0);
    QVERIFY(panel.legend()->diverging());
    const auto zero = score_colour(0.0, panel.grid()->scoreRange());  // white, to the gradient's table
    QVERIFY2(std::min({zero.red(), zero.green(), zero.blue()}) > 0xf0, qPrintable(zero.name()));
    panel.setScores({{0.5, 2.0}, {1.0, NAN}}, "importance");  // one sign: viridis over the range
    QVERIFY(!panel.legend()->diverging());
    QCOMPARE(panel.legend()->low(), 0.5);
    QCOMPARE(panel.legend()->high(), 2.0);
    QVERIFY(panel.legend()->toolTip().contains("(dark blue) to 2 (yellow)"));
    // In a tall panel the legend sits right under the cells, not at the panel's foot.
    panel.resize(250, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const auto* scroll = panel.findChild<QScrollArea*>();
    QVERIFY2(panel.legend()->geometry().top() - scroll->geometry().bottom() < 20,
             qPrintable(QString("%1 vs %2").arg(panel.legend()->geometry().top()).arg(scroll->geometry().bottom())));
    QVERIFY(panel.legend()->geometry().bottom() < 400);
    panel.reset();
    QVERIFY(panel.legend()->isHidden());
  }

  // A head the scores do not cover (NaN: composition out of the last layer) is an outline on the
  // panel's background, still there to click, not an invisible cell.
  void anUnscoredHeadIsAnOutline() {
    HeadToggleGrid panel;
    panel.setGates(HeadGates::allOn({2, 2}));
    panel.setScores({{0.5, 2.0}, {NAN, NAN}}, "K-comp out");
    panel.resize(250, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* grid = panel.grid();
    const auto image = grid->grab().toImage();
    const auto rect = grid->cellRect(1, 0);
    const auto centre = image.pixelColor(rect.center());
    const auto background = grid->palette().color(grid->backgroundRole());
    QCOMPARE(centre.rgb(), background.rgb());
    QVERIFY2(image.pixelColor(QPoint(rect.center().x(), rect.top())).rgb() != background.rgb(), "no outline");
    QVERIFY(image.pixelColor(grid->cellRect(0, 1).center()).rgb() != background.rgb());  // scored: filled
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
};

QTEST_MAIN(HeadToggleGridTests)
#include "test_head_toggle_grid.moc"

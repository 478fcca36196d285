// tests/app/gui/test_patching_tab.cpp — the Patching tab (app/gui/patching_tab.h) on sample_data/ (Qt Test,
// offscreen): a run on the positive control's pairs fills the effect map and colours the heads panel; the pair
// chooser lists the file's clean prompts; a click on a head of the map shows that head's attention on
// the chosen pair's clean prompt, with the model the result came from, in a window of its own (the
// Attention tab keeps its sentence and compared model).
#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/main_window.h"
#include "app/gui/patching_tab.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/analysis_panel.h"
#include "widgets/attention_heatmap.h"
#include "widgets/result_plot.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

using namespace aw;

namespace {

using aw::test::kSampleData;
using aw::test::kTimeoutMs;

}  // namespace

class PatchingTabTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void clickAHeadToSeeItsAttention() {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = qobject_cast<PatchingTab*>(window.analyses()->tab("patch"));
    QVERIFY(tab);
    auto* panel = tab->panel();
    // The sample session sets the tab up on the positive-control model and its pairs; the chooser
    // lists their clean prompts.
    QVERIFY(panel->findChild<QLineEdit*>("pairs")->text().endsWith("induction_pairs.tsv"));
    QCOMPARE(tab->pairChooser()->count(), 32);
    QCOMPARE(tab->modelChooser(0)->currentIndex(), 3);  // induction_lm; the Attention tab shows bet_sf
    tab->start();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && panel->hasResult(), kTimeoutMs);
    QCOMPARE(panel->table().row_count(), 8);
    QVERIFY(panel->table().column("effect_low") >= 0);  // 32 pairs: intervals

    // A click on the cell of layer 2, head 1, an induction head (cells centred on 1 … 4 across, 1 … 2 down).
    window.tabs()->setCurrentWidget(panel);
    tab->pairChooser()->setCurrentIndex(2);
    auto* plot = panel->plot()->plot();
    const QPoint cell(static_cast<int>(plot->xAxis->coordToPixel(1)), static_cast<int>(plot->yAxis->coordToPixel(2)));
    auto* view = window.attentionView();
    const auto sentence = view->sentence();
    const int shown_model = view->currentModel(), compared = view->compareModel();
    QSignalSpy opened(&window, &MainWindow::textViewOpened);
    QTest::mouseClick(plot, Qt::LeftButton, {}, cell);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && opened.count() == 1, kTimeoutMs);
    // In a window of its own: the model the result came from, on the chosen pair's clean prompt, at the
    // head clicked.
    auto* pair = opened.first().at(0).value<AttentionView*>();
    QVERIFY(pair && pair->isVisible() && pair != view);
    QVERIFY(pair->windowTitle().startsWith("induction_lm — the pair's clean prompt"));
    QCOMPARE(pair->sentence(), QString("doze vazi vuli gone libe tubu doze vazi vuli gone libe"));
    QCOMPARE(pair->layer(), 1);
    QCOMPARE(pair->head(), 0);
    QVERIFY(pair->capture(0));
    QCOMPARE(pair->heatmap()->matrix().rows, pair->capture(0)->length());
    // The Attention tab as the user left it: its sentence, model and compared model.
    QCOMPARE(view->sentence(), sentence);
    QCOMPARE(view->currentModel(), shown_model);
    QCOMPARE(view->compareModel(), compared);
    QCOMPARE(window.tabs()->currentWidget(), panel);
    pair->close();

    // At a residual point the map is layers × positions, and a click shows the layer's mean of heads
    // with the clicked position's row outlined.
    panel->findChild<QComboBox*>("hook")->setCurrentText("resid_post");
    panel->findChild<QSpinBox*>("position")->setValue(10);
    tab->start();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && panel->hasResult() && panel->table().column("position") >= 0,
                             kTimeoutMs);
    QCOMPARE(panel->table().row_count(), 2);  // two layers at position 10
    const QPoint position_cell(static_cast<int>(plot->xAxis->coordToPixel(1)), static_cast<int>(plot->yAxis->coordToPixel(2)));
    QTest::mouseClick(plot, Qt::LeftButton, {}, position_cell);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && opened.count() == 2, kTimeoutMs);
    auto* at_position = opened.last().at(0).value<AttentionView*>();
    QVERIFY(at_position && at_position->isVisible());
    QCOMPARE(at_position->layer(), 1);
    QCOMPARE(at_position->head(), -1);
    QTRY_COMPARE_WITH_TIMEOUT(at_position->heatmap()->outlinedCells().top(), 10, kTimeoutMs);
    at_position->close();
  }
};

QTEST_MAIN(PatchingTabTests)
#include "test_patching_tab.moc"

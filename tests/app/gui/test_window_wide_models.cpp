// tests/app/gui/test_window_wide_models.cpp — the window with models of 32 and 64 heads beside the
// samples, offscreen: its least size stays within 1,200 × 720 and at that size every head of a layer is
// in view in the heads panel and the overview (they wrap, no sideways scrolling); the heads panel keeps
// one width whatever the model and colouring; with seven models the tabs are whole; the model choosers
// show each name whole; Predictions shows all five rows.
#include "app/gui/attention_view.h"
#include "app/gui/main_window.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/attention_overview.h"
#include "widgets/head_toggle_grid.h"

#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTabBar>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace aw;
using aw::test::kSampleData;
using aw::test::kTimeoutMs;
using aw::test::train_demo_model;

namespace {

const QStringList kSevenModels = {"vanilla_lm", "bet_sf", "bet_sg", "lama_amazon", "mt_vanilla", "mt_bet_sf",
                                  "induction_lm"};

// Every head of every layer lies inside the panel's scroll area across (it may scroll down).
QString heads_out_of_view(HeadToggleGrid* panel) {
  auto* grid = panel->grid();
  const int room = panel->findChild<QScrollArea*>()->viewport()->width();
  for (int layer = 0; layer < static_cast<int>(grid->gates().on.size()); ++layer)
    for (int head = 0; head < static_cast<int>(grid->gates().on[layer].size()); ++head)
      if (grid->cellRect(layer, head).right() >= room)
        return QString("layer %1 head %2 at %3 of %4").arg(layer + 1).arg(head + 1).arg(grid->cellRect(layer, head).right()).arg(room);
  return {};
}

QString thumbnails_out_of_view(AttentionOverview* overview, int heads) {
  auto* scroll = qobject_cast<QScrollArea*>(overview->parentWidget()->parentWidget());
  const int room = scroll ? scroll->viewport()->width() : overview->width();
  for (int layer = 0; layer < overview->layerCount(); ++layer)
    for (int head = -1; head < heads; ++head)
      if (overview->thumbnailRect(layer, head).right() >= room)
        return QString("layer %1 head %2 at %3 of %4").arg(layer + 1).arg(head + 1).arg(overview->thumbnailRect(layer, head).right()).arg(room);
  return {};
}

}  // namespace

class WindowWideModelsTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void everyHeadOfAWideModelIsInViewAtTheLeastSize() {
    QTemporaryDir dir;
    for (int heads : {32, 64})
      QVERIFY(train_demo_model(dir.filePath(QString("h%1").arg(heads)),
                               {"--layers", "3", "--heads", QString::number(heads), "--d-model", "64", "--d-ff", "64",
                                "--window", "16", "--epochs", "1"}));
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* dock = window.findChild<QDockWidget*>("heads_dock");
    const int dock_width = dock->width();
    const int samples = window.modelCount();
    window.openCheckpoint(dir.filePath("h32"));
    window.openCheckpoint(dir.filePath("h64"));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && window.modelCount() == samples + 2, kTimeoutMs);
    auto* view = window.attentionView();
    for (int model : {samples, samples + 1}) {
      const int heads = model == samples ? 32 : 64;
      view->setCurrentModel(model);
      window.runSentence("the cat sat on the mat");
      QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->overview()->layerCount() == 3, kTimeoutMs);
      const auto least = window.minimumSizeHint().expandedTo(window.minimumSize());
      QVERIFY2(least.width() <= 1200 && least.height() <= 720,
               qPrintable(QString("%1 heads: least size %2 × %3").arg(heads).arg(least.width()).arg(least.height())));
      window.resize(1200, 720);
      QTest::qWait(50);
      QCOMPARE(window.size(), QSize(1200, 720));
      const auto panel_missing = heads_out_of_view(window.headsPanel());
      QVERIFY2(panel_missing.isEmpty(), qPrintable(QString("%1 heads, panel: %2").arg(heads).arg(panel_missing)));
      QVERIFY(!window.headsPanel()->findChild<QScrollArea*>()->horizontalScrollBar()->isVisible());
      const auto overview_missing = thumbnails_out_of_view(view->overview(), heads);
      QVERIFY2(overview_missing.isEmpty(), qPrintable(QString("%1 heads, overview: %2").arg(heads).arg(overview_missing)));
      QVERIFY(window.grab().save(QString(AW_BUILD_DIR "/heads_%1_wrapped.png").arg(heads)));
      window.resize(1366, 768);
      QTest::qWait(20);
      // At the same size the panel keeps its width (the user's, here the first one) whatever the model.
      QCOMPARE(dock->width(), dock_width);
    }
    // Coloured by signed scores (a diverging legend) or none: the same width still.
    window.headsPanel()->setScores(std::vector<std::vector<double>>(3, std::vector<double>(64, -0.5)), "ablation damage");
    QTest::qWait(20);
    QCOMPARE(dock->width(), dock_width);
  }

  // Seven models: every tab's title whole at 1,366 pixels (no scroll buttons), each model's name
  // whole in the Attention tab's choosers and an analysis tab's, and all five predictions in view.
  void sevenModelsKeepTabsNamesAndPredictionsWhole() {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    for (const auto& name : kSevenModels) window.openCheckpoint(kSampleData + "/" + name);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && window.modelCount() == 7, kTimeoutMs);
    window.runSentence("the river flows through the city");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QTest::qWait(50);
    auto* bar = window.tabs()->tabBar();
    QVERIFY2(bar->tabRect(bar->count() - 1).right() <= bar->width(),
             qPrintable(QString("last tab ends at %1 of %2").arg(bar->tabRect(bar->count() - 1).right()).arg(bar->width())));
    for (auto* button : bar->findChildren<QToolButton*>()) QVERIFY(!button->isVisible());  // the scroll arrows
    const auto whole = [](QComboBox* box) {
      for (int item = 0; item < box->count(); ++item)
        if (box->fontMetrics().horizontalAdvance(box->itemText(item)) > box->width() - 24)
          return box->objectName() + ": " + box->itemText(item) + " in " + QString::number(box->width()) + " px";
      return QString();
    };
    auto* view = window.attentionView();
    for (auto* box : view->findChildren<QComboBox*>()) {
      if (box->count() != 7) continue;  // the model choosers
      QVERIFY2(whole(box).isEmpty(), qPrintable(whole(box)));
      QVERIFY(box->toolTip().contains(":"));  // name: architecture
    }
    window.tabs()->setCurrentIndex(2);  // Ablation
    QTest::qWait(20);
    auto* chooser = window.tabs()->currentWidget()->findChild<QComboBox*>("model");
    QVERIFY(chooser && chooser->count() == 7);
    QVERIFY2(whole(chooser).isEmpty(), qPrintable(whole(chooser)));
    window.tabs()->setCurrentIndex(0);
    view->setCurrentModel(0);
    QTRY_COMPARE_WITH_TIMEOUT(view->predictions()->rowCount(), 5, kTimeoutMs);
    QTest::qWait(20);
    auto* table = view->predictions();
    const int last_row_bottom = table->visualRect(table->model()->index(4, 0)).bottom();
    QVERIFY2(last_row_bottom < table->viewport()->height(),
             qPrintable(QString("fifth row ends at %1 of %2").arg(last_row_bottom).arg(table->viewport()->height())));
    QVERIFY(window.grab().save(AW_BUILD_DIR "/seven_models_tabs.png"));
  }
};

QTEST_MAIN(WindowWideModelsTests)
#include "test_window_wide_models.moc"

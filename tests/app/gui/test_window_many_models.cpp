// tests/app/gui/test_window_many_models.cpp — the window with every sample model open (seven, native and
// translation), offscreen at 1,366 × 768: a text two compared models cannot run says why over each
// model's own map, the error line stays whole enough to read beside seven models in the status bar, and
// the model list there gives way (elided, whole in its tooltip); Cancel stops a text's runs until Enter,
// and the predictions of a model running a new text are greyed as the last text's.
#include "app/gui/attention_view.h"
#include "app/gui/error_line.h"
#include "app/gui/main_window.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/attention_heatmap.h"
#include "widgets/elided_label.h"
#include "widgets/run_progress_bar.h"

#include <QLabel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>

using namespace aw;
using aw::test::kSampleData;
using aw::test::kTimeoutMs;

namespace {

const QStringList kSevenModels = {"vanilla_lm", "bet_sf", "bet_sg", "lama_amazon", "mt_vanilla", "mt_bet_sf",
                                  "induction_lm"};

// 150 words, one token each for the word-level models: over vanilla_lm's 128 positions and induction_lm's 64.
QString long_sentence() {
  QStringList words;
  for (int i = 0; i < 150; ++i) words << (i % 2 ? "river" : "the");
  return words.join(' ');
}

// The text a heatmap's placeholder shows, when it shows one.
QString shown_placeholder(const AttentionHeatmap* map) {
  for (auto* label : map->findChildren<QLabel*>())
    if (label->isVisible() && label->text() == map->placeholderText()) return label->text();
  return {};
}

}  // namespace

class WindowManyModelsTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void eachComparedModelSaysWhyItsMapIsEmpty() {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    for (const auto& name : kSevenModels) window.openCheckpoint(kSampleData + "/" + name);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && window.modelCount() == 7, kTimeoutMs);
    auto* view = window.attentionView();
    view->setCurrentModel(0);   // vanilla_lm
    view->setCompare(true, 6);  // induction_lm
    window.runSentence(long_sentence());
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QTest::qWait(50);
    // Both failures, each over its own map, naming its model and its limit.
    QVERIFY2(view->runError(0).contains("but vanilla_lm allows 128"), qPrintable(view->runError(0)));
    QVERIFY2(view->runError(6).contains("but induction_lm allows 64"), qPrintable(view->runError(6)));
    const auto first = shown_placeholder(view->heatmap()), second = shown_placeholder(view->compareHeatmap());
    QVERIFY2(first.startsWith("vanilla_lm could not run this text:") && first.contains("allows 128"), qPrintable(first));
    QVERIFY2(second.startsWith("induction_lm could not run this text:") && second.contains("allows 64"), qPrintable(second));
    QVERIFY(!first.contains("Type a sentence"));
    // The error line: shown, at least as wide as can be read, its text from the start, inside the window.
    auto* line = window.errorLine();
    QVERIFY(line->isVisible());
    QVERIFY2(line->width() >= ErrorLine::kLeastRoom, qPrintable(QString::number(line->width())));
    QVERIFY2(line->shownText().startsWith(window.errorText().left(20)), qPrintable(line->shownText()));
    const QRect in_window(line->mapTo(&window, QPoint(0, 0)), line->size());
    QVERIFY(window.rect().contains(in_window));
    // The model list gives way: elided within the bar, all seven names in its tooltip.
    auto* models = window.statusBar()->findChild<ElidedLabel*>();
    QVERIFY(models);
    QVERIFY2(models->text().contains("7 models: vanilla_lm, bet_sf"), qPrintable(models->text()));
    for (const auto& name : kSevenModels) QVERIFY2(models->toolTip().contains(name), qPrintable(models->toolTip()));
    QVERIFY(!models->geometry().intersects(line->geometry()) || models->parentWidget() != line->parentWidget());
    QVERIFY(window.grab().save(AW_BUILD_DIR "/seven_models_errors.png"));
    // Compare off: the compared model's error goes with its map; the shown model's stays.
    view->setCompare(false, 6);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY(shown_placeholder(view->heatmap()).contains("allows 128"));
    // A text both can run: the maps fill and the reasons go.
    view->setCompare(true, 6);
    window.runSentence("the river flows through the city");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->capture(0) && view->capture(6), kTimeoutMs);
    QVERIFY(view->runError(0).isEmpty() && view->runError(6).isEmpty());
    QVERIFY(window.errorText().isEmpty());
  }

  // Cancel stops the text's runs: the compared model's run, still queued behind the shown model's (the
  // event loop has not run since), goes at once; its map says it was cancelled, with no error line, and
  // it is not run again until Enter. While a model runs a new text its predictions are the last text's:
  // greyed, and said.
  void cancelStopsTheTextsRunsUntilEnter() {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    for (const auto& name : {"vanilla_lm", "bet_sf"}) window.openCheckpoint(kSampleData + "/" + name);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && window.modelCount() == 2, kTimeoutMs);
    auto* view = window.attentionView();
    view->setCurrentModel(0);
    view->setCompare(true, 1);
    window.runSentence("the river flows through the city");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->capture(0) && view->capture(1), kTimeoutMs);
    auto* predictions = view->findChild<QTableWidget*>();
    QVERIFY(predictions && predictions->isEnabled() && predictions->rowCount() == 5);
    window.runSentence("the city sleeps by the river");
    QVERIFY(!predictions->isEnabled());  // the last text's, greyed while the new one runs
    QCOMPARE(predictions->rowCount(), 5);
    window.cancelSentenceRun();
    QVERIFY(!view->capture(1));
    QVERIFY2(view->runError(1).startsWith("bet_sf: the run was cancelled."), qPrintable(view->runError(1)));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QTest::qWait(50);
    QVERIFY(!view->capture(1));  // not run again by the shown model's end
    QVERIFY(window.errorText().isEmpty());
    QVERIFY2(shown_placeholder(view->compareHeatmap()).startsWith("bet_sf: the run was cancelled."),
             qPrintable(view->compareHeatmap()->placeholderText()));
    QVERIFY(!view->runBar()->isVisible());
    window.runSentence(view->sentence());  // Enter: the text runs again
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->capture(0) && view->capture(1), kTimeoutMs);
    QCOMPARE(view->capture(1)->text, QString("the city sleeps by the river"));
    QVERIFY(view->runError(1).isEmpty() && predictions->isEnabled());
    // The line as a long run shows it: over the maps, whole within the tab (drawn to a PNG to look at).
    view->runBar()->start("Running vanilla_lm");
    QTRY_VERIFY_WITH_TIMEOUT(view->runBar()->isVisible(), kTimeoutMs);
    view->runBar()->setProgress(5.5, 16, "layers");
    QTest::qWait(20);
    const QRect bar(view->runBar()->mapTo(view, QPoint(0, 0)), view->runBar()->size());
    QVERIFY(view->rect().contains(bar));
    QVERIFY(bar.bottom() < view->heatmap()->mapTo(view, QPoint(0, 0)).y());
    QVERIFY(window.grab().save(AW_BUILD_DIR "/run_progress.png"));
    view->runBar()->finish();
  }
};

QTEST_MAIN(WindowManyModelsTests)
#include "test_window_many_models.moc"

// tests/widgets/test_run_progress_bar.cpp — the line over the Attention tab's maps while a run lasts
// (widgets/run_progress_bar.h), offscreen: hidden for short runs, then what runs, the layers done
// (fractions for a long text's tiles), the rate and ETA; Cancel says "cancelling…", asks once and
// ignores later reports; finish hides it.
#include "widgets/run_progress_bar.h"

#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace aw;

class RunProgressBarTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void showsLayersRateAndEtaAfterAMoment() {
    RunProgressBar bar;
    bar.start("Running vanilla_lm");
    QVERIFY(bar.isRunning());
    QVERIFY(!bar.isVisible());  // a short run never shows it
    QCOMPARE(bar.text(), QString("Running vanilla_lm…"));
    QTRY_VERIFY_WITH_TIMEOUT(bar.isVisible(), 5 * RunProgressBar::kShowAfterMs);
    bar.setProgress(2, 16, "layers");
    QVERIFY2(bar.text().startsWith("Running vanilla_lm: 2 of 16 layers · ") && bar.text().contains(" layers/s · ETA "),
             qPrintable(bar.text()));
    bar.setProgress(2.5, 16, "layers");  // a long text's layer made half
    QVERIFY2(bar.text().startsWith("Running vanilla_lm: 2.5 of 16 layers"), qPrintable(bar.text()));
    auto* progress = bar.findChild<QProgressBar*>();
    QCOMPARE(progress->maximum(), 16000);
    QCOMPARE(progress->value(), 2500);
    bar.setProgress(16, 16, "layers");
    QCOMPARE(bar.text(), QString("Running vanilla_lm: 16 of 16 layers"));  // no ETA once done
    bar.finish();
    QVERIFY(!bar.isVisible() && !bar.isRunning());
  }

  void cancelAsksOnceAndSaysCancelling() {
    RunProgressBar bar;
    QSignalSpy asked(&bar, &RunProgressBar::cancelRequested);
    bar.start("Running gemma3");
    bar.setProgress(1, 4, "layers");
    QTest::mouseClick(bar.cancelButton(), Qt::LeftButton);
    QCOMPARE(asked.count(), 1);
    QVERIFY(bar.isCancelling());
    QCOMPARE(bar.text(), QString("Running gemma3: cancelling…"));
    QVERIFY(!bar.cancelButton()->isEnabled());
    bar.setProgress(2, 4, "layers");  // the run's last reports before it stops
    QCOMPARE(bar.text(), QString("Running gemma3: cancelling…"));
    bar.cancelButton()->click();
    QCOMPARE(asked.count(), 1);
    bar.finish();
    QTest::qWait(2 * RunProgressBar::kShowAfterMs);
    QVERIFY(!bar.isVisible());  // the timer of a run that ended early does not show it
  }

  void durationsReadAsPeopleSayThem() {
    QCOMPARE(duration_text(4.31), QString("4.3 s"));
    QCOMPARE(duration_text(12.4), QString("12 s"));
    QCOMPARE(duration_text(185), QString("3 min 5 s"));
  }
};

QTEST_MAIN(RunProgressBarTests)
#include "test_run_progress_bar.moc"

// tests/widgets/test_analysis_panel.cpp — an analysis's panel (widgets/analysis_panel.h) under
// QT_QPA_PLATFORM=offscreen: it exports the CSV it was given verbatim, a PNG of the table and a PDF; its
// Run and Cancel buttons follow the running state.
#include "table/csv_format.h"
#include "widgets/analysis_panel.h"

#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace aw;

class AnalysisPanelTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
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
};

QTEST_MAIN(AnalysisPanelTests)
#include "test_analysis_panel.moc"

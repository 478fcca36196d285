// tests/widgets/test_analysis_panel.cpp — an analysis's panel (widgets/analysis_panel.h) under
// QT_QPA_PLATFORM=offscreen: it exports the CSV it was given verbatim, a PNG of the table and a PDF; its
// Run and Cancel buttons follow the running state; Ctrl+C copies the selected cells; a chooser shows and
// exports the result's other tables.
#include "table/csv_format.h"
#include "widgets/analysis_panel.h"
#include "widgets/result_plot.h"
#include "widgets/selection_copy.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>

#include <QFile>
#include <QLabel>
#include <QRegularExpression>
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

  // A result with one of the other tables its tab offers: a chooser puts it in the table's place, Export
  // CSV writes the table shown (named after its part), and the plot and table() keep the main table.
  void theChooserShowsAndExportsAnotherTable() {
    AnalysisPanel panel("test");
    panel.setOtherTables({{"between", "importance − oracle per step"}, {"curves", "every epoch's curve"}});
    panel.setExportName("prune_tiny");
    const std::string main_csv = "# metric=perplexity\norder,percent_pruned,metric\nimportance,0,10\nimportance,50,12\n";
    const std::string between_csv = "# difference=importance - oracle\npercent_pruned,delta\n50,0.5\n";
    auto* chooser = panel.tableChooser();
    panel.setResult(read_csv(main_csv));
    QVERIFY(chooser->isHidden());  // no other table in this result
    panel.setResult(read_csv(main_csv), {{"csv", read_csv(main_csv)}, {"between", read_csv(between_csv)}});
    QVERIFY(!chooser->isHidden());
    QCOMPARE(chooser->count(), 2);  // the result and "between"; no "curves" here
    QCOMPARE(chooser->itemText(1), QString("Table: importance − oracle per step"));
    QVERIFY(panel.suggestedExportPath("csv").endsWith("/prune_tiny.csv"));
    chooser->setCurrentIndex(1);
    QCOMPARE(panel.tableView()->model()->rowCount(), 1);
    QCOMPARE(panel.csv().toStdString(), between_csv);
    QVERIFY(panel.suggestedExportPath("csv").endsWith("/prune_tiny_between.csv"));
    QVERIFY(panel.suggestedExportPath("png").endsWith("/prune_tiny.png"));  // the plot is the main table's
    QCOMPARE(panel.table().row_count(), 2);
    chooser->setCurrentIndex(0);
    QCOMPARE(panel.csv().toStdString(), main_csv);
    // A new result starts on its main table.
    chooser->setCurrentIndex(1);
    panel.setResult(read_csv(main_csv), {{"between", read_csv(between_csv)}});
    QCOMPARE(chooser->currentIndex(), 0);
    QCOMPARE(panel.tableView()->model()->rowCount(), 2);
    panel.clearResult();
    QVERIFY(chooser->isHidden());
  }

  // Ctrl+C copies every selected cell as tab-separated lines (the view's own copy took one cell).
  void ctrlCCopiesTheSelectedCells() {
    AnalysisPanel panel("test");
    panel.setResult(read_csv("layer,head,delta\n1,1,0.5\n1,2,-0.25\n2,1,0.125\n"));
    panel.show();
    auto* view = panel.tableView();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    view->setFocus();
    const auto* model = view->model();
    view->selectionModel()->select(QItemSelection(model->index(0, 1), model->index(1, 2)), QItemSelectionModel::Select);
    view->selectionModel()->select(model->index(2, 2), QItemSelectionModel::Select);  // a second range
    QGuiApplication::clipboard()->clear();
    QTest::keyClick(view, Qt::Key_C, Qt::ControlModifier);
    // Rows 1–3 × columns head..delta; row 3's head is not selected and stays empty.
    QCOMPARE(QGuiApplication::clipboard()->text(), QString("1\t0.5\n2\t-0.25\n\t0.125\n"));
    QCOMPARE(selection_as_tsv(*view), QGuiApplication::clipboard()->text());
    // The same from the context menu's action.
    QGuiApplication::clipboard()->clear();
    view->selectionModel()->select(model->index(0, 0), QItemSelectionModel::ClearAndSelect);
    QCOMPARE(view->actions().size(), 1);
    view->actions().front()->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), QString("1\n"));
  }

  // After a run the line beside the bar says how it went in words ("done in 0.1 s · 3 rows"), with the
  // table's key=value metadata in its tooltip; exports are titled and named for the result.
  void progressLineSaysHowTheRunWentAndExportsAreNamed() {
    AnalysisPanel panel("test");
    panel.setRunning(true);
    panel.endRun(AnalysisPanel::RunEnd::Done);
    panel.setResult(read_csv("# model=m, metric=perplexity, baseline=3.5\nlayer,head,delta\n1,1,0.5\n1,2,-0.25\n2,1,0.125\n"));
    QVERIFY2(QRegularExpression("^done in [0-9.]+ s · 3 rows$").match(panel.progressText()).hasMatch(),
             qPrintable(panel.progressText()));
    QString tooltip;
    for (const auto* label : panel.findChildren<QLabel*>())
      if (label->text() == panel.progressText()) tooltip = label->toolTip();
    QCOMPARE(tooltip, QString("model=m\nmetric=perplexity\nbaseline=3.5"));
    AnalysisPanel restored("test");
    restored.setResult(read_csv("a\n1\n"));  // shown again (a restored session): not run now
    QCOMPARE(restored.progressText(), QString("1 row"));
    QCOMPARE(restored.progressPercent(), 100);  // a finished run's bar, not "0 %" beside its rows

    QCOMPARE(panel.exportTitle("csv"), QString("Export the result as CSV"));
    panel.setExportName("ablate_vanilla lm");
    QCOMPARE(panel.exportTitle("png"), QString("Export ablate_vanilla lm as PNG"));
    QVERIFY2(panel.suggestedExportPath("csv").endsWith("/ablate_vanilla_lm.csv"), qPrintable(panel.suggestedExportPath("csv")));
  }

  // The description shows its first sentence and "more…"; the link shows the rest, "less" hides it.
  // A wide table takes the room its columns need (up to 3/5 of the pane): Table 1's last column,
  // Ratio, was cut to "R" in the half it had.
  void aWideTableShowsItsLastColumn() {
    AnalysisPanel panel("test");
    panel.resize(1100, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setResult(read_csv("model,layer,CA,HA_mean,HA_std,Ratio\nvanilla_lm,1,0.0472455,0.0150044,0.0227674,3.14879\n"
                             "bet_sf,2,0.0910847,0.014314,0.0395091,6.36334\n"));
    QTest::qWait(20);
    auto* view = panel.tableView();
    const int last = view->model()->columnCount() - 1;
    QVERIFY2(view->columnViewportPosition(last) + view->columnWidth(last) <= view->viewport()->width(),
             qPrintable(QString("Ratio ends at %1 of %2").arg(view->columnViewportPosition(last) + view->columnWidth(last))
                            .arg(view->viewport()->width())));
    QVERIFY(panel.plot()->width() >= 1100 * 2 / 5 - 40);  // the plot keeps its share
    // A result set while the tab is hidden (another tab in front) is fitted when the tab shows.
    AnalysisPanel hidden("test");
    hidden.resize(1100, 600);
    hidden.setResult(read_csv("model,layer,CA,HA_mean,HA_std,Ratio\nvanilla_lm,1,0.0472455,0.0150044,0.0227674,3.14879\n"));
    hidden.show();
    QVERIFY(QTest::qWaitForWindowExposed(&hidden));
    auto* later = hidden.tableView();
    QTRY_VERIFY(later->columnViewportPosition(last) + later->columnWidth(last) <= later->viewport()->width());
  }

  void descriptionOpensOnItsFirstSentence() {
    AnalysisPanel panel("<b>Michel Figure 3.</b> The metric as heads go. Runs on the full model.");
    auto* about = panel.findChild<QLabel*>("description");
    QVERIFY(about->text().startsWith("<b>Michel Figure 3.</b> The metric as heads go."));
    QVERIFY(!about->text().contains("Runs on the full model") && about->text().contains("more…"));
    QVERIFY(!panel.descriptionShownWhole());
    Q_EMIT about->linkActivated("more");
    QVERIFY(panel.descriptionShownWhole() && about->text().contains("Runs on the full model"));
    Q_EMIT about->linkActivated("less");
    QVERIFY(!panel.descriptionShownWhole());
    QCOMPARE(about->toolTip(), QString("Michel Figure 3. The metric as heads go. Runs on the full model."));
    AnalysisPanel short_one("<b>Stats.</b> One sentence.");  // nothing more to show: no link
    QCOMPARE(short_one.findChild<QLabel*>("description")->text(), QString("<b>Stats.</b> One sentence."));
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

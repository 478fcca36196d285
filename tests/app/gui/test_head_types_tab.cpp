// tests/app/gui/test_head_types_tab.cpp — the Head types tab (app/gui/head_types_tab.h) on sample_data/
// (Qt Test, offscreen): a run fills the table, the best heads of every score and the map, and colours
// the heads panel; the score chooser remaps and recolours, a second score makes a scatter, a click on
// a listed head maps its score, and a saved session reopens with the same view and no run.
#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/head_types_tab.h"
#include "app/gui/main_window.h"
#include "tests/app/gui/panel_plot.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/analysis_panel.h"
#include "widgets/attention_overview.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/result_plot.h"
#include "widgets/score_legend.h"
#include "widgets/top_heads_table.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFile>
#include <QProcess>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace aw;

namespace {

using aw::test::kSampleData;
using aw::test::kTimeoutMs;
using aw::test::plot_title;

}  // namespace

class HeadTypesTabTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // The sample session opens with head types computed on the positive-control model: its stored table
  // is what the command line computes now (a stale copy would fail here), its induction heads listed
  // first, and the heads panel still on the Attention tab's model.
  void sampleSessionOpensWithHeadTypes() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = qobject_cast<HeadTypesTab*>(window.analyses()->tab("head-types"));
    QVERIFY(tab->panel()->hasResult());
    QCOMPARE(tab->panel()->table().row_count(), 8);  // induction_lm: 2 layers × 4 heads
    QProcess cli;
    cli.start(AW_CLI_PATH, {"head-types", "--model", kSampleData + "/induction_lm"});
    QVERIFY(cli.waitForFinished(kTimeoutMs));
    // Equal to the golden files' rule: the sixth digit moves with the CPU's BLAS kernels.
    QTemporaryDir dir;
    const auto write = [&](const QString& name, const QByteArray& text) {
      QFile file(dir.filePath(name));
      return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
    };
    QVERIFY(write("stored.csv", tab->panel()->csv().toUtf8()));
    QVERIFY(write("cli.csv", cli.readAllStandardOutput()));
    QProcess compare;
    compare.start(AW_GOLDEN_COMPARE_PATH, {dir.filePath("stored.csv"), dir.filePath("cli.csv")});
    QVERIFY(compare.waitForFinished(kTimeoutMs));
    QVERIFY2(compare.exitCode() == 0, compare.readAllStandardError().constData());
    QVERIFY(tab->topHeads()->item(2, 0)->text().startsWith("2."));  // the best induction head is in layer 2
    QCOMPARE(window.headsPanelModel(), window.attentionView()->currentModel());
  }

  void runMapScatterAndReopen() {
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = qobject_cast<HeadTypesTab*>(window.analyses()->tab("head-types"));
    QVERIFY(tab);
    auto* panel = tab->panel();
    tab->modelChooser(0)->setCurrentIndex(0);  // vanilla_lm, not the model on view
    panel->findChild<QSpinBox*>("sequences")->setValue(4);
    tab->start();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && panel->hasResult(), kTimeoutMs);
    QCOMPARE(panel->table().row_count(), 32);  // 4 layers × 8 heads
    QCOMPARE(tab->topHeads()->rowCount(), 6);  // one row per score
    QCOMPARE(tab->topHeads()->verticalHeaderItem(2)->text(), QString("induction"));
    QCOMPARE(plot_title(panel), QString("induction per head"));
    auto* colour = window.findChild<QComboBox*>("heads_colour");
    QCOMPARE(colour->currentText(), QString("induction"));
    QCOMPARE(window.headsPanelModel(), 0);
    QCOMPARE(window.headsPanel()->legend()->label(), QString("induction"));
    // The overview shows the same scores (a strip under each head) once it shows that model.
    auto* overview = window.attentionView()->overview();
    QVERIFY(overview->headScores().empty());  // it shows bet_sf
    window.attentionView()->setCurrentModel(0);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QCOMPARE(overview->headScores().size(), size_t{4});
    QCOMPARE(overview->headScores()[1][2], panel->table().number(10, panel->table().column("induction")));
    window.tabs()->setCurrentIndex(0);
    QTest::qWait(200);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/overview_scores.png"));  // to look at
    window.tabs()->setCurrentWidget(panel);

    // Another score: the map and the heads panel follow.
    tab->scoreChooser()->setCurrentText("sink");
    QVERIFY(plot_title(panel).startsWith("sink per head (sink rate "));
    QCOMPARE(colour->currentText(), QString("sink"));
    // Against a second score: a scatter, one series per layer, a point per head.
    tab->againstChooser()->setCurrentText("previous_token");
    QCOMPARE(plot_title(panel), QString("sink against previous_token (a point per head)"));
    auto* plot = panel->plot()->plot();
    QCOMPARE(plot->graphCount(), 4);
    QCOMPARE(plot->graph(0)->dataCount(), 8);
    // A listed head maps its score.
    QTest::mouseClick(tab->topHeads()->viewport(), Qt::LeftButton, {},
                      tab->topHeads()->visualItemRect(tab->topHeads()->item(4, 0)).center());
    QCOMPARE(tab->scoreChooser()->currentText(), QString("entropy"));
    QCOMPARE(tab->againstChooser()->currentText(), QString("—"));
    QCOMPARE(plot_title(panel), QString("entropy per head"));

    // Saved and reopened: the same table and view, without a run.
    const auto session = dir.filePath("session.json");
    QVERIFY(window.saveSession(session));
    MainWindow reopened;
    reopened.show();
    reopened.openSession(session);
    QTRY_VERIFY_WITH_TIMEOUT(!reopened.isBusy(), kTimeoutMs);
    auto* again = qobject_cast<HeadTypesTab*>(reopened.analyses()->tab("head-types"));
    QCOMPARE(again->panel()->csv(), panel->csv());
    QCOMPARE(again->scoreChooser()->currentText(), QString("entropy"));
    QCOMPARE(again->topHeads()->rowCount(), 6);
    QCOMPARE(plot_title(again->panel()), QString("entropy per head"));
  }
};

QTEST_MAIN(HeadTypesTabTests)
#include "test_head_types_tab.moc"

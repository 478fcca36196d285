// tests/test_main_window.cpp — the main window end to end on sample_data/ (Qt Test, offscreen):
// open the bundled session, run a sentence, switch a head off and see the heatmap change, run
// Table 1 and export a CSV equal to attention-cli's, keep the event loop alive during an analysis
// and cancel it, save and reopen a session (results kept), open a session of the old format with the
// same settings, show bad input as a message, recompute the overview only for a new capture — and
// write a screenshot of the window into the build folder.
#include "analysis/core/registry.h"
#include "app/gui/analysis_tab.h"
#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/main_window.h"
#include "app/gui/session_file.h"
#include "app/gui/session_migration.h"
#include "app/gui/settings_form.h"
#include "widgets/analysis_panel.h"
#include "widgets/attention_heatmap.h"
#include "widgets/attention_overview.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/result_plot.h"

#include <qcustomplot.h>

#include <QCheckBox>

#include <algorithm>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace aw;

namespace {

constexpr int kTimeoutMs = 60000;
const QString kSampleData = AW_SOURCE_DIR "/sample_data";

QByteArray read_all(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A bundled model's layers and heads per layer, from its config.json: the tests follow a retrained sample.
struct SampleShape {
  int layers = 0, heads = 0, positions = 0;
  int total() const { return layers * heads; }
};
SampleShape sample_shape(const QString& name) {
  const auto config = QJsonDocument::fromJson(read_all(kSampleData + "/" + name + "/config.json")).object();
  return {config["n_layers"].toInt(), config["n_heads"].toInt(), config["max_positions"].toInt()};
}

}  // namespace

// Trains a transformer_lm on the demo sentences with the CLI; `options` adds its --layers, --heads,
// --epochs, … True when it exited 0.
bool train_demo_model(const QString& out, const QStringList& options) {
  QProcess train;
  train.start(AW_CLI_PATH, QStringList{"train", "--arch", "transformer_lm", "--train", kSampleData + "/demo_sentences.txt",
                                       "--valid", kSampleData + "/demo_sentences.txt", "--out", out} +
                               options);
  return train.waitForFinished(kTimeoutMs) && train.exitCode() == 0;
}

class MainWindowTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // The tabs come from the registry: every analysis that wants a tab has one, with an editor for
  // each of its settings that belongs in a form (but those the tab fills itself), named after it.
  void everyRegisteredAnalysisHasATab() {
    MainWindow window;
    for (const auto& descriptor : analysis_registry()) {
      const auto name = QString::fromStdString(descriptor.name);
      auto* tab = window.analyses()->tab(name);
      if (!descriptor.tab.shown) {
        QVERIFY2(!tab, qPrintable(name + " has a tab but asked for none"));
        continue;
      }
      QVERIFY2(tab, qPrintable(name + " has no tab"));
      for (const auto& field : descriptor.fields)
        if (field.in_form && std::count(descriptor.tab.filled_fields.begin(), descriptor.tab.filled_fields.end(), field.name) == 0)
          QVERIFY2(tab->form()->input(QString::fromStdString(field.name)),
                   qPrintable(name + ": no editor for --" + QString::fromStdString(field.name)));
    }
  }

  void endToEndOnTheSampleSession() {
    MainWindow window;
    window.resize(1360, 860);
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(window.errorText().isEmpty(), qPrintable(window.errorText()));
    QCOMPARE(window.modelCount(), 3);
    auto* view = window.attentionView();
    QVERIFY(view->compareModel() >= 0);                     // the bundled session compares two models
    QVERIFY(view->heatmap()->matrix().rows > 0);             // …and has already run its sentence
    QVERIFY(view->compareHeatmap()->matrix().rows > 0);
    // …on layer 2, each row ÷ its maximum: where vanilla's current-token diagonal and BET(SF)'s
    // diagonal-free mask differ most visibly.
    QCOMPARE(view->layer(), 1);
    QCOMPARE(view->colourScale(), ColourScale::RowNormalised);
    view->setColourScale(ColourScale::Fixed);
    view->setLayerHead(0, -1);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);

    // Type a sentence and press Enter.
    view->sentenceEdit()->clear();
    QTest::keyClicks(view->sentenceEdit(), "the cat sat on the mat");
    QTest::keyClick(view->sentenceEdit(), Qt::Key_Return);
    // While the runs work, both maps are greyed with a note saying which model runs.
    QVERIFY(view->heatmap()->isStale());
    QVERIFY(view->compareHeatmap()->isStale());
    QVERIFY(window.grab().save(AW_BUILD_DIR "/attention_running.png"));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->heatmap()->matrix().rows == 6, kTimeoutMs);
    QVERIFY(!view->heatmap()->isStale());
    QVERIFY(!view->compareHeatmap()->isStale());
    QCOMPARE(view->heatmap()->matrix().col_labels.first(), QString("the"));
    QVERIFY(view->predictions()->rowCount() == 5);

    // Switch layer 1's head 1 off: its own weights stay (a gate scales the head's output), so layer
    // 2's attention is what changes; switching it back on restores it.
    // A layer the capture does not hold is made on a worker (the map greys meanwhile).
    view->setLayerHead(1, -1);
    QVERIFY(view->heatmap()->isStale());
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY(!view->heatmap()->isStale());
    const auto before = view->heatmap()->matrix().weights;
    auto* heads = window.headsPanel();
    QTest::mouseClick(heads->grid(), Qt::LeftButton, {}, heads->grid()->cellRect(0, 0).center());
    const auto shown = sample_shape("bet_sf");  // the session shows BET(SF) beside vanilla_lm
    QCOMPARE(heads->summaryText(), QString("1 of %1 heads off").arg(shown.total()));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->heatmap()->matrix().weights != before, kTimeoutMs);
    view->setLayerHead(0, -1);  // layer 1's mean says that one of its heads is off
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(view->heatmap()->matrix().title.endsWith(QString("layer 1 · mean of %1 heads (1 off, still in the mean)").arg(shown.heads)),
             qPrintable(view->heatmap()->matrix().title));
    // That title wraps beside the other map's one-line title: both maps still start level.
    QTest::qWait(50);
    view->heatmap()->plot()->replot();
    view->compareHeatmap()->plot()->replot();
    QVERIFY(view->heatmap()->titleLines() > view->compareHeatmap()->titleLines());
    QCOMPARE(view->heatmap()->plot()->axisRect()->top(), view->compareHeatmap()->plot()->axisRect()->top());
    view->setLayerHead(1, -1);
    heads->allOn();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->heatmap()->matrix().weights == before, kTimeoutMs);

    // The Scale chooser reaches both heatmaps, and their titles name it.
    auto* scale = view->findChild<QComboBox*>("scale");
    QVERIFY(scale);
    scale->setCurrentText("per row");
    QCOMPARE(view->heatmap()->colourScale(), ColourScale::RowNormalised);
    QCOMPARE(view->compareHeatmap()->colourScale(), ColourScale::RowNormalised);
    QVERIFY2(view->heatmap()->titleText().endsWith("\neach row ÷ its maximum"), qPrintable(view->heatmap()->titleText()));
    QTest::qWait(100);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/heatmap_per_row.png"));
    scale->setCurrentText("fixed 0–1");

    // Table 1 on the sample sentences: the exported CSV equals the CLI's.
    auto* table1 = window.analyses()->panel("stats");
    table1->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    table1->findChild<QSpinBox*>("window")->setValue(32);
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    window.analyses()->run("stats");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QVERIFY2(table1->messageText().isEmpty(), qPrintable(table1->messageText()));
    QCOMPARE(table1->table().row_count(), sample_shape("vanilla_lm").layers + sample_shape("bet_sf").layers);  // a row a layer
    // The null baseline: one dashed line (same windows for both models) at the uniform Ratio.
    auto* bars_plot = table1->plot()->plot();
    QCOMPARE(bars_plot->itemCount(), 1);
    auto* uniform_line = qobject_cast<QCPItemStraightLine*>(bars_plot->item(0));
    QVERIFY(uniform_line);
    const double uniform_ratio = table1->table().number(0, table1->table().column("uniform_Ratio"));
    QVERIFY(uniform_ratio > 1.5 && uniform_ratio < 3.5);
    QCOMPARE(uniform_line->point1->coords().y(), uniform_ratio);
    QCOMPARE(bars_plot->graph(bars_plot->graphCount() - 1)->name(), QString("uniform attention"));
    QTemporaryDir dir;
    const auto gui_csv = dir.filePath("gui.csv"), cli_csv = dir.filePath("cli.csv");
    QVERIFY(table1->exportCsv(gui_csv));
    QProcess cli;
    cli.start(AW_CLI_PATH, {"stats", "--model", kSampleData + "/vanilla_lm", "--model", kSampleData + "/bet_sf", "--text",
                            kSampleData + "/demo_sentences.txt", "--window", "32", "--batch", "8", "--out", cli_csv});
    QVERIFY(cli.waitForFinished(kTimeoutMs));
    QCOMPARE(cli.exitCode(), 0);
    QCOMPARE(read_all(gui_csv), read_all(cli_csv));

    // Save, reopen in a new window: models, gates, sentence, colour scale and the Table 1 result come back.
    heads->toggle(1, 3);
    window.attentionView()->setColourScale(ColourScale::Log);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    const auto session_path = dir.filePath("session.json");
    QVERIFY(window.saveSession(session_path));
    MainWindow reopened;
    reopened.show();
    reopened.openSession(session_path);
    QTRY_VERIFY_WITH_TIMEOUT(!reopened.isBusy(), kTimeoutMs);
    QCOMPARE(reopened.modelCount(), 3);
    QCOMPARE(reopened.attentionView()->sentence(), QString("the cat sat on the mat"));
    QCOMPARE(reopened.headsPanel()->summaryText(), QString("1 of %1 heads off").arg(sample_shape("bet_sf").total()));
    QVERIFY(!reopened.headsPanel()->gates().isOn(1, 3));
    QCOMPARE(reopened.attentionView()->colourScale(), ColourScale::Log);
    QCOMPARE(reopened.attentionView()->heatmap()->colourScale(), ColourScale::Log);
    QCOMPARE(reopened.analyses()->panel("stats")->csv().toUtf8(), read_all(cli_csv));  // not recomputed
    QCOMPARE(reopened.analyses()->panel("stats")->findChild<QSpinBox*>("window")->value(), 32);

    // A screenshot of the window, to look at.
    window.tabs()->setCurrentIndex(0);
    QTest::qWait(200);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/main_window.png"));
  }

  void ablationStarsSignificantHeadsAndPruningDrawsIntervalBands() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    auto* ablation = window.analyses()->panel("ablate");
    ablation->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    ablation->findChild<QSpinBox*>("window")->setValue(16);
    QCOMPARE(ablation->findChild<QSpinBox*>("bootstrap")->value(), 1000);
    window.analyses()->run("ablate");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QVERIFY2(ablation->messageText().isEmpty(), qPrintable(ablation->messageText()));
    // One star per head the table calls significant, and the title says what a star means.
    const auto& table = ablation->table();
    int significant = 0;
    for (int row = 0; row < table.row_count(); ++row) significant += table.number(row, table.column("significant")) == 1.0;
    QCOMPARE(ablation->plot()->plot()->itemCount(), significant);
    auto* title = qobject_cast<QCPTextElement*>(ablation->plot()->plot()->plotLayout()->element(0, 0));
    QVERIFY(title && title->text().endsWith("; * adjusted p ≤ 0.05 (Holm)"));

    // The same heads on a second file: a scatter of the two deltas, one colour a layer.
    ablation->findChild<QLineEdit*>("compare-text")->setText(kSampleData + "/README.md");
    window.analyses()->run("ablate");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, kTimeoutMs);
    QVERIFY2(ablation->messageText().startsWith("across the two files: Pearson r = "), qPrintable(ablation->messageText()));
    auto* scatter = ablation->plot()->plot();
    const auto vanilla = sample_shape("vanilla_lm");
    QCOMPARE(scatter->graphCount(), vanilla.layers);  // one a layer
    QCOMPARE(scatter->graph(0)->lineStyle(), QCPGraph::lsNone);
    QCOMPARE(scatter->graph(0)->dataCount(), vanilla.heads);
    title = qobject_cast<QCPTextElement*>(scatter->plotLayout()->element(0, 0));
    QVERIFY2(title && title->text().contains("Pearson r = "), qPrintable(title ? title->text() : QString()));
    QCOMPARE(scatter->yAxis->label(), QString("Δ perplexity on README.md"));
    window.tabs()->setCurrentIndex(std::max(0, window.tabs()->indexOf(ablation)));
    QTest::qWait(100);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/ablation_scatter.png"));

    auto* pruning = window.analyses()->panel("prune");
    pruning->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    pruning->findChild<QSpinBox*>("window")->setValue(16);
    pruning->findChild<QSpinBox*>("step")->setValue(25);
    window.analyses()->run("prune");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 3, kTimeoutMs);
    QVERIFY2(pruning->messageText().isEmpty(), qPrintable(pruning->messageText()));
    auto* curves = pruning->plot()->plot();
    QCOMPARE(curves->graphCount(), 6);  // two orders × (band edge, band, curve)
    QCOMPARE(curves->graph(1)->channelFillGraph(), curves->graph(0));
    QCOMPARE(curves->graph(1)->name(), QString("importance: 95 % interval"));
    window.tabs()->setCurrentIndex(std::max(0, window.tabs()->indexOf(pruning)));
    QTest::qWait(100);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/pruning_bands.png"));
  }

  // Gates are a setting: heads switched off in the heads panel fill the ablation's "Heads off" field, the
  // CSV records them, and the command line given that value writes the same CSV.
  void headsOffRunRepeatsFromTheCommandLine() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = window.analyses()->tab("ablate");
    tab->modelChooser()->setCurrentIndex(window.attentionView()->currentModel());
    QVERIFY(tab->modelChooser()->currentText().startsWith("bet_sf"));  // the session shows BET(SF)
    auto* heads = window.headsPanel();
    heads->allOn();
    heads->toggle(0, 0);
    heads->toggle(1, 2);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* heads_off = tab->panel()->findChild<QLineEdit*>("heads-off");
    QVERIFY(heads_off);
    QCOMPARE(heads_off->text(), QString("1.1,2.3"));
    auto* panel = tab->panel();
    panel->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    panel->findChild<QSpinBox*>("window")->setValue(16);
    panel->findChild<QSpinBox*>("bootstrap")->setValue(200);
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    window.analyses()->run("ablate");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QVERIFY2(panel->messageText().isEmpty(), qPrintable(panel->messageText()));
    QCOMPARE(QString::fromStdString(panel->table().meta_text("heads_off")), QString("1.1,2.3"));
    QTemporaryDir dir;
    const auto gui_csv = dir.filePath("gui.csv"), cli_csv = dir.filePath("cli.csv");
    QVERIFY(panel->exportCsv(gui_csv));
    // Everything the command line needs is in the file's first line.
    const auto header = QString::fromUtf8(read_all(gui_csv)).section('\n', 0, 0);
    QVERIFY2(header.contains("heads_off=1.1,2.3") && header.contains("bootstrap=200"), qPrintable(header));
    QProcess cli;
    cli.start(AW_CLI_PATH, {"ablate", "--model", kSampleData + "/bet_sf", "--text", kSampleData + "/demo_sentences.txt",
                            "--window", "16", "--bootstrap", "200", "--heads-off", "1.1,2.3", "--out", cli_csv});
    QVERIFY(cli.waitForFinished(kTimeoutMs));
    QCOMPARE(cli.exitCode(), 0);
    QCOMPARE(read_all(gui_csv), read_all(cli_csv));

    // A head the model does not have is one line naming it, in the window as on the command line.
    heads_off->setText("9.1");
    window.analyses()->run("ablate");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, kTimeoutMs);
    QVERIFY2(panel->messageText().startsWith("Heads off: 9.1: bet_sf has "), qPrintable(panel->messageText()));
  }

  // A run kept epoch by epoch (train --keep-epochs): the Training tab plots its loss per epoch (training
  // solid, validation dashed, one colour), and the Pruning tab's epoch series the prunable share.
  void trainingTabAndEpochSeries() {
    QTemporaryDir dir;
    const auto run = dir.filePath("run");
    QVERIFY(train_demo_model(run, {"--layers", "1", "--heads", "2", "--d-model", "8", "--d-ff", "16", "--window", "8",
                                   "--epochs", "3", "--batch", "8", "--keep-epochs"}));
    MainWindow window;
    window.show();
    window.runSentence("the band released their second album");  // before the model has loaded
    window.openCheckpoint(run);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QCOMPARE(window.attentionView()->heatmap()->matrix().rows, 6);  // …runs once it has
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);

    auto* training = window.analyses()->panel("training");
    window.analyses()->run("training");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QVERIFY2(training->messageText().isEmpty(), qPrintable(training->messageText()));
    QCOMPARE(training->table().row_count(), 3);  // three epochs
    auto* losses = training->plot()->plot();
    QCOMPARE(losses->graphCount(), 2);
    QCOMPARE(losses->graph(0)->name(), QString("run: training"));
    QCOMPARE(losses->graph(1)->pen().style(), Qt::DashLine);
    QCOMPARE(losses->graph(1)->pen().color(), losses->graph(0)->pen().color());
    QCOMPARE(losses->graph(1)->dataCount(), 3);
    QCOMPARE(losses->graph(1)->data()->at(2)->value, training->table().number(2, training->table().column("valid_loss")));

    auto* pruning = window.analyses()->panel("prune");
    pruning->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    pruning->findChild<QSpinBox*>("window")->setValue(8);
    pruning->findChild<QSpinBox*>("step")->setValue(50);
    pruning->findChild<QSpinBox*>("bootstrap")->setValue(0);
    pruning->findChild<QCheckBox*>("series")->setChecked(true);
    window.analyses()->run("prune");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, kTimeoutMs);
    QVERIFY2(pruning->messageText().isEmpty(), qPrintable(pruning->messageText()));
    QCOMPARE(pruning->table().row_count(), 6);  // 3 epochs × 2 orders
    auto* shares = pruning->plot()->plot();
    QCOMPARE(shares->graphCount(), 2);
    QCOMPARE(shares->xAxis->label(), QString("epoch"));
    QCOMPARE(shares->graph(0)->dataCount(), 3);
    QCOMPARE(shares->yAxis->range().lower, 0.0);  // a share: the whole 0–100 % in view, a line at 100 uncut
    QCOMPARE(shares->yAxis->range().upper, 105.0);
    window.tabs()->setCurrentIndex(std::max(0, window.tabs()->indexOf(training)));
    QTest::qWait(100);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/training_tab.png"));
    window.tabs()->setCurrentIndex(std::max(0, window.tabs()->indexOf(pruning)));
    QTest::qWait(100);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/pruning_series.png"));
  }

  // --sample-data opens that sample session, not the last one (that takes --restore); without it the
  // last session reopens unless --fresh; --open-session wins over both.
  void startupOpensWhatTheCommandLineSays() {
    QCOMPARE(start_session(false, true, false, false, true), StartSession::Sample);
    QCOMPARE(start_session(false, true, false, true, true), StartSession::Sample);
    QCOMPARE(start_session(false, true, true, false, true), StartSession::Last);
    QCOMPARE(start_session(false, true, true, false, false), StartSession::Sample);  // nothing to restore
    QCOMPARE(start_session(false, false, false, false, true), StartSession::Last);
    QCOMPARE(start_session(false, false, false, true, true), StartSession::Nothing);
    QCOMPARE(start_session(false, false, false, false, false), StartSession::Nothing);
    QCOMPARE(start_session(true, true, true, false, true), StartSession::Given);
    // The window names the session it opened: the sample folder, not the application twice.
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QCOMPARE(window.windowTitle(), QString("Attention Workbench — sample_data"));
    // Top tokens compares two models: its choosers open on two different ones.
    auto* top = window.analyses()->tab("top-tokens");
    QVERIFY(top && top->modelChooser(1));
    QVERIFY(top->modelChooser(0)->currentIndex() != top->modelChooser(1)->currentIndex());
  }

  // The window fits a 1,366 × 768 laptop screen (less a panel and the title bar) with the sample models.
  void windowFitsALaptopScreen() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    const auto minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(minimum.width() <= 1366 && minimum.height() <= 700,
             qPrintable(QString("minimum %1 × %2").arg(minimum.width()).arg(minimum.height())));
    window.resize(1366, 700);
    QTest::qWait(50);
    QVERIFY2(window.width() <= 1366 && window.height() <= 700,
             qPrintable(QString("resized to %1 × %2").arg(window.width()).arg(window.height())));
    for (int tab = 0; tab < window.tabs()->count(); ++tab) {
      window.tabs()->setCurrentIndex(tab);
      QTest::qWait(20);
      QVERIFY2(window.width() <= 1366 && window.height() <= 700,
               qPrintable(QString("tab %1 grows the window to %2 × %3").arg(tab).arg(window.width()).arg(window.height())));
    }
    // A 12 × 12-head model (GPT-2 small's shape, tiny widths): the heads panel shrinks its cells.
    QTemporaryDir dir;
    QVERIFY(train_demo_model(dir.filePath("m12"), {"--layers", "12", "--heads", "12", "--d-model", "24", "--d-ff", "48",
                                                   "--window", "32", "--epochs", "1"}));
    window.openCheckpoint(dir.filePath("m12"));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    window.attentionView()->findChild<QComboBox*>()->setCurrentIndex(window.modelCount() - 1);
    QTRY_COMPARE_WITH_TIMEOUT(window.headsPanel()->grid()->sizeHint().width() > 400, true, kTimeoutMs);
    const auto wide = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(wide.width() <= 1366 && wide.height() <= 700,
             qPrintable(QString("with 12 × 12 heads: minimum %1 × %2").arg(wide.width()).arg(wide.height())));
    window.resize(1366, 700);
    QTest::qWait(50);
    QVERIFY2(window.width() <= 1366, qPrintable(QString("resized to %1").arg(window.width())));
    QVERIFY(window.headsPanel()->grid()->cellSide() < 34);  // the cells gave way
    QVERIFY(window.grab().save(AW_BUILD_DIR "/heads_12x12.png"));
  }

  void analysesLeaveTheEventLoopRunningAndCancel() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    // A long run: pruning curves over WikiText-2's validation text.
    auto* panel = window.analyses()->panel("prune");
    panel->findChild<QLineEdit*>("text")->setText(AW_SHARED_DATA_DIR "/wikitext-2/valid.txt");
    int ticks = 0;
    QTimer ticker;
    connect(&ticker, &QTimer::timeout, [&ticks] { ++ticks; });
    ticker.start(10);
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    window.analyses()->run("pruning");  // the id before descriptors still runs it
    QVERIFY(panel->isRunning());
    // The UI thread keeps processing timer events while the analysis works.
    QTRY_VERIFY_WITH_TIMEOUT(ticks >= 20, 10000);
    QVERIFY2(panel->isRunning(), "the analysis finished before the event loop could be checked");
    QTest::mouseClick(panel->cancelButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QVERIFY(!panel->isRunning());
    QVERIFY2(panel->messageText().startsWith("Cancelled"), qPrintable(panel->messageText()));
    QVERIFY(panel->csv().isEmpty());
    // The progress line says so, and the bar stays where the run stopped instead of jumping to 100 %.
    QCOMPARE(panel->progressText(), QString("cancelled"));
    QVERIFY2(panel->progressPercent() < 100, qPrintable(QString::number(panel->progressPercent())));
  }

  void badInputBecomesAMessageAndKeepsTheModels() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    window.openCheckpoint(kSampleData + "/no_such_model");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(window.errorText().contains("no_such_model"), qPrintable("error text: " + window.errorText()));
    QCOMPARE(window.modelCount(), 3);

    QString long_sentence;
    const int vanilla_positions = sample_shape("vanilla_lm").positions;
    const int lama_positions = sample_shape("lama_amazon").positions;
    QVERIFY(vanilla_positions + 10 < lama_positions);
    for (int i = 0; i < vanilla_positions + 10; ++i) long_sentence += "the ";
    auto* view = window.attentionView();
    // The LAMA classifier takes it, the compared vanilla model (fewer positions) does not.
    view->setCurrentModel(2);
    view->setCompare(true, 0);
    window.runSentence(long_sentence);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(window.errorText().contains(QString("allows %1").arg(vanilla_positions)), qPrintable(window.errorText()));
    QVERIFY(view->heatmap()->matrix().rows > 0);
    // The failed model does not keep an older sentence's map up as if it were this one's…
    QCOMPARE(view->compareHeatmap()->matrix().rows, 0);
    // …and once it is no longer shown its error line goes (no run happens: LAMA has its capture).
    view->setCompare(false, 0);
    QVERIFY(!window.isBusy());
    QVERIFY2(window.errorText().isEmpty(), qPrintable(window.errorText()));
    view->setCurrentModel(0);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(window.errorText().contains(QString("allows %1").arg(vanilla_positions)), qPrintable(window.errorText()));  // shown again: it fails again

    auto* panel = window.analyses()->panel("stats");
    panel->findChild<QLineEdit*>("text")->setText("/no/such/corpus.txt");
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    window.analyses()->run("stats");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QVERIFY2(panel->messageText().contains("/no/such/corpus.txt"), qPrintable(panel->messageText()));
    // A classifier's labelled file given to the language models: refused as the CLI refuses it.
    panel->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_reviews.tsv");
    window.analyses()->run("stats");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, kTimeoutMs);
    QVERIFY2(panel->messageText().contains("demo_reviews.tsv: holds label<TAB>text lines"), qPrintable(panel->messageText()));
    // A bad setting names the field's label, as the form shows it.
    panel->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    panel->findChild<QSpinBox*>("window")->setValue(vanilla_positions + 1);
    QCOMPARE(panel->findChild<QSpinBox*>("window")->value(), vanilla_positions + 1);
    window.analyses()->run("stats");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 3, kTimeoutMs);
    QCOMPARE(panel->messageText(),
             QString("Window: %1 exceeds the model's %2 positions").arg(vanilla_positions + 1).arg(vanilla_positions));
    panel->findChild<QLineEdit*>("text")->clear();
    window.analyses()->run("stats");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 4, kTimeoutMs);
    QCOMPARE(panel->messageText(), QString("Data: is required"));
    // A run that failed shows an empty bar and says it did not run, not 100 % and "starting…".
    QCOMPARE(panel->progressText(), QString("not run (see the message)"));
    QCOMPARE(panel->progressPercent(), 0);
    // An empty sentence says so rather than leaving the old map up silently.
    window.runSentence("   ");
    QCOMPARE(window.errorText(), QString("The sentence is empty: type one and press Enter"));
    window.runSentence("the cat");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && window.errorText().isEmpty(), kTimeoutMs);  // cleared by a run

    QTemporaryDir dir;
    QFile broken(dir.filePath("broken.json"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("{ not json");
    broken.close();
    window.openSession(dir.filePath("broken.json"));
    QVERIFY2(window.errorText().contains("is not valid JSON"), qPrintable(window.errorText()));
    QCOMPARE(window.modelCount(), 3);  // a bad session file leaves the current one alone
    // Nested 100,000 deep: Qt's parser stops at its own depth limit (1,024) with an error, no crash.
    QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
    broken.write(QByteArray(100000, '[') + QByteArray(100000, ']'));
    broken.close();
    window.openSession(dir.filePath("broken.json"));
    QVERIFY2(window.errorText().contains("broken.json: is not valid JSON (too deeply nested document"),
             qPrintable(window.errorText()));
    QCOMPARE(window.modelCount(), 3);
  }

  // tests/fixtures/session_v1.json is the bundled session as version 1 wrote it; it opens with the
  // settings the current sample_data/default_session.json gives (both opened from one folder, so
  // their relative paths agree: the models and ../../shared are links).
  void oldSessionOpensWithTheSameSettings() {
    QTemporaryDir dir;
    const QDir root(dir.path());
    QVERIFY(root.mkpath("x/a"));
    const QDir folder(root.filePath("x/a"));
    for (const auto* model : {"vanilla_lm", "bet_sf", "lama_amazon"})
      QVERIFY(QFile::link(kSampleData + "/" + model, folder.filePath(model)));
    QVERIFY(QFile::link(QDir(AW_SHARED_DATA_DIR "/..").canonicalPath(), root.filePath("shared")));
    QVERIFY(QFile::copy(AW_SOURCE_DIR "/tests/fixtures/session_v1.json", folder.filePath("old.json")));
    QVERIFY(QFile::copy(kSampleData + "/default_session.json", folder.filePath("new.json")));
    QCOMPARE(read_session(folder.filePath("old.json")).analyses, read_session(folder.filePath("new.json")).analyses);

    QJsonObject states[2];
    for (int i = 0; i < 2; ++i) {
      MainWindow window;
      window.openSession(folder.filePath(i == 0 ? "old.json" : "new.json"));
      QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
      QVERIFY2(window.errorText().isEmpty(), qPrintable(window.errorText()));
      QCOMPARE(window.modelCount(), 3);
      auto* lama = window.analyses()->panel("word-weights");
      QCOMPARE(lama->findChild<QComboBox*>("part")->currentData().toString(), QString("test"));
      QCOMPARE(lama->findChild<QComboBox*>("model")->currentIndex(), 2);
      QVERIFY(QFileInfo(lama->findChild<QLineEdit*>("data")->text()).exists());
      states[i] = window.analyses()->state(folder);
    }
    QCOMPARE(QJsonDocument(states[0]).toJson(), QJsonDocument(states[1]).toJson());
  }

  // Every key version 1 saved, mapped onto the descriptors' field names; results are kept.
  void versionOneSettingsMigrateByFieldName() {
    const auto old = QJsonDocument::fromJson(R"({
      "table1": {"settings": {"corpus": "demo_sentences.txt", "window": 64, "batch": 8, "per_head": true,
                              "first_row": true}, "csv": "model,layer\n", "model": 0},
      "ablation": {"settings": {"model": 1, "mode": 1, "corpus": "c.txt", "window": 32, "batch": 4}},
      "importance": {"settings": {"model": 2, "normalize": false, "corpus": "", "window": 64, "batch": 8}},
      "pruning": {"settings": {"model": 0, "step": 20, "corpus": "c.txt", "window": 64, "batch": 8}},
      "top_tokens": {"settings": {"model_a": 1, "model_b": 0, "k": 5, "target": 3}},
      "diag_sweep": {"settings": {"model": 0, "factors": "0,1,mask", "corpus": "c.txt", "window": 64, "batch": 8}},
      "lama": {"settings": {"model": 2, "data": "r.tsv", "part": 3, "seed": 7, "words": "good,bad", "head": 4,
                            "scale": 1, "top": 12, "min_count": 3, "only_with_words": false}}
    })").object();
    const auto expected = QJsonDocument::fromJson(R"({
      "stats": {"settings": {"text": "demo_sentences.txt", "window": "64", "batch": "8", "per-head": true,
                             "no-first-row": false}, "csv": "model,layer\n", "model": 0},
      "ablate": {"settings": {"mode": "all-but-one", "text": "c.txt", "window": "32", "batch": "4"}, "models": [1]},
      "importance": {"settings": {"no-normalize": true, "text": "", "window": "64", "batch": "8"}, "models": [2]},
      "prune": {"settings": {"step": "20", "text": "c.txt", "window": "64", "batch": "8"}, "models": [0]},
      "top-tokens": {"settings": {"k": "5", "target": "3"}, "models": [1, 0]},
      "diag-sweep": {"settings": {"factors": "0,1,mask", "text": "c.txt", "window": "64", "batch": "8"}, "models": [0]},
      "word-weights": {"settings": {"data": "r.tsv", "part": "test", "seed": "7", "words": "good,bad", "head": "4",
                                    "scale": "length", "top": "12", "min-count": "3"}, "models": [2],
                       "only_with_words": false}
    })").object();
    QCOMPARE(migrate_analyses_v1(old), expected);
  }

  // Item 7: a head or layer change re-draws the large heatmap from the overview's matrices; only a
  // new capture renders the thumbnails again.
  // A head toggle re-runs from its layer: a held block below it is the very same floats, the capture
  // holds the shown layer only (the others are made again when asked), and every layer equals a
  // fresh session's full run under the same gates.
  // A session asked for BF16 opens a grouped-query llama in it (its heads panel grouped by key/value
  // head), still opens a LAMA model in F32, and refuses a name it does not know.
  void aBf16SessionOpensLlamaInBf16AndLamaInF32() {
    ModelSession session;
    session.setComputeDtype("bf16");
    const auto llama = session.load(AW_SOURCE_DIR "/tests/fixtures/hf_models/llama");
    QCOMPARE(llama.dtype, QString("F32, computing in bf16"));
    QCOMPARE(llama.query_groups, (std::vector<std::vector<int>>{{2, 2}, {2, 2}}));
    const auto capture = session.attend(0, "The cat sat on the mat");
    QVERIFY(capture.length() > 3);
    const auto lama = session.load(kSampleData + "/lama_amazon");
    QCOMPARE(lama.dtype.contains("computing"), false);
    bool refused = false;
    try {
      session.setComputeDtype("fp8");
    } catch (const std::exception& error) {
      refused = QString(error.what()) == "--dtype 'fp8': expected f32, bf16, f16 or auto";
    }
    QVERIFY(refused);
  }

  void reRunStartsAtTheToggledLayer() {
    const QString sentence = "the film was good and the music was better";
    ModelSession session;
    session.load(kSampleData + "/vanilla_lm");
    const auto heads = session.summary(0).heads_per_block;
    const auto all_on = session.attend(0, sentence);  // shows layer 1
    QVERIFY(all_on.holdsLayer(0));
    QVERIFY(!all_on.holdsLayer(1));
    const auto shape = sample_shape("vanilla_lm");
    QCOMPARE(all_on.layers[1].heads, shape.heads);  // its shape stays
    QCOMPARE(all_on.layers[1].rows, all_on.length());
    QCOMPARE(all_on.layer(1).size(), size_t(shape.heads) * all_on.length() * all_on.length());
    auto last_off = HeadGates::allOn(heads);
    last_off.on[1][2] = false;
    const auto toggled = session.attend(0, sentence, last_off);
    QCOMPARE(toggled.layers[0].values.get(), all_on.layers[0].values.get());  // not run again
    // A gate scales its head's output, not its weights: what changes is what comes after.
    QVERIFY(all_on.predictionsAt(3)[0].probability != toggled.predictionsAt(3)[0].probability);
    const auto shown_last = session.attend(0, sentence, last_off, 1);  // the view moved to layer 2
    QVERIFY(shown_last.holdsLayer(1));
    QVERIFY(!shown_last.holdsLayer(0));
    QCOMPARE(shown_last.layers[1].toVector(), toggled.layer(1).toVector());
    auto first_off = last_off;
    first_off.on[0][0] = false;
    const auto both = session.attend(0, sentence, first_off, 1);
    QVERIFY(both.layer(1).toVector() != toggled.layer(1).toVector());  // layer 2 sees layer 1's change
    QVERIFY(both.layers[1].values.get() != shown_last.layers[1].values.get());

    ModelSession fresh;
    fresh.load(kSampleData + "/vanilla_lm");
    for (const auto& [gates, staged] : {std::pair{last_off, &toggled}, std::pair{first_off, &both}}) {
      const auto full = fresh.attend(0, sentence, gates);
      for (int layer = 0; layer < shape.layers; ++layer)
        QCOMPARE(staged->layer(layer).toVector(), full.layer(layer).toVector());
      for (int position : {0, full.length() - 1}) {
        const auto a = staged->predictionsAt(position), b = full.predictionsAt(position);
        QCOMPARE(a.size(), size_t{5});
        for (size_t k = 0; k < a.size(); ++k) {
          QCOMPARE(a[k].label, b[k].label);
          QCOMPARE(a[k].probability, b[k].probability);
        }
      }
      fresh.clear();
      fresh.load(kSampleData + "/vanilla_lm");
    }
    // A classifier's document holds every layer (the LAMA tab reads them all).
    ModelSession documents;
    documents.load(kSampleData + "/lama_amazon");
    const auto document = documents.attendDocument(0, "the taste was great and the price was fair");
    for (int layer = 0; layer < document.layerCount(); ++layer) QVERIFY(document.holdsLayer(layer));
  }

  // The view shows a layer the capture does not hold after making it on a worker: meanwhile the
  // old map stays up greyed, the UI thread is free, and afterwards the capture holds that layer only.
  void aLayerNotHeldIsMadeOffTheUiThread() {
    const QString sentence = "the film was good and the music was better";
    ModelSession session;
    const auto summary = session.load(kSampleData + "/vanilla_lm");
    const auto capture = session.attend(0, sentence, {}, 0);
    AttentionView view;
    view.setModels({summary});
    view.setSentence(sentence);
    view.setCapture(0, capture, {});
    QCOMPARE(view.heatmap()->matrix().weights, capture_matrix(capture, 0, -1, summary.name).weights);
    QVERIFY(!view.heatmap()->isStale());
    view.resize(1100, 650);
    view.setLayerHead(1, 2);
    QVERIFY(view.heatmap()->isStale());  // made on a worker: not there yet
    QVERIFY(view.grab().save(AW_BUILD_DIR "/making_layer.png"));
    QTRY_VERIFY_WITH_TIMEOUT(!view.heatmap()->isStale(), kTimeoutMs);
    QCOMPARE(view.heatmap()->matrix().weights, capture_matrix(capture, 1, 2, summary.name).weights);
    QCOMPARE(view.heatmap()->matrix().title, QString("vanilla_lm · layer 2 · head 3"));
    QVERIFY(view.capture(0)->holdsLayer(1));
    QVERIFY(!view.capture(0)->holdsLayer(0));  // let go of
    view.setLayerHead(0, -1);
    QTRY_VERIFY_WITH_TIMEOUT(!view.heatmap()->isStale(), kTimeoutMs);
    QCOMPARE(view.heatmap()->matrix().weights, capture_matrix(capture, 0, -1, summary.name).weights);
  }

  // A saved attention file (attention-cli attend --out, some layers) opens in a window of its own:
  // the blocks are the file's (equal to a run of the same text), numbered by the model's layers; a
  // file that is not one says so.
  void savedAttentionFileOpens() {
    QTemporaryDir dir;
    const QString sentence = "the film was good and the music was better";
    const auto path = dir.filePath("saved.safetensors");
    QProcess attend;
    attend.start(AW_CLI_PATH, {"attend", "--model", kSampleData + "/vanilla_lm", "--text", sentence, "--out", path,
                               "--layers", "2"});
    QVERIFY(attend.waitForFinished(kTimeoutMs));
    QCOMPARE(attend.exitCode(), 0);
    const auto saved = ModelSession::openAttentionFile(path);
    ModelSession session;
    session.load(kSampleData + "/vanilla_lm");
    const auto run = session.attend(0, sentence);
    QCOMPARE(saved.capture.tokens, run.tokens);
    QCOMPARE(saved.capture.layerCount(), 1);
    QCOMPARE(saved.capture.layer_numbers, std::vector<int>{2});
    QCOMPARE(saved.capture.layers[0].toVector(), run.layer(1).toVector());
    QCOMPARE(saved.capture.thumbnails[0].toVector(), run.thumbnails[1].toVector());
    QCOMPARE(saved.model, QString("vanilla_lm"));

    MainWindow window;
    auto* viewer = window.openAttentionFile(path);
    QVERIFY(viewer);
    QVERIFY(viewer->isVisible());
    QVERIFY(!viewer->sentenceEdit()->isVisible());
    QCOMPARE(viewer->heatmap()->matrix().title, QString("saved.safetensors · layer 2 · mean of %1 heads").arg(sample_shape("vanilla_lm").heads));
    QCOMPARE(viewer->heatmap()->matrix().weights, capture_matrix(run, 1, -1, "x").weights);
    QTest::qWait(100);  // laid out at its size: the titles elide to it
    QVERIFY(viewer->grab().save(AW_BUILD_DIR "/saved_attention.png"));
    viewer->close();

    // A checkpoint's weights are safetensors too, but not attention.
    QVERIFY(!window.openAttentionFile(kSampleData + "/vanilla_lm/model.safetensors"));
    QCOMPARE(window.errorText(), kSampleData + "/vanilla_lm/model.safetensors: is not an attention file "
                                               "(attention-cli attend --out FILE.safetensors writes one)");
  }

  // Past 64 tokens the overview draws block means: cell (r, c) of a thumbnail is the mean of the
  // weights in rows [⌊r·n/64⌋, ⌈(r+1)·n/64⌉) and the same columns, checked here in double.
  void thumbnailsAreBlockMeansOfLongTexts() {
    QTemporaryDir dir;
    QVERIFY(train_demo_model(dir.filePath("long"), {"--layers", "1", "--heads", "2", "--d-model", "16", "--d-ff", "32",
                                                    "--window", "160", "--epochs", "1"}));
    ModelSession session;
    session.load(dir.filePath("long"));
    QStringList words;
    for (int i = 0; i < 130; ++i) words << QStringList({"the", "film", "was", "good", "and", "music"})[i % 6];
    const auto capture = session.attend(0, words.join(' '));
    QCOMPARE(capture.length(), 130);
    const auto& full = capture.layers[0];
    const auto& small = capture.thumbnails[0];
    QCOMPARE(small.rows, 64);
    QCOMPARE(small.cols, 64);
    QCOMPARE(small.heads, 2);
    const int n = 130, side = 64;
    double worst = 0;
    for (int head = 0; head < 2; ++head)
      for (int r = 0; r < side; ++r)
        for (int c = 0; c < side; ++c) {
          const int r0 = r * n / side, r1 = ((r + 1) * n + side - 1) / side;
          const int c0 = c * n / side, c1 = ((c + 1) * n + side - 1) / side;
          double sum = 0;
          for (int i = r0; i < r1; ++i)
            for (int j = c0; j < c1; ++j) sum += full.head(head)[i * n + j];
          const double mean = sum / ((r1 - r0) * (c1 - c0));
          worst = std::max(worst, std::abs(mean - small.head(head)[r * side + c]));
        }
    QVERIFY2(worst < 1e-6, qPrintable(QString("largest difference %1").arg(worst)));
    // The overview shows the thumbnails; the large view the full matrix.
    AttentionView view;
    ModelSummary summary = session.summary(0);
    view.setModels({summary});
    view.setCapture(0, capture, {});
    QCOMPARE(view.overview()->matrix(0, 1).cols, 64);
    QCOMPARE(view.heatmap()->matrix().cols, 130);
    QCOMPARE(view.heatmap()->matrix().weights, capture_matrix(capture, 0, -1, summary.name).weights);
  }

  void overviewRendersOnlyForANewCapture() {
    AttentionView view;
    view.resize(1200, 700);
    view.show();
    ModelSummary summary;
    summary.name = "tiny";
    summary.architecture = "vanilla_lm";
    summary.layers = 2;
    summary.heads_per_block = {2, 2};
    view.setModels({summary});
    AttentionCapture capture;
    capture.text = "a b c";
    capture.tokens = {"a", "b", "c"};
    for (int layer = 0; layer < 2; ++layer) {
      std::vector<float> weights(2 * 9);
      for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>((i * 7 + layer * 3) % 10) / 10.0f;
      capture.layers.push_back(WeightBlock::of(2, 3, 3, weights));
    }
    capture.thumbnails = capture.layers;  // 3 tokens: the thumbnails are the blocks themselves
    capture.predictions.assign(3, {{"x", 1.0}});
    view.setCapture(0, capture, {});
    auto* overview = view.overview();
    overview->resize(overview->sizeHint());
    overview->grab();  // thumbnails are rendered when painted
    const int rendered = overview->renderCount();
    QCOMPARE(rendered, 2 * 3);  // 2 layers × (mean + 2 heads)
    for (const auto& [layer, head] : {std::pair{0, 1}, std::pair{1, -1}, std::pair{1, 0}}) {
      view.setLayerHead(layer, head);
      overview->grab();
      QCOMPARE(overview->renderCount(), rendered);
      QCOMPARE(view.heatmap()->matrix().weights, overview->matrix(layer, head).weights);
      QCOMPARE(view.heatmap()->matrix().weights, capture_matrix(capture, layer, head, "tiny").weights);
    }
    auto changed = capture;
    changed.text = "a b d";
    view.setCapture(0, changed, {});
    overview->grab();
    QCOMPARE(overview->renderCount(), 2 * rendered);
  }
};

QTEST_MAIN(MainWindowTests)
#include "test_main_window.moc"

// tests/app/gui/test_analysis_tabs.cpp — the analysis tabs (app/gui/analysis_tabs.h) in the window on
// sample_data/ (Qt Test, offscreen): a tab for every registered analysis that wants one, runs that leave
// the event loop running and cancel, ablation stars and scatter, pruning bands and epoch series, the
// Training tab, and heads switched off in the window repeated exactly from the command line.
#include "analysis/core/registry.h"
#include "app/gui/analysis_tab.h"
#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/circuit_view.h"
#include "app/gui/main_window.h"
#include "app/gui/settings_form.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/analysis_panel.h"
#include "widgets/attention_heatmap.h"
#include "widgets/circuit_graph.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/result_plot.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>

using namespace aw;

namespace {

using aw::test::kTimeoutMs;
using aw::test::kSampleData;
using aw::test::read_all;
using aw::test::sample_shape;
using aw::test::train_demo_model;

}  // namespace

class AnalysisTabsTests : public QObject {
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

  // The circuit analyses share one tab, path patching, edge attribution and composition its inner
  // tabs: running one shows it there, and the Analysis menu's Run/Cancel/Export act on the one shown.
  // The sample session's edge attribution (induction_lm, the key-corrupting pairs) lists its 110 edges.
  void circuitAnalysesShareOneTab() {
    MainWindow window;
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tabs = window.tabs();
    int circuits = -1;
    for (int i = 0; i < tabs->count(); ++i)
      if (tabs->tabText(i) == "Circuits") circuits = i;
    QVERIFY(circuits > 0);
    auto* inner = qobject_cast<QTabWidget*>(tabs->widget(circuits));
    QVERIFY(inner);
    QStringList titles;
    for (int i = 0; i < inner->count(); ++i) titles << inner->tabText(i);
    QCOMPARE(titles, QStringList({"Path patching", "Edge attribution", "Composition", "Token attribution", "Circuit view"}));
    QCOMPARE(tabs->tabToolTip(circuits), QString("Circuits: path patching, edge attribution, composition, token attribution"));
    auto* eap = window.analyses()->tab("eap");
    QVERIFY(eap);
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    window.analyses()->run("eap");
    QCOMPARE(inner->currentWidget(), static_cast<QWidget*>(eap->panel()));
    tabs->setCurrentIndex(circuits);
    QCOMPARE(window.analyses()->tabShowing(tabs->currentWidget()), eap);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QCOMPARE(eap->panel()->table().row_count(), 110);
    QCOMPARE(eap->panel()->table().text(0, eap->panel()->table().column("receiver")), std::string("logits"));
    inner->setCurrentIndex(2);
    QCOMPARE(window.analyses()->tabShowing(tabs->currentWidget()), window.analyses()->tab("composition"));

    // The Circuit view draws the finished run: a click on MLP 2 → logits shows its numbers; an edge
    // between two heads opens both heads' attention on the chosen pair's clean prompt.
    QCOMPARE(inner->tabText(4), QString("Circuit view"));
    inner->setCurrentIndex(4);
    auto* view = inner->findChild<CircuitView*>();
    QVERIFY(view);
    QCOMPARE(view->source()->currentData().toString(), QString("eap"));
    auto* graph = view->graph();
    QCOMPARE(static_cast<int>(graph->graph().edges.size()), 110);
    QCOMPARE(view->pairChooser()->count(), 32);
    view->threshold()->setValue(0);
    QVERIFY(graph->shownEdges().size() > 90);
    view->threshold()->setValue(20);
    const auto from = graph->nodeCentre({CircuitNode::Mlp, 1}), to = graph->nodeCentre({CircuitNode::Logits});
    QTest::mouseClick(graph, Qt::LeftButton, {}, ((from + to) / 2).toPoint());
    QCOMPARE(graph->selectedEdge(), 0);
    QVERIFY2(view->details()->text().contains("mlp 2 → logits"), qPrintable(view->details()->text()));
    QVERIFY(!view->showHeads());  // no head at either end
    int between_heads = -1;
    view->threshold()->setValue(3);  // 0.70 of the largest 23.3
    for (const int i : graph->shownEdges())
      if (graph->graph().edges[i].sender.kind == CircuitNode::Head && graph->graph().edges[i].receiver.kind == CircuitNode::Head)
        between_heads = i;  // the largest: 1.3 → k 2.2
    QVERIFY(between_heads >= 0);
    graph->selectEdge(between_heads);
    QSignalSpy opened(&window, &MainWindow::textViewOpened);
    QVERIFY(view->showHeads());
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, kTimeoutMs);
    // Composition's result replaces it when it finishes.
    window.analyses()->run("composition");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, kTimeoutMs);
    QCOMPARE(view->source()->currentData().toString(), QString("composition"));
    QCOMPARE(static_cast<int>(graph->graph().edges.size()), 16 * 3);

    // A session reopened on the Circuit view (its inner tab saved too) draws its restored result without a run.
    QTemporaryDir dir;
    inner->setCurrentIndex(4);
    QVERIFY(window.saveSession(dir.filePath("circuits.json")));
    MainWindow reopened;
    reopened.resize(1366, 768);
    reopened.openSession(dir.filePath("circuits.json"));
    QTRY_VERIFY_WITH_TIMEOUT(!reopened.isBusy(), kTimeoutMs);
    reopened.show();
    QCOMPARE(reopened.tabs()->tabText(reopened.tabs()->currentIndex()), QString("Circuits"));
    auto* reopened_view = reopened.findChild<CircuitView*>();
    QVERIFY(reopened_view);
    QCOMPARE(reopened.analyses()->group("Circuits")->currentWidget(), static_cast<QWidget*>(reopened_view));
    QTRY_COMPARE_WITH_TIMEOUT(static_cast<int>(reopened_view->graph()->graph().edges.size()), 110, kTimeoutMs);
  }

  // Settings the chosen model cannot use are greyed (a beam, a metric or an attention kind for a plain
  // language model; a window for a classifier) and stay out of its run.
  void settingsTheModelCannotUseAreGreyed() {
    MainWindow window;
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = window.analyses()->tab("prune");
    auto* form = tab->panel();
    const auto enabled = [form](const char* name) { return form->findChild<QWidget*>(name)->isEnabled(); };
    tab->modelChooser(0)->setCurrentIndex(0);  // vanilla_lm
    QVERIFY(enabled("window") && enabled("text"));
    QVERIFY(!enabled("beam") && !enabled("metric") && !enabled("attention"));
    QVERIFY(form->findChild<QWidget*>("beam")->toolTip().endsWith("(not used: for translation models only)"));
    tab->modelChooser(0)->setCurrentIndex(2);  // lama_amazon, a classifier
    QVERIFY(!enabled("window") && !enabled("beam"));
    QVERIFY(enabled("text"));
  }

  // A setting another one rules out is greyed while it does, says so, and stays out of the run:
  // ablate's "Compare with" is for single mode, "Choose heads on" for all-but-one without "Every head".
  void settingsTheOtherSettingsRuleOutAreGreyed() {
    MainWindow window;
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = window.analyses()->tab("ablate");
    auto* form = tab->panel();
    const auto enabled = [form](const char* name) { return form->findChild<QWidget*>(name)->isEnabled(); };
    tab->modelChooser(0)->setCurrentIndex(0);  // vanilla_lm
    form->findChild<QLineEdit*>("choose-on")->setText("held_out.txt");
    form->findChild<QLineEdit*>("compare-text")->setText("other.txt");
    QVERIFY(enabled("compare-text") && !enabled("choose-on") && !enabled("all"));
    QVERIFY(form->findChild<QWidget*>("choose-on")->toolTip().endsWith("(not used: while Mode is single)"));
    // Its label greys with it, in the form's label column or inside a row.
    const auto label = [form](const QString& text) {
      for (auto* shown : form->findChildren<QLabel*>())
        if (shown->text() == text) return shown;
      return static_cast<QLabel*>(nullptr);
    };
    QVERIFY(label("Choose heads on") && !label("Choose heads on")->isEnabled());
    QVERIFY(label("Compare with")->isEnabled() && !label("Beam")->isEnabled());
    QVERIFY(!tab->form()->values().contains("choose-on") && tab->form()->values().contains("compare-text"));
    auto* mode = form->findChild<QComboBox*>("mode");
    mode->setCurrentIndex(mode->findData("all-but-one"));
    QVERIFY(!enabled("compare-text") && enabled("choose-on") && enabled("all"));
    QVERIFY(label("Choose heads on")->isEnabled() && !label("Compare with")->isEnabled());
    QVERIFY(tab->form()->values().contains("choose-on") && !tab->form()->values().contains("compare-text"));
    form->findChild<QCheckBox*>("all")->setChecked(true);
    QVERIFY(!enabled("choose-on"));
    QVERIFY(form->findChild<QWidget*>("choose-on")->toolTip().endsWith("(not used: while Every head is on)"));
    QVERIFY(!tab->form()->values().contains("choose-on"));
    // Prune's --max-drop follows "Epoch series"; the beam, a translation model's BLEU.
    auto* prune = window.analyses()->tab("prune");
    prune->modelChooser(0)->setCurrentIndex(prune->modelChooser(0)->findText("mt_vanilla"));
    auto* prune_form = prune->panel();
    QVERIFY(!prune_form->findChild<QWidget*>("max-drop")->isEnabled());
    prune_form->findChild<QCheckBox*>("series")->setChecked(true);
    QVERIFY(prune_form->findChild<QWidget*>("max-drop")->isEnabled());
    auto* metric = prune_form->findChild<QComboBox*>("metric");
    QVERIFY(metric->isEnabled() && !prune_form->findChild<QWidget*>("beam")->isEnabled());
    QVERIFY(prune_form->findChild<QWidget*>("beam")->toolTip().endsWith("(not used: while Metric is loss)"));
    metric->setCurrentIndex(metric->findData("bleu"));
    QVERIFY(prune_form->findChild<QWidget*>("beam")->isEnabled());
  }

  void ablationStarsSignificantHeadsAndPruningDrawsIntervalBands() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    auto* ablation = window.analyses()->panel("ablate");
    // A checkpoint's weights given as data: one red line naming the file and what ablate needs (it
    // used to be read as text, "3 / 445 batches …").
    const auto weights = kSampleData + "/vanilla_lm/model.safetensors";
    ablation->findChild<QLineEdit*>("text")->setText(weights);
    window.analyses()->run("ablate");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QVERIFY2(ablation->messageText().startsWith(weights + ": is a binary file, not text (a zero byte at offset ") &&
                 ablation->messageText().endsWith("): ablate needs plain text"),
             qPrintable(ablation->messageText()));
    finished.clear();
    ablation->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    ablation->findChild<QSpinBox*>("window")->setValue(16);
    QCOMPARE(ablation->findChild<QSpinBox*>("bootstrap")->value(), 1000);
    // 7 windows of six one-line sentences, resampled by sentence (a paragraph each): the deltas
    // alone, no star, and the message line says why.
    QCOMPARE(ablation->findChild<QSpinBox*>("min-units")->value(), 20);
    window.analyses()->run("ablate");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QCOMPARE(ablation->messageText(), QString("no intervals or p-values: 6 paragraphs are fewer than the 20 independent "
                                              "units the bootstrap needs (--min-units)"));
    QCOMPARE(ablation->table().column("significant"), -1);
    QCOMPARE(ablation->plot()->plot()->itemCount(), 0);
    // Allowed down to 2 units, the bootstrap runs.
    ablation->findChild<QSpinBox*>("min-units")->setValue(2);
    window.analyses()->run("ablate");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, kTimeoutMs);
    QVERIFY2(ablation->messageText().isEmpty(), qPrintable(ablation->messageText()));
    // One star per head the table calls significant, and the title says what a star means.
    const auto& table = ablation->table();
    int significant = 0;
    for (int row = 0; row < table.row_count(); ++row) significant += table.number(row, table.column("significant")) == 1.0;
    QCOMPARE(ablation->plot()->plot()->itemCount(), significant);
    QVERIFY(ablation->plot()->title().endsWith("; * adjusted p ≤ 0.05 (Holm)"));

    // The same heads on a second file: a scatter of the two deltas, one colour a layer.
    ablation->findChild<QLineEdit*>("compare-text")->setText(kSampleData + "/README.md");
    window.analyses()->run("ablate");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 3, kTimeoutMs);
    QVERIFY2(ablation->messageText().startsWith("across the two files: Pearson r = "), qPrintable(ablation->messageText()));
    auto* scatter = ablation->plot()->plot();
    const auto vanilla = sample_shape("vanilla_lm");
    QCOMPARE(scatter->graphCount(), vanilla.layers);  // one a layer
    QCOMPARE(scatter->graph(0)->lineStyle(), QCPGraph::lsNone);
    QCOMPARE(scatter->graph(0)->dataCount(), vanilla.heads);
    QVERIFY2(ablation->plot()->title().contains("Pearson r = "), qPrintable(ablation->plot()->title()));
    QCOMPARE(scatter->yAxis->label(), QString("Δ perplexity on README.md"));
    window.tabs()->setCurrentIndex(std::max(0, window.tabs()->indexOf(ablation)));
    QTest::qWait(100);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/ablation_scatter.png"));

    auto* pruning = window.analyses()->panel("prune");
    pruning->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    pruning->findChild<QSpinBox*>("window")->setValue(16);
    pruning->findChild<QSpinBox*>("step")->setValue(25);
    pruning->findChild<QSpinBox*>("min-units")->setValue(2);
    window.analyses()->run("prune");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 4, kTimeoutMs);
    QVERIFY2(pruning->messageText().isEmpty(), qPrintable(pruning->messageText()));
    auto* curves = pruning->plot()->plot();
    QCOMPARE(curves->graphCount(), 6);  // two orders × (band edge, band, curve)
    QCOMPARE(curves->graph(1)->channelFillGraph(), curves->graph(0));
    QCOMPARE(curves->graph(1)->name(), QString("importance: 95 % interval"));
    // Both orders ran: the table can show importance − oracle per step (prune --between's CSV).
    auto* shown_table = pruning->tableChooser();
    QCOMPARE(shown_table->count(), 2);
    shown_table->setCurrentIndex(1);
    QVERIFY2(pruning->csv().startsWith("# model=vanilla_lm, metric=perplexity, difference=importance - oracle"),
             qPrintable(pruning->csv().left(120)));
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
    panel->findChild<QSpinBox*>("min-units")->setValue(2);  // the text's 6 sentences
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
    QVERIFY2(header.contains("heads_off=1.1,2.3") && header.contains("bootstrap=200") && header.contains("unit=paragraphs, units=6, min_units=2"),
             qPrintable(header));
    QProcess cli;
    cli.start(AW_CLI_PATH, {"ablate", "--model", kSampleData + "/bet_sf", "--text", kSampleData + "/demo_sentences.txt",
                            "--window", "16", "--bootstrap", "200", "--min-units", "2", "--heads-off", "1.1,2.3",
                            "--out", cli_csv});
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
};

QTEST_MAIN(AnalysisTabsTests)
#include "test_analysis_tabs.moc"

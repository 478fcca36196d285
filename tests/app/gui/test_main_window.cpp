// tests/app/gui/test_main_window.cpp — the main window end to end on sample_data/ (Qt Test, offscreen):
// open the bundled session, run a sentence, switch a head off and see the heatmap change, open what the
// command line says, fit a laptop screen, show bad input as a message, open a saved attention file — and
// write screenshots of the window into the build folder.
#include "app/gui/analysis_tab.h"
#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/capture_matrices.h"
#include "app/gui/error_line.h"
#include "app/gui/main_window.h"
#include "app/gui/model_session.h"
#include "app/gui/session_file.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/analysis_panel.h"
#include "widgets/attention_heatmap.h"
#include "widgets/colour_scale.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/result_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QTabBar>
#include <QPointer>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace aw;

namespace {

using aw::test::kTimeoutMs;
using aw::test::kSampleData;
using aw::test::kSampleModels;
using aw::test::read_all;
using aw::test::sample_shape;
using aw::test::train_demo_model;

// The largest absolute difference between two matrices' values (the sizes must agree).
float largestDifference(const std::vector<float>& a, const std::vector<float>& b) {
  float largest = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) largest = std::max(largest, std::abs(a[i] - b[i]));
  return largest;
}

}  // namespace

class MainWindowTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void endToEndOnTheSampleSession() {
    MainWindow window;
    window.resize(1360, 860);
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(window.errorText().isEmpty(), qPrintable(window.errorText()));
    QCOMPARE(window.modelCount(), kSampleModels);
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
    // Four paragraphs: the window says in one line why there are no intervals.
    QCOMPARE(table1->messageText(), QString("no intervals: 4 paragraphs are fewer than the 20 independent "
                                            "units the bootstrap needs (--min-units)"));
    QCOMPARE(table1->table().column("CA_low"), -1);
    // A row a layer of every causal language model loaded.
    QCOMPARE(table1->table().row_count(), sample_shape("vanilla_lm").layers + sample_shape("bet_sf").layers +
                                              sample_shape("induction_lm").layers);
    // The null baseline: one dashed line (the same windows for every model) at the uniform Ratio.
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
    cli.start(AW_CLI_PATH, {"stats", "--model", kSampleData + "/vanilla_lm", "--model", kSampleData + "/bet_sf", "--model",
                            kSampleData + "/induction_lm", "--text", kSampleData + "/demo_sentences.txt", "--window", "32",
                            "--batch", "8", "--out", cli_csv});
    QVERIFY(cli.waitForFinished(kTimeoutMs));
    QCOMPARE(cli.exitCode(), 0);
    QCOMPARE(read_all(gui_csv), read_all(cli_csv));
    // Three models' result: its export named for the first and how many more, not the first alone.
    QVERIFY2(table1->suggestedExportPath("csv").endsWith("/stats_vanilla_lm_and_2_more.csv"),
             qPrintable(table1->suggestedExportPath("csv")));

    // Save, reopen in a new window: models, gates, sentence, colour scale and the Table 1 result come back.
    heads->toggle(1, 3);
    window.attentionView()->setColourScale(ColourScale::Log);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    const auto session_path = dir.filePath("session.json");
    for (int i = 0; i < window.tabs()->count(); ++i)
      if (window.tabs()->tabText(i) == "Circuits") window.tabs()->setCurrentIndex(i);
    QVERIFY(window.saveSession(session_path));
    {  // the tab is found by its title where the tabs' order changed: the saved index says Table 1
      QFile file(session_path);
      QVERIFY(file.open(QIODevice::ReadOnly));
      auto root = QJsonDocument::fromJson(file.readAll()).object();
      file.close();
      auto view = root["view"].toObject();
      QCOMPARE(view["tab_title"].toString(), QString("Circuits"));
      view["tab"] = 1;
      root["view"] = view;
      QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
      file.write(QJsonDocument(root).toJson());
    }
    MainWindow reopened;
    reopened.show();
    reopened.openSession(session_path);
    QTRY_VERIFY_WITH_TIMEOUT(!reopened.isBusy(), kTimeoutMs);
    QCOMPARE(reopened.modelCount(), kSampleModels);
    QCOMPARE(reopened.attentionView()->sentence(), QString("the cat sat on the mat"));
    QCOMPARE(reopened.headsPanel()->summaryText(), QString("1 of %1 heads off").arg(sample_shape("bet_sf").total()));
    QVERIFY(!reopened.headsPanel()->gates().isOn(1, 3));
    QCOMPARE(reopened.attentionView()->colourScale(), ColourScale::Log);
    QCOMPARE(reopened.attentionView()->heatmap()->colourScale(), ColourScale::Log);
    QCOMPARE(reopened.analyses()->panel("stats")->csv().toUtf8(), read_all(cli_csv));  // not recomputed
    QCOMPARE(reopened.analyses()->panel("stats")->findChild<QSpinBox*>("window")->value(), 32);
    QVERIFY(reopened.analyses()->panel("stats")->suggestedExportPath("csv").endsWith("/stats_vanilla_lm_and_2_more.csv"));
    QCOMPARE(reopened.analyses()->panel("stats")->progressPercent(), 100);  // a finished run's, not "0 %"
    QCOMPARE(reopened.tabs()->tabText(reopened.tabs()->currentIndex()), QString("Circuits"));

    // A screenshot of the window, to look at.
    window.tabs()->setCurrentIndex(0);
    QTest::qWait(200);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/main_window.png"));
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
    QCOMPARE(window.windowTitle(), QString("Attention Workbench — default_session.json (sample_data)"));
    // Top tokens compares two models: its choosers open on two different ones.
    auto* top = window.analyses()->tab("top-tokens");
    QVERIFY(top && top->modelChooser(1));
    QVERIFY(top->modelChooser(0)->currentIndex() != top->modelChooser(1)->currentIndex());
    // Clicking a target token shows that target's table at once (the old one stayed until Run).
    const auto target_button = [top](int position) {
      QToolButton* found = nullptr;
      for (auto* button : top->panel()->findChildren<QToolButton*>())
        if (button->toolTip() == QString("target position %1").arg(position)) found = button;
      return found;
    };
    for (int position : {2, 3}) {
      auto* button = target_button(position);
      QVERIFY(button);
      QTest::mouseClick(button, Qt::LeftButton);
      const auto expected = QString("%1@%2").arg(button->text()).arg(position).toStdString();
      QTRY_VERIFY_WITH_TIMEOUT(!top->isRunning() && top->panel()->table().row_count() > 0 &&
                                   top->panel()->table().text(0, top->panel()->table().column("target")) == expected,
                               kTimeoutMs);
    }
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

  void badInputBecomesAMessageAndKeepsTheModels() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    const auto tabs_before = window.tabs()->geometry();
    window.openCheckpoint(kSampleData + "/no_such_model");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(window.errorText().contains("no_such_model"), qPrintable("error text: " + window.errorText()));
    QCOMPARE(window.modelCount(), kSampleModels);
    // The error line sits in the tab bar's corner: the tabs are not pushed down (they were, by ~28 px),
    // and × dismisses it.
    QTest::qWait(20);
    QCOMPARE(window.tabs()->geometry(), tabs_before);
    QVERIFY(window.errorLine()->isVisible());
    QVERIFY(window.errorLine()->geometry().bottom() <= window.tabs()->tabBar()->geometry().bottom() + 4);
    QVERIFY2(window.errorLine()->shownText().startsWith(window.errorText().left(10)),
             qPrintable(window.errorLine()->shownText() + " | " + window.errorText() + " | " +
                        QString::number(window.errorLine()->width())));
    // Another job's success leaves it: a sentence run by the loaded models does not clear a failed load.
    window.runSentence("the river flows through the city");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(window.errorText().contains("no_such_model"), qPrintable("error text: " + window.errorText()));
    QTest::mouseClick(window.errorLine()->dismissButton(), Qt::LeftButton);
    QVERIFY(window.errorText().isEmpty() && !window.errorLine()->isVisible());

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
    // The failed model shows no old run: no map, no tokens to predict after, no title naming one.
    QCOMPARE(view->heatmap()->matrix().rows, 0);
    QCOMPARE(view->findChild<QComboBox*>("after_token")->count(), 0);
    QVERIFY(view->predictions()->rowCount() == 0);

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
    QCOMPARE(window.modelCount(), kSampleModels);  // a bad session file leaves the current one alone
    // Nested 100,000 deep: Qt's parser stops at its own depth limit (1,024) with an error, no crash.
    QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
    broken.write(QByteArray(100000, '[') + QByteArray(100000, ']'));
    broken.close();
    window.openSession(dir.filePath("broken.json"));
    QVERIFY2(window.errorText().contains("broken.json: is not valid JSON (too deeply nested document"),
             qPrintable(window.errorText()));
    QCOMPARE(window.modelCount(), kSampleModels);
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
    // The file's run mixed the uncaptured layers with the fused kernel, the window's captured every
    // layer explicitly: the same probabilities to float32 rounding, not the same bits.
    QCOMPARE(saved.capture.layers[0].toVector().size(), run.layer(1).toVector().size());
    const float layerDifference = largestDifference(saved.capture.layers[0].toVector(), run.layer(1).toVector());
    QVERIFY2(layerDifference <= 1e-5f, qPrintable(QString::number(layerDifference)));
    QCOMPARE(saved.capture.thumbnails[0].toVector().size(), run.thumbnails[1].toVector().size());
    const float thumbnailDifference =
        largestDifference(saved.capture.thumbnails[0].toVector(), run.thumbnails[1].toVector());
    QVERIFY2(thumbnailDifference <= 1e-5f, qPrintable(QString::number(thumbnailDifference)));
    QCOMPARE(saved.model, QString("vanilla_lm"));

    MainWindow window;
    auto* viewer = window.openAttentionFile(path);
    QVERIFY(viewer);
    QVERIFY(viewer->isVisible());
    QVERIFY(!viewer->sentenceEdit()->isVisible());
    QCOMPARE(viewer->heatmap()->matrix().title, QString("saved.safetensors · layer 2 · mean of %1 heads").arg(sample_shape("vanilla_lm").heads));
    QCOMPARE(viewer->heatmap()->matrix().weights, capture_matrix(saved.capture, 0, -1, "x").weights);  // the file's own
    QTest::qWait(100);  // laid out at its size: the titles elide to it
    QVERIFY(viewer->grab().save(AW_BUILD_DIR "/saved_attention.png"));
    viewer->close();

    // A checkpoint's weights are safetensors too, but not attention.
    QVERIFY(!window.openAttentionFile(kSampleData + "/vanilla_lm/model.safetensors"));
    QCOMPARE(window.errorText(), kSampleData + "/vanilla_lm/model.safetensors: is not an attention file "
                                               "(attention-cli attend --out FILE.safetensors writes one)");

    // Quitting closes the viewers too: left open, one kept the process running after the window closed.
    QPointer<AttentionView> open_viewer = window.openAttentionFile(path);
    QVERIFY(open_viewer && open_viewer->isVisible());
    window.show();
    window.close();
    QTRY_VERIFY_WITH_TIMEOUT(open_viewer.isNull(), kTimeoutMs);  // closed, and deleted on close
  }
};

QTEST_MAIN(MainWindowTests)
#include "test_main_window.moc"

// tests/app/gui/test_attention_view_translation.cpp — the Attention tab on a translation model (Qt Test,
// offscreen): the tiny Marian fixture translates the sentence, the heads panel and the overview name its
// Enc / Dec / Cross blocks, each block's heatmap has the axes of its kind (cross: target rows × source
// columns), the predictions follow the decoder's tokens, switching a head off re-translates, a saved
// translation file opens in its own window; a screenshot of the cross-attention view goes into the build
// folder.
#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/capture_matrices.h"
#include "app/gui/main_window.h"
#include "app/gui/model_session.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/analysis_panel.h"
#include "widgets/attention_heatmap.h"
#include "widgets/attention_overview.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/result_plot.h"

#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace aw;

namespace {

using aw::test::kTimeoutMs;

const QString kMarian = AW_SOURCE_DIR "/tests/fixtures/hf/marian_tiny";

}  // namespace

class TranslationViewTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // translate --out FILE.safetensors --kinds cross: the file opens in its own window with the
  // cross-attention blocks of the same translation the window makes, named by kind and layer.
  void savedTranslationFileOpens() {
    QTemporaryDir dir;
    const auto path = dir.filePath("saved.safetensors");
    const QString sentence = "the cat sat on the mat";
    QProcess translate;
    translate.start(AW_CLI_PATH, {"translate", "--model", kMarian, "--text", sentence, "--out", path, "--kinds", "cross"});
    QVERIFY(translate.waitForFinished(kTimeoutMs));
    QCOMPARE(translate.exitCode(), 0);
    const auto saved = ModelSession::openAttentionFile(path);
    ModelSession session;
    session.load(kMarian);
    const auto run = session.attend(0, sentence);  // beam 4, as translate's default
    QVERIFY(saved.capture.layer_kinds == std::vector<AttentionKind>(2, AttentionKind::Cross));
    QCOMPARE(saved.capture.layer_numbers, (std::vector<int>{1, 2}));
    QCOMPARE(saved.capture.tokens, run.tokens);
    QCOMPARE(saved.capture.target_tokens, run.target_tokens);
    QCOMPARE(saved.capture.translation, run.translation);
    QCOMPARE(saved.capture.layers[0].toVector(), run.layers[3].toVector());
    QCOMPARE(saved.capture.layers[1].toVector(), run.layers[5].toVector());
    QVERIFY(saved.summary.translation);
    QCOMPARE(saved.summary.layer_names, QStringList({"Cross 1", "Cross 2"}));

    MainWindow window;
    auto* viewer = window.openAttentionFile(path);
    QVERIFY(viewer);
    viewer->setLayerHead(1, 1);
    QCOMPARE(viewer->heatmap()->matrix().title, QString("saved.safetensors · cross 2 · head 2"));
    QCOMPARE(viewer->heatmap()->matrix().row_axis, QString("query (target token)"));
    QCOMPARE(viewer->heatmap()->matrix().col_axis, QString("key (source token)"));
    viewer->close();
  }

  void translatesAndShowsEachKindOfAttention() {
    MainWindow window;
    window.resize(1360, 860);
    window.show();
    window.openCheckpoint(kMarian);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(window.errorText().isEmpty(), qPrintable(window.errorText()));
    auto* view = window.attentionView();
    view->sentenceEdit()->setText("the cat sat on the mat");
    QTest::keyClick(view->sentenceEdit(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->capture(0), kTimeoutMs);
    QVERIFY2(window.errorText().isEmpty(), qPrintable(window.errorText()));
    const auto& capture = *view->capture(0);
    QVERIFY(capture.isTranslation());
    const std::vector<AttentionKind> kinds{AttentionKind::Encoder, AttentionKind::Encoder, AttentionKind::Decoder,
                                           AttentionKind::Cross,   AttentionKind::Decoder, AttentionKind::Cross};
    QVERIFY(capture.layer_kinds == kinds);
    QCOMPARE(capture.target_tokens.size(), capture.predictionCount());
    QVERIFY(view->translationLabel()->isVisible());
    QVERIFY(view->translationLabel()->text().startsWith("<b>Translation</b> (beam 4): "));
    QVERIFY(view->translationLabel()->text().contains(capture.translation.toHtmlEscaped()));

    QCOMPARE(view->overview()->layerCount(), 6);

    // Encoder self-attention: source × source.
    view->setLayerHead(0, -1);
    QCOMPARE(view->heatmap()->matrix().rows, static_cast<int>(capture.tokens.size()));
    QCOMPARE(view->heatmap()->matrix().col_labels, capture.tokens);
    QVERIFY(view->heatmap()->matrix().title.contains("enc 1"));
    // Cross-attention of decoder layer 2: target rows × source columns, each row a distribution.
    view->setLayerHead(5, 1);
    const auto cross = view->heatmap()->matrix();
    QCOMPARE(cross.rows, static_cast<int>(capture.target_tokens.size()));
    QCOMPARE(cross.cols, static_cast<int>(capture.tokens.size()));
    QCOMPARE(cross.row_labels, capture.target_tokens);
    QCOMPARE(cross.col_labels, capture.tokens);
    QCOMPARE(cross.title, QString("marian_tiny · cross 2 · head 2"));
    QCOMPARE(cross.row_axis, QString("query (target token)"));
    QCOMPARE(cross.col_axis, QString("key (source token)"));
    for (int row = 0; row < cross.rows; ++row) {
      double sum = 0.0;
      for (int col = 0; col < cross.cols; ++col) sum += cross.at(row, col);
      QVERIFY(std::abs(sum - 1.0) < 1e-4);
    }
    // Decoder self-attention: target × target.
    view->setLayerHead(4, -1);
    QCOMPARE(view->heatmap()->matrix().col_labels, capture.target_tokens);
    QVERIFY(view->predictions()->rowCount() == 5);

    // A screenshot of the cross-attention view, to look at.
    view->setLayerHead(3, -1);
    QTest::qWait(200);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/translation_view.png"));

    // Keeping one head of cross 1 re-translates under the new gates; the label compares the
    // translation with the one before.
    const auto before = capture.translation;
    window.headsPanel()->keepOnly(3, 0);
    const auto gates = window.headsPanel()->gates();
    QCOMPARE(gates.offCount(), capture.layers[3].heads - 1);
    QVERIFY(gates.offCount() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->hasCapture(0, "the cat sat on the mat", gates), kTimeoutMs);
    const auto after = view->capture(0)->translation;
    const auto label = view->translationLabel()->text();
    if (after == before) {
      QVERIFY2(label.endsWith("(unchanged by the last head change)</span>"), qPrintable(label));
    } else {
      QVERIFY2(label.contains(marked_changes(before, after)), qPrintable(label));
      QVERIFY2(label.contains("before the last head change: " + before.toHtmlEscaped()), qPrintable(label));
    }
    view->setLayerHead(4, 0);
    QVERIFY(view->heatmap()->matrix().title.endsWith("dec 2 · head 1"));

    // The Ablation tab takes the translation model: its rows name their kind, and so does the plot.
    window.headsPanel()->allOn();
    auto* panel = window.analyses()->panel("ablate");
    panel->findChild<QLineEdit*>("text")->setText(AW_SOURCE_DIR "/tests/fixtures/pairs_en_fr.tsv");
    window.analyses()->run("ablate");
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning() && !panel->csv().isEmpty(), kTimeoutMs);
    QVERIFY2(panel->csv().contains("\nkind,layer,head,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\nenc,1,1,"),
             qPrintable(panel->csv()));
    QVERIFY(panel->csv().contains("\ncross,2,2,"));
    QVERIFY(!panel->plot()->isEmpty());
    window.tabs()->setCurrentIndex(2);
    QTest::qWait(200);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/translation_ablation.png"));
  }

  // A target typed beside the source is read teacher-forced: its tokens are the decoder's rows (as
  // translate --target and Hugging Face's shift_tokens_right lay them out), the label says so, and a
  // run without it translates again.
  void aGivenTargetIsReadTeacherForced() {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    window.openCheckpoint(kMarian);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* view = window.attentionView();
    QVERIFY(view->targetEdit()->isVisible());  // a translation model: the field is offered
    view->sentenceEdit()->setText("I am hungry.");
    view->targetEdit()->setText("J'ai faim.");
    QTest::keyClick(view->targetEdit(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->capture(0), kTimeoutMs);
    QVERIFY2(window.errorText().isEmpty(), qPrintable(window.errorText()));
    const auto& forced = *view->capture(0);
    QCOMPARE(forced.forced_target, QString("J'ai faim."));
    QCOMPARE(forced.translation, QString("J'ai faim."));
    QVERIFY(forced.target_log_probability < 0);
    QCOMPARE(forced.target_tokens.size(), 10);  // start + 9 tokens: the fixture's decoder_input_ids
    QVERIFY2(view->translationLabel()->text().startsWith("<b>Given target</b> (teacher-forced, log-probability -"),
             qPrintable(view->translationLabel()->text()));
    QVERIFY(window.grab().save(AW_BUILD_DIR "/translation_target.png"));

    view->targetEdit()->clear();
    QTest::keyClick(view->sentenceEdit(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && view->capture(0) && view->capture(0)->forced_target.isEmpty(), kTimeoutMs);
    QVERIFY(view->translationLabel()->text().startsWith("<b>Translation</b> (beam 4): "));
  }
};

QTEST_MAIN(TranslationViewTests)
#include "test_attention_view_translation.moc"

// tests/app/gui/test_circuit_tabs_translation.cpp — the Circuits tabs on a translation model (Qt Test,
// offscreen, sample_data/mt_vanilla): composition, path patching and edge attribution name heads by
// attention kind and the Circuit view draws them on the model's blocks (Enc 1 … Cross 2); token
// attribution reads the attention view's sentence as the source and the form's Translation as what the
// decoder has read.
#include "app/gui/analysis_tab.h"
#include "app/gui/analysis_tabs.h"
#include "app/gui/circuit_view.h"
#include "app/gui/main_window.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/analysis_panel.h"
#include "widgets/circuit_graph.h"
#include "widgets/result_plot.h"

#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace aw;

namespace {

using aw::test::kSampleData;
using aw::test::kTimeoutMs;

}  // namespace

class CircuitTabsTranslationTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // Composition on a translation model: its pairs name heads by attention kind, and the Circuit view's
  // columns are its blocks. mt_vanilla (2 + 2 layers of 4 heads): 176 pairs, 336 edges (enc → enc
  // q/k/v, enc → cross k/v, dec and cross → dec q/k/v, → cross q).
  void compositionOfATranslationModelIsDrawnOnItsBlocks() {
    MainWindow window;
    window.openCheckpoint(kSampleData + "/mt_vanilla");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    window.analyses()->run("composition");
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    const auto& table = window.analyses()->tab("composition")->panel()->table();
    QCOMPARE(table.row_count(), 176);
    QCOMPARE(table.text(0, table.column("sender_kind")), std::string("enc"));
    auto* view = window.findChild<CircuitView*>();
    QVERIFY(view);
    QCOMPARE(view->source()->currentData().toString(), QString("composition"));
    QCOMPARE(view->graph()->graph().column_names, QStringList({"Enc 1", "Enc 2", "Dec 1", "Cross 1", "Dec 2", "Cross 2"}));
    QCOMPARE(static_cast<int>(view->graph()->graph().edges.size()), 336);
  }

  // Token attribution on a translation model: the attention view's sentence is the source and the form's
  // Translation what the decoder has read; the table lists the source's 10 tokens (EOS included), then
  // the decoder's 3 (its start, "▁Le", "▁chat"), and the prediction explained is the one after them.
  void tokenAttributionOfATranslationModelReadsSourceAndTarget() {
    MainWindow window;
    window.openCheckpoint(kSampleData + "/mt_vanilla");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    window.runSentence("The cat sat on the mat.");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = window.analyses()->tab("token-attribution");
    auto* form = tab->panel();
    QVERIFY(form->findChild<QWidget*>("translation")->isEnabled());
    form->findChild<QLineEdit*>("translation")->setText("Le chat");
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    tab->start();
    QTRY_VERIFY2_WITH_TIMEOUT(finished.count() == 1 && form->hasResult(), qPrintable(form->messageText()), kTimeoutMs);
    const auto& table = form->table();
    QCOMPARE(table.row_count(), 13);
    QCOMPARE(table.text(9, table.column("side")), std::string("source"));
    QCOMPARE(table.text(9, table.column("token")), std::string("</s>"));
    QCOMPARE(table.text(12, table.column("side")), std::string("target"));
    QCOMPARE(table.text(12, table.column("token")), std::string("▁chat"));
    QCOMPARE(table.meta_text("position"), std::string("2"));
    QVERIFY(form->plot()->title().contains("at target position 2 draws on: the source, then the target"));
  }

  // Path patching on a translation model: one pair whose sources differ in a word, every head sent to the
  // logits and to Cross 2's inputs. Decoder and cross heads reach the logits (16 rows) and Cross 2's
  // queries (the 12 decoder-stream heads before it × 4), encoder heads its keys and values (8 × 8): 128
  // paths, each an edge of the Circuit view on the model's blocks.
  void pathPatchingOfATranslationModelIsDrawnOnItsBlocks() {
    QTemporaryDir dir;
    const auto pairs = dir.filePath("pairs.tsv");
    QFile file(pairs);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("The cat sat on the mat.\tThe dog sat on the mat.\tLe\tchat\tchien\n");
    file.close();
    MainWindow window;
    window.openCheckpoint(kSampleData + "/mt_vanilla");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = window.analyses()->tab("path-patch");
    auto* form = tab->panel();
    form->findChild<QLineEdit*>("pairs")->setText(pairs);
    form->findChild<QLineEdit*>("receivers")->setText("logits,cross2");
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    tab->start();
    QTRY_VERIFY2_WITH_TIMEOUT(finished.count() == 1 && form->hasResult(), qPrintable(form->messageText()), kTimeoutMs);
    const auto& table = form->table();
    QCOMPARE(table.row_count(), 128);
    QCOMPARE(table.text(0, table.column("sender")), std::string("enc1.1"));
    QCOMPARE(table.text(0, table.column("receiver")), std::string("cross2.1"));
    auto* view = window.findChild<CircuitView*>();
    QVERIFY(view);
    view->source()->setCurrentIndex(view->source()->findData("path-patch"));
    QCOMPARE(view->graph()->graph().column_names, QStringList({"Enc 1", "Enc 2", "Dec 1", "Cross 1", "Dec 2", "Cross 2"}));
    QCOMPARE(static_cast<int>(view->graph()->graph().edges.size()), 128);
    QCOMPARE(view->findChild<QComboBox*>("pair")->itemText(0), QString("1: The cat sat on the mat. → chat"));
    window.resize(1366, 768);
    window.show();
    auto* circuits = window.analyses()->group("Circuits");
    circuits->setCurrentWidget(view);
    window.findChild<QTabWidget*>()->setCurrentWidget(circuits);
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.grab().save(AW_BUILD_DIR "/circuit_view_path_patch_translation.png"));  // to look at
  }

  // Edge attribution on a translation model, after the Attention tab translated (an inference-mode run of
  // the same model): 529 edges over both streams on sample_data/mt_noun_pairs.tsv, every one an edge of
  // the Circuit view on the blocks (the source and the target as its input node).
  void edgeAttributionOfATranslationModelIsDrawnOnItsBlocks() {
    MainWindow window;
    window.openCheckpoint(kSampleData + "/mt_vanilla");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    window.runSentence("The cat sat on the mat.");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = window.analyses()->tab("eap");
    auto* form = tab->panel();
    form->findChild<QLineEdit*>("pairs")->setText(kSampleData + "/mt_noun_pairs.tsv");
    QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
    tab->start();
    QTRY_VERIFY2_WITH_TIMEOUT(finished.count() == 1 && form->hasResult(), qPrintable(form->messageText()), kTimeoutMs);
    const auto& table = form->table();
    QCOMPARE(table.row_count(), 529);
    QCOMPARE(table.meta_text("metric"), std::string("logit(answer) - logit(foil) for the token after the translation"));
    auto* view = window.findChild<CircuitView*>();
    QVERIFY(view);
    view->source()->setCurrentIndex(view->source()->findData("eap"));
    QCOMPARE(view->graph()->graph().column_names, QStringList({"Enc 1", "Enc 2", "Dec 1", "Cross 1", "Dec 2", "Cross 2"}));
    QCOMPARE(static_cast<int>(view->graph()->graph().edges.size()), 529);
    window.resize(1366, 768);
    window.show();
    auto* circuits = window.analyses()->group("Circuits");
    circuits->setCurrentWidget(view);
    window.findChild<QTabWidget*>()->setCurrentWidget(circuits);
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.grab().save(AW_BUILD_DIR "/circuit_view_eap_translation.png"));  // to look at
  }
};

QTEST_MAIN(CircuitTabsTranslationTests)
#include "test_circuit_tabs_translation.moc"

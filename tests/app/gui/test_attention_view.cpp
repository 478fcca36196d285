// tests/app/gui/test_attention_view.cpp — the Attention tab's view (app/gui/attention_view.h): a layer the
// capture does not hold made on a worker while the map greys, the overview rendered only for a new
// capture, and compared maps that zoom together and find a token on both.
#include "app/gui/attention_view.h"
#include "app/gui/capture_matrices.h"
#include "app/gui/model_session.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/attention_heatmap.h"
#include "widgets/attention_overview.h"
#include "widgets/heatmap_find_bar.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTest>

#include <cmath>

using namespace aw;

namespace {

using aw::test::kTimeoutMs;
using aw::test::kSampleData;

}  // namespace

class AttentionViewTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // A text of 8k tokens is some 40,000 characters: the sentence box keeps them all (a line edit's
  // default of 32,767 cut the text short without a word).
  void aLongTextIsKeptWhole() {
    AttentionView view;
    const QString text = QStringList(10000, "word").join(' ');
    view.setSentence(text);
    QCOMPARE(view.sentence().size(), text.size());
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

  // Item 7: a head or layer change re-draws the large heatmap from the overview's matrices; only a
  // new capture renders the thumbnails again.
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

  // Compare mode: zooming either map moves the other to the same cells; Find token centres both.
  void comparedMapsZoomTogetherAndFindOnBoth() {
    constexpr int kTokens = 60;
    AttentionView view;
    view.resize(1200, 700);
    view.show();
    ModelSummary first, second;
    first.name = "one";
    second.name = "two";
    for (auto* summary : {&first, &second}) {
      summary->architecture = "transformer_lm";
      summary->layers = 1;
      summary->heads_per_block = {1};
    }
    view.setModels({first, second});
    AttentionCapture capture;
    for (int i = 0; i < kTokens; ++i) capture.tokens << (i == 42 ? QString("Paris") : QString("w%1").arg(i));
    capture.text = capture.tokens.join(' ');
    capture.layers.push_back(WeightBlock::of(1, kTokens, kTokens, std::vector<float>(kTokens * kTokens, 1.0f / kTokens)));
    capture.thumbnails = capture.layers;
    capture.predictions.assign(kTokens, {{"x", 1.0}});
    view.setCompare(true, 1);
    view.setCapture(0, capture, {});
    view.setCapture(1, capture, {});
    auto *left = view.heatmap(), *right = view.compareHeatmap();
    QVERIFY(!right->isHidden());
    // Side by side, both maps thin their rotated key labels for their own width: no two neighbours
    // closer than a text line across at 60° (the left map's used to overlap).
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTest::qWait(50);
    for (auto* map : {left, right}) {
      auto* axis = map->plot()->xAxis;
      const auto keys = qSharedPointerCast<QCPAxisTickerText>(axis->ticker())->ticks().keys();
      QVERIFY(keys.size() > 2);
      const double least = QFontMetrics(axis->tickLabelFont()).height() / std::sin(qDegreesToRadians(60.0)) - 1;
      for (int i = 1; i < keys.size(); ++i)
        QVERIFY2(axis->coordToPixel(keys[i]) - axis->coordToPixel(keys[i - 1]) >= least,
                 qPrintable(QString("labels %1 and %2 are %3 px apart")
                                .arg(keys[i - 1]).arg(keys[i]).arg(axis->coordToPixel(keys[i]) - axis->coordToPixel(keys[i - 1]))));
    }
    left->setVisibleCells(QRect(10, 20, 8, 6));
    QCOMPARE(right->visibleCells(), QRect(10, 20, 8, 6));
    right->setVisibleCells(QRect(30, 5, 10, 10));
    QCOMPARE(left->visibleCells(), QRect(30, 5, 10, 10));
    QTest::keyClicks(view.findBar()->edit(), "paris");
    QTest::keyClick(view.findBar()->edit(), Qt::Key_Return);
    for (auto* map : {left, right}) {
      QVERIFY(map->visibleCells().contains(QPoint(42, 42)));
      QCOMPARE(map->visibleCells().center(), QPoint(42, 42));  // centred
    }
    QTest::keyClicks(view.findBar()->edit(), "xyz");
    QTest::keyClick(view.findBar()->edit(), Qt::Key_Return);
    QCOMPARE(view.findBar()->note(), QString("no token 'parisxyz'"));
  }

  // The model shown is not offered to compare with: greyed in the list, and the comparison moves to
  // another model when the shown one becomes the compared one; one model alone has nothing to compare.
  void compareWithOffersOnlyOtherModels() {
    AttentionView view;
    ModelSummary summary;
    summary.architecture = "transformer_lm";
    summary.layers = 1;
    summary.heads_per_block = {1};
    std::vector<ModelSummary> models(3, summary);
    for (int i = 0; i < 3; ++i) models[i].name = QString("m%1").arg(i);
    view.setModels(models);
    view.setCompare(true, 1);
    auto* list = view.findChild<QComboBox*>("compare_model");
    const auto* items = qobject_cast<QStandardItemModel*>(list->model());
    QVERIFY(items);
    QVERIFY(!items->item(0)->isEnabled());
    QVERIFY(items->item(1)->isEnabled() && items->item(2)->isEnabled());
    view.setCurrentModel(1);  // the compared one: the comparison moves on
    QCOMPARE(view.currentModel(), 1);
    QCOMPARE(view.compareModel(), 2);
    QVERIFY(!items->item(1)->isEnabled() && items->item(0)->isEnabled());
    view.setModels({models[0]});
    QCOMPARE(view.compareModel(), -1);
    QVERIFY(!view.findChild<QCheckBox*>("compare")->isEnabled());
  }
};

QTEST_MAIN(AttentionViewTests)
#include "test_attention_view.moc"

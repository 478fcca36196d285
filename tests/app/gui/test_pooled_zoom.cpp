// tests/app/gui/test_pooled_zoom.cpp — a long text's map zoomed in to full resolution
// (app/gui/pooled_zoom.h) in the Attention tab, offscreen: on a small trained model, the tokens shown
// are AttentionCapture::region's weights, labelled with the tokens, whose block means are the pooled
// map's; a layer or head change shows the same tokens of the new one; Whole map, a double-click or a
// wheel out past the region shows the block means again. On a capture made up here (weights by a
// formula): compared maps zoom and pan together at full resolution, a pan to the region's edge makes the
// region around the view (the title naming the tokens on view), the tokens last made come back at once, a newer zoom supersedes one under
// way, a region that cannot be made is a message over the pooled map, and a new text opens on its whole map.
#include "app/gui/attention_view.h"
#include "app/gui/capture_matrices.h"
#include "app/gui/model_session.h"
#include "app/gui/pooled_zoom.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/attention_heatmap.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QSignalSpy>
#include <QComboBox>
#include <QPushButton>
#include <QWheelEvent>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cmath>
#include <future>
#include <memory>

using namespace aw;

namespace {

using aw::test::kTimeoutMs;
using aw::test::train_demo_model;

// The largest difference between two matrices' weights (infinity when their sizes differ).
double largest_difference(const AttentionMatrix& a, const AttentionMatrix& b) {
  if (a.rows != b.rows || a.cols != b.cols) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < a.weights.size(); ++i) worst = std::max(worst, std::abs(double(a.weights[i]) - b.weights[i]));
  return worst;
}

// A made-up capture of `length` tokens "w0", "w1", … pooled as a model's would be (2 layers, 2 heads),
// every weight a formula of its place, so any region and block mean is known. `region` counts its
// calls, waits for `gate` when given one, and fails with `failure` when that is not empty.
struct MadeUp {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::shared_future<void>> gate = std::make_shared<std::shared_future<void>>();
  std::shared_ptr<std::string> failure = std::make_shared<std::string>();
  AttentionCapture capture;
};

float formula(int layer, int head, int row, int col) {
  return static_cast<float>((row * 31 + col * 17 + layer * 7 + head * 3) % 101) / 100.0f;
}

MadeUp made_up_capture(int length) {
  MadeUp made;
  auto& capture = made.capture;
  const int pool = (length + AttentionCapture::kFullMapTokens - 1) / AttentionCapture::kFullMapTokens;
  const int blocks = (length + pool - 1) / pool;
  capture.text = QString("made up %1").arg(length);
  for (int i = 0; i < length; ++i) capture.tokens << QString("w%1").arg(i);
  for (int block = 0; block < blocks; ++block)
    capture.row_labels << token_span_text(block * pool, std::min(length, (block + 1) * pool));
  capture.column_labels = capture.row_labels;
  capture.pool = pool;
  for (int layer = 0; layer < 2; ++layer) {
    std::vector<float> means(static_cast<size_t>(2) * blocks * blocks);
    for (int head = 0; head < 2; ++head)
      for (int r = 0; r < blocks; ++r)
        for (int c = 0; c < blocks; ++c) {
          double sum = 0;
          int count = 0;
          for (int row = r * pool; row < std::min(length, (r + 1) * pool); ++row)
            for (int col = c * pool; col < std::min(length, (c + 1) * pool); ++col, ++count)
              sum += formula(layer, head, row, col);
          means[(static_cast<size_t>(head) * blocks + r) * blocks + c] = static_cast<float>(sum / count);
        }
    capture.layers.push_back(WeightBlock::of(2, blocks, blocks, std::move(means)));
  }
  capture.region = [calls = made.calls, gate = made.gate, failure = made.failure](int layer, int first_row, int end_row,
                                                                                 int first_col, int end_col) {
    ++*calls;
    if (gate->valid()) gate->wait();
    if (!failure->empty()) throw std::runtime_error(*failure);
    std::vector<float> weights;
    for (int head = 0; head < 2; ++head)
      for (int row = first_row; row < end_row; ++row)
        for (int col = first_col; col < end_col; ++col) weights.push_back(formula(layer, head, row, col));
    return WeightBlock::of(2, end_row - first_row, end_col - first_col, std::move(weights));
  };
  return made;
}

ModelSummary made_up_summary() {
  ModelSummary summary;
  summary.name = "made-up";
  summary.architecture = "llama";
  summary.layers = 2;
  summary.heads_per_block = {2, 2};
  return summary;
}

// The region for `tokens` as the zoom shows it: `capture.region`'s weights, the mean of the heads.
AttentionMatrix expected_region(const AttentionCapture& capture, const QRect& tokens, int layer, int head,
                                const QString& name) {
  const auto block = capture.region(layer, tokens.y(), tokens.y() + tokens.height(), tokens.x(), tokens.x() + tokens.width());
  return region_matrix(capture, block, tokens, layer, head, name);
}

// One wheel notch out over the middle of the map.
void wheel_out(AttentionHeatmap* heatmap) {
  const QPointF at = heatmap->plot()->axisRect()->rect().center();
  QWheelEvent wheel(at, heatmap->plot()->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(heatmap->plot(), &wheel);
}

bool settled(const AttentionView& view) { return !view.isMakingLayer(); }

// `view` at 1,200 × 700, shown, with `made`'s capture as the model "made-up"'s.
void show_made_up(AttentionView& view, const MadeUp& made) {
  view.resize(1200, 700);
  view.show();
  view.setModels({made_up_summary()});
  view.setCapture(0, made.capture, {});
}

}  // namespace

class PooledZoomTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // A trained model's 1,100 tokens, pooled as 2 × 2-token blocks: zoomed in, the map is the region's
  // tokens at full resolution, equal to capture.region's weights and labelled with the tokens; each
  // 2 × 2 block of them averages to the pooled map's cell. A head change and a layer change keep the
  // same tokens, of the new head and layer; Whole map shows every block again.
  void zoomingInShowsTheTokensAtFullResolution() {
    QTemporaryDir dir;
    QVERIFY(train_demo_model(dir.filePath("long"), {"--layers", "2", "--heads", "2", "--d-model", "16", "--d-ff", "32",
                                                    "--window", "1100", "--epochs", "1"}));
    ModelSession session;
    const auto summary = session.load(dir.filePath("long"));
    QStringList words;
    for (int i = 0; i < 1100; ++i) words << QStringList({"the", "film", "was", "good", "and", "music", "."})[i % 7];
    const auto capture = session.attend(0, words.join(' '), {}, 0);
    QCOMPARE(capture.pool, 2);
    AttentionView view;
    view.resize(1200, 700);
    view.show();
    view.setModels({summary});
    view.setCapture(0, capture, {});
    auto* heatmap = view.heatmap();
    auto* zoom = view.pooledZoom();
    QCOMPARE(heatmap->matrix().rows, 550);
    QVERIFY(zoom->bar()->isVisible());
    QVERIFY(zoom->statusText().startsWith("Means of 2 × 2-token blocks"));

    heatmap->setVisibleCells(QRect(30, 50, 40, 30));  // blocks: keys 61–140, queries 101–160
    QVERIFY(zoom->isBusy());  // waiting for the zoom to rest, then making the region on a worker
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && zoom->regionTokens().isValid(), kTimeoutMs);
    // Twice the view's span, at least 256 tokens, around it, inside the text.
    const QRect tokens(0, 2, 256, 256);
    QCOMPARE(zoom->regionTokens(), tokens);
    const auto& shown = heatmap->matrix();
    const auto expected = expected_region(capture, tokens, 0, -1, summary.name);
    QVERIFY2(largest_difference(shown, expected) < 1e-6,
             qPrintable(QString("largest difference %1").arg(largest_difference(shown, expected))));
    QCOMPARE(shown.row_labels, capture.tokens.mid(2, 256));
    QCOMPARE(shown.col_labels, capture.tokens.mid(0, 256));
    // The title names the tokens on view (the axes' 101–160 × 61–140), not all 256 made around them.
    QCOMPARE(shown.title, QString("long · layer 1 · mean of 2 heads · tokens 101–160 × 61–140 at full resolution"));
    QCOMPARE(heatmap->visibleCells(), QRect(60, 98, 80, 60));  // the tokens the blocks showed
    QCOMPARE(heatmap->plot()->yAxis->label(), QString("query (attending token) · 101–160 of 1,100"));
    QVERIFY(zoom->statusText().contains("queries 3–258 × keys 1–256 at full resolution"));
    // Each 2 × 2 block of the tokens averages to the pooled map's cell.
    const auto pooled = capture_matrix(capture, 0, -1, summary.name);
    double worst = 0;
    for (int r = 1; r < 129; ++r)  // blocks of rows 2–257 (tokens 3–258)
      for (int c = 0; c < 128; ++c) {
        double sum = 0;
        for (int i = 2 * r; i < 2 * r + 2; ++i)
          for (int j = 2 * c; j < 2 * c + 2; ++j) sum += shown.at(i - 2, j);
        worst = std::max(worst, std::abs(sum / 4 - pooled.at(r, c)));
      }
    QVERIFY2(worst < 1e-6, qPrintable(QString("block means differ by %1").arg(worst)));

    view.setLayerHead(0, 1);  // a head change: the region held gives it, no worker
    QVERIFY(largest_difference(heatmap->matrix(), expected_region(capture, tokens, 0, 1, summary.name)) < 1e-6);
    view.setLayerHead(1, -1);  // a layer change: the same tokens of layer 2, made on a worker
    QVERIFY(heatmap->isStale());
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && !heatmap->isStale(), kTimeoutMs);
    QVERIFY(largest_difference(heatmap->matrix(), expected_region(capture, tokens, 1, -1, summary.name)) < 1e-6);
    QVERIFY(heatmap->matrix().title.startsWith("long · layer 2 · mean of 2 heads · tokens 101–160 × 61–140"));
    QCOMPARE(heatmap->visibleCells(), QRect(60, 98, 80, 60));

    auto* whole = zoom->bar()->findChild<QPushButton*>();
    QVERIFY(whole && whole->text() == "Whole map");
    QTest::mouseClick(whole, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && heatmap->matrix().rows == 550, kTimeoutMs);  // layer 2's blocks, made again
    QCOMPARE(heatmap->matrix().weights, capture_matrix(capture, 1, -1, summary.name).weights);
    QVERIFY(!heatmap->isZoomed());
    QVERIFY(!zoom->regionTokens().isValid());
    QVERIFY(zoom->statusText().startsWith("Means of 2 × 2-token blocks"));
  }

  // Zoomed out to the whole region, a larger one is made while it can be (up to 1,024 tokens); a
  // wheel out past that shows the block means around it, a zoom in the tokens again, and a
  // double-click on a region every block.
  void zoomingOutPastTheRegionShowsTheBlocks() {
    auto made = made_up_capture(2050);  // 3 × 3-token blocks, 684 per axis
    AttentionView view;
    show_made_up(view, made);
    auto* heatmap = view.heatmap();
    auto* zoom = view.pooledZoom();
    zoom->showTokens(QRect(1000, 1000, 300, 300));
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && zoom->regionTokens().isValid(), kTimeoutMs);
    QCOMPARE(zoom->regionTokens(), QRect(850, 850, 600, 600));
    QCOMPARE(heatmap->matrix().weights, expected_region(made.capture, QRect(850, 850, 600, 600), 0, -1, "made-up").weights);
    heatmap->resetZoom();  // the whole region
    wheel_out(heatmap);
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && zoom->regionTokens() == QRect(638, 638, 1024, 1024), kTimeoutMs);
    heatmap->resetZoom();
    wheel_out(heatmap);  // 1,024 tokens: the blocks now
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && heatmap->matrix().rows == 684, kTimeoutMs);
    QVERIFY(!zoom->isRegion());
    QCOMPARE(heatmap->matrix().weights, capture_matrix(made.capture, 0, -1, "made-up").weights);
    const QRect blocks = heatmap->visibleCells();
    QVERIFY2(blocks.contains(QRect(213, 213, 341, 341)) && blocks.width() < 684,
             qPrintable(QString("blocks %1, %2, %3 × %4").arg(blocks.x()).arg(blocks.y()).arg(blocks.width()).arg(blocks.height())));
    heatmap->zoomBy(0.5, QPointF(blocks.center()));  // a zoom in: the tokens again
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && zoom->regionTokens().isValid(), kTimeoutMs);
    const QPoint middle = heatmap->plot()->axisRect()->rect().center();
    QTest::mouseDClick(heatmap->plot(), Qt::LeftButton, Qt::NoModifier, middle);
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && heatmap->matrix().rows == 684, kTimeoutMs);
    QVERIFY(!heatmap->isZoomed());
  }

  // Compared, both maps zoom into the same tokens at full resolution and pan together there; a map
  // of blocks never follows a region of as many cells.
  void comparedMapsShowTheSameTokens() {
    auto made = made_up_capture(2050);
    AttentionView view;
    view.resize(1300, 700);
    view.show();
    auto other = made_up_summary();
    other.name = "other";
    view.setModels({made_up_summary(), other});
    view.setCompare(true, 1);
    view.setCapture(0, made.capture, {});
    view.setCapture(1, made.capture, {});
    view.heatmap()->setVisibleCells(QRect(300, 330, 40, 40));  // the compared map follows
    QCOMPARE(view.compareHeatmap()->visibleCells(), QRect(300, 330, 40, 40));
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && view.pooledZoom()->regionTokens().isValid() &&
                                 view.comparePooledZoom()->regionTokens().isValid(), kTimeoutMs);
    QCOMPARE(view.comparePooledZoom()->regionTokens(), view.pooledZoom()->regionTokens());
    QCOMPARE(view.compareHeatmap()->matrix().title.left(25), QString("other · layer 1 · mean of"));
    QCOMPARE(view.compareHeatmap()->matrix().weights, view.heatmap()->matrix().weights);
    const QRect moved = view.heatmap()->visibleCells().translated(10, 5);
    view.heatmap()->setVisibleCells(moved);
    QCOMPARE(view.compareHeatmap()->visibleCells(), moved);
    view.comparePooledZoom()->showWholeMap();  // the compared map alone back to its blocks
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && view.compareHeatmap()->matrix().rows == 684, kTimeoutMs);
    view.pooledZoom()->showTokens(QRect(800, 800, 342, 342));  // 684 × 684 tokens made: as many cells as the blocks
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && view.pooledZoom()->regionTokens().width() == 684, kTimeoutMs);
    view.heatmap()->setVisibleCells(QRect(100, 100, 50, 50));
    QVERIFY(!view.compareHeatmap()->isZoomed());  // not followed by the blocks
  }

  // A pan to the region's edge, where the text goes on, makes the region around the view; the view
  // stays on the same tokens.
  void panningToTheEdgeMakesTheRegionAroundTheView() {
    auto made = made_up_capture(2050);
    AttentionView view;
    show_made_up(view, made);
    auto* heatmap = view.heatmap();
    auto* zoom = view.pooledZoom();
    zoom->showTokens(QRect(1000, 1000, 100, 100));
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && zoom->regionTokens().isValid(), kTimeoutMs);
    QCOMPARE(zoom->regionTokens(), QRect(922, 922, 256, 256));
    // The title names the tokens on view, as the axes do, not the 256 made around them; a pan follows.
    QVERIFY2(heatmap->titleText().contains("tokens 1,001–1,100 × 1,001–1,100 at full resolution"),
             qPrintable(heatmap->titleText()));
    heatmap->setVisibleCells(QRect(88, 78, 100, 100));
    QVERIFY2(heatmap->titleText().contains("tokens 1,001–1,100 × 1,011–1,110 at full resolution"),
             qPrintable(heatmap->titleText()));
    heatmap->setVisibleCells(QRect(156, 50, 100, 100));  // keys 1,079–1,178: the region's right edge
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && zoom->regionTokens() == QRect(1000, 894, 256, 256), kTimeoutMs);
    QCOMPARE(heatmap->visibleCells(), QRect(78, 78, 100, 100));  // the same tokens
    QCOMPARE(heatmap->matrix().weights, expected_region(made.capture, QRect(1000, 894, 256, 256), 0, -1, "made-up").weights);
    QCOMPARE(heatmap->matrix().col_labels.front(), QString("w1000"));
  }

  // Back on the blocks, a zoom into the tokens last made shows them again at once, without making them.
  void theTokensLastMadeAreShownAgainAtOnce() {
    auto made = made_up_capture(2050);
    AttentionView view;
    show_made_up(view, made);
    auto* zoom = view.pooledZoom();
    zoom->showTokens(QRect(600, 900, 200, 200));
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && zoom->regionTokens().isValid(), kTimeoutMs);
    const QRect tokens = zoom->regionTokens();
    zoom->showWholeMap();
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && view.heatmap()->matrix().rows == 684, kTimeoutMs);
    zoom->showTokens(QRect(600, 900, 200, 200));
    QCOMPARE(zoom->regionTokens(), tokens);
    QVERIFY(settled(view));
    QCOMPARE(made.calls->load(), 1);
    QCOMPARE(view.heatmap()->matrix().weights, expected_region(made.capture, tokens, 0, -1, "made-up").weights);
    QCOMPARE(view.heatmap()->visibleCells(), QRect(600, 900, 200, 200).translated(-tokens.topLeft()));
  }

  // While one region is made, a zoom elsewhere waits its turn; the one under way is dropped when it
  // comes, and the map shows the newest.
  void aNewerZoomSupersedesTheOneUnderWay() {
    auto made = made_up_capture(2050);
    std::promise<void> release;
    *made.gate = release.get_future().share();
    AttentionView view;
    show_made_up(view, made);
    auto* zoom = view.pooledZoom();
    zoom->showTokens(QRect(100, 100, 100, 100));
    QTRY_COMPARE_WITH_TIMEOUT(made.calls->load(), 1, kTimeoutMs);  // under way, held at the gate
    zoom->showTokens(QRect(1500, 1500, 100, 100));
    QVERIFY(zoom->statusText().contains("Making queries 1,423–1,678 × keys 1,423–1,678"));
    release.set_value();
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && zoom->regionTokens().isValid(), kTimeoutMs);
    QCOMPARE(zoom->regionTokens(), QRect(1422, 1422, 256, 256));
    QCOMPARE(made.calls->load(), 2);
    QCOMPARE(view.heatmap()->matrix().row_labels.front(), QString("w1422"));
  }

  // A region that cannot be made is a red line over the pooled map, which stays, zoomed where it was;
  // a pan over it does not try again, a zoom in does.
  void aRegionThatFailsIsAMessageOverTheBlocks() {
    auto made = made_up_capture(2050);
    *made.failure = "out of memory";
    AttentionView view;
    show_made_up(view, made);
    auto* zoom = view.pooledZoom();
    zoom->showTokens(QRect(300, 600, 90, 90));
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && made.calls->load() == 1, kTimeoutMs);
    QVERIFY(!zoom->isRegion());
    QVERIFY2(zoom->statusText().contains("could not be made at full resolution: out of memory"), qPrintable(zoom->statusText()));
    QCOMPARE(view.heatmap()->matrix().rows, 684);
    QCOMPARE(view.heatmap()->visibleCells(), QRect(100, 200, 30, 30));
    QVERIFY(!view.heatmap()->isStale());
    view.heatmap()->setVisibleCells(QRect(110, 200, 30, 30));  // a pan over the blocks does not try again
    QTest::qWait(3 * PooledZoom::kSettleMs);
    QTRY_VERIFY_WITH_TIMEOUT(settled(view), kTimeoutMs);
    QCOMPARE(made.calls->load(), 1);
    view.heatmap()->zoomBy(0.8, QPointF(125, 215));  // a zoom in does
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && made.calls->load() == 2, kTimeoutMs);
  }

  // A click on a long text's map chooses the Predictions' token: a block's last token on the block
  // means, the token itself at full resolution.
  void aClickChoosesTheTokenUnderIt() {
    auto made = made_up_capture(2050);  // 3-token blocks
    AttentionView view;
    show_made_up(view, made);
    auto* after = view.findChild<QComboBox*>("after_token");
    QCOMPARE(after->count(), 2050);
    QSignalSpy clicked(view.heatmap(), &AttentionHeatmap::cellClicked);
    auto click_cell = [&](int col, int row) {
      const int before = clicked.count();
      auto* plot = view.heatmap()->plot();
      plot->replot();
      QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier,
                        QPoint(static_cast<int>(plot->xAxis->coordToPixel(col)), static_cast<int>(plot->yAxis->coordToPixel(row))));
      QTRY_COMPARE(clicked.count(), before + 1);
    };
    view.heatmap()->setVisibleCells(QRect(500, 500, 40, 40));  // 120 tokens: made at full resolution
    QTRY_VERIFY_WITH_TIMEOUT(settled(view), kTimeoutMs);
    QVERIFY(view.pooledZoom()->isRegion());  // shown as tokens: the token itself
    const auto& matrix = view.heatmap()->matrix();
    const QPoint middle = view.heatmap()->visibleCells().center();
    click_cell(middle.x(), middle.y());
    QCOMPARE(after->currentIndex(), matrix.first_row + middle.y());
    QVERIFY(matrix.first_row + middle.y() >= 1500 && matrix.first_row + middle.y() < 1620);  // blocks 500–539
    view.pooledZoom()->showWholeMap();
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && view.heatmap()->matrix().rows == 684, kTimeoutMs);
    // A block's rows are under a pixel each here: the row the map says was clicked is the one checked.
    click_cell(300, 514);  // block 515 holds tokens 1,543–1,545: the last, position 1,545
    int row = clicked.last().at(0).toInt();
    QVERIFY(std::abs(row - 514) <= 1);
    QCOMPARE(after->currentIndex(), 3 * row + 2);
    click_cell(0, 683);  // the last block holds token 2,050 alone
    row = clicked.last().at(0).toInt();
    QCOMPARE(after->currentIndex(), std::min(3 * row + 2, 2049));
  }

  // A new text opens on its whole map: zoomed on the blocks of a text as long (as many blocks), or on a
  // region's tokens, a new text's capture shows every block; another gate setting of the same text keeps
  // the zoom.
  void aNewTextOpensOnItsWholeMap() {
    auto made = made_up_capture(2050);
    AttentionView view;
    show_made_up(view, made);
    view.heatmap()->setVisibleCells(QRect(90, 90, 400, 400));  // blocks, not tokens (too many for a region)
    QTRY_VERIFY_WITH_TIMEOUT(settled(view), kTimeoutMs);
    QVERIFY(view.heatmap()->isZoomed());
    view.setCapture(0, made.capture, HeadGates::allOn({2, 2}));  // the same text, gates set: the zoom stays
    QTRY_VERIFY_WITH_TIMEOUT(settled(view), kTimeoutMs);
    QCOMPARE(view.heatmap()->visibleCells(), QRect(90, 90, 400, 400));
    auto longer = made_up_capture(2052);  // another text of as many blocks (684)
    view.setCapture(0, longer.capture, {});
    QTRY_VERIFY_WITH_TIMEOUT(settled(view), kTimeoutMs);
    QCOMPARE(view.heatmap()->matrix().rows, 684);
    QVERIFY(!view.heatmap()->isZoomed());
    view.pooledZoom()->showTokens(QRect(1000, 1000, 100, 100));  // a region of tokens
    QTRY_VERIFY_WITH_TIMEOUT(settled(view) && view.pooledZoom()->isRegion(), kTimeoutMs);
    auto other = made_up_capture(2050);
    other.capture.text = "another text";
    view.setCapture(0, other.capture, {});
    QTRY_VERIFY_WITH_TIMEOUT(settled(view), kTimeoutMs);
    QVERIFY(!view.pooledZoom()->isRegion());
    QCOMPARE(view.heatmap()->matrix().rows, 684);
    QVERIFY(!view.heatmap()->isZoomed());
  }
};

QTEST_MAIN(PooledZoomTests)
#include "test_pooled_zoom.moc"

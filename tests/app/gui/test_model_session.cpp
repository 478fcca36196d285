// tests/app/gui/test_model_session.cpp — the window's models (app/gui/model_session.h): a BF16 session,
// re-runs from a toggled head's layer equal to a fresh full run, a run's progress and its cancel (the
// runs after it equal a fresh session's), thumbnails of long texts as block means of the weights, and
// the mean of heads made on the worker.
#include "app/gui/attention_view.h"
#include "app/gui/capture_matrices.h"
#include "app/gui/model_session.h"
#include "models/memory_budget.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/attention_heatmap.h"
#include "widgets/attention_overview.h"
#include "widgets/expert_strip.h"
#include "widgets/head_gates.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace aw;

namespace {

using aw::test::kSampleData;
using aw::test::sample_shape;
using aw::test::train_demo_model;

}  // namespace

class ModelSessionTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

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

  // gpt-oss: the map's last column is each row's learned-sink share (what its weights over the tokens
  // leave of 1), and the view's strip shows every sparse layer's experts per token, under the gates.
  void aMixtureOfExpertsShowsItsSinksAndItsExperts() {
    ModelSession session;
    session.load(AW_SOURCE_DIR "/tests/fixtures/hf_models/gpt_oss");
    const auto capture = session.attend(0, "The cat sat on the mat");
    QVERIFY(capture.learned_sinks);
    QCOMPARE(static_cast<int>(capture.expert_layers.size()), 2);
    QCOMPARE(capture.expert_count, 4);
    QCOMPARE(capture.expert_layers[1].k, 2);
    QCOMPARE(static_cast<int>(capture.expert_layers[1].experts.size()), capture.length() * 2);
    const auto matrix = capture_matrix(capture, 0, 1, "gpt_oss");
    QCOMPARE(matrix.cols, capture.length() + 1);
    QCOMPARE(matrix.col_labels.back(), QString::fromUtf8("⟨sink⟩"));
    for (int row = 0; row < matrix.rows; ++row) {
      double sum = 0;
      for (int col = 0; col < matrix.cols; ++col) sum += matrix.at(row, col);
      QVERIFY2(std::abs(sum - 1) < 1e-5, qPrintable(QString("row %1 sums to %2").arg(row).arg(sum)));
    }
    QVERIFY(matrix.at(0, matrix.cols - 1) > 0.01);  // the fixture's sinks take a visible share
    // A switched-off head changes what the later router reads.
    HeadGates gates;
    gates.on = {{false, false, false, false}, {true, true, true, true}};
    const auto gated = session.attend(0, "The cat sat on the mat", gates);
    QVERIFY(gated.expert_layers[1].weights != capture.expert_layers[1].weights);
    AttentionView view;
    view.setModels({session.summary(0)});
    view.setCapture(0, capture, {});
    view.resize(1366, 768);
    view.show();
    auto* strip = view.findChild<ExpertStrip*>();
    QVERIFY(strip != nullptr);
    QTRY_VERIFY(strip->isVisible());
    QVERIFY2(strip->titleText().startsWith("Layer 1: each token on the colour of its first expert (top-2 of 4"),
             qPrintable(strip->titleText()));
    QVERIFY(strip->tokenText(0).contains("expert "));
    view.grab().save("attention_view_gpt_oss.png");
  }

  // A GGUF file opens as a model in the window's session, as from the command line.
  void aGgufFileOpensAsAModel() {
    ModelSession session;
    const auto summary = session.load(AW_SOURCE_DIR "/tests/fixtures/gguf_models/qwen3.gguf");
    QCOMPARE(summary.name, QString("qwen3"));  // the file's stem
    const auto capture = session.attend(0, "The cat sat on the mat");
    QVERIFY(capture.length() > 3);
    QCOMPARE(capture_matrix(capture, 0, 0, summary.name).cols, capture.length());
  }

  // A head toggle re-runs from its layer: a held block below it is the very same floats, the capture
  // holds the shown layer only (the others are made again when asked), and every layer equals a
  // fresh session's full run under the same gates.
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

  // A run reports each layer made (4 for vanilla_lm, in order, the last one its total); a report answered
  // false stops it with RunCancelled, and the runs after a stopped one equal a fresh session's.
  void aRunReportsItsLayersAndStopsWhenCancelled() {
    const QString sentence = "the film was good and the music was better";
    ModelSession session;
    session.load(kSampleData + "/vanilla_lm");
    const auto heads = session.summary(0).heads_per_block;
    std::vector<std::pair<double, int>> reports;
    const auto all_on = session.attend(0, sentence, {}, 0, {}, [&](double done, int layers) {
      reports.emplace_back(done, layers);
      return true;
    });
    QVERIFY(reports == (std::vector<std::pair<double, int>>{{1, 4}, {2, 4}, {3, 4}, {4, 4}}));
    auto first_off = HeadGates::allOn(heads);
    first_off.on[0][1] = false;
    int stopped_at = 0;
    QVERIFY_THROWS_EXCEPTION(RunCancelled, session.attend(0, sentence, first_off, 0, {}, [&](double done, int) {
      stopped_at = static_cast<int>(done);
      return done < 2;  // layers 1 and 2 made with the new gate, 3 and 4 still the last run's
    }));
    QCOMPARE(stopped_at, 2);
    auto both_off = first_off;
    both_off.on[3][0] = false;
    const auto after = session.attend(0, sentence, both_off);
    ModelSession fresh;
    fresh.load(kSampleData + "/vanilla_lm");
    const auto expected = fresh.attend(0, sentence, both_off);
    for (int layer = 0; layer < 4; ++layer) QCOMPARE(after.layer(layer).toVector(), expected.layer(layer).toVector());
    QCOMPARE(after.predictionsAt(after.length() - 1)[0].probability,
             expected.predictionsAt(expected.length() - 1)[0].probability);
    QVERIFY(all_on.layer(0).toVector() != after.layer(0).toVector() || all_on.layer(3).toVector() != after.layer(3).toVector());
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

  // Past 1,024 tokens a layer is shown as its block means (2 × 2 tokens at 1,100), made tile by tile:
  // each cell is the mean of the full-resolution weights `region` makes for its block, the axes name
  // the blocks, the title says so, and a layer change makes the pooled map again.
  void longTextsShowBlockMeansAndAnyRegionAtFullResolution() {
    QTemporaryDir dir;
    QVERIFY(train_demo_model(dir.filePath("long"), {"--layers", "2", "--heads", "2", "--d-model", "16", "--d-ff", "32",
                                                    "--window", "1100", "--epochs", "1"}));
    ModelSession session;
    session.load(dir.filePath("long"));
    QStringList words;
    for (int i = 0; i < 1100; ++i) words << QStringList({"the", "film", "was", "good", "and", "music", "."})[i % 7];
    // A pooled layer is made in row tiles, reported tile by tile: a budget of a quarter of a layer's
    // weights (2 heads × 1,100² floats) makes each layer in several.
    set_attention_memory_budget(int64_t{2} * 1100 * 1100 * 4 / 4);
    std::vector<double> reports;
    const auto capture = session.attend(0, words.join(' '), {}, 0, {}, [&](double done, int layers) {
      if (layers == 2) reports.push_back(done);
      return true;
    });
    set_attention_memory_budget(0);  // the default again
    QVERIFY2(reports.size() >= 8, qPrintable(QString::number(reports.size())));
    QVERIFY(std::is_sorted(reports.begin(), reports.end()));
    QVERIFY(reports.front() > 0 && reports.front() < 1);
    QCOMPARE(reports.back(), 2.0);
    QCOMPARE(capture.length(), 1100);
    QCOMPARE(capture.pool, 2);
    QCOMPARE(capture.layers[0].rows, 550);
    QCOMPARE(capture.rowTokens(0).front(), QString("1–2"));
    QCOMPARE(capture.columnTokens(0).back(), QString("1099–1100"));
    QVERIFY(matrix_title(capture, 0, -1, "long", {}).endsWith("means of 2 × 2-token blocks"));
    QVERIFY(capture.region);
    for (int layer : {0, 1}) {
      const auto map = capture.layer(layer);  // layer 2 is made again, pooled
      QCOMPARE(map.rows, 550);
      const auto detail = capture.region(layer, 100, 140, 60, 120);  // rows 101–140 × keys 61–120
      QCOMPARE(detail.rows, 40);
      QCOMPARE(detail.cols, 60);
      double worst = 0;
      for (int head = 0; head < 2; ++head)
        for (int r = 50; r < 70; ++r)
          for (int c = 30; c < 60; ++c) {
            double sum = 0;
            for (int i = 2 * r; i < 2 * r + 2; ++i)
              for (int j = 2 * c; j < 2 * c + 2; ++j) sum += detail.head(head)[(i - 100) * 60 + (j - 60)];
            worst = std::max(worst, std::abs(sum / 4 - map.head(head)[r * 550 + c]));
          }
      QVERIFY2(worst < 1e-6, qPrintable(QString("layer %1: largest difference %2").arg(layer + 1).arg(worst)));
      // The held layer, the one made again and the region come with their mean of heads made on the
      // worker: the same floats the UI thread would make, the heads' mean.
      for (const auto& block : {map, detail}) {
        QVERIFY(block.mean_of_heads);
        auto bare = block;
        bare.mean_of_heads.reset();
        QVERIFY(*block.mean_of_heads == bare.meanOfHeads());
        for (size_t i : {size_t{0}, size_t{7}, static_cast<size_t>(block.rows) * block.cols - 1})
          QVERIFY(std::abs((*block.mean_of_heads)[i] - (block.head(0)[i] + block.head(1)[i]) / 2) < 1e-7);
      }
    }
    // The mean map reads the kept mean rather than averaging again.
    auto kept = capture;
    kept.layers[0].mean_of_heads = std::make_shared<const std::vector<float>>(size_t{550} * 550, 0.5f);
    const auto shown = capture_matrix(kept, 0, -1, "long").weights;
    QVERIFY(std::all_of(shown.begin(), shown.end(), [](float weight) { return weight == 0.5f; }));
  }
};

QTEST_MAIN(ModelSessionTests)
#include "test_model_session.moc"

// tests/models/training/test_trainer_classifier.cpp — training the classifiers (models/training/trainer.h,
// train_classifier): LAMA's loss goes down and its best epoch classifies, same seed → same bits, an
// interrupted run resumes exactly, the baselines train the same way.
#include "models/checkpoint/checkpoint.h"
#include "models/nn/config_enums.h"
#include "models/nn/model_config.h"
#include "models/runtime.h"
#include "models/text/corpus.h"
#include "models/text/vocabulary.h"
#include "models/training/trainer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::file_bytes;
using test::TempDir;
using test::write_file;

// Training on a labelled set with an obvious signal: class 1 documents contain "awful", class 2 "fine",
// class 3 "superb", each among random filler words.
std::string sentiment_tsv(int documents, uint64_t seed) {
  std::mt19937_64 engine(seed);
  const char* cue[] = {"awful", "fine", "superb"};
  std::ostringstream text;
  for (int d = 0; d < documents; ++d) {
    const int label = d % 3;
    text << label + 1 << '\t';
    const int length = 3 + static_cast<int>(engine() % 5);
    const int cue_at = static_cast<int>(engine() % length);
    for (int i = 0; i < length; ++i) text << (i ? " " : "") << (i == cue_at ? cue[label] : "f" + std::to_string(engine() % 8));
    text << '\n';
  }
  return text.str();
}

struct ClassifierRun {
  TempDir dir;
  TrainSettings settings;
  ModelConfig config;
  std::vector<std::string> vocabulary;

  explicit ClassifierRun(const std::string& arch) {
    write_file(dir.file("train.tsv"), sentiment_tsv(60, 1));
    write_file(dir.file("valid.tsv"), sentiment_tsv(15, 2));
    const auto labels = read_label_names(dir.file("train.tsv"));
    std::vector<std::string> texts;
    for (const auto& example : read_labelled_file(dir.file("train.tsv"), labels)) texts.push_back(example.text_a);
    vocabulary = build_text_vocabulary(texts, 1, true, "train.tsv");
    nlohmann::json json = {{"model_type", arch}, {"vocab_size", static_cast<int64_t>(vocabulary.size())},
                           {"labels", labels},   {"max_positions", 16}, {"dropout", 0.1}};
    if (arch == "encoder_classifier") {
      json.update({{"n_layers", 1}, {"n_heads", 2}, {"d_model", 16}});
    } else {
      json.update({{"embedding_dim", 8}, {"rnn_hidden", 6}, {"classifier_hidden", 16}});
      if (arch == "lama") json.update({{"n_heads", 3}, {"context", "mean"}, {"regularizer", "penal"}});
    }
    config = parse_model_config(json, "classifier run");
    settings.train_path = dir.file("train.tsv");
    settings.valid_path = dir.file("valid.tsv");
    settings.epochs = 8;
    settings.batch = 6;
    settings.lr = 1e-2;
    settings.warmup_steps = 3;
    settings.log_every = 1;
    settings.seed = 4;
  }

  TrainSummary train(const std::string& out, const TrainObserver& observer = {}) {
    settings.out_dir = dir.file(out);
    return train_classifier(config, vocabulary, settings, observer);
  }
};

class LamaTraining : public ::testing::Test {
 protected:
  void SetUp() override { configure_threads(1); }
};

TEST_F(LamaTraining, LossGoesDownAndTheBestEpochClassifies) {
  ClassifierRun run("lama");
  std::vector<double> losses, regularizer;
  const auto summary = run.train("out", [&](const TrainProgress& progress) {
    if (!progress.epoch_end) {
      losses.push_back(progress.loss);
      regularizer.push_back(progress.pointer_loss);
    }
    return true;
  });
  ASSERT_GE(losses.size(), 30u);
  // The cross-entropy part (loss − λ·D_penal) over the first and last three steps.
  auto cross_entropy = [&](size_t i) { return losses[i] - regularizer[i]; };
  const size_t n = losses.size();
  const double first = (cross_entropy(0) + cross_entropy(1) + cross_entropy(2)) / 3;
  const double last = (cross_entropy(n - 1) + cross_entropy(n - 2) + cross_entropy(n - 3)) / 3;
  EXPECT_LT(last, first - 0.3) << "cross-entropy " << first << " → " << last;
  EXPECT_GT(regularizer.front(), 0.0);  // λ·D_penal is part of the loss
  EXPECT_EQ(summary.metric_name, "accuracy");
  EXPECT_GE(summary.best_valid_metric, 0.9);
  const auto best = load_checkpoint(run.dir.file("out/best"));
  EXPECT_EQ(best.config.family, ModelFamily::Lama);
  EXPECT_EQ(best.config.labels, (std::vector<std::string>{"1", "2", "3"}));
}

TEST_F(LamaTraining, SameSeedGivesBitIdenticalWeights) {
  ClassifierRun run("lama");
  run.settings.epochs = 2;
  run.train("a");
  run.train("b");
  const auto a = file_bytes(run.dir.file("a/model.safetensors"));
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(a == file_bytes(run.dir.file("b/model.safetensors"))) << "two runs with seed 4 differ";
  run.settings.seed = 5;
  run.train("c");
  EXPECT_FALSE(a == file_bytes(run.dir.file("c/model.safetensors"))) << "the seed has no effect";
}

TEST_F(LamaTraining, InterruptedRunResumesExactly) {
  ClassifierRun run("lama");
  run.settings.epochs = 2;
  run.train("straight");
  const auto stopped = run.train("stopped", [](const TrainProgress& progress) { return progress.step < 5; });
  EXPECT_TRUE(stopped.stopped);
  run.settings.resume_dir = run.dir.file("stopped");
  run.train("stopped");
  EXPECT_TRUE(file_bytes(run.dir.file("straight/model.safetensors")) == file_bytes(run.dir.file("stopped/model.safetensors")));
}

TEST_F(LamaTraining, BaselinesTrainTheSameWay) {
  for (const char* arch : {"bigru_max", "bigru_mean", "encoder_classifier"}) {
    SCOPED_TRACE(arch);
    ClassifierRun run(arch);
    const auto summary = run.train("out");
    EXPECT_EQ(summary.epochs_done, 8);
    EXPECT_GE(summary.best_valid_metric, 0.6);
    EXPECT_EQ(load_checkpoint(run.dir.file("out/best")).config.family_name(), arch);
  }
}

}  // namespace
}  // namespace aw

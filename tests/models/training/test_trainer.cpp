// tests/models/training/test_trainer.cpp — training a language model (models/training/trainer.h): loss goes
// down, same seed → bit-identical weights, resume and interrupt continue exactly, the loss history, BET(SG)
// learning to point at its hints, the learning-rate schedule, SGD's update rule with momentum and weight
// decay, its resume, and early stopping.
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/nn/model_config.h"
#include "models/runtime.h"
#include "models/text/corpus.h"
#include "models/text/vocabulary.h"
#include "models/training/evaluation.h"
#include "models/training/trainer.h"
#include "models/training/training_history.h"
#include "tests/support/conllu_sentences.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;

using test::file_bytes;
using test::kBookSentence;
using test::kCatSentence;
using test::TempDir;
using test::write_file;

// A small corpus with structure to learn: counting sequences over 12 words.
std::string counting_corpus(int lines) {
  std::ostringstream text;
  for (int line = 0; line < lines; ++line) {
    for (int i = 0; i < 12; ++i) text << "n" << (line + i) % 12 << ' ';
    text << '\n';
  }
  return text.str();
}

struct TinyRun {
  TempDir dir;
  TrainSettings settings;
  ModelConfig config;
  std::vector<std::string> vocabulary;

  explicit TinyRun(const std::string& arch, double dropout = 0.0) {
    write_file(dir.file("train.txt"), counting_corpus(40));
    write_file(dir.file("valid.txt"), counting_corpus(6));
    vocabulary = build_word_vocabulary(dir.file("train.txt"), 1);
    nlohmann::json json = {{"model_type", arch}, {"vocab_size", static_cast<int64_t>(vocabulary.size())},
                           {"n_layers", 2},      {"n_heads", 2},
                           {"d_model", 16},      {"d_ff", 32},
                           {"max_positions", 16}, {"dropout", dropout}};
    config = parse_model_config(json, "tiny training config");
    settings.train_path = dir.file("train.txt");
    settings.valid_path = dir.file("valid.txt");
    settings.epochs = 3;
    settings.batch = 4;
    settings.lr = 3e-3;
    settings.warmup_steps = 5;
    settings.log_every = 1;
    settings.seed = 11;
  }

  TrainSummary train(const std::string& out, const TrainObserver& observer = {}) {
    settings.out_dir = dir.file(out);
    return train_language_model(config, vocabulary, settings, observer);
  }
};

class Training : public ::testing::Test {
 protected:
  void SetUp() override { configure_threads(1); }
};

TEST_F(Training, LossGoesDown) {
  TinyRun run("transformer_lm");
  std::vector<double> losses;
  const auto summary = run.train("out", [&](const TrainProgress& progress) {
    if (!progress.epoch_end) losses.push_back(progress.loss);
    return true;
  });
  ASSERT_GE(losses.size(), 20u);
  const double first = (losses[0] + losses[1] + losses[2]) / 3, last = (losses.end()[-1] + losses.end()[-2] + losses.end()[-3]) / 3;
  EXPECT_LT(last, first - 0.5) << "first " << first << ", last " << last;
  EXPECT_EQ(summary.epochs_done, 3);
  EXPECT_TRUE(std::isfinite(summary.best_valid_perplexity));
  // Each epoch's folder and the best one load as checkpoints.
  EXPECT_NO_THROW(load_checkpoint(run.dir.file("out"), torch::kCPU));
  EXPECT_NO_THROW(load_checkpoint(run.dir.file("out/best"), torch::kCPU));
}

TEST_F(Training, SameSeedGivesBitIdenticalWeights) {
  TinyRun run("bet_sf", /*dropout=*/0.1);
  run.train("a");
  run.train("b");
  const auto a = file_bytes(run.dir.file("a/model.safetensors")), b = file_bytes(run.dir.file("b/model.safetensors"));
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "two runs with seed 11 differ";
  run.settings.seed = 12;
  run.train("c");
  EXPECT_FALSE(a == file_bytes(run.dir.file("c/model.safetensors"))) << "the seed has no effect";
}

TEST_F(Training, ResumeAfterAnEpochContinuesExactly) {
  TinyRun run("transformer_lm", /*dropout=*/0.1);
  const auto straight = run.train("straight");
  run.settings.epochs = 1;
  run.train("part");
  run.settings.epochs = 3;
  run.settings.resume_dir = run.dir.file("part");
  int64_t first_step = -1;
  const auto resumed = run.train("part", [&](const TrainProgress& progress) {
    if (first_step < 0) first_step = progress.step;
    return true;
  });
  EXPECT_EQ(first_step, straight.steps / 3 + 1);  // continues from the saved step
  EXPECT_EQ(resumed.steps, straight.steps * 2 / 3);
  EXPECT_TRUE(file_bytes(run.dir.file("straight/model.safetensors")) == file_bytes(run.dir.file("part/model.safetensors")));
}

TEST_F(Training, InterruptInsideAnEpochSavesAndResumesExactly) {
  TinyRun run("transformer_lm", /*dropout=*/0.1);
  run.train("straight");
  const auto stopped = run.train("stopped", [](const TrainProgress& progress) { return progress.step < 7; });
  EXPECT_TRUE(stopped.stopped);
  EXPECT_EQ(stopped.steps, 7);
  run.settings.resume_dir = run.dir.file("stopped");
  const auto resumed = run.train("stopped");
  EXPECT_FALSE(resumed.stopped);
  EXPECT_TRUE(file_bytes(run.dir.file("straight/model.safetensors")) == file_bytes(run.dir.file("stopped/model.safetensors")));
}

// A run resumed after an epoch and stopped before the next one validates keeps its last validation in
// training.json (not 0, which a reader would take for a measurement).
TEST_F(Training, AStopAfterAResumeKeepsTheLastValidation) {
  TinyRun run("transformer_lm");
  run.settings.epochs = 1;
  const auto first = run.train("part");
  run.settings.epochs = 3;
  run.settings.resume_dir = run.dir.file("part");
  const auto stopped = run.train("part", [](const TrainProgress&) { return false; });
  ASSERT_TRUE(stopped.stopped);
  std::ifstream in(run.dir.file("part/training.json"));
  const auto json = nlohmann::json::parse(in);
  EXPECT_DOUBLE_EQ(json.at("valid_perplexity").get<double>(), first.last_valid_perplexity);
  EXPECT_GT(first.last_valid_perplexity, 1.0);
  EXPECT_EQ(json.at("device").get<std::string>(), "cpu");  // where it trained: runs are recorded by it
}

// With save_every, a process killed without warning (its folder copied as it stood mid-epoch) resumes
// from its last snapshot to the weights of the run that never stopped; without it there is nothing to
// resume until the first epoch ends.
TEST_F(Training, PeriodicSnapshotsLetAKilledRunResumeExactly) {
  TinyRun run("transformer_lm", /*dropout=*/0.1);
  const auto straight = run.train("straight");
  ASSERT_GE(straight.steps / 3, 5);  // step 5 lies inside the first epoch
  run.settings.save_every = 2;
  run.train("killed", [&](const TrainProgress& progress) {
    if (!progress.epoch_end && progress.step == 5)
      fs::copy(run.dir.file("killed"), run.dir.file("copy"), fs::copy_options::recursive);
    return true;
  });
  ASSERT_TRUE(fs::exists(run.dir.file("copy/training_state.pt")));
  EXPECT_EQ(read_training_history(run.dir.file("copy")).steps.back().step, 4);  // the last snapshot
  run.settings.save_every = 0;
  run.settings.resume_dir = run.dir.file("copy");
  int64_t first_step = -1;
  run.train("copy", [&](const TrainProgress& progress) {
    if (first_step < 0) first_step = progress.step;
    return true;
  });
  EXPECT_EQ(first_step, 5);
  EXPECT_TRUE(file_bytes(run.dir.file("straight/model.safetensors")) == file_bytes(run.dir.file("copy/model.safetensors")));
}

// The history equals what the observer was told: every report a step record, every epoch the mean
// of its steps' losses and the validation loss whose exp is the validation perplexity.
TEST_F(Training, HistoryRecordsEveryReportAndEveryEpoch) {
  TinyRun run("transformer_lm");
  run.settings.keep_epochs = true;
  std::vector<TrainProgress> reports;
  const auto summary = run.train("out", [&](const TrainProgress& progress) {
    reports.push_back(progress);
    return true;
  });
  const auto& history = summary.history;
  EXPECT_EQ(history.metric_name, "perplexity");
  ASSERT_EQ(history.epochs.size(), 3u);
  ASSERT_EQ(history.steps.size(), static_cast<size_t>(summary.steps));  // log_every = 1
  size_t step_index = 0;
  std::vector<double> epoch_sums(3, 0.0);
  std::vector<int> epoch_steps(3, 0);
  for (const auto& report : reports) {
    if (report.epoch_end) continue;
    const auto& record = history.steps[step_index++];
    EXPECT_EQ(record.step, report.step);
    EXPECT_EQ(record.epoch, report.epoch + 1);
    EXPECT_DOUBLE_EQ(record.train_loss, report.loss);
    EXPECT_DOUBLE_EQ(record.learning_rate, report.learning_rate);
    epoch_sums[record.epoch - 1] += record.train_loss;
    ++epoch_steps[record.epoch - 1];
  }
  for (size_t epoch = 0; epoch < 3; ++epoch) {
    const auto& record = history.epochs[epoch];
    EXPECT_EQ(record.epoch, static_cast<int64_t>(epoch) + 1);
    EXPECT_EQ(record.step, summary.steps / 3 * record.epoch);
    EXPECT_NEAR(record.train_loss, epoch_sums[epoch] / epoch_steps[epoch], 1e-12);
    EXPECT_NEAR(std::exp(record.valid_loss), record.valid_metric, 1e-9 * record.valid_metric);
    // The kept epoch's checkpoint, evaluated afresh, gives the recorded validation perplexity.
    const auto dir = run.dir.file("out/epoch-" + std::to_string(epoch + 1));
    auto loaded = load_checkpoint(dir, torch::kCPU);
    const auto windows = make_window_batches(read_token_corpus(run.settings.valid_path, *loaded.tokenizer), 16, 4);
    EXPECT_NEAR(evaluate_perplexity(*loaded.model, windows).metric, record.valid_metric, 1e-6 * record.valid_metric);
    EXPECT_EQ(read_training_history(dir).epochs.size(), epoch + 1);
  }
  EXPECT_FALSE(fs::exists(run.dir.file("out/epoch-4")));
  EXPECT_TRUE(file_bytes(run.dir.file("out/epoch-3/model.safetensors")) == file_bytes(run.dir.file("out/model.safetensors")));
  // training.json holds the same history.
  const auto written = read_training_history(run.dir.file("out"));
  EXPECT_EQ(history_json(written), history_json(history));
}

// A run stopped inside an epoch and resumed writes the history of the run that never stopped.
TEST_F(Training, ResumedHistoryEqualsTheUninterruptedOne) {
  TinyRun run("transformer_lm", /*dropout=*/0.1);
  run.settings.log_every = 2;
  const auto straight = run.train("straight");
  run.train("stopped", [](const TrainProgress& progress) { return progress.step < 7; });
  run.settings.resume_dir = run.dir.file("stopped");
  run.train("stopped");
  const auto expected = history_json(read_training_history(run.dir.file("straight")));
  const auto resumed = history_json(read_training_history(run.dir.file("stopped")));
  // Stopped at step 8, a report step (every 2), so the resumed run's reports cover the same spans.
  ASSERT_EQ(resumed["epochs"].size(), 3u);
  EXPECT_EQ(resumed["steps"].size(), straight.history.steps.size());
  EXPECT_EQ(resumed, expected);
}

TEST_F(Training, BetSgLearnsToPointAtItsHints) {
  TempDir dir;
  std::string treebank;
  for (int i = 0; i < 30; ++i) treebank += std::string(kCatSentence) + kBookSentence;
  write_file(dir.file("train.conllu"), treebank);
  write_file(dir.file("valid.conllu"), std::string(kCatSentence) + kBookSentence);
  const auto vocabulary = build_word_vocabulary(dir.file("train.conllu"), 1);
  EXPECT_EQ(vocabulary.size(), 2u + 12u);  // <unk>, <eos>, and the 12 distinct forms
  nlohmann::json json = {{"model_type", "bet_sg"}, {"vocab_size", static_cast<int64_t>(vocabulary.size())},
                         {"n_layers", 2},          {"n_heads", 2},
                         {"d_model", 16},          {"max_positions", 16},
                         {"dropout", 0.0}};
  TrainSettings settings;
  settings.train_path = dir.file("train.conllu");
  settings.valid_path = dir.file("valid.conllu");
  settings.out_dir = dir.file("out");
  settings.epochs = 12;
  settings.batch = 4;
  settings.lr = 1e-2;
  settings.warmup_steps = 5;
  settings.log_every = 1;
  settings.pointer_weight = 1.0;
  std::vector<double> pointer;
  train_language_model(parse_model_config(json, "bet_sg"), vocabulary, settings, [&](const TrainProgress& progress) {
    if (!progress.epoch_end) pointer.push_back(progress.pointer_loss);
    return true;
  });
  ASSERT_GE(pointer.size(), 30u);
  const double first = (pointer[0] + pointer[1] + pointer[2]) / 3;
  const double last = (pointer.end()[-1] + pointer.end()[-2] + pointer.end()[-3]) / 3;
  EXPECT_GT(first, 0.0);
  EXPECT_LT(last, first * 0.5) << "pointer loss " << first << " → " << last;

  // Without a CoNLL-U file there are no hints to point at.
  settings.train_path = dir.file("plain.txt");
  write_file(settings.train_path, "The cat sat on the mat .\n");
  try {
    train_language_model(parse_model_config(json, "bet_sg"), vocabulary, settings);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), settings.train_path +
                                             ": is not a CoNLL-U (.conllu) file; the pointer loss (--lambda-p) needs "
                                             "its dependency trees");
  }
}

TEST(LearningRate, WarmUpThenDecay) {
  TrainSettings settings;
  settings.lr = 1e-3;
  settings.warmup_steps = 100;
  EXPECT_DOUBLE_EQ(learning_rate_at(settings, 50, 1000), 5e-4);
  EXPECT_DOUBLE_EQ(learning_rate_at(settings, 100, 1000), 1e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(settings, 400, 1000), 5e-4);  // 1e-3 · √(100 / 400)
  settings.schedule = "cosine";
  EXPECT_NEAR(learning_rate_at(settings, 550, 1000), 5e-4, 1e-12);  // half-way through the decay
  EXPECT_NEAR(learning_rate_at(settings, 1000, 1000), 0.0, 1e-12);
  settings.schedule = "constant";
  EXPECT_DOUBLE_EQ(learning_rate_at(settings, 50, 1000), 5e-4);  // the warm-up, then the rate itself
  EXPECT_DOUBLE_EQ(learning_rate_at(settings, 900, 1000), 1e-3);
}

// A run's saved float32 weights, flattened into one vector.
torch::Tensor saved_weights(const std::string& dir) {
  const auto loaded = load_checkpoint(dir, torch::kCPU);
  std::vector<torch::Tensor> parts;
  for (const auto& parameter : loaded.model->module().parameters()) parts.push_back(parameter.detach().flatten());
  return torch::cat(parts).to(torch::kFloat64);
}

// SGD (LAMA's §3.5) with one batch an epoch, checked against its update rule written out: the first step
// is w1 = w0 − η (g0 + λ w0), and with momentum μ the second moves by μ (w1 − w0) more than without.
TEST_F(Training, SgdStepsFollowTheUpdateRuleWithMomentumAndWeightDecay) {
  TinyRun run("transformer_lm");
  run.settings.optimizer = "sgd";
  run.settings.schedule = "constant";
  run.settings.warmup_steps = 0;
  run.settings.clip = 0.0;
  run.settings.batch = 10000;  // every window in one batch: one step an epoch
  run.settings.lr = 0.0;
  run.settings.epochs = 1;
  run.train("initial");
  const auto w0 = saved_weights(run.dir.file("initial"));
  const double eta = 0.05, lambda = 0.01, mu = 0.9;
  run.settings.lr = eta;
  run.settings.momentum = 0.0;
  run.settings.keep_epochs = true;
  run.settings.epochs = 2;
  run.train("plain");
  const auto w1 = saved_weights(run.dir.file("plain/epoch-1")), w2 = saved_weights(run.dir.file("plain"));
  ASSERT_GT((w1 - w0).abs().max().item<double>(), 1e-4) << "the step moved nothing: the test would prove nothing";
  run.settings.momentum = mu;
  run.train("momentum");
  const auto w2_momentum = saved_weights(run.dir.file("momentum"));
  EXPECT_TRUE(torch::allclose(saved_weights(run.dir.file("momentum/epoch-1")), w1, 1e-6, 1e-7));
  EXPECT_TRUE(torch::allclose(w2_momentum - w2, mu * (w1 - w0), 1e-4, 1e-6))
      << (w2_momentum - w2 - mu * (w1 - w0)).abs().max().item<double>();
  run.settings.momentum = 0.0;
  run.settings.weight_decay = lambda;
  run.settings.epochs = 1;
  run.train("decay");
  EXPECT_TRUE(torch::allclose(saved_weights(run.dir.file("decay")), w1 - eta * lambda * w0, 1e-5, 1e-7));
}

TEST_F(Training, SgdRunsResumeExactlyAndRefuseAnotherOptimiser) {
  TinyRun run("transformer_lm", /*dropout=*/0.1);
  run.settings.optimizer = "sgd";
  run.settings.lr = 0.05;
  run.settings.weight_decay = 1e-4;
  run.train("straight");
  run.settings.epochs = 1;
  run.train("part");
  run.settings.epochs = 3;
  run.settings.resume_dir = run.dir.file("part");
  run.train("part");
  EXPECT_TRUE(file_bytes(run.dir.file("straight/model.safetensors")) == file_bytes(run.dir.file("part/model.safetensors")));
  const auto json = nlohmann::json::parse(file_bytes(run.dir.file("part/training.json")));
  EXPECT_EQ(json.at("optimizer"), "sgd");
  EXPECT_DOUBLE_EQ(json.at("weight_decay").get<double>(), 1e-4);
  run.settings.optimizer = "adam";
  try {
    run.train("part");
    FAIL() << "an SGD run resumed with Adam";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              run.dir.file("part") + ": was trained with --optimizer sgd; it cannot resume with --optimizer adam");
  }
}

// Early stopping: with a rate of 0 validation never improves after epoch 1, so patience 2 ends the run
// after epoch 3 of at most 6, says so in training.json, and keeps epoch 1 as the best.
TEST_F(Training, PatienceStopsAfterThatManyEpochsWithoutABetterValidation) {
  TinyRun run("transformer_lm");
  run.settings.optimizer = "sgd";
  run.settings.schedule = "constant";
  run.settings.lr = 0.0;
  run.settings.epochs = 6;
  run.settings.patience = 2;
  const auto summary = run.train("out");
  EXPECT_EQ(summary.epochs_done, 3);
  EXPECT_TRUE(summary.stopped_early);
  EXPECT_FALSE(summary.stopped);
  const auto json = nlohmann::json::parse(file_bytes(run.dir.file("out/training.json")));
  EXPECT_EQ(json.at("epoch"), 3);
  EXPECT_EQ(json.at("patience"), 2);
  EXPECT_EQ(json.at("stopped_early"), true);
  run.settings.patience = 0;  // never: all 6 epochs
  EXPECT_EQ(run.train("all").epochs_done, 6);
}

}  // namespace
}  // namespace aw

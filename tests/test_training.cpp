// tests/test_training.cpp — training (loss goes down, same seed → same bits, resume and interrupt
// continue exactly), BET(SG) syntax hints and pointer loss against hand-worked values, and the
// shipped sample checkpoints.
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "models/errors.h"
#include "models/training/evaluation.h"
#include "models/runtime.h"
#include "models/text/syntax_hints.h"
#include "models/training/trainer.h"
#include "models/text/vocabulary.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace aw {
namespace {

using test::file_bytes;

namespace fs = std::filesystem;
using test::TempDir;
using test::write_file;

// "The cat sat on the mat ." — det, nsubj, root, case, det, obl, punct.
const char* kCatSentence =
    "# text = The cat sat on the mat .\n"
    "1\tThe\tthe\tDET\t_\t_\t2\tdet\t_\t_\n"
    "2\tcat\tcat\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
    "3\tsat\tsit\tVERB\t_\t_\t0\troot\t_\t_\n"
    "4\ton\ton\tADP\t_\t_\t6\tcase\t_\t_\n"
    "5\tthe\tthe\tDET\t_\t_\t6\tdet\t_\t_\n"
    "6\tmat\tmat\tNOUN\t_\t_\t3\tobl\t_\t_\n"
    "7\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_\n"
    "\n";

// "She gave him a book ." with a (made-up) multi-word token over words 4–5 and an empty node 5.1,
// both of which the reader must skip.
const char* kBookSentence =
    "# text = She gave him abook .\n"
    "1\tShe\tshe\tPRON\t_\t_\t2\tnsubj\t_\t_\n"
    "2\tgave\tgive\tVERB\t_\t_\t0\troot\t_\t_\n"
    "3\thim\the\tPRON\t_\t_\t2\tiobj\t_\t_\n"
    "4-5\tabook\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "4\ta\ta\tDET\t_\t_\t5\tdet\t_\t_\n"
    "5\tbook\tbook\tNOUN\t_\t_\t2\tobj\t_\t_\n"
    "5.1\tgave\tgive\tVERB\t_\t_\t_\t_\t2:conj\t_\n"
    "6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_\n"
    "\n";

std::string conllu_error(const std::string& text) {
  TempDir dir;
  const auto path = dir.file("bad.conllu");
  write_file(path, text);
  try {
    read_conllu(path);
  } catch (const Error& error) {
    const std::string message = error.what();
    return message.substr(message.find(".conllu:") + 1);  // "conllu:<line>: …" without the temp folder
  }
  return "no error";
}

TEST(Conllu, ReadsWordsAndSkipsMultiWordTokensAndEmptyNodes) {
  TempDir dir;
  write_file(dir.file("two.conllu"), std::string(kCatSentence) + kBookSentence);
  const auto sentences = read_conllu(dir.file("two.conllu"));
  ASSERT_EQ(sentences.size(), 2u);
  EXPECT_EQ(sentence_text(sentences[0]), "The cat sat on the mat .");
  EXPECT_EQ(sentence_text(sentences[1]), "She gave him a book .");
  EXPECT_EQ(sentences[1].heads, (std::vector<int64_t>{2, 0, 2, 5, 2, 2}));
  EXPECT_EQ(sentences[1].lines, (std::vector<int64_t>{11, 12, 13, 15, 16, 18}));
}

TEST(Conllu, HintsAreTheNearestLeftAncestorOfTheNextWord) {
  TempDir dir;
  write_file(dir.file("two.conllu"), std::string(kCatSentence) + kBookSentence);
  const auto sentences = read_conllu(dir.file("two.conllu"));
  // Worked by hand (positions 0-based, the last entry is "<eos>"):
  //  t=0 predicts "cat": its head "sat" (2) is right of it and "sat" is the root → none → 0.
  //  t=1 predicts "sat" (the root) → 1.  t=2 predicts "on": head "mat" (5) is to the right, its head
  //  "sat" (2) is left → 2; likewise "the" (t=3), "mat" (t=4) and "." (t=5) → 2.
  //  t=6 predicts "<eos>" → 6; "<eos>" itself → 7.
  EXPECT_EQ(syntax_hints(sentences[0]), (std::vector<int64_t>{0, 1, 2, 2, 2, 2, 6, 7}));
  //  "She gave him a book .": t=0 predicts "gave" (root) → 0; "him", "a" (via "book" → "gave"),
  //  "book" and "." all reach "gave" at 1 → 1; t=5 → 5, "<eos>" → 6.
  EXPECT_EQ(syntax_hints(sentences[1]), (std::vector<int64_t>{0, 1, 1, 1, 1, 5, 6}));
}

TEST(Conllu, HintsFollowTheWindowCut) {
  // Both sentences as one stream (8 + 7 positions), windows of 6: hints become window-relative, and
  // position 12 (hint 9, in the previous window) falls back to itself.
  const std::vector<int64_t> stream = {0, 1, 2, 2, 2, 2, 6, 7, 8, 9, 9, 9, 9, 13, 14};
  const auto hints = window_hints(stream, 6);
  const auto expected = torch::tensor({0, 1, 2, 2, 2, 2,  //
                                       0, 1, 2, 3, 3, 3,  //
                                       0, 1, 2, -1, -1, -1},
                                      torch::kLong)
                            .view({3, 6});
  EXPECT_TRUE(torch::equal(hints, expected)) << hints;
}

TEST(Conllu, MalformedLinesNameTheirLine) {
  const std::string good = "1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n";
  EXPECT_EQ(conllu_error(good + "2\tB\tb\tX\t_\t_\t1\tdep\t_\n\n"),
            "conllu:2: expected 10 tab-separated fields, found 9");
  EXPECT_EQ(conllu_error(good + "x\tB\tb\tX\t_\t_\t1\tdep\t_\t_\n"), "conllu:2: ID 'x' is not a word index");
  EXPECT_EQ(conllu_error(good + "3\tB\tb\tX\t_\t_\t1\tdep\t_\t_\n"), "conllu:2: ID 3 where 2 was expected");
  EXPECT_EQ(conllu_error(good + "2\tB\tb\tX\t_\t_\t_\tdep\t_\t_\n"), "conllu:2: HEAD '_' is not a word index");
  EXPECT_EQ(conllu_error("# c\n" + good + "2\tB\tb\tX\t_\t_\t7\tdep\t_\t_\n"),
            "conllu:3: HEAD 7 is past the sentence's 2 words");
  EXPECT_EQ(conllu_error("1\tA\ta\tX\t_\t_\t2\tdep\t_\t_\n2\tB\tb\tX\t_\t_\t1\tdep\t_\t_\n"),
            "conllu:1: HEAD links form a cycle (no path to the root)");
  // Issue 18's fuzzing findings: word 1's walk reaches word 2 before word 2's HEAD was range-checked
  // (it read past the heads); a 20-digit ID or HEAD threw a bare "stoll".
  EXPECT_EQ(conllu_error("1\tA\ta\tX\t_\t_\t2\tdep\t_\t_\n2\tB\tb\tX\t_\t_\t1000000000000000\tdep\t_\t_\n"),
            "conllu:2: HEAD 1000000000000000 is past the sentence's 2 words");
  EXPECT_EQ(conllu_error(good + "2\tB\tb\tX\t_\t_\t99999999999999999999\tdep\t_\t_\n"),
            "conllu:2: HEAD '99999999999999999999' is not a word index");
  EXPECT_EQ(conllu_error("99999999999999999999\tA\ta\tX\t_\t_\t0\troot\t_\t_\n"),
            "conllu:1: ID '99999999999999999999' is not a word index");
}

TEST(Conllu, FileWithoutSentencesOrMissingIsAnError) {
  TempDir dir;
  write_file(dir.file("empty.conllu"), "# only a comment\n\n");
  EXPECT_THROW(
      {
        try {
          read_conllu(dir.file("empty.conllu"));
        } catch (const Error& error) {
          EXPECT_EQ(std::string(error.what()), dir.file("empty.conllu") + ": holds no CoNLL-U sentence");
          throw;
        }
      },
      Error);
  EXPECT_THROW(read_conllu(dir.file("missing.conllu")), Error);
}

TEST(PointerLoss, EqualsTheHandWorkedValue) {
  // Layer 1: heads average to row 1 = [0.5, 0.5, 0]; layer 2: row 1 = [0.2, 0.8, 0]. Hints [0, 0, −1]:
  // layer 1 gives (−log 1 − log 0.5) / 2, layer 2 (−log 1 − log 0.2) / 2; total ln(10) / 2.
  auto layer1 = torch::tensor({1.0, 0.0, 0.0, 0.25, 0.75, 0.0, 0.2, 0.3, 0.5,  //
                               1.0, 0.0, 0.0, 0.75, 0.25, 0.0, 0.4, 0.3, 0.3})
                    .view({1, 2, 3, 3});
  auto layer2 = torch::tensor({1.0, 0.0, 0.0, 0.2, 0.8, 0.0, 0.1, 0.1, 0.8}).view({1, 1, 3, 3}).repeat({1, 2, 1, 1});
  const auto hints = torch::tensor({0, 0, -1}, torch::kLong).view({1, 3});
  const auto loss = pointer_loss({layer1, layer2}, hints);
  EXPECT_NEAR(loss.item<double>(), std::log(10.0) / 2.0, 1e-6);
}

TEST(PointerLoss, GradientMatchesFiniteDifferences) {
  torch::manual_seed(3);
  auto scores = torch::randn({2, 2, 4, 4}, torch::kFloat64).requires_grad_(true);
  const auto hints = torch::tensor({0, 0, 1, 2, 0, 1, 1, -1}, torch::kLong).view({2, 4});
  auto loss_of = [&](const torch::Tensor& s) { return pointer_loss({torch::softmax(s, -1)}, hints); };
  loss_of(scores).backward();
  const auto analytic = scores.grad().clone();
  torch::NoGradGuard no_grad;
  const double step = 1e-6;
  auto flat = scores.detach().clone().view(-1);
  for (int64_t i = 0; i < flat.numel(); i += 5) {
    auto plus = flat.clone(), minus = flat.clone();
    plus[i] += step;
    minus[i] -= step;
    const double numeric = (loss_of(plus.view_as(scores)).item<double>() - loss_of(minus.view_as(scores)).item<double>()) /
                           (2 * step);
    EXPECT_NEAR(analytic.view(-1)[i].item<double>(), numeric, 1e-6) << "element " << i;
  }
}

// ----------------------------------------------------------------------------------------------
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

void expect_error(const std::function<void()>& action, const std::string& message) {
  try {
    action();
    ADD_FAILURE() << "expected the error: " << message;
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

TEST(TrainingHistoryFile, ErrorsNameTheFileAndTheRecord) {
  TempDir dir;
  expect_error([&] { read_training_history(dir.path()); },
               dir.path() + ": has no training.json (a folder written by attention-cli train has one)");
  write_file(dir.file("training.json"), R"({"epochs": 3})");
  expect_error([&] { read_training_history(dir.path()); },
               dir.file("training.json") +
                   ": holds no loss history (the run predates it; train again, or --resume it to start one)");
  EXPECT_TRUE(history_to_resume(dir.path()).epochs.empty());
  write_file(dir.file("training.json"),
             R"({"history": {"metric": "perplexity", "steps": [], "epochs": [{"epoch": 1, "step": 4, "train_loss": 2.0,)"
             R"( "valid_loss": 1.5, "valid_accuracy": 0.5}]}})");
  expect_error([&] { read_training_history(dir.path()); },
               dir.file("training.json") + ": history epoch record 1 has no number \"valid_perplexity\"");
  write_file(dir.file("training.json"), R"({"history": {"metric": "bleu", "steps": [], "epochs": []}})");
  expect_error([&] { history_to_resume(dir.path()); },
               dir.file("training.json") + ": \"history\" has no \"metric\" (perplexity or accuracy)");
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
}

// ----------------------------------------------------------------------------------------------
class SampleCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleCheckpoint, LoadsAndHasAFiniteStablePerplexityOnTheDemoText) {
  const std::string dir = std::string(AW_SOURCE_DIR) + "/sample_data/" + GetParam();
  ASSERT_TRUE(fs::exists(dir + "/config.json")) << dir << " is missing (scripts/study/train-samples.sh makes it)";
  configure_threads(1);
  const auto loaded = load_checkpoint(dir, torch::kCPU);
  const auto ids = read_token_corpus(std::string(AW_SOURCE_DIR) + "/sample_data/demo_sentences.txt", *loaded.tokenizer);
  const auto batches = make_window_batches(ids, loaded.config.max_positions, 8);
  const auto first = evaluate_perplexity(*loaded.model, batches);
  const auto second = evaluate_perplexity(*loaded.model, batches);
  EXPECT_TRUE(std::isfinite(first.metric));
  EXPECT_EQ(first.metric, second.metric);  // eval mode: no dropout, same numbers every time
  // Far better than guessing uniformly over the vocabulary: the model learned something.
  EXPECT_LT(first.metric, loaded.config.vocab_size / 10.0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Shipped, SampleCheckpoint, ::testing::Values("vanilla_lm", "bet_sf", "bet_sg"));

}  // namespace
}  // namespace aw

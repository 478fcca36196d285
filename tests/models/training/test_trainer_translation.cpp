// tests/models/training/test_trainer_translation.cpp — training a transformer_mt
// (models/training/trainer.h, train_translation_model): validation perplexity falls, the folder carries its
// spm.model and loads, resume continues bit for bit, bad settings and files are refused.
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/nn/model_config.h"
#include "models/training/evaluation.h"
#include "models/training/trainer.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_translation.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;

using test::file_bytes;
using test::pairs_path;
using test::TinyTranslation;

TrainSettings tiny_settings(const std::string& out, int64_t epochs) {
  TrainSettings settings;
  settings.train_path = pairs_path();
  settings.valid_path = pairs_path();
  settings.out_dir = out;
  settings.epochs = epochs;
  settings.batch = 4;
  settings.lr = 1e-2;
  settings.warmup_steps = 5;
  settings.seed = 3;
  settings.label_smoothing = 0.1;
  settings.log_every = 1000;
  return settings;
}

TEST(TranslationTraining, LossFallsAndTheFolderLoadsWithItsSentencePieceModel) {
  TinyTranslation tiny(/*bird_eye=*/true, /*dropout=*/0.1);
  std::vector<double> valid;
  const auto summary = train_translation_model(tiny.config, tiny.spm, tiny_settings(tiny.dir.file("run"), 20),
                                               [&](const TrainProgress& progress) {
                                                 if (progress.epoch_end) valid.push_back(progress.valid_metric);
                                                 return true;
                                               });
  ASSERT_EQ(valid.size(), 20u);
  EXPECT_EQ(summary.metric_name, "perplexity");
  EXPECT_EQ(summary.steps, 20 * 5);  // 20 pairs in batches of 4
  EXPECT_LT(valid.back(), 0.5 * valid.front()) << "valid perplexity " << valid.front() << " → " << valid.back();
  for (const auto* name : {"config.json", "model.safetensors", "spm.model", "training.json", "best/spm.model"})
    EXPECT_TRUE(fs::exists(tiny.dir.file("run/") + name)) << name;
  EXPECT_FALSE(fs::exists(tiny.dir.file("run/vocab.txt")));
  EXPECT_EQ(file_bytes(tiny.dir.file("run/spm.model")), file_bytes(tiny.spm));
  const auto loaded = load_checkpoint(tiny.dir.file("run/best"), torch::kCPU);
  EXPECT_TRUE(loaded.config.translation.decoder_bird_eye);
  EXPECT_EQ(loaded.tokenizer->kind(), "sentencepiece");
  // The saved model's perplexity is the one training reported for its epoch.
  const auto again = evaluate_perplexity(*loaded.model, tiny.data(loaded, 4).inputs);
  EXPECT_NEAR(again.metric, summary.best_valid_metric, 1e-3 * summary.best_valid_metric);
}

TEST(TranslationTraining, ResumeAfterAnEpochContinuesExactly) {
  TinyTranslation tiny(/*bird_eye=*/false, /*dropout=*/0.1);
  train_translation_model(tiny.config, tiny.spm, tiny_settings(tiny.dir.file("straight"), 2));
  train_translation_model(tiny.config, tiny.spm, tiny_settings(tiny.dir.file("part"), 1));
  auto settings = tiny_settings(tiny.dir.file("part"), 2);
  settings.resume_dir = tiny.dir.file("part");
  const auto resumed = train_translation_model(ModelConfig{}, "", settings);  // the folder's own config and spm
  EXPECT_EQ(resumed.steps, 5);
  EXPECT_TRUE(file_bytes(tiny.dir.file("straight/model.safetensors")) ==
              file_bytes(tiny.dir.file("part/model.safetensors")));
}

TEST(TranslationTraining, RefusesWhatItCannotTrain) {
  TinyTranslation tiny;
  auto settings = tiny_settings(tiny.dir.file("bad"), 1);
  settings.label_smoothing = 1.0;
  EXPECT_THROW(train_translation_model(tiny.config, tiny.spm, settings), Error);
  settings = tiny_settings(tiny.dir.file("bad"), 1);
  EXPECT_EQ(test::error_of([&] { train_translation_model(tiny.config, tiny.dir.file("missing.model"), settings); }),
            tiny.dir.file("missing.model") + ": does not exist (a transformer_mt run needs its SentencePiece model)");
  settings.train_path = std::string(AW_SOURCE_DIR) + "/sample_data/demo_sentences.txt";  // no TABs
  EXPECT_EQ(test::error_of([&] { train_translation_model(tiny.config, tiny.spm, settings); }),
            settings.train_path + ": line 1 has no TAB (expected source<TAB>target)");
}

}  // namespace
}  // namespace aw

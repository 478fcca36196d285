// tests/analysis/logit_lens/test_logit_lens.cpp — the logit lens against Hugging Face's own classes on the
// tiny family fixtures (tests/fixtures/logit_lens/, written by scripts/fixtures/make_logit_lens_fixtures.py:
// hidden_states[0] and each decoder layer's hooked output through the final norm and lm_head, float64),
// and its settings: a subset of positions, a target, head gates, cancel and every refusal.
#include "analysis/logit_lens/logit_lens.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
const std::string kReferences = AW_SOURCE_DIR "/tests/fixtures/logit_lens/";

nlohmann::json reference_of(const std::string& name) {
  std::ifstream in(kReferences + name + ".json");
  return nlohmann::json::parse(in);
}

std::vector<int64_t> every_position(size_t n) {
  std::vector<int64_t> positions(n);
  for (size_t i = 0; i < n; ++i) positions[i] = static_cast<int64_t>(i);
  return positions;
}

class LogitLensHuggingFace : public ::testing::TestWithParam<std::string> {};

// float32 here against float64 from float32 states there: probabilities and KL agree to 1e-4 (the states'
// rounding, moved by the CPU's kernels); a top token is compared where its probability is clear of its
// neighbours', a rank within the ranks that logits within 1e-4 of the scored one allow.
TEST_P(LogitLensHuggingFace, EveryLayerAndPositionEqualsTheReference) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  const auto reference = reference_of(GetParam());
  const auto ids = reference["ids"].get<std::vector<int64_t>>();
  LogitLensSettings settings;
  settings.positions = every_position(ids.size());
  settings.k = reference["k"].get<int64_t>();
  const auto result = logit_lens(*loaded.model, ids, settings);
  const auto layers = reference["layers"].size();
  ASSERT_EQ(layers, static_cast<size_t>(loaded.config.n_blocks + 1));
  ASSERT_EQ(result.cells.size(), layers * ids.size());
  for (size_t layer = 0; layer < layers; ++layer)
    for (size_t position = 0; position < ids.size(); ++position) {
      const auto& cell = result.cells[layer * ids.size() + position];
      const auto& expected = reference["layers"][layer]["positions"][position];
      const auto where = GetParam() + " layer " + std::to_string(layer) + " position " + std::to_string(position);
      EXPECT_EQ(cell.layer, static_cast<int64_t>(layer)) << where;
      EXPECT_EQ(cell.position, static_cast<int64_t>(position)) << where;
      EXPECT_NEAR(cell.kl, expected["kl"].get<double>(), 1e-4) << where;
      const auto top = expected["top"].get<std::vector<int64_t>>();
      const auto top_probability = expected["top_probability"].get<std::vector<double>>();
      for (size_t rank = 0; rank < top.size(); ++rank) {
        EXPECT_NEAR(cell.top_probability[rank], top_probability[rank], 1e-4) << where << " rank " << rank + 1;
        const bool clear = (rank == 0 || top_probability[rank - 1] - top_probability[rank] > 1e-4) &&
                           (rank + 1 == top.size() || top_probability[rank] - top_probability[rank + 1] > 1e-4);
        if (clear) EXPECT_EQ(cell.top[rank], top[rank]) << where << " rank " << rank + 1;
      }
      if (position + 1 < ids.size()) {
        EXPECT_EQ(cell.scored, ids[position + 1]) << where;
        EXPECT_NEAR(cell.probability, expected["probability"].get<double>(), 1e-4) << where;
        EXPECT_GE(cell.rank, expected["rank_low"].get<int64_t>()) << where;
        EXPECT_LE(cell.rank, expected["rank_high"].get<int64_t>()) << where;
      } else {
        EXPECT_EQ(cell.scored, -1) << where;
        EXPECT_EQ(cell.rank, 0) << where;
        EXPECT_TRUE(std::isnan(cell.probability)) << where;
      }
    }
}

// The KL's shortcut (AttentionModel::logit_expectation): Σ_v w[p, v] logit[p, v] from one dot product
// per position equals the sum over every logit the model outputs, in float64; none where the logits
// are soft-capped (Gemma 2) or the weights are in reduced precision.
TEST_P(LogitLensHuggingFace, TheExpectedLogitEqualsTheSumOverEveryLogit) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  torch::manual_seed(7);
  ModelInput input;
  input.input_ids = torch::randint(0, std::min<int64_t>(loaded.config.vocab_size, 64), {1, 6}, torch::kLong);
  c10::InferenceMode inference;
  const auto hidden = loaded.model->run_layers(loaded.model->embed(input), input, 0, 1, {}).hidden;  // (1, 6, d)
  const auto weights = torch::softmax(torch::randn({6, loaded.config.vocab_size}), -1);
  const auto expected_logit = loaded.model->logit_expectation(weights);
  if (GetParam() == "gemma2") {
    EXPECT_FALSE(expected_logit);  // soft-capped logits are not linear in the state
    return;
  }
  ASSERT_TRUE(expected_logit);
  const auto logits = loaded.model->output(hidden, input).squeeze(0).to(torch::kFloat64);      // (6, V)
  const auto sum = (weights.to(torch::kFloat64) * logits).sum(-1);
  const auto shortcut = expected_logit(hidden).to(torch::kFloat64);
  EXPECT_TRUE(torch::allclose(shortcut, sum, 1e-5, 1e-5)) << test::max_difference(shortcut, sum);
  const auto reduced = load_checkpoint(kModels + GetParam(), torch::kCPU, torch::kBFloat16);
  EXPECT_FALSE(reduced.model->logit_expectation(weights));
}

INSTANTIATE_TEST_SUITE_P(Families, LogitLensHuggingFace,
                         ::testing::Values("llama", "mistral", "qwen2", "gpt_neox", "qwen3", "gemma2", "gemma3",
                                           "phi3_grouped", "olmo2"));

LogitLensSettings all_of(const std::vector<int64_t>& ids, int64_t k = 3) {
  LogitLensSettings settings;
  settings.positions = every_position(ids.size());
  settings.k = k;
  return settings;
}

void expect_same_cell(const LogitLensCell& a, const LogitLensCell& b) {
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.position, b.position);
  EXPECT_EQ(a.top, b.top);
  EXPECT_EQ(a.rank, b.rank);
  for (size_t i = 0; i < a.top_probability.size(); ++i) EXPECT_NEAR(a.top_probability[i], b.top_probability[i], 1e-6);
  EXPECT_NEAR(a.kl, b.kl, 1e-6);
}

// Only the asked positions are read, and each equals its row of the whole lens.
TEST(LogitLens, AskedPositionsEqualTheirRowsOfTheWholeLens) {
  const auto loaded = load_checkpoint(kModels + "llama");
  const auto ids = reference_of("llama")["ids"].get<std::vector<int64_t>>();
  const auto whole = logit_lens(*loaded.model, ids, all_of(ids));
  auto settings = all_of(ids);
  settings.positions = {3, 7, static_cast<int64_t>(ids.size()) - 1};
  const auto some = logit_lens(*loaded.model, ids, settings);
  ASSERT_EQ(some.cells.size(), 3u * (loaded.config.n_blocks + 1));
  for (const auto& cell : some.cells) expect_same_cell(cell, whole.cells[cell.layer * ids.size() + cell.position]);
}

// A target scores every position against one token: at position 0 it is the next-token lens of ids[1].
TEST(LogitLens, ATargetScoresEveryPositionAgainstOneToken) {
  const auto loaded = load_checkpoint(kModels + "qwen2");
  const auto ids = reference_of("qwen2")["ids"].get<std::vector<int64_t>>();
  const auto next = logit_lens(*loaded.model, ids, all_of(ids));
  auto settings = all_of(ids);
  settings.target = ids[1];
  const auto targeted = logit_lens(*loaded.model, ids, settings);
  for (const auto& cell : targeted.cells) {
    EXPECT_EQ(cell.scored, ids[1]);
    EXPECT_GE(cell.rank, 1);
    if (cell.position == 0) {
      const auto& plain = next.cells[cell.layer * ids.size()];
      EXPECT_EQ(cell.rank, plain.rank);
      EXPECT_NEAR(cell.probability, plain.probability, 1e-7);
    }
  }
}

// Under head gates the last layer's distribution is the gated forward's own, and the lens differs from
// the ungated one from the gated layer up.
TEST(LogitLens, HeadGatesReachTheLensAndItsLastLayerIsTheGatedOutput) {
  const auto loaded = load_checkpoint(kModels + "llama");
  const auto ids = reference_of("llama")["ids"].get<std::vector<int64_t>>();
  const auto& config = loaded.config;
  ForwardOptions forward;
  forward.head_gates = torch::ones({config.n_blocks, config.max_heads()});
  forward.head_gates[config.n_blocks - 1][0] = 0;
  const auto settings = all_of(ids, 4);
  const auto gated = logit_lens(*loaded.model, ids, settings, forward);
  const auto plain = logit_lens(*loaded.model, ids, settings);
  ModelInput input;
  input.input_ids = torch::tensor(ids, torch::kLong).unsqueeze(0);
  torch::Tensor probabilities;
  {
    c10::InferenceMode inference;
    probabilities = torch::softmax(loaded.model->forward(input, forward).logits[0], -1);  // (n, V)
  }
  const auto n = ids.size();
  bool changed_below = false, changed_at_top = false;
  for (size_t position = 0; position < n; ++position) {
    const auto& last = gated.cells[config.n_blocks * n + position];
    EXPECT_EQ(last.kl, 0.0);
    for (size_t rank = 0; rank < last.top.size(); ++rank)
      EXPECT_NEAR(last.top_probability[rank], probabilities[position][last.top[rank]].item<double>(), 1e-6);
    for (int64_t layer = 0; layer < config.n_blocks; ++layer)
      changed_below |= gated.cells[layer * n + position].top_probability != plain.cells[layer * n + position].top_probability;
    changed_at_top |= last.top_probability != plain.cells[config.n_blocks * n + position].top_probability;
  }
  EXPECT_FALSE(changed_below);  // a gate on the last layer changes nothing below it
  EXPECT_TRUE(changed_at_top);
}

TEST(LogitLens, ACancelStopsBeforeAnyCell) {
  const auto loaded = load_checkpoint(kModels + "llama");
  const std::vector<int64_t> ids{1, 2, 3, 4};
  const auto result = logit_lens(*loaded.model, ids, all_of(ids), {}, [](int64_t, int64_t) { return false; });
  EXPECT_TRUE(result.cancelled);
  EXPECT_TRUE(result.cells.empty());
}

TEST(LogitLens, RefusesWhatItCannotRead) {
  const auto loaded = load_checkpoint(kModels + "llama");
  const std::vector<int64_t> ids{1, 2, 3, 4};
  auto settings = all_of(ids);
  settings.positions = {4};
  EXPECT_EQ(test::error_of([&] { logit_lens(*loaded.model, ids, settings); }),
            "position 4 is outside the text's 4 tokens (0 to 3)");
  settings = all_of(ids, 0);
  EXPECT_EQ(test::error_of([&] { logit_lens(*loaded.model, ids, settings); }),
            "k 0 is outside 1 to the vocabulary's " + std::to_string(loaded.config.vocab_size));
  settings = all_of(ids);
  settings.target = loaded.config.vocab_size;
  EXPECT_EQ(test::error_of([&] { logit_lens(*loaded.model, ids, settings); }),
            "target token " + std::to_string(loaded.config.vocab_size) + " is outside the vocabulary's " +
                std::to_string(loaded.config.vocab_size));
  EXPECT_EQ(test::error_of([&] { logit_lens(*loaded.model, {}, all_of(ids)); }),
            "the logit lens needs a text of at least one token");
  const auto lama = load_checkpoint(AW_SOURCE_DIR "/sample_data/lama_amazon");
  EXPECT_EQ(test::error_of([&] { logit_lens(*lama.model, ids, all_of(ids)); }),
            "the logit lens needs a language model; this is a lama model");
}

}  // namespace
}  // namespace aw

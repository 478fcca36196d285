// tests/analysis/heads/test_fused_sweeps.cpp — the sweeps that need no probabilities (single-head
// ablation, head importance with its backward, a pruning curve) give the same numbers with LibTorch
// 2.x's fused attention as with the explicit path (--explicit-attention), to 1e-5, on each family's
// Hugging Face fixture and a tiny native model: on the CPU, and on CUDA where there is one. Debian's
// 1.13 has no fused kernel: there the tests say so and count as skipped.
#include "analysis/core/corpus_data.h"
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_importance.h"
#include "analysis/heads/head_pruning.h"
#include "models/attention_path.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_windows.h"

#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

namespace aw {
namespace {

// Every sweep's numbers, in one list, with the fused kernel allowed or not.
std::vector<double> sweep_numbers(AttentionModel& model, const EvaluationData& data, bool fused) {
  set_fused_attention_allowed(fused);
  std::vector<double> numbers;
  const auto ablation = ablate_heads(model, "m", data, AblationMode::Single);
  numbers.push_back(ablation.baseline);
  for (const auto& effect : ablation.heads) numbers.push_back(effect.metric);
  const auto importance = head_importance(model, "m", data);
  for (const auto& layer : importance.scores) numbers.insert(numbers.end(), layer.begin(), layer.end());
  for (const auto& point : pruning_curve(model, data, "importance", order_heads(importance.scores), 25.0))
    numbers.push_back(point.metric);
  set_fused_attention_allowed(true);
  return numbers;
}

class FusedSweeps : public ::testing::TestWithParam<std::string> {};

TEST_P(FusedSweeps, EqualTheExplicitPath) {
  test::TempDir dir;
  std::string path = AW_SOURCE_DIR "/tests/fixtures/hf_models/" + GetParam();
  if (GetParam() == "transformer_lm") {
    test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
    path = dir.path();
  }
  std::vector<torch::Device> devices = {torch::kCPU};
  if (torch::cuda::is_available()) devices.emplace_back(torch::kCUDA, 0);
  for (const auto& device : devices) {
    auto loaded = load_checkpoint(path, device, torch::kFloat32);
    std::vector<ModelInput> batches;
    for (const auto& batch : test::tiny_batches()) batches.push_back(batch.to(device));
    const auto data = language_model_data(batches);
    const auto fused = sweep_numbers(*loaded.model, data, true);
    const auto explicit_path = sweep_numbers(*loaded.model, data, false);
    ASSERT_EQ(fused.size(), explicit_path.size());
    for (size_t i = 0; i < fused.size(); ++i)
      EXPECT_NEAR(fused[i], explicit_path[i], 1e-5 * std::max(1.0, std::abs(explicit_path[i])))
          << "number " << i << " on " << device;
  }
}

INSTANTIATE_TEST_SUITE_P(Families, FusedSweeps, ::testing::Values("transformer_lm", "llama", "mistral", "qwen2"));

// The switch itself: off, a forward without capture takes the explicit path, whatever the LibTorch.
TEST(FusedSweeps, TheSwitchIsProcessWideAndOnByDefault) {
  EXPECT_TRUE(fused_attention_allowed());
  set_fused_attention_allowed(false);
  EXPECT_FALSE(fused_attention_allowed());
  set_fused_attention_allowed(true);
  EXPECT_TRUE(fused_attention_allowed());
}

}  // namespace
}  // namespace aw

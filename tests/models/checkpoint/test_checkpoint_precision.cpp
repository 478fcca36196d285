// tests/models/checkpoint/test_checkpoint_precision.cpp — reduced-precision loading: weights stored in the
// compute dtype are used in place from the mapped file and compute what the copied ones do, and the
// dtype names and the families that compute in f32 only (models/checkpoint/checkpoint.h).
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "tests/support/hf_model_fixtures.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_lama.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;

using test::error_of;
using test::TempDir;
using test::hf_models::compute;

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/hf_models/";

// The fixture `name` copied into `dir` with its weights stored as `dtype`.
void write_stored_as(const std::string& name, const TempDir& dir, torch::ScalarType dtype) {
  for (const auto& entry : fs::directory_iterator(kFixtures + name)) fs::copy(entry.path(), dir.path());
  const auto file = SafetensorsFile::open(kFixtures + name + "/model.safetensors");
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& tensor : file->names()) tensors.emplace_back(tensor, file->tensor(tensor).to(dtype));
  write_safetensors(dir.file("model.safetensors"), tensors, {{"format", "pt"}});
}

TEST(ReducedPrecision, WeightsStoredInTheComputeDtypeAreUsedInPlaceFromTheFile) {
  TempDir dir;
  write_stored_as("llama", dir, torch::kBFloat16);
  const auto mapped = load_checkpoint(dir.path(), torch::kCPU, torch::kBFloat16);
  int64_t weight_bytes = 0;
  for (const auto& parameter : mapped.model->module().parameters()) weight_bytes += parameter.numel() * 2;
  EXPECT_EQ(mapped.mapped_bytes, weight_bytes);
  EXPECT_EQ(mapped.stored_dtype, "BF16");
  // The same numbers as the copied weights give: mapping changes where they live, not what they are.
  const auto copied = load_checkpoint(dir.path(), torch::kCPU, torch::kFloat32);
  EXPECT_EQ(copied.mapped_bytes, 0);
  const auto from_mapped = compute(mapped, "llama");
  const auto in_f32 = compute(copied, "llama");
  EXPECT_LT((from_mapped.logits - in_f32.logits).abs().max().item<double>(),
            0.1 * in_f32.logits.abs().max().item<double>());
  // The default on the CPU is F32.
  EXPECT_EQ(load_checkpoint(dir.path()).dtype, torch::kFloat32);
}

TEST(ReducedPrecision, DtypeNamesAndFamiliesThatComputeInF32Only) {
  EXPECT_EQ(parse_compute_dtype("bf16"), torch::kBFloat16);
  EXPECT_EQ(parse_compute_dtype("auto"), std::nullopt);
  EXPECT_EQ(error_of([] { parse_compute_dtype("fp8"); }), "--dtype 'fp8': expected f32, bf16, f16 or auto");
  const auto lama = test::tiny_lama_config();
  EXPECT_EQ(error_of([&] { resolve_compute_dtype(torch::kFloat16, torch::kCPU, lama); }),
            "--dtype f16: lama models compute in f32 only (recurrent and translation models)");
  EXPECT_EQ(resolve_compute_dtype(std::nullopt, torch::Device(torch::kCUDA, 0), lama), torch::kFloat32);
  const auto llama = read_model_config(kFixtures + "llama");
  EXPECT_EQ(resolve_compute_dtype(std::nullopt, torch::Device(torch::kCUDA, 0), llama), torch::kBFloat16);
  EXPECT_EQ(resolve_compute_dtype(std::nullopt, torch::kCPU, llama), torch::kFloat32);
  EXPECT_EQ(error_of([&] { resolve_compute_dtype(torch::kFloat16, torch::kCPU, llama); }),
            "--dtype f16 needs CUDA: LibTorch's CPU kernels have no half-precision matrix product (use bf16 or f32)");
  EXPECT_EQ(resolve_compute_dtype(torch::kFloat16, torch::Device(torch::kCUDA, 0), llama), torch::kFloat16);
}

}  // namespace
}  // namespace aw

// tests/analysis/activations/test_activations.cpp — analysis/activations/: the file holds, per asked
// point and layer, exactly what a reader at that hook sees (the asked heads and positions of it, in
// the asked dtype, also when the forward tiles), with the text's ids in its metadata; K and V keep the
// key/value heads the asked heads read; bad requests get their one line, and a cancelled run leaves
// no file. A translation model's points are named by kind and read the source or the target.
#include "analysis/activations/activations.h"
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/nn/transformer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <filesystem>
#include <map>

namespace aw {
namespace {

using test::error_of;
using test::max_difference;
using test::TempDir;

const std::vector<int64_t> kIds = {2, 5, 7, 3, 11, 4, 9, 2, 6, 13};

std::shared_ptr<TransformerImpl> tiny_model() {
  torch::manual_seed(5);
  auto model = make_transformer(test::tiny_config("transformer_lm"));
  torch::NoGradGuard no_grad;
  for (auto& parameter : model->parameters()) parameter.normal_(0.0, 0.4);
  model->eval();
  return model;
}

// What readers at `points` see in a plain forward of the ids, per hook name (tiles joined, batch dropped).
std::map<std::string, torch::Tensor> read_in_forward(AttentionModel& model, const std::vector<int64_t>& ids,
                                                     const std::vector<HookPoint>& points) {
  std::map<std::string, std::vector<torch::Tensor>> parts;
  ForwardOptions options;
  for (const auto point : points)
    options.hooks.add(point, -1, [&parts](const HookSite& site, const torch::Tensor& value) {
      parts[hook_name(site.point, site.layer)].push_back(value.select(0, 0).clone());
      return torch::Tensor();
    });
  torch::InferenceMode inference;
  ModelInput input;
  input.input_ids = torch::tensor(ids, torch::kLong).unsqueeze(0);
  model.forward(input, options);
  std::map<std::string, torch::Tensor> whole;
  for (auto& [name, tiles] : parts) {
    const auto point = *hook_point_named(name);
    whole[name] = torch::cat(tiles, position_dimension(point) - 1);
  }
  return whole;
}

void expect_close(const torch::Tensor& ours, const torch::Tensor& expected, double tolerance, const std::string& what) {
  ASSERT_EQ(ours.sizes(), expected.sizes()) << what;
  EXPECT_TRUE(torch::allclose(ours.to(torch::kFloat32), expected.to(torch::kFloat32), tolerance, tolerance))
      << what << ": " << max_difference(ours.to(torch::kFloat32), expected.to(torch::kFloat32));
}

TEST(Activations, EveryAskedPointAndLayerIsWhatItsReaderSees) {
  auto model = tiny_model();
  const std::vector<HookPoint> points = {HookPoint::ResidPost, HookPoint::Z, HookPoint::Pattern, HookPoint::MlpAct,
                                         HookPoint::Logits};
  const auto expected = read_in_forward(*model, kIds, points);
  const TempDir dir;
  ActivationsRequest request;
  request.points.assign(points.begin(), points.end());
  const auto summary = write_activations(*model, kIds, request, dir.file("all.safetensors"), {{"model", "tiny"}});
  const auto file = SafetensorsFile::open(dir.file("all.safetensors"));
  EXPECT_EQ(summary.tensors, 2 * 4 + 1);
  EXPECT_EQ(file->names().size(), static_cast<size_t>(summary.tensors));
  for (const auto& [name, value] : expected) expect_close(file->tensor(name), value, 0, name);
  EXPECT_EQ(file->record("blocks.1.attn.pattern").shape, (std::vector<int64_t>{3, 10, 10}));
  EXPECT_EQ(file->metadata().at("ids"), "[2,5,7,3,11,4,9,2,6,13]");
  EXPECT_EQ(file->metadata().at("model"), "tiny");
  EXPECT_EQ(file->metadata().at("points"), R"(["resid_post","z","pattern","mlp_act","logits"])");
}

// Layer 1, heads 0 and 2, four positions, in F16, under a budget that tiles the pattern and the MLP.
TEST(Activations, TheAskedLayersHeadsAndPositionsOfTiledPointsInF16) {
  auto model = tiny_model();
  const std::vector<HookPoint> points = {HookPoint::ResidPre, HookPoint::Pattern, HookPoint::HeadOut, HookPoint::MlpAct};
  const auto expected = read_in_forward(*model, kIds, points);
  const TempDir dir;
  ActivationsRequest request;
  request.points.assign(points.begin(), points.end());
  request.layers = {1};
  request.heads = {0, 2};
  request.positions = {1, 4, 5, 9};
  request.dtype = torch::kFloat16;
  request.memory_budget = 3 * 10 * 4 * 3 * 2;  // two query rows of 3 heads × 10 keys per tile
  write_activations(*model, kIds, request, dir.file("some.safetensors"));
  const auto file = SafetensorsFile::open(dir.file("some.safetensors"));
  EXPECT_EQ(file->names(), (std::vector<std::string>{"blocks.1.attn.head_out", "blocks.1.attn.pattern",
                                                     "blocks.1.mlp_act", "blocks.1.resid_pre"}));
  const auto positions = torch::tensor(request.positions, torch::kLong);
  const auto heads = torch::tensor(request.heads, torch::kLong);
  for (const auto& name : file->names()) {
    EXPECT_EQ(file->record(name).dtype, "F16") << name;
    auto value = expected.at(name);
    const bool headed = per_head(*hook_point_named(name));
    if (headed) value = value.index_select(0, heads);
    value = value.index_select(headed ? 1 : 0, positions);
    expect_close(file->tensor(name), value, 2e-3, name);  // F16 keeps about 3 decimal digits
  }
  EXPECT_EQ(file->metadata().at("positions"), "[1,4,5,9]");
  EXPECT_EQ(file->metadata().at("heads"), "[0,2]");
}

// Phi-3 with 4 query heads over 2 key/value heads: K keeps the key/value heads the asked heads read.
TEST(Activations, KeysAndValuesKeepTheKeyValueHeadsTheAskedHeadsRead) {
  const auto loaded = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf_models/phi3_grouped");
  const std::vector<int64_t> ids = {5, 9, 13, 2, 17, 4};
  const auto expected = read_in_forward(*loaded.model, ids, {HookPoint::K, HookPoint::Q});
  const TempDir dir;
  ActivationsRequest request;
  request.points = {HookPoint::Q, HookPoint::K};
  request.heads = {2, 3};
  write_activations(*loaded.model, ids, request, dir.file("grouped.safetensors"));
  const auto file = SafetensorsFile::open(dir.file("grouped.safetensors"));
  expect_close(file->tensor("blocks.0.attn.k"), expected.at("blocks.0.attn.k").narrow(0, 1, 1), 0, "k");
  expect_close(file->tensor("blocks.0.attn.q"), expected.at("blocks.0.attn.q").narrow(0, 2, 2), 0, "q");
}

// Marian's points by kind, teacher-forced: each tensor is Hugging Face's at that place
// (tests/fixtures/hooks/marian.safetensors, make_translation_hook_fixtures.py), the asked positions of it.
TEST(Activations, ATranslationModelsPointsAreNamedByKindAndReadTheirOwnSequence) {
  const auto loaded = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf/marian_tiny");
  const auto fixture = SafetensorsFile::open(AW_SOURCE_DIR "/tests/fixtures/hooks/marian.safetensors");
  const auto to_ids = [](const torch::Tensor& ids) {
    return std::vector<int64_t>(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
  };
  const auto ids = to_ids(fixture->tensor("ids").to(torch::kLong).contiguous());
  ActivationsRequest request;
  request.target_ids = to_ids(fixture->tensor("decoder_ids").to(torch::kLong).contiguous());
  request.points = {{"enc", HookPoint::ResidPost}, {"dec", HookPoint::Z}, {"cross", HookPoint::Pattern},
                    {"dec", HookPoint::MlpAct}, HookPoint::Logits};
  request.layers = {1};
  request.positions = {0, 2, 9};
  const TempDir dir;
  const auto summary = write_activations(*loaded.model, ids, request, dir.file("marian.safetensors"));
  EXPECT_EQ(summary.tensors, 5);
  const auto file = SafetensorsFile::open(dir.file("marian.safetensors"));
  const auto rows = torch::tensor(request.positions, torch::kLong);
  for (const std::string name : {"enc.blocks.1.resid_post", "dec.blocks.1.attn.z", "cross.blocks.1.attn.pattern",
                                 "dec.blocks.1.mlp_act", "logits"}) {
    auto expected = fixture->tensor(name);
    expected = expected.index_select(expected.dim() == 3 ? 1 : 0, rows);
    const double tolerance = name == "logits" ? 1e-4 : 1e-5;
    expect_close(file->tensor(name), expected, tolerance, name);
  }
  EXPECT_EQ(file->tensor("cross.blocks.1.attn.pattern").sizes(), (std::vector<int64_t>{2, 3, 13}));  // source keys
  EXPECT_EQ(file->metadata().at("points"), R"(["enc.resid_post","dec.z","cross.pattern","dec.mlp_act","logits"])");
  EXPECT_EQ(file->metadata().at("target_ids"), nlohmann::json(request.target_ids).dump());

  // The encoder's points need no target; the decoder's do, and a point is named with its kind.
  request.positions = {};
  request.target_ids = {};
  request.points = {{"enc", HookPoint::Pattern}};
  write_activations(*loaded.model, ids, request, dir.file("encoder.safetensors"));
  expect_close(SafetensorsFile::open(dir.file("encoder.safetensors"))->tensor("enc.blocks.1.attn.pattern"),
               fixture->tensor("enc.blocks.1.attn.pattern"), 1e-5, "the encoder alone");
  request.points = {{"cross", HookPoint::Q}};
  EXPECT_EQ(error_of([&] { write_activations(*loaded.model, ids, request, dir.file("x.safetensors")); }),
            "cross.q needs a target (the translation the decoder reads, teacher-forced)");
  request.points = {HookPoint::ResidPost};
  const auto error = error_of([&] { write_activations(*loaded.model, ids, request, dir.file("x.safetensors")); });
  EXPECT_EQ(error.rfind("a marian model has no point 'resid_post'; it has enc.resid_pre, enc.attn_in, enc.q, enc.k", 0), 0u)
      << error;
  EXPECT_NE(error.find("cross.resid_mid, dec.mlp_in"), std::string::npos) << error;
  request.points = {{"dec", HookPoint::ResidPost}};
  request.layers = {2};
  request.target_ids = {181, 2};
  EXPECT_EQ(error_of([&] { write_activations(*loaded.model, ids, request, dir.file("x.safetensors")); }),
            "layer 2 is beyond the model's 2 dec layers (numbered from 0)");
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.safetensors")));
}

TEST(Activations, BadRequestsGetTheirLineAndWriteNothing) {
  auto model = tiny_model();
  const TempDir dir;
  const auto path = dir.file("bad.safetensors");
  ActivationsRequest request;
  request.points = {HookPoint::Z};
  request.heads = {3};
  EXPECT_EQ(error_of([&] { write_activations(*model, kIds, request, path); }),
            "head 3 is beyond layer 0's 3 heads (numbered from 0)");
  request.heads = {};
  request.positions = {10};
  EXPECT_EQ(error_of([&] { write_activations(*model, kIds, request, path); }),
            "position 10 is beyond the text's 10 tokens (numbered from 0)");
  nlohmann::json json = {{"model_type", "transformer_lm"}, {"vocab_size", 20}, {"n_layers", 1}, {"n_heads", 2},
                         {"d_model", 8}, {"d_ff", 16}, {"max_positions", 16}, {"norm", "post"}};
  auto post_norm = make_transformer(parse_model_config(json, "post-norm config"));
  request.positions = {};
  request.points = {HookPoint::FinalNorm};
  EXPECT_EQ(error_of([&] { write_activations(*post_norm, kIds, request, path); }),
            "a transformer_lm model has no point 'final_norm'; it has resid_pre, attn_in, q, k, v, scores, pattern, z, "
            "head_out, attn_out, resid_mid, mlp_in, mlp_act, mlp_out, resid_post, logits");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Activations, ACancelledRunLeavesNoFile) {
  auto model = tiny_model();
  const TempDir dir;
  ActivationsRequest request;
  request.points = {HookPoint::ResidPost};
  const auto summary = write_activations(*model, kIds, request, dir.file("cancelled.safetensors"), {},
                                         [](int64_t done, int64_t) { return done < 1; });
  EXPECT_TRUE(summary.cancelled);
  EXPECT_FALSE(std::filesystem::exists(dir.file("cancelled.safetensors")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("cancelled.safetensors.tmp")));
}

}  // namespace
}  // namespace aw

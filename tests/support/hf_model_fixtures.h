// tests/support/hf_model_fixtures.h — tests/fixtures/hf_models/: tiny random llama, mistral, qwen2 and
// gpt_neox folders that scripts/fixtures/make_hf_decoder_fixtures.py saved with transformers (eager
// attention), each with expected.safetensors: the ids, logits and attention Hugging Face's own
// classes give for two texts, and which head the gated logits switched off.
#pragma once

#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>

namespace aw::test::hf_models {

inline const std::string kFolder = AW_SOURCE_DIR "/tests/fixtures/hf_models/";

// A fixture's expected.safetensors: its tensors, the texts they were made from and the gated head.
struct Reference {
  std::shared_ptr<const SafetensorsFile> file;
  nlohmann::json texts;
  int64_t gated_layer = 0, gated_head = 0;
  torch::Tensor get(const std::string& name) const { return file->tensor(name).clone(); }
};

inline Reference read_reference(const std::string& name) {
  Reference reference;
  reference.file = SafetensorsFile::open(kFolder + name + "/expected.safetensors");
  const auto& metadata = reference.file->metadata();
  reference.texts = nlohmann::json::parse(metadata.at("texts"));
  reference.gated_layer = std::stoll(metadata.at("gated_layer"));
  reference.gated_head = std::stoll(metadata.at("gated_head"));
  return reference;
}

struct Computed {
  torch::Tensor logits, attention;
};

// `loaded`'s logits and every layer's attention for the fixture's text with special tokens.
inline Computed compute(const LoadedModel& loaded, const std::string& fixture) {
  torch::InferenceMode inference;
  ModelInput input;
  input.input_ids = read_reference(fixture).get("ids_special").unsqueeze(0);
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  auto result = loaded.model->forward(input, options);
  return {result.logits[0], torch::stack(result.attention).select(1, 0)};
}

}  // namespace aw::test::hf_models

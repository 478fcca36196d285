// tests/support/hf_translation_fixtures.h — tests/fixtures/hf/{marian_tiny,bart_tiny}: tiny random
// Marian and BART models that scripts/fixtures/make_hf_fixtures.py saved with what transformers
// computed for them (reference.json and reference.safetensors: logits, encoder output, every
// attention, a head-masked forward, greedy and beam-search outputs), loaded without a tokenizer.
#pragma once

#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/nn/translation.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace aw::test::hf_translation {

inline std::string fixture_dir(const std::string& name) { return std::string(AW_SOURCE_DIR) + "/tests/fixtures/hf/" + name; }

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// A list of ids, or a list of lists, as a (1, n) or (B, n) tensor.
inline torch::Tensor ids_tensor(const nlohmann::json& ids) {
  if (ids.at(0).is_array()) {
    std::vector<torch::Tensor> rows;
    for (const auto& row : ids) rows.push_back(torch::tensor(row.get<std::vector<int64_t>>(), torch::kLong));
    return torch::stack(rows);
  }
  return torch::tensor(ids.get<std::vector<int64_t>>(), torch::kLong).unsqueeze(0);
}

// A fixture model: config, weights (no tokenizer needed: the reference gives the ids).
struct FixtureModel {
  ModelConfig config;
  std::shared_ptr<TranslationTransformerImpl> model;
  nlohmann::json reference;
  std::shared_ptr<const SafetensorsFile> tensors;
};

inline FixtureModel load_fixture(const std::string& name) {
  FixtureModel fixture;
  const auto dir = fixture_dir(name);
  fixture.config = read_model_config(dir);
  fixture.model = std::dynamic_pointer_cast<TranslationTransformerImpl>(create_model(fixture.config, false));
  load_weights(*fixture.model, *SafetensorsFile::open(dir + "/model.safetensors"));
  fixture.model->eval();
  fixture.reference = read_json(dir + "/reference.json");
  fixture.tensors = SafetensorsFile::open(dir + "/reference.safetensors");
  return fixture;
}

}  // namespace aw::test::hf_translation

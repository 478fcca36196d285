// tests/models/translation/test_beam_search.cpp — greedy and beam-search decoding
// (models/translation/beam_search.h) against transformers' generate() on the tiny Marian and BART fixtures
// (tests/support/hf_translation_fixtures.h): the same ids, and the same beam scores.
#include "models/nn/model.h"
#include "models/translation/beam_search.h"
#include "tests/support/hf_translation_fixtures.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::hf_translation::ids_tensor;
using test::hf_translation::load_fixture;

constexpr double kTolerance = 1e-4;

class HfTranslation : public ::testing::TestWithParam<std::string> {};

// The generated ids after the decoder start, without the final EOS (what Hypothesis::ids holds).
std::vector<int64_t> generated(const nlohmann::json& ids, int64_t eos) {
  auto values = ids.get<std::vector<int64_t>>();
  values.erase(values.begin());
  if (!values.empty() && values.back() == eos) values.pop_back();
  return values;
}

TEST_P(HfTranslation, GreedyAndBeamSearchMatchGenerate) {
  auto fixture = load_fixture(GetParam());
  const auto eos = fixture.config.translation.eos_id;
  const auto max_new = fixture.reference.at("generation").at("greedy_kwargs").at("max_new_tokens").get<int64_t>();
  const auto beams = fixture.reference.at("generation").at("beam_kwargs").at("num_beams").get<int64_t>();
  for (const auto& item : fixture.reference.at("cases")) {
    ModelInput source;
    source.input_ids = ids_tensor(item.at("input_ids"));
    const auto greedy = translate_rows(*fixture.model, source, {1, 1.0, max_new});
    EXPECT_EQ(greedy.at(0).ids, generated(item.at("greedy_ids"), eos)) << item.at("source");
    const auto beam = translate_rows(*fixture.model, source, {beams, 1.0, max_new});
    EXPECT_EQ(beam.at(0).ids, generated(item.at("beam_ids"), eos)) << item.at("source");
    if (item.contains("beam_score")) EXPECT_NEAR(beam.at(0).score, item.at("beam_score").get<double>(), kTolerance);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HfTranslation, ::testing::Values("marian_tiny", "bart_tiny"));

}  // namespace
}  // namespace aw

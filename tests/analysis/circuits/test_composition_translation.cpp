// tests/analysis/circuits/test_composition_translation.cpp — composition on translation models, by
// attention kind: encoder heads into later encoder heads and into cross-attention's keys and values,
// decoder and cross heads into later decoder heads and cross-attention's queries. Against explicit
// d × d products folded by hand from a random pre-norm transformer_mt's parameters (each stream's own
// reading norms: the encoder's final norm into cross-attention's keys and values), and against
// Hugging Face's Marian and BART (tests/fixtures/circuits/marian.json, bart.json;
// scripts/fixtures/make_translation_circuit_fixtures.py).
#include "analysis/circuits/composition.h"
#include "models/checkpoint/checkpoint.h"
#include "models/nn/model_config.h"
#include "models/nn/translation.h"
#include "tests/support/random_translation.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace aw {
namespace {

using torch::indexing::Slice;

// Blocks enc 0, enc 1, dec 2, cross 3, dec 4, cross 5; 2 heads of width 4 each; every norm's weight away
// from 1, so that folding the wrong one shows.
LoadedModel random_translation(uint64_t seed) {
  auto model = test::random_translation(seed);
  LoadedModel loaded;
  loaded.name = "random_mt";
  loaded.config = model->config();
  loaded.model = model;
  return loaded;
}

// One block's heads as explicit d × d circuits: QK = W_Qᵀ W_K, OV = W_O W_V, folded by hand.
struct Circuits {
  std::vector<torch::Tensor> qk, ov;
};
Circuits explicit_block(MultiHeadAttentionImpl& attention, const torch::Tensor& query_norm, const torch::Tensor& key_norm,
                        int64_t heads, int64_t dh) {
  const auto q = attention.q->weight.to(torch::kFloat64) * query_norm.to(torch::kFloat64);
  const auto k = attention.k->weight.to(torch::kFloat64) * key_norm.to(torch::kFloat64);
  const auto v = attention.v->weight.to(torch::kFloat64) * key_norm.to(torch::kFloat64);
  auto o = attention.o->weight.to(torch::kFloat64);
  o = o - o.mean(0, true);  // LayerNorm reads the sum
  Circuits circuits;
  for (int64_t h = 0; h < heads; ++h) {
    const auto rows = Slice(h * dh, (h + 1) * dh);
    circuits.qk.push_back(torch::matmul(q.index({rows}).t(), k.index({rows})));
    circuits.ov.push_back(torch::matmul(o.index({Slice(), rows}), v.index({rows})));
  }
  return circuits;
}

double ratio(const torch::Tensor& product, const torch::Tensor& a, const torch::Tensor& b) {
  return (product.norm() / (a.norm() * b.norm())).item<double>();
}

TEST(CompositionTranslation, EachStreamFoldsItsOwnReadingNorms) {
  const auto loaded = random_translation(11);
  auto& model = dynamic_cast<TranslationTransformerImpl&>(*loaded.model);
  std::vector<Circuits> blocks;
  std::vector<std::string> kinds{"enc", "enc"};
  for (int64_t l = 0; l < 2; ++l) {
    auto& block = *model.encoder[l]->as<TransformerBlockImpl>();
    blocks.push_back(explicit_block(*block.attn, block.ln_1->weight, block.ln_1->weight, 2, 4));
  }
  for (int64_t l = 0; l < 2; ++l) {
    auto& block = *model.decoder[l]->as<DecoderBlockImpl>();
    blocks.push_back(explicit_block(*block.self_attn, block.ln_1->weight, block.ln_1->weight, 2, 4));
    blocks.push_back(explicit_block(*block.cross_attn, block.ln_2->weight, model.enc_ln_f->weight, 2, 4));
    kinds.insert(kinds.end(), {"dec", "cross"});
  }
  const auto weights = head_weights(loaded, "composition", 2, torch::kFloat64);
  ASSERT_TRUE(weights.translation);
  ASSERT_EQ(weights.layers.size(), 6u);
  const auto pairs = composition_scores(weights, {}, nullptr);
  // enc 0 → enc 1; every enc block → both cross blocks (k, v); dec 2 → cross 3, dec 4, cross 5;
  // cross 3 → dec 4, cross 5; dec 4 → cross 5: 2 × 2 heads each.
  ASSERT_EQ(pairs.size(), 4u * (1 + 4 + 3 + 2 + 1));
  for (const auto& pair : pairs) {
    const auto& sender = kinds[pair.sender_layer];
    const auto& receiver = kinds[pair.receiver_layer];
    EXPECT_FALSE(sender == "enc" && receiver == "dec");  // the decoder's self-attention never reads the encoder
    const auto& ov1 = blocks[pair.sender_layer].ov[pair.sender_head];
    const auto& qk2 = blocks[pair.receiver_layer].qk[pair.receiver_head];
    const auto& ov2 = blocks[pair.receiver_layer].ov[pair.receiver_head];
    const bool query = sender == "enc" ? receiver == "enc" : true;
    const bool key = sender == "enc" ? true : receiver == "dec";
    EXPECT_EQ(std::isnan(pair.q), !query) << pair.sender_layer << " " << pair.receiver_layer;
    EXPECT_EQ(std::isnan(pair.k), !key);
    EXPECT_EQ(std::isnan(pair.v), !key);
    if (query) EXPECT_NEAR(pair.q, ratio(torch::matmul(qk2.t(), ov1), qk2, ov1), 1e-12);
    if (key) {
      EXPECT_NEAR(pair.k, ratio(torch::matmul(qk2, ov1), qk2, ov1), 1e-12);
      EXPECT_NEAR(pair.v, ratio(torch::matmul(ov2, ov1), ov2, ov1), 1e-12);
    }
  }
  // Copying where the unembedding reads the head's writes (decoder and cross heads): the shared
  // embeddings centred, the final norm's weight in W_U (a positive scale such as √d changes no ratio).
  auto embedding = model.tok_emb->weight.to(torch::kFloat64).t();
  embedding = embedding - embedding.mean(0, true);
  const auto unembedding = model.tok_emb->weight.to(torch::kFloat64) * model.dec_ln_f->weight.to(torch::kFloat64);
  const auto heads = head_circuits(weights, 8, true);
  ASSERT_EQ(heads.size(), 12u);
  for (const auto& head : heads) {
    const auto& kind = kinds[head.layer];
    EXPECT_EQ(std::isnan(head.copying), kind == "enc") << head.layer;
    EXPECT_EQ(head.has_positional, kind != "cross") << head.layer;
    if (kind == "enc") continue;
    const auto full = torch::matmul(torch::matmul(unembedding, blocks[head.layer].ov[head.head]), embedding);
    auto eigenvalues = torch::linalg_eigvals(full);
    eigenvalues = eigenvalues.index_select(0, std::get<1>(eigenvalues.abs().topk(4)));
    const auto real = torch::real(eigenvalues);
    EXPECT_NEAR(head.copying, (real.sum() / eigenvalues.abs().sum()).item<double>(), 1e-9);
  }
}

TEST(CompositionTranslation, TheChanceOfMixedWidthsIsItsOwn) {
  // Marian's encoder heads are 4 wide, its decoder heads 8: a pair's chance is drawn at its two widths.
  const auto same = composition_baseline(16, 4, 4, 400, 3);
  EXPECT_EQ(composition_baseline(16, 4, 400, 3).sorted, same.sorted);
  const auto mixed = composition_baseline(16, 8, 4, 400, 3);
  EXPECT_NE(mixed.sorted, same.sorted);
  // For rotation-invariant random factors E‖AB‖² = ‖A‖²‖B‖²/d: either mean is near 1/√d = 0.25, the
  // widths moving the spread more than the mean.
  EXPECT_NEAR(same.mean, 0.25, 0.03);
  EXPECT_NEAR(mixed.mean, 0.25, 0.03);
}

class CompositionTranslationHuggingFace : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(CompositionTranslationHuggingFace, ScoresEqualTheReference) {
  const auto& [folder, reference_name] = GetParam();
  const auto loaded = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf/" + folder);
  std::ifstream in(AW_SOURCE_DIR "/tests/fixtures/circuits/" + reference_name + ".json");
  ASSERT_TRUE(in);
  const auto reference = nlohmann::json::parse(in);
  const auto weights = head_weights(loaded, "composition", 2, torch::kFloat64);
  const auto pairs = composition_scores(weights, {}, nullptr);
  ASSERT_EQ(pairs.size(), reference["composition"].size());
  std::map<std::vector<int64_t>, CompositionPair> by_heads;
  for (const auto& pair : pairs)
    by_heads[{pair.sender_layer, pair.sender_head, pair.receiver_layer, pair.receiver_head}] = pair;
  for (const auto& expected : reference["composition"]) {
    const std::vector<int64_t> key{expected["sender"][0], expected["sender"][1], expected["receiver"][0],
                                   expected["receiver"][1]};
    ASSERT_TRUE(by_heads.count(key));
    const auto& pair = by_heads[key];
    for (const auto& [name, value] : {std::pair<const char*, double>{"q", pair.q}, {"k", pair.k}, {"v", pair.v}}) {
      if (expected[name].is_null()) EXPECT_TRUE(std::isnan(value)) << name;
      else EXPECT_NEAR(value, expected[name].get<double>(), 1e-5) << name;
    }
  }
  const auto heads = head_circuits(weights, 16, true);
  ASSERT_EQ(heads.size(), reference["heads"].size());
  for (size_t i = 0; i < heads.size(); ++i) {
    const auto& expected = reference["heads"][i];
    ASSERT_EQ(heads[i].layer, expected["block"].get<int64_t>());
    ASSERT_EQ(heads[i].head, expected["head"].get<int64_t>());
    if (expected["copying"].is_null()) {
      EXPECT_TRUE(std::isnan(heads[i].copying));
    } else {
      EXPECT_NEAR(heads[i].copying, expected["copying"].get<double>(), 1e-5);
      EXPECT_NEAR(heads[i].positive_share, expected["positive_share"].get<double>(), 1e-5);
    }
    EXPECT_FALSE(heads[i].has_positional);  // post-norm: no position table read alone
  }
}

INSTANTIATE_TEST_SUITE_P(Families, CompositionTranslationHuggingFace,
                         ::testing::Values(std::pair<std::string, std::string>{"marian_tiny", "marian"},
                                           std::pair<std::string, std::string>{"bart_tiny", "bart"}));

}  // namespace
}  // namespace aw

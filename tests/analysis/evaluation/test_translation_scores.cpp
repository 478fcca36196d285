// tests/analysis/evaluation/test_translation_scores.cpp — batched decoding and gate settings decoded together
// translate as one by one, scored by BLEU and chrF (analysis/data/translation_scores)
#include "analysis/data/translation_scores.h"
#include "analysis/core/head_gates.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/bleu.h"
#include "tests/support/tiny_translation.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::pairs_path;
using test::TinyTranslation;

TEST(TranslationScores, BatchedDecodingEqualsOneByOneAndBleuScoresItsTexts) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m");
  auto* model = loaded.model->sequence_to_sequence();
  ASSERT_NE(model, nullptr);
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  const auto pairs = read_translation_pairs(pairs_path());
  SearchSettings search;
  search.beam = 3;
  search.max_new_tokens = 8;
  const auto together = score_translations(*model, codec, pairs, search, 7);
  const auto alone = score_translations(*model, codec, pairs, search, 1);
  ASSERT_EQ(together.hypotheses.size(), pairs.size());
  EXPECT_EQ(together.hypotheses, alone.hypotheses);
  std::vector<std::string> references;
  for (const auto& pair : pairs) references.push_back(pair.target);
  EXPECT_EQ(together.bleu.score, corpus_bleu(together.hypotheses, references).score);
  EXPECT_EQ(together.chrf, corpus_chrf(together.hypotheses, references));
  // A perfect system scores 100: BLEU of the references against themselves.
  EXPECT_DOUBLE_EQ(corpus_bleu(references, references).score, 100.0);
}

TEST(TranslationBleuMetric, SettingsDecodedTogetherTranslateAsEachDecodedAlone) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m", 11);
  auto& model = *loaded.model->sequence_to_sequence();
  SearchSettings search;
  search.beam = 3;
  search.max_new_tokens = 8;
  const auto codec = std::make_shared<const TranslationCodec>(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  auto task = make_bleu_task(loaded.config, codec, read_translation_pairs(pairs_path()), search);
  task.chunk_sources = 7;  // 20 sources: chunks of 7, 7 and 6
  auto gates = all_heads_on(loaded.config).unsqueeze(0).repeat({3, 1, 1});
  gates[1][3][0] = 0.0;  // cross head 1 off
  gates[2][2][1] = 0.0;  // dec head 2 off
  gates[2][0][0] = 0.0;  // and enc 1 head 1
  // 16 rows a search: two settings of a 7-source chunk side by side, the third alone.
  const auto together = score_gate_settings(model, task, gates, {}, {}, 16);
  ASSERT_EQ(together.size(), 3u);
  bool some_differ = false;
  for (int64_t s = 0; s < 3; ++s) {
    ForwardOptions options;
    options.head_gates = gates[s];
    const auto alone = score_translations(model, *codec, read_translation_pairs(pairs_path()), search, 1, options);
    EXPECT_EQ(together[s].hypotheses, alone.hypotheses) << "setting " << s;
    EXPECT_EQ(together[s].bleu.score, alone.bleu.score);
    EXPECT_EQ(together[s].chrf, alone.chrf);
    some_differ = some_differ || together[s].hypotheses != together[0].hypotheses;
  }
  EXPECT_TRUE(some_differ);  // the gates change some translation
}

}  // namespace
}  // namespace aw

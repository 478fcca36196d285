// analysis/head_types/repeated_tokens.h — the generated inputs of the induction score: random token
// sequences repeated twice (r₁ … r_T r₁ … r_T), as the induction-head literature measures copying
// (Olsson et al. 2022; TransformerLens's head detector). On such a sequence a token's only earlier
// occurrence is its copy, so a head that attends to the token after that copy is predicting the
// repeat, which no knowledge of the language can do.
#pragma once

#include "models/nn/model.h"

#include <cstdint>
#include <vector>

namespace aw {

class Tokenizer;

struct RepeatedTokens {
  int64_t sequences = 32;  // how many random sequences
  int64_t length = 50;     // T: tokens before the repeat (each sequence is 2T long)
  int64_t batch = 8;       // sequences per forward
  uint64_t seed = 1;
};

// The ids a random sequence draws from: every id of the vocabulary except those spelled as special
// tokens are (<…> or […]: <unk>, <|endoftext|>, [CLS], [unused3]), which no text holds.
std::vector<int64_t> ordinary_token_ids(const Tokenizer& tokenizer);

// settings.sequences sequences of 2T ids, each T ids drawn uniformly (with replacement) from `pool`
// by a generator seeded with settings.seed, then repeated; batched settings.batch at a time (no
// padding: every sequence has the same length). The same settings give the same ids on every run.
std::vector<ModelInput> repeated_token_batches(const std::vector<int64_t>& pool, const RepeatedTokens& settings);

}  // namespace aw

// analysis/head_types/repeated_tokens.cpp — see repeated_tokens.h.
#include "analysis/head_types/repeated_tokens.h"

#include "models/text/tokenizer.h"

#include <torch/torch.h>

#include <algorithm>
#include <random>

namespace aw {
namespace {

bool spelled_special(const std::string& token) {
  if (token.size() < 3) return false;
  return (token.front() == '<' && token.back() == '>') || (token.front() == '[' && token.back() == ']');
}

}  // namespace

std::vector<int64_t> ordinary_token_ids(const Tokenizer& tokenizer) {
  std::vector<int64_t> ids;
  for (int64_t id = 0; id < tokenizer.vocab_size(); ++id)
    if (!spelled_special(tokenizer.token_text(id))) ids.push_back(id);
  return ids;
}

std::vector<ModelInput> repeated_token_batches(const std::vector<int64_t>& pool, const RepeatedTokens& settings) {
  std::vector<ModelInput> batches;
  if (pool.empty()) return batches;
  // A 64-bit Mersenne Twister read modulo the pool: the same ids on every platform (the standard's
  // distributions may differ between libraries); the modulo's bias is below 1e-13 for any vocabulary.
  std::mt19937_64 engine(settings.seed);
  const auto size = static_cast<uint64_t>(pool.size());
  for (int64_t first = 0; first < settings.sequences; first += settings.batch) {
    const int64_t count = std::min(settings.batch, settings.sequences - first);
    auto ids = torch::empty({count, 2 * settings.length}, torch::kLong);
    auto cells = ids.accessor<int64_t, 2>();
    for (int64_t sequence = 0; sequence < count; ++sequence)
      for (int64_t position = 0; position < settings.length; ++position) {
        const int64_t id = pool[engine() % size];
        cells[sequence][position] = cells[sequence][settings.length + position] = id;
      }
    ModelInput input;
    input.input_ids = ids;
    batches.push_back(std::move(input));
  }
  return batches;
}

}  // namespace aw

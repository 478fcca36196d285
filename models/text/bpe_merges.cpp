// models/text/bpe_merges.cpp — the BPE merge table and lowest-rank-first merging (see bpe_merges.h).
#include "models/text/bpe_merges.h"

#include <functional>
#include <limits>
#include <queue>

namespace aw::tokenizer_detail {

void BpeMergeTable::add(int64_t left, int64_t right, int64_t result) {
  merges_.emplace(pair_key(left, right), Merge{static_cast<int32_t>(merges_.size()), result});
}

// As Hugging Face's tokenizers merge, and for any merge table where a token is made before it is
// used, the same as GPT-2's pass per pair. The symbols form a linked list and the candidate pairs a
// heap (entries a merge made stale are skipped), so a text of n symbols costs n log n, not one scan
// of the text per merge: a SentencePiece-style tokenizer without pre-tokenisation merges over a
// whole text.
std::vector<int64_t> BpeMergeTable::merge(std::vector<int64_t> symbols) const {
  const size_t count = symbols.size();
  if (count < 2) return symbols;
  struct Candidate {
    int32_t rank;
    size_t left;  // position of the pair's left symbol
    int64_t left_id, right_id;
    bool operator>(const Candidate& other) const {
      return rank != other.rank ? rank > other.rank : left > other.left;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> candidates;
  const auto consider = [&](size_t left, size_t right) {
    if (symbols[left] < 0 || symbols[right] < 0) return;
    const auto found = merges_.find(pair_key(symbols[left], symbols[right]));
    if (found != merges_.end()) candidates.push({found->second.rank, left, symbols[left], symbols[right]});
  };
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<size_t> previous(count), next(count);
  std::vector<bool> alive(count, true);
  for (size_t i = 0; i < count; ++i) {
    previous[i] = i == 0 ? kNone : i - 1;
    next[i] = i + 1 == count ? kNone : i + 1;
  }
  for (size_t i = 0; i + 1 < count; ++i) consider(i, i + 1);
  while (!candidates.empty()) {
    const auto candidate = candidates.top();
    candidates.pop();
    const size_t left = candidate.left, right = next[left];
    if (!alive[left] || right == kNone || symbols[left] != candidate.left_id || symbols[right] != candidate.right_id)
      continue;  // a merge since it was pushed changed one of its symbols
    symbols[left] = merges_.at(pair_key(symbols[left], symbols[right])).result;
    alive[right] = false;
    next[left] = next[right];
    if (next[left] != kNone) previous[next[left]] = left;
    if (previous[left] != kNone) consider(previous[left], left);
    if (next[left] != kNone) consider(left, next[left]);
  }
  std::vector<int64_t> merged;
  for (size_t i = 0; i != kNone; i = next[i]) merged.push_back(symbols[i]);
  return merged;
}

}  // namespace aw::tokenizer_detail

// models/text/bpe_merges.h — a BPE merge table and the merging itself: a pair of adjacent symbol ids
// → the id of the merged symbol, with a rank (earlier merges first). Internal to models/text
// (byte_level_bpe.cpp fills it from merges.txt or a tokenizer.json's model.merges).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace aw::tokenizer_detail {

class BpeMergeTable {
 public:
  // Adds the merge of (left, right) into `result` with the next rank (a pair merged already keeps its
  // first merge: the caller refuses repeats).
  void add(int64_t left, int64_t right, int64_t result);
  size_t size() const { return merges_.size(); }

  // One number per pair of ids (each fits in 32 bits).
  static uint64_t pair_key(int64_t left, int64_t right) {
    return (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right);
  }

  // Repeatedly merges the adjacent pair with the lowest rank, the leftmost first among equal ones,
  // until no adjacent pair is a merge. A negative symbol never merges.
  std::vector<int64_t> merge(std::vector<int64_t> symbols) const;

 private:
  struct Merge {
    int32_t rank;
    int64_t result;
  };
  std::unordered_map<uint64_t, Merge> merges_;  // (left id, right id) → merge
};

}  // namespace aw::tokenizer_detail

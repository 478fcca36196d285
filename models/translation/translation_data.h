// models/translation/translation_data.h — parallel text for translation models: `source<TAB>target`
// lines (the Tatoeba eng-fra.tsv layout; further columns are ignored), encoded by a TranslationCodec
// into padded batches (source ids with their mask; decoder sequences start … EOS with theirs).
#pragma once

#include "models/nn/model.h"
#include "models/translation/translation_codec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct TranslationPair {
  std::string source, target;
};

// Throws aw::Error naming the file (and line) when it cannot be read, a line has no TAB, or there are
// no pairs. Empty lines are skipped.
std::vector<TranslationPair> read_translation_pairs(const std::string& path);

// The pairs encoded: sources [N, n_max] and decoder sequences [N, m_max], padded with the model's pad
// id and masked. Pairs longer than `max_positions` on either side are left out and counted.
struct EncodedPairs {
  torch::Tensor source_ids, source_mask, target_ids, target_mask;
  std::vector<int64_t> kept;  // index into the pairs of each row
  int64_t skipped = 0;
};
EncodedPairs encode_pairs(const std::vector<TranslationPair>& pairs, const TranslationCodec& codec,
                          int64_t max_positions, int64_t pad_id);

// Id sequences of different lengths as one padded tensor [rows, longest] (pad_id after each row's
// end) and its mask (1 on tokens).
struct PaddedIds {
  torch::Tensor ids, mask;
};
PaddedIds pad_id_rows(const std::vector<std::vector<int64_t>>& rows, int64_t pad_id);

// Rows `rows` of the encoded pairs as one model input, cut to their own longest source and target.
ModelInput pair_batch(const EncodedPairs& encoded, const torch::Tensor& rows);
// Consecutive batches of `batch_size` rows, in order.
std::vector<ModelInput> pair_batches(const EncodedPairs& encoded, int64_t batch_size);

}  // namespace aw

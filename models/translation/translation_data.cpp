// models/translation/translation_data.cpp — see translation_data.h.
#include "models/translation/translation_data.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>
#include <fstream>

namespace aw {

std::vector<TranslationPair> read_translation_pairs(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail_in_file(path, "cannot be read");
  std::vector<TranslationPair> pairs;
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    require_line_length(path, number, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos)
      fail_in_file(path, "line " + std::to_string(number) + " has no TAB (expected source<TAB>target)");
    const auto end = line.find('\t', tab + 1);
    pairs.push_back({line.substr(0, tab), line.substr(tab + 1, end == std::string::npos ? end : end - tab - 1)});
  }
  if (pairs.empty()) fail_in_file(path, "has no source<TAB>target lines");
  return pairs;
}

PaddedIds pad_id_rows(const std::vector<std::vector<int64_t>>& rows, int64_t pad_id) {
  size_t longest = 1;
  for (const auto& row : rows) longest = std::max(longest, row.size());
  PaddedIds padded;
  padded.ids = torch::full({static_cast<int64_t>(rows.size()), static_cast<int64_t>(longest)}, pad_id, torch::kLong);
  padded.mask = torch::zeros_like(padded.ids);
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto length = static_cast<int64_t>(rows[r].size());
    padded.ids[r].narrow(0, 0, length).copy_(torch::tensor(rows[r], torch::kLong));
    padded.mask[r].narrow(0, 0, length).fill_(1);
  }
  return padded;
}

EncodedPairs encode_pairs(const std::vector<TranslationPair>& pairs, const TranslationCodec& codec,
                          int64_t max_positions, int64_t pad_id) {
  std::vector<std::vector<int64_t>> sources, targets;
  EncodedPairs encoded;
  for (size_t index = 0; index < pairs.size(); ++index) {
    auto source = codec.source_ids(pairs[index].source);
    auto target = codec.decoder_ids(pairs[index].target);
    if (static_cast<int64_t>(source.size()) > max_positions || static_cast<int64_t>(target.size()) > max_positions) {
      ++encoded.skipped;
      continue;
    }
    sources.push_back(std::move(source));
    targets.push_back(std::move(target));
    encoded.kept.push_back(static_cast<int64_t>(index));
  }
  auto sources_padded = pad_id_rows(sources, pad_id), targets_padded = pad_id_rows(targets, pad_id);
  encoded.source_ids = sources_padded.ids;
  encoded.source_mask = sources_padded.mask;
  encoded.target_ids = targets_padded.ids;
  encoded.target_mask = targets_padded.mask;
  return encoded;
}

ModelInput pair_batch(const EncodedPairs& encoded, const torch::Tensor& rows) {
  ModelInput input;
  const auto source_mask = encoded.source_mask.index_select(0, rows);
  const auto target_mask = encoded.target_mask.index_select(0, rows);
  const auto source_length = std::max<int64_t>(1, source_mask.sum(1).max().item<int64_t>());
  const auto target_length = std::max<int64_t>(1, target_mask.sum(1).max().item<int64_t>());
  input.input_ids = encoded.source_ids.index_select(0, rows).narrow(1, 0, source_length).contiguous();
  input.attention_mask = source_mask.narrow(1, 0, source_length).contiguous();
  input.decoder_input_ids = encoded.target_ids.index_select(0, rows).narrow(1, 0, target_length).contiguous();
  input.decoder_attention_mask = target_mask.narrow(1, 0, target_length).contiguous();
  return input;
}

std::vector<ModelInput> pair_batches(const EncodedPairs& encoded, int64_t batch_size) {
  std::vector<ModelInput> batches;
  const int64_t count = encoded.source_ids.size(0);
  for (int64_t first = 0; first < count; first += batch_size)
    batches.push_back(pair_batch(encoded, torch::arange(first, std::min(count, first + batch_size), torch::kLong)));
  return batches;
}

}  // namespace aw

// analysis/capture/attention_file_reader.cpp — see attention_file_reader.h.
#include "analysis/capture/attention_file_reader.h"

#include "analysis/capture/attention_thumbnail.h"
#include "analysis/capture/pooled_attention.h"
#include "models/checkpoint/safetensors.h"
#include "models/errors.h"
#include "models/parse_number.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <optional>
#include <optional>
#include <tuple>

namespace aw {

namespace {

// "5-9" → [4, 9) within `length` tokens; nothing for text that is not such a span.
std::optional<std::pair<int64_t, int64_t>> read_span(const std::string& text, int64_t length) {
  const auto dash = text.find('-');
  int64_t first = 0, last = 0;
  if (dash == std::string::npos || !parse_integer(text.substr(0, dash), first) ||
      !parse_integer(text.substr(dash + 1), last) || first < 1 || last < first || last > length)
    return std::nullopt;
  return std::make_pair(first - 1, last);
}

// The labels of a region ("rows", "cols") and of a pooled file's blocks ("pool": "8 mean").
void read_region(const std::string& path, const std::map<std::string, std::string>& metadata,
                 AttentionFileContents& contents) {
  const auto length = static_cast<int64_t>(contents.tokens.size());
  std::pair<int64_t, int64_t> rows{0, length}, cols{0, length};
  const bool region = metadata.count("rows") || metadata.count("cols");
  for (const auto& [key, span] : {std::make_pair("rows", &rows), std::make_pair("cols", &cols)}) {
    if (!metadata.count(key)) continue;
    const auto read = read_span(metadata.at(key), length);
    if (!read) fail_in_file(path, std::string("its \"") + key + "\" metadata " + metadata.at(key) +
                                      " is not a span of its " + std::to_string(length) + " tokens");
    *span = *read;
  }
  int64_t pool = 0;
  if (metadata.count("pool")) {
    contents.pool = metadata.at("pool");
    if (!parse_integer(contents.pool.substr(0, contents.pool.find(' ')), pool) || pool < 1)
      fail_in_file(path, "its \"pool\" metadata " + contents.pool + " is not a block size");
  }
  if (!region && pool == 0) return;
  auto labels = [&](const std::pair<int64_t, int64_t>& span) {
    if (pool > 1) return block_span_labels(span.first, span.second, pool);
    return std::vector<std::string>(contents.tokens.begin() + span.first, contents.tokens.begin() + span.second);
  };
  contents.row_labels = labels(rows);
  contents.col_labels = labels(cols);
}

}  // namespace

AttentionFileContents read_attention_file(const std::string& path) {
  const auto file = SafetensorsFile::open(path);
  const auto& metadata = file->metadata();
  const auto format = metadata.find("format");
  if (format == metadata.end() || format->second != "attention-workbench-attention")
    fail_in_file(path, "is not an attention file (attention-cli attend --out FILE.safetensors writes one)");
  AttentionFileContents contents;
  try {
    contents.tokens = nlohmann::json::parse(metadata.at("tokens")).get<std::vector<std::string>>();
    contents.model = metadata.at("model");
    if (metadata.count("target_tokens"))
      contents.target_tokens = nlohmann::json::parse(metadata.at("target_tokens")).get<std::vector<std::string>>();
  } catch (const std::exception&) {
    fail_in_file(path, "its metadata has no readable \"tokens\" list or \"model\"");
  }
  contents.heads = metadata.count("heads") ? metadata.at("heads") : "all";
  contents.translation = metadata.count("translation") ? metadata.at("translation") : "";
  // The blocks in model order: a one-kind model's layers; a translation model's encoder layers, then
  // each decoder layer's self- and cross-attention.
  struct Found {
    std::string prefix;                  // "layer", or a translation block's kind name
    std::optional<AttentionKind> kind;   // a translation block's kind (nothing for "layer")
    int64_t layer;
    std::tuple<bool, int64_t, bool> order;  // (decoder side?, layer, cross after self)
  };
  std::vector<Found> found;
  const bool translation = !contents.target_tokens.empty();
  for (const auto& name : file->names()) {
    const auto dot = name.find('.');
    int64_t number = 0;
    if (dot == std::string::npos || !parse_integer(name.substr(dot + 1), number) || number < 1) continue;
    const auto prefix = name.substr(0, dot);
    const auto kind = parse_attention_kind(prefix);
    if (translation ? kind.has_value() : prefix == "layer")
      found.push_back({prefix, kind, number,
                       {kind && queries_are_target(*kind), number, kind == AttentionKind::Cross}});
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.order < b.order; });
  if (found.empty()) fail_in_file(path, translation ? "holds no enc.<l>, dec.<l> or cross.<l> tensors" : "holds no layer.<l> tensors");
  const auto source = static_cast<int64_t>(contents.tokens.size()), target = static_cast<int64_t>(contents.target_tokens.size());
  if (!translation) read_region(path, metadata, contents);
  for (const auto& block_found : found) {
    const auto name = block_found.prefix + "." + std::to_string(block_found.layer);
    auto block = file->tensor(name);  // a view of the mapping: nothing read yet
    const auto& kind = block_found.kind;
    int64_t cols = kind && keys_are_target(*kind) ? target : source;
    int64_t rows = kind && queries_are_target(*kind) ? target : source;
    if (!contents.row_labels.empty()) rows = static_cast<int64_t>(contents.row_labels.size());
    if (!contents.col_labels.empty()) cols = static_cast<int64_t>(contents.col_labels.size());
    if (block.dim() != 3 || block.size(2) != cols || (block.size(1) != rows && block.size(1) != 1))
      fail_in_file(path, name + " has shape " + shape_string(block.sizes()) + "; expected [heads, " + std::to_string(rows) +
                             (translation ? "" : " or 1") + ", " + std::to_string(cols) + "] for its tokens");
    contents.thumbnails.push_back(file->contains("thumbnail." + name)
                                      ? file->tensor("thumbnail." + name).to(torch::kFloat32)
                                      : attention_thumbnail(block.to(torch::kFloat32)));
    contents.layers.push_back(std::move(block));
    contents.layer_numbers.push_back(static_cast<int>(block_found.layer));
    if (kind) contents.kinds.push_back(*kind);
  }
  return contents;
}

}  // namespace aw

// analysis/heads/head_order_file.cpp — see head_order_file.h.
#include "analysis/heads/head_order_file.h"

#include "analysis/core/attention_blocks.h"
#include "analysis/heads/gate_evaluation.h"
#include "models/errors.h"
#include "models/parse_number.h"
#include "models/text/split_fields.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>

namespace aw {
namespace {

[[noreturn]] void fail_at(const std::string& path, size_t line_number, const std::string& message) {
  fail_in_file(path, "line " + std::to_string(line_number) + ": " + message);
}

// "# model=m, metric=perplexity, mode=single" → its key=value pairs.
void read_comment(const std::string& line, std::map<std::string, std::string>& values) {
  size_t start = 1;
  while (start < line.size()) {
    auto end = line.find(", ", start);
    if (end == std::string::npos) end = line.size();
    auto pair = line.substr(start, end - start);
    pair.erase(0, pair.find_first_not_of(' '));
    const auto equals = pair.find('=');
    if (equals != std::string::npos) values[pair.substr(0, equals)] = pair.substr(equals + 1);
    start = end + 2;
  }
}

int column_of(const std::vector<std::string>& header, const std::string& name) {
  const auto found = std::find(header.begin(), header.end(), name);
  return found == header.end() ? -1 : static_cast<int>(found - header.begin());
}

}  // namespace

HeadOrderFile read_head_order_file(const std::string& path, const ModelConfig& config, const std::string& model_name,
                                   const std::vector<int64_t>& blocks) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read");
  const auto names = block_names(config);
  std::map<std::pair<std::string, int64_t>, int64_t> block_of;  // (kind, layer) → block
  for (int64_t block = 0; block < config.n_blocks; ++block)
    block_of[{names.with_kind ? names.kind[block] : "", names.layer[block]}] = block;
  auto head_name = [&](int64_t block, int64_t head) {
    return (names.with_kind ? names.kind[block] + " " : std::string("layer ")) + std::to_string(names.layer[block]) +
           " head " + std::to_string(head + 1);
  };

  HeadOrderFile file;
  std::map<std::string, std::string> comments;
  std::vector<std::string> header;
  int kind_col = -1, layer_col = -1, head_col = -1, value_col = -1;
  double sign = 1.0;  // damage = sign × delta for an ablation
  std::vector<std::vector<double>> scores(config.n_blocks);
  for (int64_t block = 0; block < config.n_blocks; ++block)
    scores[block].assign(config.heads_per_block[block], std::numeric_limits<double>::quiet_NaN());

  size_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    require_line_length(path, line_number, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (header.empty()) read_comment(line, comments);
      continue;
    }
    const auto fields = split_fields(line, ',');
    if (header.empty()) {
      header = fields;
      if (column_of(header, "best_head") >= 0 || comments["mode"] == "all-but-one")
        fail_in_file(path, "is an all-but-one ablation (each head kept alone); an order needs each head's own "
                           "effect: an importance CSV or one from ablate --mode single");
      kind_col = column_of(header, "kind");
      layer_col = column_of(header, "layer");
      head_col = column_of(header, "head");
      if (layer_col < 0 || head_col < 0) fail_in_file(path, "has no layer and head columns (is it an importance or ablate CSV?)");
      if ((kind_col >= 0) != names.with_kind)
        fail_in_file(path, names.with_kind ? "has no kind column, but " + model_name + " is " +
                                                 describe_model_kind(config) + " (rows must say enc, dec or cross)"
                                           : "has a kind column (a translation model's), but " + model_name + " is " +
                                                 describe_model_kind(config));
      if ((value_col = column_of(header, "importance")) >= 0) {
        file.kind = "importance";
      } else if ((value_col = column_of(header, "delta")) >= 0) {
        const auto metric = comments["metric"];
        if (metric != "perplexity" && metric != "accuracy" && metric != "bleu")
          fail_in_file(path, "has a delta column but no '# …, metric=perplexity' (or accuracy, bleu) line to say "
                             "which direction is damage");
        file.kind = "oracle";
        sign = damage(metric, 0.0, 1.0);
      } else {
        fail_in_file(path, "has neither an importance nor a delta column (expected a CSV from importance or "
                           "ablate --mode single)");
      }
      continue;
    }
    if (fields.size() != header.size())
      fail_at(path, line_number, std::to_string(fields.size()) + " fields, but the header has " +
                                     std::to_string(header.size()));
    int64_t layer = 0, head = 0;
    double value = 0.0;
    if (!parse_integer(fields[layer_col], layer)) fail_at(path, line_number, "layer " + quoted_excerpt(fields[layer_col]) + " is not a number");
    if (!parse_integer(fields[head_col], head)) fail_at(path, line_number, "head " + quoted_excerpt(fields[head_col]) + " is not a number");
    if (!parse_real(fields[value_col], value) || !std::isfinite(value))
      fail_at(path, line_number, header[value_col] + " " + quoted_excerpt(fields[value_col]) + " is not a finite number");
    const auto kind = kind_col >= 0 ? fields[kind_col] : std::string();
    const auto found = block_of.find({kind, layer});
    const auto where = (kind_col >= 0 ? quoted_excerpt(kind) + " " : std::string()) + "layer " + std::to_string(layer);
    if (found == block_of.end())
      fail_at(path, line_number, where + " is not in " + model_name + " (" + describe_model_kind(config) + ")");
    const auto block = found->second;
    if (head < 1 || head > config.heads_per_block[block])
      fail_at(path, line_number, where + " head " + std::to_string(head) + " is not in " + model_name + ", whose " +
                                     where + " has " + std::to_string(config.heads_per_block[block]) + " heads");
    auto& score = scores[block][head - 1];
    if (!std::isnan(score)) fail_at(path, line_number, head_name(block, head - 1) + " appears a second time");
    score = file.kind == "oracle" ? sign * value : value;
  }
  if (header.empty()) fail_in_file(path, "has no header line (expected a CSV from importance or ablate --mode single)");

  // Only the chosen blocks are ranked; each of their heads needs its row.
  std::vector<bool> chosen(config.n_blocks, blocks.empty());
  for (const auto block : blocks) chosen[block] = true;
  for (int64_t block = 0; block < config.n_blocks; ++block) {
    if (!chosen[block]) {
      scores[block].clear();
      continue;
    }
    for (size_t head = 0; head < scores[block].size(); ++head)
      if (std::isnan(scores[block][head]))
        fail_in_file(path, "has no row for " + head_name(block, static_cast<int64_t>(head)) + " (every head to prune needs a score)");
  }
  file.order = order_heads(scores);
  return file;
}

}  // namespace aw

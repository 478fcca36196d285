// analysis/attention_stats/top_tokens.cpp — see top_tokens.h.
#include "analysis/attention_stats/top_tokens.h"

#include "analysis/attention_stats/top_attended.h"
#include "analysis/capture/attention_capture.h"
#include "analysis/capture/translation_capture.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>
#include <sstream>

namespace aw {
namespace {

// One row of the table: the top-k keys of an attention row (n), named by `key_tokens`.
TopTokensRow top_tokens_row(const torch::Tensor& row, int64_t k, int64_t layer, size_t sentence_index,
                            int64_t target, const std::string& target_token, const std::string& model_name,
                            const std::vector<std::string>& key_tokens) {
  TopTokensRow out;
  out.layer = layer;
  out.sentence = static_cast<int64_t>(sentence_index) + 1;
  out.target = target;
  out.target_token = target_token;
  out.method = model_name;
  for (const auto& attended : top_attended(row, k)) {
    out.positions.push_back(attended.position);
    out.tokens.push_back(key_tokens[attended.position]);
    out.weights.push_back(attended.weight);
  }
  return out;
}

}  // namespace

std::vector<TopTokensRow> top_attended_tokens(AttentionModel& model, const Tokenizer& tokenizer,
                                              const std::string& model_name,
                                              const std::vector<TopTokensRequest>& sentences, int64_t k,
                                              const ForwardOptions& forward, const ProgressCallback& progress,
                                              bool* cancelled) {
  require_token_attention(model.config(), model_name, "top-tokens");
  if (cancelled) *cancelled = false;
  c10::InferenceMode inference;
  model.module().eval();
  std::vector<TopTokensRow> rows;
  for (size_t index = 0; index < sentences.size(); ++index) {
    const auto& request = sentences[index];
    const auto encoding = tokenizer.encode(request.text);
    const auto length = static_cast<int64_t>(encoding.ids.size());
    const std::string where = "sentence " + std::to_string(index + 1);
    if (length < 2) throw Error(where + " gives " + std::to_string(length) + " token(s); a target needs at least 2");
    if (length > model.config().max_positions)
      throw Error(where + " has " + std::to_string(length) + " tokens but " + model_name + " allows " +
                  std::to_string(model.config().max_positions));
    const int64_t target = request.target < 0 ? length - 1 : request.target;
    if (target < 1 || target >= length)
      throw Error(where + ": target " + std::to_string(target) + " is outside 1.." + std::to_string(length - 1) +
                  " (0-based position of the predicted token)");

    // The target's row of each layer, the mean over heads, taken from the tile that holds it: the
    // layers alone, no layer's whole matrix and no output head.
    std::vector<torch::Tensor> layer_rows(static_cast<size_t>(model.config().n_blocks));
    ForwardOptions options = forward;
    options.capture = CaptureMode::Stats;
    options.tile_observer = [&](int64_t layer, int64_t first_row, const torch::Tensor& tile) {
      const int64_t row = target - 1 - first_row;
      if (row >= 0 && row < tile.size(2)) layer_rows[static_cast<size_t>(layer)] = tile[0].select(1, row).mean(0);  // (n)
    };
    const auto input = encoding_input(encoding);
    model.run_layers(model.embed(input), input, 0, model.config().n_blocks, options);
    for (size_t layer = 0; layer < layer_rows.size(); ++layer)
      rows.push_back(top_tokens_row(layer_rows[layer], k, static_cast<int64_t>(layer) + 1, index, target,
                                    encoding.tokens[target], model_name, encoding.tokens));
    if (!report_progress(progress, static_cast<int64_t>(index) + 1, static_cast<int64_t>(sentences.size()))) {
      if (cancelled) *cancelled = true;
      break;
    }
  }
  return rows;
}

std::vector<TopTokensRow> top_source_tokens(SequenceToSequenceModel& model, const TranslationCodec& codec,
                                            const std::string& model_name,
                                            const std::vector<TopTokensRequest>& sentences, int64_t k,
                                            const SearchSettings& search, const ForwardOptions& forward,
                                            const ProgressCallback& progress, bool* cancelled) {
  if (cancelled) *cancelled = false;
  const auto& config = model.config();
  std::vector<TopTokensRow> rows;
  for (size_t index = 0; index < sentences.size(); ++index) {
    const auto& request = sentences[index];
    const std::string where = "sentence " + std::to_string(index + 1);
    TranslationCapture capture;
    try {
      capture = translate_and_capture(model, codec, request.text, search, forward.head_gates);
    } catch (const Error& error) {
      throw Error(where + ": " + error.what());
    }
    const auto length = static_cast<int64_t>(capture.decoder_tokens.size());
    if (request.target >= 0 && (request.target < 1 || request.target >= length))
      throw Error(where + ": target " + std::to_string(request.target) + " is outside 1.." +
                  std::to_string(length - 1) + " (0-based position among the translation's decoder tokens, " +
                  "the start token being 0)");
    const auto first = request.target < 0 ? 1 : request.target;
    const auto last = request.target < 0 ? length - 1 : request.target;
    for (int64_t block = 0; block < config.n_blocks; ++block) {
      const auto place = config.attention_block(block);
      if (place.kind != AttentionKind::Cross) continue;
      const auto head_mean = capture.attention[block].mean(0);                             // (m, n)
      for (int64_t target = first; target <= last; ++target)
        rows.push_back(top_tokens_row(head_mean[target - 1], k, place.layer + 1, index, target,
                                      capture.decoder_tokens[target], model_name, capture.source_tokens));
    }
    if (!report_progress(progress, static_cast<int64_t>(index) + 1, static_cast<int64_t>(sentences.size()))) {
      if (cancelled) *cancelled = true;
      break;
    }
  }
  return rows;
}

ResultTable top_tokens_table(std::vector<TopTokensRow> rows, int64_t k) {
  std::stable_sort(rows.begin(), rows.end(), [](const TopTokensRow& a, const TopTokensRow& b) {
    return std::tie(a.sentence, a.layer) < std::tie(b.sentence, b.layer);
  });
  ResultTable table;
  table.add_column("layer", ColumnType::Integer)
      .add_column("sentence", ColumnType::Integer)
      .add_column("target", ColumnType::Text)
      .add_column("method", ColumnType::Text);
  for (int64_t i = 1; i <= k; ++i) table.add_column("top" + std::to_string(i), ColumnType::Text);
  for (int64_t i = 1; i <= k; ++i)
    table.add_json_column("top" + std::to_string(i) + "_position", ColumnType::Integer)
        .add_json_column("top" + std::to_string(i) + "_weight", ColumnType::Number);
  for (const auto& row : rows) {
    std::vector<Cell> cells{row.layer, row.sentence, row.target_token + "@" + std::to_string(row.target), row.method};
    const auto found = static_cast<int64_t>(row.tokens.size());
    for (int64_t i = 0; i < k; ++i) cells.push_back(i < found ? cell(row.tokens[i]) : cell(""));
    for (int64_t i = 0; i < k; ++i) {
      cells.push_back(i < static_cast<int64_t>(row.positions.size()) ? cell(row.positions[i]) : Cell{});
      cells.push_back(i < static_cast<int64_t>(row.weights.size()) ? cell(row.weights[i]) : Cell{});
    }
    table.add_row(std::move(cells));
  }
  return table;
}

}  // namespace aw

// analysis/logit_lens/logit_lens_descriptor.cpp — the logit lens (logit_lens.h) as the analysis
// `logit-lens`: one text (--text, or --text-file read whole), the positions asked (default the last
// 64: the unembedding is the cost at long context), one CSV row per layer and position.
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/numbered_list.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/core/shared_settings.h"
#include "analysis/core/text_settings.h"
#include "analysis/logit_lens/logit_lens.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"

#include <algorithm>

namespace aw {
namespace {

constexpr int64_t kDefaultPositions = 64;

// The 0-based positions asked, or the last 64 of the text's n tokens.
std::vector<int64_t> lens_positions(const SettingValues& settings, int64_t n) {
  if (!settings.text("positions").empty()) return parse_numbered_list(settings.text("positions"), n, "position", 0);
  std::vector<int64_t> last;
  for (int64_t position = std::max<int64_t>(0, n - kDefaultPositions); position < n; ++position) last.push_back(position);
  return last;
}

// The columns top1, <value>1 … topk, <value>k, and a row's cells for them.
void add_top_columns(ResultTable& table, int64_t k, const std::string& value) {
  for (int64_t rank = 1; rank <= k; ++rank)
    table.add_column("top" + std::to_string(rank), ColumnType::Text).add_column(value + std::to_string(rank), ColumnType::Number);
}
void push_top(std::vector<Cell>& row, const Tokenizer& tokenizer, const std::vector<int64_t>& top,
              const std::vector<double>& values, int64_t k) {
  for (int64_t rank = 0; rank < k; ++rank) {
    row.push_back(cell(tokenizer.token_text(top[rank])));
    row.push_back(cell(values[rank]));
  }
}

ResultTable lens_table(const LogitLensResult& result, const Tokenizer& tokenizer, const std::vector<int64_t>& ids,
                       int64_t k) {
  ResultTable table;
  table.add_column("layer", ColumnType::Integer).add_column("position", ColumnType::Integer);
  table.add_column("token", ColumnType::Text).add_column("scored", ColumnType::Text);
  table.add_column("rank", ColumnType::Integer).add_column("probability", ColumnType::Number);
  table.add_column("kl", ColumnType::Number);
  add_top_columns(table, k, "p");
  for (const auto& lens : result.cells) {
    std::vector<Cell> row{cell(lens.layer), cell(lens.position), cell(tokenizer.token_text(ids[lens.position]))};
    if (lens.scored >= 0) {
      row.push_back(cell(tokenizer.token_text(lens.scored)));
      row.push_back(cell(lens.rank));
      row.push_back(cell(lens.probability));
    } else {
      row.insert(row.end(), {Cell{}, Cell{}, Cell{}});  // the text's last token: nothing follows it
    }
    row.push_back(cell(lens.kl));
    push_top(row, tokenizer, lens.top, lens.top_probability, k);
    table.add_row(std::move(row));
  }
  return table;
}

// With --heads: one row per layer, head and position, each head's write read as logits.
ResultTable heads_table(const LogitLensResult& result, const Tokenizer& tokenizer, const std::vector<int64_t>& ids,
                        int64_t k) {
  ResultTable table;
  table.add_column("layer", ColumnType::Integer).add_column("head", ColumnType::Integer);
  table.add_column("position", ColumnType::Integer).add_column("token", ColumnType::Text);
  table.add_column("scored", ColumnType::Text).add_column("dla", ColumnType::Number);
  add_top_columns(table, k, "logit");
  for (const auto& head : result.heads) {
    std::vector<Cell> row{cell(head.layer), cell(head.head + 1), cell(head.position),
                          cell(tokenizer.token_text(ids[head.position]))};
    if (head.scored >= 0) row.insert(row.end(), {cell(tokenizer.token_text(head.scored)), cell(head.dla)});
    else row.insert(row.end(), {Cell{}, Cell{}});
    push_top(row, tokenizer, head.top, head.top_logit, k);
    table.add_row(std::move(row));
  }
  return table;
}

AnalysisReport run_logit_lens(const AnalysisRequest& request) {
  const auto& loaded = *request.models.front();
  const auto text = one_text(request.settings);
  const auto ids = loaded.tokenizer->encode(text).ids;
  if (ids.empty()) throw SettingError("text", "gives no tokens (an empty text)");
  const auto n = static_cast<int64_t>(ids.size());
  if (n > loaded.config.max_positions)
    throw SettingError("text", "is " + std::to_string(n) + " tokens; " + loaded.name + " allows " +
                                   std::to_string(loaded.config.max_positions));
  LogitLensSettings settings;
  settings.positions = lens_positions(request.settings, n);
  settings.k = request.settings.integer("k");
  settings.heads = request.settings.flag("heads");
  if (settings.k > loaded.config.vocab_size)
    throw SettingError("k", std::to_string(settings.k) + " is more than the vocabulary's " +
                                std::to_string(loaded.config.vocab_size) + " tokens");
  const auto target = request.settings.text("target");
  if (!target.empty()) settings.target = one_token_target(*loaded.tokenizer, target, loaded.name, "the lens scores one");
  ForwardOptions forward;
  forward.head_gates = request_gates(request, 0);
  AnalysisReport report;
  const auto result = logit_lens(*loaded.model, ids, settings, forward, request.phase(loaded.name + ": layers"));
  if (result.cancelled) return report.cancelled = true, report;
  auto table = lens_table(result, *loaded.tokenizer, ids, settings.k);
  table.set_meta("model", loaded.name);
  table.set_meta("tokens", n);
  table.set_meta("positions", static_cast<int64_t>(settings.positions.size()));
  table.set_meta("k", settings.k);
  table.set_meta("target", target.empty() ? std::string("next") : target);
  if (settings.heads) {
    auto heads = heads_table(result, *loaded.tokenizer, ids, settings.k);
    heads.set_meta("model", loaded.name);
    heads.set_meta("target", target.empty() ? std::string("next") : target);
    heads.set_meta("what", "each head's write at the position through the final norm (scaled by the model's last "
                           "state there) and the unembedding: direct logit attribution in logits (biases left out)");
    report.tables["heads"] = std::move(heads);
  }
  report.tables["csv"] = std::move(table);
  report.description = std::to_string(n) + " tokens, " + std::to_string(settings.positions.size()) + " positions read";
  return report;
}

}  // namespace

AnalysisDescriptor logit_lens_descriptor() {
  AnalysisDescriptor descriptor("logit-lens", "Logit lens",
                                "nostalgebraist 2020: every layer's residual stream read through the final norm and "
                                "the unembedding (top-k tokens, the next token's rank and probability, KL to the output)");
  descriptor.models = ModelRequirement::LanguageModel;
  descriptor.data = DataKind::Sentences;
  descriptor.fields = one_text_fields();
  append_fields(descriptor.fields, {
      text_field("positions", "Positions", "", "0-based positions or ranges (\"0,5,10-20\"; default the last 64)",
                 "LIST"),
      integer_field("k", "Top k", 5, 1, 1 << 20, "tokens listed per layer and position", "K"),
      text_field("target", "Target", "", "one token every position is scored against (default each one's next token)",
                 "TOKEN"),
      flag_field("heads", "Per head",
                 "also each head's write at every position read through the final norm and the unembedding (direct "
                 "logit attribution: --heads-out, or the table's per-head view)"),
      heads_off_field()});
  descriptor.outputs.push_back({"heads-out", "heads", "with --heads: each head's direct logit attribution (CSV)"});
  descriptor.tab.other_tables = {{"heads", "each head's write (DLA)"}};
  descriptor.plot = "logit-lens";
  descriptor.tab.order = 59;
  descriptor.tab.filled_fields = {"text", "text-file"};
  descriptor.tab.sentence_field = "text";
  descriptor.tab.description =
      "<b>Logit lens</b> (nostalgebraist 2020). The attention view's sentence read after every layer through the "
      "final norm and the unembedding: each cell is a layer's top token at a position, coloured by its probability "
      "(by the target's with a target); the table adds the top k, the next token's rank and probability and the KL "
      "divergence from the model's output (0 at the last layer). Layer 0 (emb) is the embeddings.";
  descriptor.run = run_logit_lens;
  return descriptor;
}

}  // namespace aw

// analysis/retrieval/retrieval_descriptor.cpp — `retrieval-heads`: Wu et al.'s retrieval score of every
// head on needle-in-a-haystack copy cases built from a text (needle_cases.h, retrieval_heads.h), over
// every case and per (length, depth).
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/retrieval/retrieval_heads.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/parse_number.h"
#include "models/text/corpus.h"
#include "models/text/inner_text.h"

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <limits>

namespace aw {
namespace {

// The needle of the needle-in-a-haystack test (Kamradt 2023), which Wu et al. 2024 use too.
const char* const kDefaultNeedle =
    "The best thing to do in San Francisco is eat a sandwich and sit in Dolores Park on a sunny day .";

std::vector<int64_t> parse_lengths(const SettingValues& settings, int64_t positions) {
  std::vector<int64_t> lengths;
  for (const auto& item : settings.list("lengths")) {
    int64_t length = 0;
    if (!parse_integer(item, length) || length < 2) throw SettingError("lengths", "must be whole numbers of at least 2, got '" + item + "'");
    if (length > positions)
      throw SettingError("lengths", "has " + item + ", more than the model's " + std::to_string(positions) + " positions");
    lengths.push_back(length);
  }
  if (lengths.empty()) lengths.push_back(positions);
  return lengths;
}

std::vector<double> parse_depths(const SettingValues& settings) {
  std::vector<double> depths;
  for (const auto& item : settings.list("depths")) {
    double depth = 0;
    if (!parse_real(item, depth) || depth < 0 || depth > 1)
      throw SettingError("depths", "must be numbers from 0 to 1, got '" + item + "'");
    depths.push_back(depth);
  }
  if (depths.empty()) throw SettingError("depths", "needs at least one depth");
  return depths;
}

// One needle per non-empty line of the file, or the default needle.
std::vector<std::vector<int64_t>> read_needles(const SettingValues& settings, const Tokenizer& tokenizer) {
  std::vector<std::vector<int64_t>> needles;
  if (!settings.given("needles")) return {encode_inner(tokenizer, kDefaultNeedle).ids};
  const auto path = settings.text("needles");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (" + system_error() + ")");
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    require_line_length(path, number, line);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    needles.push_back(encode_inner(tokenizer, line).ids);  // inside the haystack: no <s> of its own
  }
  if (needles.empty()) fail_in_file(path, "holds no needle (one sentence a line)");
  return needles;
}

// Each head's share of the copied tokens it retrieved: [L, H_max] (NaN when nothing was copied).
torch::Tensor scores_of(const torch::Tensor& hits, double copied) {
  return copied > 0 ? hits / copied : torch::full_like(hits, std::numeric_limits<double>::quiet_NaN());
}

// One row per head: `leading` cells, then layer, head and its score.
void add_head_rows(ResultTable& table, const std::vector<std::vector<double>>& scores, const std::vector<Cell>& leading) {
  for (size_t layer = 0; layer < scores.size(); ++layer)
    for (size_t head = 0; head < scores[layer].size(); ++head) {
      auto row = leading;
      append_cells(row, {static_cast<int64_t>(layer + 1), static_cast<int64_t>(head + 1), scores[layer][head]});
      table.add_row(std::move(row));
    }
}

AnalysisReport run_retrieval(const AnalysisRequest& request) {
  AnalysisReport report;
  const auto& settings = request.settings;
  const auto& loaded = *request.models.front();
  NeedleSettings needle;
  needle.lengths = parse_lengths(settings, loaded.config.max_positions);
  needle.depths = parse_depths(settings);
  needle.cue = settings.integer("cue");
  if (!settings.text("prompt").empty()) needle.prompt = encode_inner(*loaded.tokenizer, settings.text("prompt")).ids;
  const auto text = settings.required_text("text");
  const auto haystack = read_token_corpus(text, *loaded.tokenizer);
  const auto needles = read_needles(settings, *loaded.tokenizer);
  std::vector<NeedleCase> cases;
  try {
    cases = needle_cases(haystack, needles, needle);
  } catch (const Error& error) {
    throw Error(text + ": " + error.what());
  }
  ForwardOptions forward;
  forward.head_gates = request_gates(request, 0);
  const auto result = retrieval_heads(*loaded.model, cases, needle, settings.integer("batch"), forward,
                                      request.phase(loaded.name + ": cases"));
  if (result.cancelled) return report.cancelled = true, report;
  const double copied = result.copied.sum().item<double>(), asked = result.asked.sum().item<double>();
  if (copied == 0)
    throw Error(loaded.dir + ": copied none of the " + std::to_string(static_cast<int64_t>(asked)) +
                " needle tokens after the cue: there is no copy to attribute to a head, so no retrieval score");

  ResultTable overall;
  overall.meta("model", loaded.name);
  overall.meta("cases", static_cast<int64_t>(cases.size()));
  overall.meta("needle_tokens", static_cast<int64_t>(asked));
  overall.meta("copied", static_cast<int64_t>(copied));
  overall.meta("copy_rate", copied / asked);
  overall.meta("data", std::filesystem::path(text).filename().string());
  overall.add_column("layer", ColumnType::Integer).add_column("head", ColumnType::Integer).add_column("retrieval_score", ColumnType::Number);
  const auto overall_scores = layer_head_values(scores_of(result.hits.sum(0), copied), result.heads_per_layer);
  add_head_rows(overall, overall_scores, {});
  ResultTable groups;
  groups.meta("model", loaded.name);
  groups.add_column("length", ColumnType::Integer).add_column("depth", ColumnType::Number);
  groups.add_column("copied", ColumnType::Integer).add_column("needle_tokens", ColumnType::Integer);
  groups.add_column("layer", ColumnType::Integer).add_column("head", ColumnType::Integer).add_column("retrieval_score", ColumnType::Number);
  const auto group_copied = result.copied.accessor<double, 1>(), group_asked = result.asked.accessor<double, 1>();
  for (size_t g = 0; g < result.lengths.size(); ++g) {
    const auto at = static_cast<int64_t>(g);
    add_head_rows(groups, layer_head_values(scores_of(result.hits[at], group_copied[at]), result.heads_per_layer),
                  {result.lengths[g], result.depths[g], static_cast<int64_t>(group_copied[at]),
                   static_cast<int64_t>(group_asked[at])});
  }
  HeadScores scores{"retrieval", overall_scores, 1, 0};
  report.tables["csv"] = std::move(overall);
  report.tables["groups"] = std::move(groups);
  report.head_scores = std::move(scores);
  return report;
}

}  // namespace

AnalysisDescriptor retrieval_heads_descriptor() {
  AnalysisDescriptor descriptor("retrieval-heads", "Retrieval",
                                "Wu et al. 2024: the share of needle tokens copied from a haystack that each head "
                                "looks at when they are copied");
  descriptor.models = ModelRequirement::LanguageModel;
  auto depths = text_field("depths", "Depths", "0,0.25,0.5,0.75,1", "where the needle goes in the haystack (0 = first)",
                           "D,…");
  depths.kind = FieldKind::List;
  auto lengths = text_field("lengths", "Lengths", "", "tokens per case (default: the model's positions)", "N,…");
  lengths.kind = FieldKind::List;
  descriptor.fields = {
      path_field("text", "Haystack", true, "the text the haystacks are cut from"),
      path_field("needles", "Needles", false, "one needle sentence a line (default: the San Francisco needle)"),
      lengths,
      depths,
      integer_field("cue", "Cue", 2, 0, 1 << 20, "needle tokens written after the prompt, before the copy is scored"),
      text_field("prompt", "Prompt", "", "text between the haystack and the cue (default none)", "TEXT"),
      integer_field("batch", "Batch", 4, 1, 1 << 20, "cases per forward", "B"),
      heads_off_field()};
  descriptor.outputs.push_back({"groups", "groups", "each head's score per length and depth (CSV)"});
  descriptor.plot = "head-scores";
  descriptor.tab.order = 58;
  descriptor.tab.other_tables = {{"groups", "per length and depth"}};
  descriptor.tab.score_label = "retrieval";
  descriptor.tab.description =
      "<b>Retrieval heads.</b> The retrieval score of Wu et al. (2024): a needle sentence is put at each depth of haystacks cut from the text; "
      "after the haystack come the prompt and the needle's first tokens, and the model should copy the rest. A head's "
      "score is the share of correctly copied needle tokens for which its highest-weight key is that token in the "
      "needle. Definitions: docs/retrieval-heads.md.";
  descriptor.run = run_retrieval;
  return descriptor;
}

}  // namespace aw

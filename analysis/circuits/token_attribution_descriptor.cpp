// analysis/circuits/token_attribution_descriptor.cpp — `token-attribution`: one text's tokens scored
// by how much an output draws on them through the attention (the last layer's attention, rollout,
// flow, gradient-weighted rollout: token_attribution.h), and each ranking's deletion and insertion
// curves beside a random ranking's (token_curves.h).
#include "analysis/capture/attention_capture.h"
#include "analysis/circuits/token_curves.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/core/shared_settings.h"
#include "analysis/core/text_settings.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/parse_number.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace aw {
namespace {

constexpr int64_t kFlowTokens = 256;  // attention flow: one max-flow problem per token over L·n² edges

std::vector<bool> asked_methods(const SettingValues& settings) {
  const auto& names = attribution_method_names();
  std::vector<bool> asked(names.size(), false);
  for (const auto& name : split_list(settings.text("methods"))) {
    const auto found = std::find(names.begin(), names.end(), name);
    if (found == names.end())
      throw SettingError("methods", "'" + name + "' is not a method (attention, rollout, flow, gradient)");
    asked[found - names.begin()] = true;
  }
  return asked;
}

// The explained output: a language model's position (default the last) and token (default −1: its top
// prediction there, which the attribution's forward reads), or a classifier's class (default the predicted).
AttributionOutput explained_output(const SettingValues& settings, const LoadedModel& loaded, const ModelInput& input) {
  const auto n = input.input_ids.size(1);
  AttributionOutput output;
  const auto& config = loaded.config;
  if (config.is_classifier()) {
    if (!settings.text("position").empty())
      throw SettingError("position", "applies to a language model; " + loaded.name + " is a classifier: its output "
                                     "reads the pooled text");
  } else {
    output.position = n - 1;
    const auto position = settings.text("position");
    if (!position.empty() && (!parse_integer(position, output.position) || output.position < 0 || output.position >= n))
      throw SettingError("position", "'" + position + "' is not a position of the text's " + std::to_string(n) +
                                         " tokens (0 to " + std::to_string(n - 1) + ")");
  }
  const auto target = settings.text("target");
  if (target.empty()) {
    output.target = -1;
  } else if (config.is_classifier()) {
    const auto found = std::find(config.labels.begin(), config.labels.end(), target);
    if (found == config.labels.end())
      throw SettingError("target", "'" + target + "' is not one of " + loaded.name + "'s classes");
    output.target = found - config.labels.begin();
  } else {
    output.target = one_token_target(*loaded.tokenizer, target, loaded.name, "a target is one token");
  }
  return output;
}

std::string target_name(const LoadedModel& loaded, const AttributionOutput& output) {
  return loaded.config.is_classifier() ? loaded.config.labels.at(output.target) : loaded.tokenizer->token_text(output.target);
}

ResultTable scores_table(const TokenAttribution& attribution, const Encoding& encoding, const Tokenizer& tokenizer) {
  ResultTable table;
  table.add_column("position", ColumnType::Integer).add_column("token", ColumnType::Text);
  for (const auto& name : attribution_method_names()) table.add_column(name, ColumnType::Number);
  for (size_t i = 0; i < encoding.ids.size(); ++i) {
    std::vector<Cell> row{cell(static_cast<int64_t>(i)), cell(tokenizer.token_text(encoding.ids[i]))};
    for (const auto& scores : attribution.scores) row.push_back(scores.defined() ? cell(scores[i].item<double>()) : Cell{});
    table.add_row(std::move(row));
  }
  return table;
}

// The positions whose removal is measured: all but the explained one (a language model: those before
// it, the only ones it sees; a classifier pooling its first position: all but that one).
std::vector<int64_t> removable(const LoadedModel& loaded, const AttributionOutput& output, int64_t n) {
  std::vector<int64_t> candidates;
  const bool first_pooled = loaded.config.is_classifier() && loaded.config.pooling == Pooling::First;
  const auto end = output.position >= 0 && loaded.config.causal ? output.position + 1 : n;
  for (int64_t i = 0; i < end; ++i)
    if (i != output.position && !(first_pooled && i == 0)) candidates.push_back(i);
  return candidates;
}

AnalysisReport run_token_attribution(const AnalysisRequest& request) {
  const auto& loaded = *request.models.front();
  const auto& settings = request.settings;
  if (!loaded.config.is_language_model() && !loaded.config.is_classifier())
    throw Error(loaded.name + ": token-attribution explains a language model's prediction or a classifier's class; "
                "this checkpoint is " + describe_model_kind(loaded.config));
  const auto methods = asked_methods(settings);
  const auto encoding = loaded.tokenizer->encode(one_text(settings));
  const auto n = static_cast<int64_t>(encoding.ids.size());
  if (n == 0) throw SettingError("text", "gives no tokens (an empty text)");
  if (n > loaded.config.max_positions)
    throw SettingError("text", "is " + std::to_string(n) + " tokens; " + loaded.name + " allows " +
                                   std::to_string(loaded.config.max_positions));
  const bool with_flow = methods[static_cast<int>(AttributionMethod::Flow)];
  const auto flow_limit = settings.integer("flow-limit");
  if (with_flow && n > flow_limit)
    throw SettingError("methods", "flow on " + std::to_string(n) + " tokens: attention flow solves one max-flow problem "
                                  "per token over L·n² edges and stops at --flow-limit " + std::to_string(flow_limit) +
                                  " tokens; leave flow out, shorten the text or raise the limit");
  const auto input = encoding_input(encoding);
  ForwardOptions options;
  options.head_gates = request_gates(request, 0);
  auto output = explained_output(settings, loaded, input);
  const auto candidates = removable(loaded, output, n);
  if (candidates.empty())
    throw SettingError("text", "has no token besides the explained one to attribute to (" + std::to_string(n) + " tokens)");

  AnalysisReport report;
  if (!request.report(0, 3, loaded.name + ": attribution")) return report.cancelled = true, report;
  const auto device_input = input.to(loaded.device);
  const auto attribution = attribute_tokens(*loaded.model, device_input, output, with_flow, options);
  output.target = attribution.target;
  auto table = scores_table(attribution, encoding, *loaded.tokenizer);
  if (!request.report(1, 3, loaded.name + ": curves")) return report.cancelled = true, report;

  const auto counts = curve_counts(static_cast<int64_t>(candidates.size()), settings.integer("steps"));
  ResultTable curves, summary;
  curves.add_column("method", ColumnType::Text).add_column("curve", ColumnType::Text);
  curves.add_column("removed", ColumnType::Integer).add_column("share_removed", ColumnType::Number);
  curves.add_column("probability", ColumnType::Number);
  summary.add_column("method", ColumnType::Text).add_column("deletion_area", ColumnType::Number);
  summary.add_column("insertion_area", ColumnType::Number);
  auto add = [&](const RankingCurves& result) {
    const auto m = static_cast<double>(candidates.size());
    for (const auto* curve : {&result.deletion, &result.insertion})
      for (const auto& point : *curve)
        curves.row(result.method, curve == &result.deletion ? "deletion" : "insertion", point.removed,
                   static_cast<double>(point.removed) / m, point.probability);
    summary.row(result.method, result.deletion_area, result.insertion_area);
  };
  const auto& names = attribution_method_names();
  for (size_t method = 0; method < names.size(); ++method) {
    if (!methods[method]) continue;
    const std::vector<std::vector<int64_t>> order{ranked(attribution.scores[method], candidates)};
    add(ranking_curves(*loaded.model, device_input, output, order, counts, options, names[method]));
  }
  std::mt19937_64 random(static_cast<uint64_t>(settings.integer("seed")));
  std::vector<std::vector<int64_t>> shuffled(static_cast<size_t>(settings.integer("random-orders")), candidates);
  for (auto& order : shuffled) std::shuffle(order.begin(), order.end(), random);
  add(ranking_curves(*loaded.model, device_input, output, shuffled, counts, options, "random"));
  if (!request.report(3, 3, loaded.name + ": curves")) return report.cancelled = true, report;

  for (auto* each : {&table, &curves, &summary}) {
    each->meta("model", loaded.name);
    each->meta("target", target_name(loaded, output));
    if (output.position >= 0) each->meta("position", output.position);
  }
  table.meta("logit", attribution.logit).meta("probability", attribution.probability);
  summary.meta("random_orders", settings.integer("random-orders")).meta("seed", settings.integer("seed"));
  report.tables["csv"] = std::move(table);
  report.tables["curves"] = std::move(curves);
  report.tables["summary"] = std::move(summary);
  report.description = loaded.name + ": " + std::to_string(n) + " tokens, target " + target_name(loaded, output);
  return report;
}

}  // namespace

AnalysisDescriptor token_attribution_descriptor() {
  AnalysisDescriptor descriptor("token-attribution", "Token attribution",
                                "Abnar & Zuidema 2020, Chefer et al. 2021: each token's share in an output through the "
                                "attention (rollout, flow, gradient-weighted rollout) and the deletion/insertion curves");
  descriptor.models = ModelRequirement::TokenSelfAttention;
  descriptor.data = DataKind::Sentences;
  descriptor.fields = one_text_fields();
  append_fields(descriptor.fields, {
      text_field("position", "Position", "", "the 0-based position whose prediction is explained (default the last; "
                                             "language models)", "P"),
      text_field("target", "Target", "", "the token (language model) or class (classifier) whose logit is explained "
                                         "(default the model's top prediction)", "TOKEN"),
      text_field("methods", "Methods", "attention,rollout,flow,gradient",
                 "the rankings computed: attention (the last layer's), rollout, flow (up to 256 tokens), gradient",
                 "LIST"),
      integer_field("flow-limit", "Flow limit", kFlowTokens, 2, 1 << 16,
                    "the longest text attention flow is computed for (its cost grows as n³ per token)", "N"),
      integer_field("steps", "Curve steps", 20, 1, 1 << 20, "points of each deletion and insertion curve", "K"),
      integer_field("random-orders", "Random orders", 8, 1, 1 << 16, "random rankings the random curve averages", "R"),
      integer_field("seed", "Seed", 1, 0, int64_t{1} << 62, "the random rankings' seed", "S"),
      heads_off_field()});
  descriptor.outputs.push_back({"curves-out", "curves", "each ranking's deletion and insertion curve (CSV)"});
  descriptor.outputs.push_back({"summary-out", "summary", "the area under each curve (CSV)"});
  descriptor.plot = "token-attribution";  // one strip of coloured tokens per method
  descriptor.tab.other_tables = {{"curves", "deletion and insertion curves"}, {"summary", "areas under the curves"}};
  descriptor.tab.order = 62;
  descriptor.tab.group = "Circuits";
  descriptor.tab.filled_fields = {"text", "text-file"};
  descriptor.tab.sentence_field = "text";
  descriptor.tab.description =
      "<b>Token attribution</b> (Abnar &amp; Zuidema 2020; Chefer et al. 2021). The attention view's sentence: how much "
      "the prediction at the last position (a classifier: its class) draws on each token, read through the last "
      "layer's attention, attention rollout, attention flow and gradient-weighted rollout; and how faithful each "
      "ranking is: the prediction's probability as the top tokens are removed (deletion: lower is better) or restored "
      "(insertion: higher), beside random rankings. Definitions: docs/circuits.md.";
  descriptor.run = run_token_attribution;
  return descriptor;
}

}  // namespace aw

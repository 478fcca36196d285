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
#include "models/translation/translation_codec.h"

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

// What is explained and over which tokens: the input, each token's label (a translation model: the
// source's, then the target's, with `sides`), the output, and the positions the curves may remove.
struct Explained {
  ModelInput input;
  std::vector<std::string> tokens, sides;  // sides: empty, or "source"/"target" per token
  std::vector<int64_t> positions;           // each token's position within its sequence
  AttributionOutput output;
  std::vector<int64_t> candidates;
};

// The explained position (default the last of `length`) from --position.
int64_t explained_position(const SettingValues& settings, int64_t length, const std::string& sequence) {
  int64_t position = length - 1;
  const auto text = settings.text("position");
  if (!text.empty() && (!parse_integer(text, position) || position < 0 || position >= length))
    throw SettingError("position", "'" + text + "' is not a position of " + sequence + " (0 to " +
                                       std::to_string(length - 1) + ")");
  return position;
}

void check_length(int64_t length, const LoadedModel& loaded, const std::string& field, const std::string& what) {
  if (length > loaded.config.max_positions)
    throw SettingError(field, "is " + std::to_string(length) + " tokens" + what + "; " + loaded.name + " allows " +
                                  std::to_string(loaded.config.max_positions));
}

// A language model's position (default the last) and token (default −1: its top prediction there, which
// the attribution's forward reads), or a classifier's class (default the predicted); the positions the
// curves remove: all but the explained one (a language model: those before it, the only ones it sees;
// a classifier pooling its first position: all but that one).
Explained one_sequence(const SettingValues& settings, const LoadedModel& loaded) {
  const auto& config = loaded.config;
  if (!settings.text("translation").empty())
    throw SettingError("translation", "applies to a translation model; " + loaded.name + " reads one text");
  const auto encoding = loaded.tokenizer->encode(one_text(settings));
  const auto n = static_cast<int64_t>(encoding.ids.size());
  if (n == 0) throw SettingError("text", "gives no tokens (an empty text)");
  check_length(n, loaded, "text", "");
  Explained explained;
  explained.input = encoding_input(encoding);
  for (int64_t i = 0; i < n; ++i) {
    explained.tokens.push_back(loaded.tokenizer->token_text(encoding.ids[i]));
    explained.positions.push_back(i);
  }
  auto& output = explained.output;
  if (config.is_classifier()) {
    if (!settings.text("position").empty())
      throw SettingError("position", "applies to a language model; " + loaded.name + " is a classifier: its output "
                                     "reads the pooled text");
  } else {
    output.position = explained_position(settings, n, "the text's " + std::to_string(n) + " tokens");
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
  const bool first_pooled = config.is_classifier() && config.pooling == Pooling::First;
  const auto end = output.position >= 0 && config.causal ? output.position + 1 : n;
  for (int64_t i = 0; i < end; ++i)
    if (i != output.position && !(first_pooled && i == 0)) explained.candidates.push_back(i);
  return explained;
}

// A translation model: the source (--text) and the target the decoder has read (--translation,
// teacher-forced: start, its tokens; no EOS), the prediction at a target position (default the last:
// the token after the given translation); the curves remove source tokens, all but the closing EOS
// (with every source token masked the cross-attention would have no key).
Explained translation_pair(const SettingValues& settings, const LoadedModel& loaded) {
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  const auto text = one_text(settings);
  if (loaded.tokenizer->encode(text).ids.empty()) throw SettingError("text", "gives no tokens (an empty source)");
  const auto source = codec.source_ids(text);
  auto target = codec.decoder_ids(settings.text("translation"));
  target.pop_back();  // the EOS: what follows the given translation is what is explained
  const auto n = static_cast<int64_t>(source.size()), m = static_cast<int64_t>(target.size());
  check_length(n, loaded, "text", " with EOS");
  check_length(m, loaded, "translation", " with the decoder's start");
  Explained explained;
  explained.input.input_ids = torch::tensor(source, torch::kLong).unsqueeze(0);
  explained.input.decoder_input_ids = torch::tensor(target, torch::kLong).unsqueeze(0);
  for (int64_t i = 0; i < n; ++i) {
    explained.tokens.push_back(loaded.tokenizer->token_text(source[i]));
    explained.sides.push_back("source"), explained.positions.push_back(i);
  }
  for (int64_t i = 0; i < m; ++i) {
    explained.tokens.push_back(loaded.target_tokenizer->token_text(target[i]));
    explained.sides.push_back("target"), explained.positions.push_back(i);
  }
  explained.output.position = explained_position(
      settings, m, "the decoder's " + std::to_string(m) + " tokens (its start, then the translation's)");
  const auto token = settings.text("target");
  explained.output.target = token.empty() ? -1
                                          : one_token_target(*loaded.target_tokenizer, token, loaded.name,
                                                             "a target is one token of the target side");
  for (int64_t i = 0; i + 1 < n; ++i) explained.candidates.push_back(i);
  return explained;
}

std::string target_name(const LoadedModel& loaded, const AttributionOutput& output) {
  if (loaded.config.is_classifier()) return loaded.config.labels.at(output.target);
  const auto& tokenizer = loaded.config.is_translation() ? *loaded.target_tokenizer : *loaded.tokenizer;
  return tokenizer.token_text(output.target);
}

ResultTable scores_table(const TokenAttribution& attribution, const Explained& explained) {
  ResultTable table;
  if (!explained.sides.empty()) table.add_column("side", ColumnType::Text);
  table.add_column("position", ColumnType::Integer).add_column("token", ColumnType::Text);
  for (const auto& name : attribution_method_names()) table.add_column(name, ColumnType::Number);
  for (size_t i = 0; i < explained.tokens.size(); ++i) {
    std::vector<Cell> row;
    if (!explained.sides.empty()) row.push_back(cell(explained.sides[i]));
    row.push_back(cell(explained.positions[i]));
    row.push_back(cell(explained.tokens[i]));
    for (const auto& scores : attribution.scores)
      row.push_back(scores.defined() ? cell(scores[static_cast<int64_t>(i)].item<double>()) : Cell{});
    table.add_row(std::move(row));
  }
  return table;
}

AnalysisReport run_token_attribution(const AnalysisRequest& request) {
  const auto& loaded = *request.models.front();
  const auto& settings = request.settings;
  const auto& config = loaded.config;
  if (!config.is_language_model() && !config.is_classifier() && !config.is_translation())
    throw Error(loaded.name + ": token-attribution explains a language model's or a translation model's prediction, "
                "or a classifier's class; this checkpoint is " + describe_model_kind(config));
  const auto methods = asked_methods(settings);
  auto explained = config.is_translation() ? translation_pair(settings, loaded) : one_sequence(settings, loaded);
  auto& output = explained.output;
  const auto n = static_cast<int64_t>(explained.tokens.size());
  const bool with_flow = methods[static_cast<int>(AttributionMethod::Flow)];
  const auto flow_limit = settings.integer("flow-limit");
  if (with_flow && n > flow_limit)
    throw SettingError("methods", "flow on " + std::to_string(n) + " tokens: attention flow solves one max-flow problem "
                                  "per token over L·n² edges and stops at --flow-limit " + std::to_string(flow_limit) +
                                  " tokens; leave flow out, shorten the text or raise the limit");
  ForwardOptions options;
  options.head_gates = request_gates(request, 0);
  const auto& candidates = explained.candidates;
  if (candidates.empty())
    throw SettingError("text", "has no token besides the explained one to attribute to (" + std::to_string(n) + " tokens)");

  AnalysisReport report;
  if (!request.report(0, 3, loaded.name + ": attribution")) return report.cancelled = true, report;
  const auto device_input = explained.input.to(loaded.device);
  const auto attribution = attribute_tokens(*loaded.model, device_input, output, with_flow, options);
  output.target = attribution.target;
  auto table = scores_table(attribution, explained);
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
  const auto source = std::count(explained.sides.begin(), explained.sides.end(), "source");
  report.description = loaded.name + ": " +
                       (explained.sides.empty() ? std::to_string(n) + " tokens"
                                                : std::to_string(source) + " source and " + std::to_string(n - source) +
                                                      " target tokens") +
                       ", target " + target_name(loaded, output);
  return report;
}

}  // namespace

AnalysisDescriptor token_attribution_descriptor() {
  AnalysisDescriptor descriptor("token-attribution", "Token attribution",
                                "Abnar & Zuidema 2020, Chefer et al. 2021: each token's share in an output through the "
                                "attention (rollout, flow, gradient-weighted rollout) and the deletion/insertion curves");
  descriptor.models = ModelRequirement::TokenAttention;
  descriptor.data = DataKind::Sentences;
  descriptor.fields = one_text_fields();
  auto translation = text_field("translation", "Translation", "",
                                "translation models: the target text the decoder has read, teacher-forced (default "
                                "none: the first target token is explained)", "TEXT");
  translation.applies_to = kTranslationModels;
  auto position = text_field("position", "Position", "",
                             "the 0-based position whose prediction is explained (default the last; language models, "
                             "and the decoder's sequence of a translation model, its start token at 0)", "P");
  position.applies_to = kLanguageModels | kTranslationModels;
  append_fields(descriptor.fields, {
      std::move(translation), std::move(position),
      text_field("target", "Target", "", "the token (language or translation model) or class (classifier) whose logit "
                                         "is explained (default the model's top prediction)", "TOKEN"),
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
      "(insertion: higher), beside random rankings. A translation model: the next target token after the given "
      "translation, drawn from the source's tokens and the target's (the curves remove source tokens). "
      "Definitions: docs/circuits.md.";
  descriptor.run = run_token_attribution;
  return descriptor;
}

}  // namespace aw

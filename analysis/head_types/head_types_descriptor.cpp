// analysis/head_types/head_types_descriptor.cpp — `head-types`: previous-token, duplicate-token,
// induction, sink, entropy and self scores of every head (analysis/head_types/head_types.h), the
// induction score on generated repeated random sequences (repeated_tokens.h), the others on a
// corpus when one is given.
#include "analysis/core/corpus_data.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/head_types/head_types.h"
#include "analysis/head_types/repeated_tokens.h"
#include "models/errors.h"
#include "models/parse_number.h"

#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace aw {
namespace {

constexpr int64_t kDefaultRepeatLength = 50;  // TransformerLens's induction demo repeats 50 tokens

double sink_epsilon(const SettingValues& settings) {
  const auto text = settings.text("sink-epsilon");
  double epsilon = 0;
  if (!parse_real(text, epsilon)) throw SettingError("sink-epsilon", "must be a number, got '" + text + "'");
  if (!(epsilon > 0 && epsilon < 1)) throw SettingError("sink-epsilon", "must be between 0 and 1 (exclusive), got " + text);
  return epsilon;
}

// The generated sequences for `loaded`: T tokens repeated, 2T within its positions.
RepeatedTokens repeated_settings(const SettingValues& settings, const LoadedModel& loaded) {
  RepeatedTokens repeated;
  repeated.sequences = settings.integer("sequences");
  repeated.batch = settings.integer("batch");
  repeated.seed = static_cast<uint64_t>(settings.integer("seed"));
  const int64_t positions = loaded.config.max_positions;
  if (settings.given("length")) {
    repeated.length = settings.integer("length");
    if (2 * repeated.length > positions)
      throw SettingError("length", "is " + std::to_string(repeated.length) + ": twice that must fit " + loaded.name +
                                       "'s " + std::to_string(positions) + " positions");
  } else {
    repeated.length = std::min(kDefaultRepeatLength, positions / 2);
  }
  return repeated;
}

std::string generated_text(const RepeatedTokens& repeated) {
  return std::to_string(repeated.sequences) + " random sequences of " + std::to_string(repeated.length) +
         " tokens repeated once, seed " + std::to_string(repeated.seed);
}

AnalysisReport run_head_types(const AnalysisRequest& request) {
  AnalysisReport report;
  const auto& settings = request.settings;
  const auto& loaded = *request.models.front();
  const double epsilon = sink_epsilon(settings);
  const auto score = settings.choice("score");
  if (score == "learned_sink" && !loaded.config.decoder.attention_sinks)
    throw SettingError("score", "learned_sink: " + loaded.name + " is a " + loaded.config.family_name() +
                                    " model without learned sinks (gpt_oss has them)");
  const auto repeated = repeated_settings(settings, loaded);
  ForwardOptions forward;
  forward.head_gates = request_gates(request, 0);

  HeadTypesResult result;
  result.model = loaded.name;
  result.sink_epsilon = epsilon;
  result.learned_sinks = loaded.config.decoder.attention_sinks;
  HeadTypeSources sources;
  if (settings.given("text")) {
    const auto corpus = corpus_data(corpus_settings(settings), loaded, "head-types", request.note);
    for (const auto& batch : corpus.inputs) result.corpus_sequences += batch.input_ids.size(0);
    sources.corpus = head_type_sums(*loaded.model, corpus.inputs, forward, request.phase(loaded.name + ": corpus"));
    if (!sources.corpus.defined()) return report.cancelled = true, report;
  }
  const auto pool = ordinary_token_ids(*loaded.tokenizer);
  if (pool.empty()) throw Error(loaded.dir + ": head-types found no ordinary token in the vocabulary to draw from");
  const auto generated = repeated_token_batches(pool, repeated);
  result.generated_sequences = repeated.sequences;
  sources.generated = head_type_sums(*loaded.model, generated, forward, request.phase(loaded.name + ": repeated tokens"));
  if (!sources.generated.defined()) return report.cancelled = true, report;
  result.heads = head_type_scores(sources, loaded.config.heads_per_block);

  auto table = head_types_table(result);
  table.meta("induction_on", generated_text(repeated));
  // The file's name, not its path: a CSV made elsewhere reads the same.
  table.meta("scores_on", settings.given("text") ? std::filesystem::path(settings.text("text")).filename().string()
                                                  : std::string("the generated sequences"));
  table.meta("shown", score);
  report.tables["csv"] = std::move(table);
  const auto type = static_cast<HeadType>(head_type_index(score));
  report.head_scores = HeadScores{score, result.values(type), 1, 0};
  report.description = loaded.name + ": sink rate " + std::to_string(result.sink_rate()) + " at ε = " +
                       settings.text("sink-epsilon");
  return report;
}

std::vector<SettingField> head_types_fields() {
  auto fields = corpus_fields();
  auto& text = fields.front();
  text.required = false;
  text.help = "text the scores other than induction are read on (default: the generated sequences); "
              "label<TAB>text lines for a classifier";
  fields.push_back(integer_field("sequences", "Sequences", 32, 1, 1 << 20,
                                 "random token sequences, each repeated once, the induction score is read on"));
  auto length = integer_field("length", "Repeat length", kDefaultRepeatLength, 2, 1 << 20,
                              "tokens before the repeat (default min(50, half the model's positions))", "T");
  length.default_text.clear();  // the model decides
  fields.push_back(length);
  fields.push_back(integer_field("seed", "Seed", 1, 0, int64_t{1} << 62, "the random sequences' seed", "S"));
  auto epsilon = text_field("sink-epsilon", "Sink ε", "0.3",
                            "a head is a sink when its mean weight on the first token (or its learned sink's share: gpt-oss) "
                            "exceeds ε (Gu et al. 2024)", "E");
  epsilon.kind = FieldKind::Number;
  fields.push_back(epsilon);
  std::vector<std::string> names(head_type_names().begin(), head_type_names().end());
  auto score = choice_field("score", "Colour by", names, "induction", "the score that colours the heads panel");
  score.in_form = false;  // the window's tab has its own chooser under the map, which also colours the panel
  fields.push_back(score);
  fields.push_back(heads_off_field());
  return fields;
}

}  // namespace

AnalysisDescriptor head_types_descriptor() {
  AnalysisDescriptor descriptor("head-types", "Head types",
                                "previous-token, duplicate-token, induction, sink, entropy and self score per "
                                "head (and learned sink: gpt-oss)");
  descriptor.models = ModelRequirement::TokenSelfAttention;
  descriptor.fields = head_types_fields();
  descriptor.plot = "head-types";
  descriptor.tab.order = 55;
  descriptor.tab.score_label = "head type";
  descriptor.tab.description =
      "<b>Head types.</b> Per head: previous-token (mean weight on the token before), duplicate-token (weight on "
      "earlier copies of the token), induction (weight on the token after an earlier copy, read on random sequences "
      "repeated once), sink α₁ (mean weight on the first token; the sink rate is the share of heads above ε), "
      "attention entropy (nats) and self (the diagonal). The scores other than induction are read on the data file, "
      "or on the random sequences when none is given. Definitions: docs/head-types.md.";
  descriptor.run = run_head_types;
  return descriptor;
}

}  // namespace aw

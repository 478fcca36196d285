// analysis/attention_stats/top_tokens_descriptor.cpp — Bird-Eye Table 3 as a descriptor: the top-k tokens each
// model attends to (head mean, row of token t−1) per layer when predicting token t
// (analysis/attention_stats/top_tokens.h). Several models side by side make the table's "method" column. Translation
// models translate each sentence and report the source tokens their cross-attention reads most per
// generated token.
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/shared_settings.h"
#include "models/checkpoint/checkpoint.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/attention_stats/top_tokens.h"

namespace aw {
namespace {

// What the top-tokens fields ask for: the sentences (with their targets) and k.
struct TopTokensSettings {
  std::vector<TopTokensRequest> sentences;
  int64_t k = 3;
  DecodingSettings decoding;
};

TopTokensSettings top_tokens_settings(const SettingValues& settings) {
  if (settings.text("text").empty() == settings.text("sentences").empty())
    throw SettingError("", "give either --text \"sentence\" or --sentences FILE");
  TopTokensSettings asked;
  if (!settings.text("sentences").empty()) asked.sentences = read_top_token_requests(settings.text("sentences"));
  else asked.sentences.push_back({settings.text("text"), -1});
  if (settings.given("target"))
    for (auto& sentence : asked.sentences) sentence.target = settings.integer("target");
  asked.k = settings.integer("k");
  asked.decoding = decoding_settings(settings);
  return asked;
}

AnalysisReport run_top_tokens(const AnalysisRequest& request) {
  const auto asked = top_tokens_settings(request.settings);
  // One CSV's layer column means one thing: every model a language model, or every one a translation model.
  const bool translation = request.models.front()->config.is_translation();
  for (const auto& loaded : request.models)
    if (loaded->config.is_translation() != translation)
      throw SettingError("", "top-tokens compares models of one kind: " + request.models.front()->name + " is " +
                                 describe_model_kind(request.models.front()->config) + ", " + loaded->name + " is " +
                                 describe_model_kind(loaded->config));
  if (asked.decoding.beam_given && !translation)
    throw SettingError("beam", "applies to translation models; " + request.models.front()->name + " is " +
                                   describe_model_kind(request.models.front()->config));
  SearchSettings search;
  search.beam = asked.decoding.beam;
  AnalysisReport report;
  std::vector<TopTokensRow> rows;
  for (size_t index = 0; index < request.models.size(); ++index) {
    const auto& loaded = *request.models[index];
    ForwardOptions forward;
    forward.head_gates = request_gates(request, index);
    bool cancelled = false;
    const auto phase = request.phase(loaded.name + ": sentences");
    std::vector<TopTokensRow> model_rows;
    if (translation) {
      const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
      model_rows = top_source_tokens(*loaded.model->sequence_to_sequence(), codec, loaded.name,
                                     asked.sentences, asked.k, search, forward, phase, &cancelled);
    } else {
      model_rows = top_attended_tokens(*loaded.model, *loaded.tokenizer, loaded.name, asked.sentences, asked.k, forward,
                                       phase, &cancelled);
    }
    if (cancelled) return report.cancelled = true, report;
    rows.insert(rows.end(), model_rows.begin(), model_rows.end());
  }
  report.tables["csv"] = top_tokens_table(rows, asked.k);
  return report;
}

}  // namespace

AnalysisDescriptor top_tokens_descriptor() {
  AnalysisDescriptor descriptor("top-tokens", "Top tokens",
                                "Bird-Eye Table 3: top-k tokens attended (head mean, row of token t−1) per layer");
  // The row of token t−1 predicts token t only in causal attention (a language model, or a
  // translation model's decoder, whose cross-attention row t−1 reads the source for token t).
  descriptor.models = ModelRequirement::CausalAttention;
  descriptor.several_models = true;
  descriptor.data = DataKind::Sentences;
  descriptor.fields = {
      text_field("text", "Sentence", "", "one sentence", "\"…\""),
      path_field("sentences", "Sentences", false, "one sentence a line, optionally ending in <TAB>T"),
      integer_field("target", "Target", 0, 1, 1 << 20, "the 0-based position of the predicted token (default the last)",
                    "T"),
      integer_field("k", "Top k", 3, 1, 1 << 20, "tokens per row", "K"),
      beam_field("translation models: beam size of the translation explained (1 = greedy)")};
  descriptor.fields[2].default_text.clear();  // the last token
  descriptor.fields.push_back(heads_off_field());
  descriptor.tab.order = 50;
  descriptor.tab.legacy_id = "top_tokens";
  descriptor.tab.models = TabModels::Two;
  descriptor.tab.filled_fields = {"text", "sentences", "target"};
  descriptor.tab.sentence_field = "text";
  descriptor.tab.description =
      "<b>Bird-Eye Table 3.</b> For the attention view's sentence and a target token t (click one), the top-k "
      "tokens attended from the row of token t−1, per layer, mean of the heads, for two models side by side.";
  descriptor.run = run_top_tokens;
  return descriptor;
}

}  // namespace aw

// analysis/core/shared_settings.cpp — see shared_settings.h.
#include "analysis/core/shared_settings.h"

#include "analysis/core/setting_fields.h"

#include <limits>

namespace aw {

std::vector<SettingField> corpus_fields(int64_t default_batch) {
  auto window = integer_field("window", "Window", 0, 2, 1 << 20,
                              "tokens per window (language models; default min(128, the model's positions))");
  window.default_text.clear();  // the model decides
  window.applies_to = kLanguageModels;
  return {path_field("text", "Data", true, "text file (language models) or label<TAB>text lines (classifiers)"),
          window, integer_field("batch", "Batch", default_batch, 1, 1 << 20, "windows or examples per forward", "B")};
}

CorpusSettings corpus_settings(const SettingValues& settings) {
  CorpusSettings corpus;
  corpus.path = settings.required_text("text");
  if (settings.given("window")) corpus.window = settings.integer("window");
  corpus.batch = settings.integer("batch");
  return corpus;
}

SettingField beam_field(std::string help) {
  auto beam = integer_field("beam", "Beam", 4, 1, 64, std::move(help));
  beam.applies_to = kTranslationModels;
  return beam;
}

DecodingSettings decoding_settings(const SettingValues& settings) {
  DecodingSettings decoding;
  decoding.beam = settings.integer("beam");
  decoding.beam_given = settings.given("beam");
  return decoding;
}

std::vector<SettingField> translation_metric_fields() {
  auto metric = choice_field("metric", "Metric", {"loss", "bleu"}, "loss",
                             "translation models: perplexity of the reference translations (loss) or corpus BLEU of "
                             "the model's own translations (bleu)");
  metric.applies_to = kTranslationModels;
  auto beam = beam_field("translation models with --metric bleu: beam size (1 = greedy)");
  // metric_data says the same to callers that build their settings without a descriptor.
  beam.applies_when = {{"metric", {"bleu"}, "applies with --metric bleu (translations to score)"}};
  return {metric, beam};
}

MetricSettings metric_settings(const SettingValues& settings) {
  MetricSettings metric;
  metric.bleu = settings.choice("metric") == "bleu";
  metric.decoding = decoding_settings(settings);
  return metric;
}

std::vector<SettingField> significance_fields() {
  return {integer_field("bootstrap", "Bootstrap", 1000, 0, 1000000,
                        "paired-bootstrap resamples of the examples for intervals and p-values (0 = none)", "B"),
          integer_field("bootstrap-seed", "Bootstrap seed", 1, 0, std::numeric_limits<int64_t>::max(),
                        "the seed of the bootstrap's resampling", "S"),
          choice_field("correction", "Correction", {"holm", "bh"}, "holm",
                       "multiple-comparison correction of the p-values: Holm (family-wise) or Benjamini–Hochberg (bh)"),
          integer_field("min-units", "Minimum units", 20, 2, 1000000,
                        "the fewest independent units (paragraphs of a text, examples, sentences) an interval and a "
                        "p-value are given for",
                        "N")};
}

SignificanceOptions significance_options(const SettingValues& settings) {
  SignificanceOptions options;
  options.resamples = settings.integer("bootstrap");
  options.seed = static_cast<uint64_t>(settings.integer("bootstrap-seed"));
  // An analysis without --correction (stats) gives intervals and tests nothing.
  options.tests = settings.has_field("correction");
  if (options.tests) options.correction = correction_from_name(settings.choice("correction"));
  options.min_units = settings.integer("min-units");
  return options;
}

SignificanceOptions significance_for(SignificanceOptions options, const EvaluationData& data, const NoteCallback& note) {
  options.blocks = data.blocks;
  return significance_for_units(std::move(options), data.unit, data.units(), note);
}

SignificanceOptions significance_for_units(SignificanceOptions options, const std::string& unit, int64_t units,
                                           const NoteCallback& note) {
  if (!options.enabled()) return options;
  options.unit = unit;
  options.units = units;
  if (options.units >= options.min_units) return options;
  // "1 window": the unit's singular is its plural less the "s".
  const auto named = std::to_string(options.units) + " " + (options.units == 1 ? unit.substr(0, unit.size() - 1) : unit);
  // No comma: the text is also a CSV metadata value, and the metadata line is split at commas.
  options.refused = options.withheld() + ": " + named + (options.units == 1 ? " is" : " are") + " fewer than the " +
                    std::to_string(options.min_units) + " independent units the bootstrap needs (--min-units)";
  options.resamples = 0;
  if (note) note(options.refused);
  return options;
}

void append_fields(std::vector<SettingField>& fields, std::vector<SettingField> more) {
  for (auto& field : more) fields.push_back(std::move(field));
}

}  // namespace aw

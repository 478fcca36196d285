// analysis/core/shared_settings.h — the settings many analyses share, each concern as a small typed
// struct with its fields and one parse from the request's values: the data file and its windows, the
// translation metric and its decoding, the bootstrap. A descriptor lists the fields and parses the
// structs once at the top of its run; nothing below a descriptor reads a setting by its name.
#pragma once

#include "analysis/core/descriptor.h"
#include "analysis/statistics/delta_significance.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aw {

// --text FILE (required), --window N, --batch B.
struct CorpusSettings {
  std::string path;
  std::optional<int64_t> window;  // given: a language model's windows; else min(128, its positions)
  int64_t batch = 8;              // windows or examples per forward
};
std::vector<SettingField> corpus_fields(int64_t default_batch = 8);
CorpusSettings corpus_settings(const SettingValues& settings);

// --beam N: the beam of a translation model's own translations (1 = greedy).
SettingField beam_field(std::string help);
struct DecodingSettings {
  int64_t beam = 4;
  bool beam_given = false;  // for analyses that refuse --beam where nothing is decoded
};
DecodingSettings decoding_settings(const SettingValues& settings);

// --metric loss|bleu and --beam: translation models are measured by the perplexity of the
// references, or by the corpus BLEU of the model's own translations.
std::vector<SettingField> translation_metric_fields();
struct MetricSettings {
  bool bleu = false;
  DecodingSettings decoding;
};
MetricSettings metric_settings(const SettingValues& settings);

// --bootstrap B (default 1000, 0 = off), --bootstrap-seed S (default 1), --correction holm|bh,
// --min-units N (default 20): the paired bootstrap of analyses that compare gate settings
// (analysis/statistics/delta_significance.h).
std::vector<SettingField> significance_fields();
SignificanceOptions significance_options(const SettingValues& settings);
// `options` for `data`: its unit named and counted; or, with fewer units than options.min_units,
// turned off (refused says why) and that said once through `note`, so no interval, p-value or star
// is printed while the deltas still are.
SignificanceOptions significance_for(SignificanceOptions options, const EvaluationData& data, const NoteCallback& note);
// The same for `units` independent units named `unit` (plural: "pairs") that are not an EvaluationData's.
SignificanceOptions significance_for_units(SignificanceOptions options, const std::string& unit, int64_t units,
                                           const NoteCallback& note);

// The fields of `more` after those of `fields`.
void append_fields(std::vector<SettingField>& fields, std::vector<SettingField> more);

}  // namespace aw

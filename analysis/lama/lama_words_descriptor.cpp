// analysis/lama/lama_words_descriptor.cpp — LAMA Figure 4 and Table 6 as descriptors over one pass of
// the model over labelled documents (analysis/lama/word_weights.h):
//   word-weights  each occurrence of chosen words with its weight by label, their summary and
//                 densities, and (as a further output) the keywords per label
//   keywords      the words with the highest mean weight per label
#include "analysis/core/labelled_parts.h"
#include "analysis/lama/lama_attention.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/lama/word_weights.h"
#include "models/checkpoint/checkpoint.h"

namespace aw {
namespace {

// What both LAMA analyses read: the documents, which part of them, and how a weight is taken.
std::vector<SettingField> document_fields() {
  return {path_field("data", "Data", true, "label<TAB>text lines"),
          choice_field("part", "Part", labelled_part_names(), "whole",
                       "the whole file, or one part of its seeded 80/10/10 split (as `split`)"),
          integer_field("seed", "Seed", 1, 0, std::numeric_limits<int64_t>::max(), "the split's seed", "S"),
          text_field("head", "Head", "mean", "the mean of the heads, or head K (1-based)", "mean|K"),
          choice_field("scale", "Scale", {"none", "length"}, "none", "length: weight × document length (1 = uniform)"),
          integer_field("batch", "Batch", 32, 1, 1 << 20, "documents per forward", "B")};
}

std::vector<SettingField> keyword_fields() {
  return {integer_field("top", "Top", 10, 1, 1 << 20, "keywords per label"),
          integer_field("min-count", "Min count", 5, 1, 1 << 20, "occurrences a keyword needs"),
          flag_field("with-punctuation", "With punctuation", "let tokens of punctuation alone be keywords")};
}

// The documents the fields name: which file, which part of its seeded split, how many per forward.
struct DocumentSettings {
  std::string path;
  LabelledPart part = LabelledPart::Whole;
  uint64_t seed = 1;
  int64_t batch = 32;
};

DocumentSettings document_settings(const SettingValues& settings) {
  return {settings.required_text("data"), parse_labelled_part(settings.choice("part")),
          static_cast<uint64_t>(settings.integer("seed")), settings.integer("batch")};
}

WeightSelection weight_selection(const SettingValues& settings, const LoadedModel& loaded) {
  WeightSelection selection;
  selection.head = parse_head_choice(settings.text("head"), loaded.config.n_heads);
  selection.scale = parse_weight_scale(settings.choice("scale"));
  return selection;
}

KeywordSettings keyword_settings(const SettingValues& values, const WeightSelection& selection) {
  KeywordSettings settings;
  settings.selection = selection;
  settings.top = values.integer("top");
  settings.min_count = values.integer("min-count");
  settings.skip_punctuation = !values.flag("with-punctuation");
  return settings;
}

// The model over the chosen part of the documents, every document's attention kept; `report` says what
// was read.
DocumentAttentionResult attend_documents(const AnalysisRequest& request, const LoadedModel& loaded,
                                         AnalysisReport& report) {
  const auto documents = document_settings(request.settings);
  const auto examples =
      read_labelled_part(documents.path, loaded.config.labels, documents.part, documents.seed, &report.description);
  auto result = lama_document_attention(*loaded.model, *loaded.tokenizer, examples, documents.batch,
                                        request.phase("batches"));
  report.description += ": " + std::to_string(result.documents.size()) + " documents";
  if (result.truncated > 0) {
    const auto cut = std::to_string(result.truncated) + " documents truncated to " +
                     std::to_string(loaded.config.max_positions) + " words";
    request.tell(cut);
    report.description += ", " + cut;
  }
  report.cancelled = result.cancelled;
  return result;
}

// What the two descriptors share: a LAMA model over labelled documents, and the document fields.
AnalysisDescriptor lama_descriptor(std::string name, std::string title, std::string summary) {
  AnalysisDescriptor descriptor(std::move(name), std::move(title), std::move(summary));
  descriptor.models = ModelRequirement::Lama;
  descriptor.data = DataKind::Labelled;
  descriptor.fields = document_fields();
  return descriptor;
}

}  // namespace

AnalysisDescriptor word_weights_descriptor() {
  auto descriptor = lama_descriptor("word-weights", "LAMA words",
                                    "LAMA Figure 4: each occurrence's attention weight, by label, with summary and densities");
  auto words = text_field("words", "Words", "", "the words to follow", "a,b,c");
  words.kind = FieldKind::List;
  words.required = true;
  descriptor.fields.insert(descriptor.fields.begin() + 1, words);
  descriptor.fields.push_back(integer_field("points", "Points", 100, 2, 1 << 20, "grid points of each density"));
  for (auto& field : keyword_fields()) descriptor.fields.push_back(std::move(field));
  descriptor.outputs = {{"out", "occurrences", "word,label,weight of every occurrence"},
                        {"summary", "summary", "word,label,count,mean,median (default: stdout)"},
                        {"density", "density", "Gaussian KDE (Silverman) per word and label"},
                        {"shift", "shift", "per word and pair of labels: Mann–Whitney U, effect, p (Holm-adjusted)"},
                        {"keywords", "keywords", "the keywords per label, as the keywords command"}};
  descriptor.stdout_part = "summary";
  descriptor.plot = "word-weights";
  descriptor.tab.order = 80;
  descriptor.tab.legacy_id = "lama";
  descriptor.tab.prefers_able = true;
  descriptor.tab.description =
      "<b>LAMA Figure 4 and Table 6.</b> How much attention the chosen words get under each rating. "
      "Every occurrence of the chosen words in the labelled documents, with its attention weight (mean of the "
      "heads or one head; × document length makes 1.0 = uniform), as one density curve per rating (Gaussian KDE, Silverman's bandwidth) in one plot per word; the words with the highest mean "
      "weight per rating; and any document with its words coloured by weight. A rating needs 3 occurrences of a word "
      "for its curve. Head gates do not change LAMA's attention, only what the classifier reads from it.";
  descriptor.run = [](const AnalysisRequest& request) {
    const auto& loaded = *request.models.front();
    WordWeightSettings settings;
    settings.selection = weight_selection(request.settings, loaded);
    settings.density_points = request.settings.integer("points");
    settings.words = resolve_words(*loaded.tokenizer, request.settings.list("words"));
    AnalysisReport report;
    const auto documents = attend_documents(request, loaded, report);
    if (report.cancelled) return report;
    const auto& labels = loaded.config.labels;
    auto result = word_weight_report(documents.documents, labels, settings);
    report.tables["occurrences"] = word_weights_table(result.occurrences);
    report.tables["summary"] = word_summary_table(result.summary);
    report.tables["density"] = word_density_table(result.densities);
    report.tables["shift"] = word_shift_table(result.shifts);
    report.tables["keywords"] =
        keywords_table(top_keywords(documents.documents, labels, keyword_settings(request.settings, settings.selection)));
    return report;
  };
  return descriptor;
}

AnalysisDescriptor keywords_descriptor() {
  auto descriptor = lama_descriptor("keywords", "Keywords", "LAMA Table 6: words with the highest mean weight per label");
  for (auto& field : keyword_fields()) descriptor.fields.push_back(std::move(field));
  descriptor.outputs = {{"out", "csv", "label,rank,word,mean_weight,count (default: stdout)"}};
  descriptor.tab.shown = false;  // the LAMA words tab shows them (word-weights' keywords part)
  descriptor.run = [](const AnalysisRequest& request) {
    const auto& loaded = *request.models.front();
    const auto selection = weight_selection(request.settings, loaded);
    AnalysisReport report;
    const auto documents = attend_documents(request, loaded, report);
    if (report.cancelled) return report;
    report.tables["csv"] = keywords_table(
        top_keywords(documents.documents, loaded.config.labels, keyword_settings(request.settings, selection)));
    return report;
  };
  return descriptor;
}

}  // namespace aw

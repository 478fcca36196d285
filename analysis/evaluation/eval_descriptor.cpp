// analysis/evaluation/eval_descriptor.cpp — the model's metric on a data file as a descriptor: perplexity over
// windows (language model), accuracy, per-class F1 and the confusion matrix (classifier), or the
// teacher-forced perplexity of the references with corpus BLEU and chrF (translation model); with the
// number of examples and the seconds their forward passes took.
#include "analysis/core/corpus_data.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/data/translation_scores.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/training/evaluation.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>

namespace aw {
namespace {

std::string format_line(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string format_line(const char* format, ...) {
  char line[1024];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(line, sizeof line, format, arguments);
  va_end(arguments);
  return line;
}

// The report a person reads: the metric, and for a classifier per-class scores and the confusion.
std::string evaluation_text(const LoadedModel& loaded, const EvaluationResult& result) {
  const bool classifier = loaded.config.is_classifier();
  auto text = format_line("%s %.4f (mean cross-entropy %.4f over %lld %s)\n", result.metric_name.c_str(), result.metric,
                          result.loss, static_cast<long long>(result.count),
                          classifier                        ? "examples"
                          : loaded.config.is_translation() ? "reference tokens, teacher-forced"
                                                           : "predicted tokens");
  if (!classifier) return text;
  const auto scores = per_class_scores(result.confusion);
  const auto& labels = loaded.config.labels;
  text += format_line("macro F1 %.4f\nclass        precision  recall     F1   support\n", macro_f1(scores));
  for (size_t c = 0; c < scores.size(); ++c)
    text += format_line("%-12s %9.4f %7.4f %6.4f %9lld\n", labels[c].c_str(), scores[c].precision, scores[c].recall,
                        scores[c].f1, static_cast<long long>(scores[c].support));
  text += format_line("confusion (rows: true class, columns: predicted)\n%-12s", "");
  for (const auto& label : labels) text += format_line(" %7s", label.c_str());
  text += "\n";
  for (size_t row = 0; row < result.confusion.size(); ++row) {
    text += format_line("%-12s", labels[row].c_str());
    for (const auto count : result.confusion[row]) text += format_line(" %7lld", static_cast<long long>(count));
    text += "\n";
  }
  return text;
}

nlohmann::json evaluation_json(const LoadedModel& loaded, const std::string& path, const EvaluationResult& result) {
  nlohmann::json json{{"model", loaded.dir}, {"data", path},          {result.metric_name, result.metric},
                      {"loss", result.loss}, {"count", result.count}};
  if (!loaded.config.is_classifier()) return json;
  const auto scores = per_class_scores(result.confusion);
  auto per_class = nlohmann::json::array();
  for (size_t c = 0; c < scores.size(); ++c)
    per_class.push_back({{"label", loaded.config.labels[c]}, {"precision", scores[c].precision},
                         {"recall", scores[c].recall}, {"f1", scores[c].f1}, {"support", scores[c].support}});
  json["macro_f1"] = macro_f1(scores);
  json["per_class"] = per_class;
  json["labels"] = loaded.config.labels;
  json["confusion"] = result.confusion;  // [true class][predicted class]
  return json;
}

// `--per-example`: each window's (language model), pair's (translation, teacher-forced) or example's
// (classifier) part of the metric, in the order they were read.
ResultTable per_example_table(const LoadedModel& loaded, const std::string& path, const EvaluationResult& result) {
  ResultTable table;
  table.meta("model", loaded.name);
  table.meta("data", path);
  const bool classifier = loaded.config.is_classifier();
  table.meta("unit", classifier ? "examples" : loaded.config.is_translation() ? "pairs" : "windows");
  table.add_column("example", ColumnType::Integer);
  if (classifier) table.add_column("correct", ColumnType::Integer);
  else table.add_column("tokens", ColumnType::Integer).add_column("loss", ColumnType::Number).add_column("mean_loss", ColumnType::Number);
  if (!result.example_sums.defined() || !result.example_counts.defined()) return table;  // nothing kept
  const auto sums = result.example_sums.contiguous(), counts = result.example_counts.contiguous();
  const auto sum = sums.accessor<double, 1>(), count = counts.accessor<double, 1>();
  for (int64_t example = 0; example < sums.size(0); ++example) {
    std::vector<Cell> row = {example + 1};
    if (classifier) row.emplace_back(static_cast<int64_t>(sum[example]));
    else row.insert(row.end(), {static_cast<int64_t>(count[example]), sum[example], count[example] > 0 ? sum[example] / count[example] : 0.0});
    table.add_row(std::move(row));
  }
  return table;
}

// A translation model's corpus BLEU and chrF on the --text pairs (their sources translated under
// the request's gates), added to the report's text, JSON and the `translations` output.
void add_translation_scores(const AnalysisRequest& request, const CorpusSettings& corpus, const DecodingSettings& decoding,
                            const LoadedModel& loaded, const ForwardOptions& forward, AnalysisReport& report) {
  auto* model = loaded.model->sequence_to_sequence();
  TORCH_INTERNAL_ASSERT(model, "a translation config without a translation model");
  SearchSettings search;
  search.beam = decoding.beam;
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  const auto scores = score_translations(*model, codec, read_translation_pairs(corpus.path), search,
                                         corpus.batch, forward, request.phase("translated sentences"));
  if (scores.cancelled) {
    report.cancelled = true;
    return;
  }
  const auto sentences = static_cast<int64_t>(scores.hypotheses.size());
  report.text += format_line("BLEU %.2f  chrF %.2f  (%lld sentences, beam %lld; %s)\n", scores.bleu.score, scores.chrf,
                             static_cast<long long>(sentences), static_cast<long long>(search.beam),
                             scores.bleu.signature().c_str());
  if (scores.skipped > 0)
    report.text += format_line("%lld sources longer than the model's positions were left out\n",
                               static_cast<long long>(scores.skipped));
  report.record["bleu"] = scores.bleu.score;
  report.record["chrf"] = scores.chrf;
  report.record["bleu_signature"] = scores.bleu.signature();
  report.record["bleu_precisions"] = scores.bleu.precisions;
  report.record["brevity_penalty"] = scores.bleu.brevity_penalty;
  report.record["sentences"] = sentences;
  report.record["beam"] = search.beam;
  std::string lines;
  for (const auto& hypothesis : scores.hypotheses) lines += hypothesis + "\n";
  report.texts["translations"] = lines;
}

}  // namespace

AnalysisDescriptor eval_descriptor() {
  AnalysisDescriptor descriptor("eval", "Evaluation",
                                "perplexity over windows (LM), accuracy, per-class F1 and confusion (classifier), or BLEU (translation)");
  descriptor.distributable = true;
  descriptor.fields = corpus_fields();
  descriptor.fields.push_back(beam_field("translation models: beam size of the translations BLEU scores (1 = greedy)"));
  descriptor.outputs = {{"translations", "translations", "translation models: the translations, one per line"},
                        {"per-example", "per_example",
                         "each window's (LM) or pair's (translation) loss and tokens, or each example's correctness"}};
  descriptor.stdout_part = "";
  descriptor.fields.push_back(heads_off_field());
  descriptor.tab.shown = false;  // the attention view shows predictions; this is a report to read
  descriptor.run = [](const AnalysisRequest& request) {
    const auto& loaded = *request.models.front();
    const auto corpus = corpus_settings(request.settings);
    const auto decoding = decoding_settings(request.settings);
    if (decoding.beam_given && !loaded.config.is_translation())
      throw SettingError("beam", "applies to translation models; " + loaded.name + " is " +
                                     describe_model_kind(loaded.config));
    const auto data = corpus_data(corpus, loaded, "eval", request.note);
    ForwardOptions forward;
    forward.head_gates = request_gates(request, 0);
    // The forward passes alone are timed (Michel Table 4's examples per second): loading the model and
    // reading the data are done by now.
    const auto started = std::chrono::steady_clock::now();
    auto result = data_evaluator(*loaded.model, data, /*keep_examples=*/true)(forward, request.phase("batches"));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    AnalysisReport report;
    if (result.cancelled) return report.cancelled = true, report;
    report.text = evaluation_text(loaded, result);
    report.tables["per_example"] = per_example_table(loaded, corpus.path, result);
    report.record = evaluation_json(loaded, corpus.path, result);
    report.record["seconds"] = seconds;
    if (result.example_sums.defined()) report.record["examples"] = result.example_sums.size(0);
    // The windows decide which tokens are predicted from how much context: part of what was measured
    // (compare checks it before it takes a saved result as a run of a variant).
    if (loaded.config.is_language_model()) report.record["window"] = corpus_window(corpus, loaded);
    if (loaded.config.is_translation()) add_translation_scores(request, corpus, decoding, loaded, forward, report);
    return report;
  };
  return descriptor;
}

}  // namespace aw

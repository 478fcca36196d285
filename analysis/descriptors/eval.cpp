// analysis/descriptors/eval.cpp — the model's metric on a data file as a descriptor: perplexity over
// windows (language model) or accuracy, per-class F1 and the confusion matrix (classifier).
#include "analysis/analysis_inputs.h"
#include "analysis/registry.h"
#include "analysis/setting_fields.h"
#include "models/checkpoint/checkpoint.h"
#include "models/training/evaluation.h"

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
                          classifier ? "examples" : "predicted tokens");
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

}  // namespace

AnalysisDescriptor eval_descriptor() {
  AnalysisDescriptor descriptor("eval", "Evaluation",
                                "perplexity over windows (LM) or accuracy, per-class F1 and confusion (classifier)");
  descriptor.fields = corpus_fields();
  descriptor.outputs = {};
  descriptor.stdout_part = "";
  descriptor.desktop_tab = false;  // the attention view shows predictions; this is a report to read
  descriptor.run = [](const AnalysisRequest& request) {
    const auto& loaded = *request.models.front();
    const auto data = corpus_data(request, loaded, "eval");
    ForwardOptions forward;
    forward.head_gates = request_gates(request, 0);
    auto result = data_evaluator(*loaded.model, data)(forward, request.phase("batches"));
    AnalysisReport report;
    if (result.cancelled) return report.cancelled = true, report;
    report.text = evaluation_text(loaded, result);
    report.json = evaluation_json(loaded, request.settings.text("text"), result);
    report.result = std::move(result);
    return report;
  };
  return descriptor;
}

}  // namespace aw

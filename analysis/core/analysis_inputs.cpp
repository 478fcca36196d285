// analysis/core/analysis_inputs.cpp — see analysis_inputs.h.
#include "analysis/core/analysis_inputs.h"

#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_importance.h"
#include "analysis/evaluation/translation_scores.h"
#include "models/text/corpus.h"
#include "models/errors.h"
#include "models/training/evaluation.h"
#include "models/text/syntax_hints.h"
#include "models/translation/translation_data.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>

namespace aw {
namespace {

constexpr int64_t kLinesToSniff = 20;

// Whether `path` reads as a classifier's labelled file: its first non-empty lines (up to
// kLinesToSniff) all start with a one-word label and a tab. Plain corpora have no such tab; a file
// that cannot be read says so later, when it is read for real.
bool looks_labelled(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  int64_t labelled_lines = 0;
  for (std::string line; labelled_lines < kLinesToSniff && std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const auto tab = line.find('\t');
    if (tab == 0 || tab == std::string::npos || line.find(' ') < tab) return false;
    ++labelled_lines;
  }
  return labelled_lines > 0;
}

}  // namespace

void require_plain_text(const std::string& path, const std::string& model_name, const std::string& command) {
  if (!is_conllu_path(path) && looks_labelled(path))
    fail_in_file(path, "holds label<TAB>text lines (a classifier's examples), but " + model_name +
                           " is a language model: " + command + " needs plain text");
}

int64_t corpus_window(const AnalysisRequest& request, const LoadedModel& loaded) {
  const auto& settings = request.settings;
  const auto positions = loaded.config.max_positions;
  const auto window = settings.given("window") ? settings.integer("window") : std::min<int64_t>(128, positions);
  if (window > positions)
    throw SettingError("window", std::to_string(window) + " exceeds the model's " + std::to_string(positions) +
                                     " positions");
  return window;
}

std::vector<ModelInput> corpus_windows(const AnalysisRequest& request, const LoadedModel& loaded,
                                       const std::string& analysis) {
  const auto& settings = request.settings;
  const auto window = corpus_window(request, loaded);
  const auto path = settings.required_text("text");
  require_plain_text(path, loaded.name, analysis);
  return make_window_batches(read_token_corpus(path, *loaded.tokenizer), window, settings.integer("batch"));
}

EvaluationData translation_data(const AnalysisRequest& request, const LoadedModel& loaded) {
  const auto& settings = request.settings;
  if (settings.given("window"))
    throw SettingError("window", "applies to language models; " + loaded.name + " is " +
                                     describe_model_kind(loaded.config) + " and reads each pair whole (up to its " +
                                     std::to_string(loaded.config.max_positions) + " positions)");
  const auto path = settings.required_text("text");
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  const auto encoded =
      encode_pairs(read_translation_pairs(path), codec, loaded.config.max_positions, loaded.config.translation.pad_id);
  if (encoded.kept.empty())
    fail_in_file(path, "has no pair short enough for " + loaded.name + "'s " +
                           std::to_string(loaded.config.max_positions) + " positions");
  if (encoded.skipped > 0)
    request.tell(std::to_string(encoded.skipped) + " pairs longer than " +
                 std::to_string(loaded.config.max_positions) + " tokens left out");
  return language_model_data(pair_batches(encoded, settings.integer("batch")));
}

EvaluationData corpus_data(const AnalysisRequest& request, const LoadedModel& loaded, const std::string& analysis) {
  if (loaded.config.is_translation()) return translation_data(request, loaded);
  if (!loaded.config.is_classifier()) return language_model_data(corpus_windows(request, loaded, analysis));
  const auto& settings = request.settings;
  if (settings.given("window"))
    throw SettingError("window", "applies to language models; " + loaded.name + " is " +
                                     describe_model_kind(loaded.config) + " and reads each example whole (up to its " +
                                     std::to_string(loaded.config.max_positions) + " positions)");
  const auto batches = make_classifier_batches(read_labelled_file(settings.required_text("text"), loaded.config.labels),
                                               *loaded.tokenizer, loaded.config.max_positions, settings.integer("batch"));
  if (batches.truncated > 0)
    request.tell(std::to_string(batches.truncated) + " examples truncated to " +
                 std::to_string(loaded.config.max_positions) + " tokens");
  return classification_data(batches);
}

EvaluationData metric_data(const AnalysisRequest& request, const LoadedModel& loaded, const std::string& analysis) {
  const auto& settings = request.settings;
  const bool bleu = settings.choice("metric") == "bleu";
  if (bleu && !loaded.config.is_translation())
    throw SettingError("metric", "bleu applies to translation models; " + loaded.name + " is " +
                                     describe_model_kind(loaded.config));
  if (settings.given("beam") && !bleu) throw SettingError("beam", "applies with --metric bleu (translations to score)");
  auto data = corpus_data(request, loaded, analysis);
  if (!bleu) return data;
  SearchSettings search;
  search.beam = settings.integer("beam");
  auto codec = std::make_shared<const TranslationCodec>(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  auto task = make_bleu_task(loaded.config, std::move(codec), read_translation_pairs(settings.required_text("text")),
                             search);
  data.bleu = std::make_shared<const BleuTask>(std::move(task));
  return data;
}

torch::Tensor request_gates(const AnalysisRequest& request, size_t index) {
  const auto& flags = request.gates_of(index);
  if (flags.empty()) return {};
  const auto& loaded = *request.models.at(index);
  return gates_from_flags(loaded.config, flags).to(loaded.device);
}

Evaluator data_evaluator(AttentionModel& model, const EvaluationData& data, bool keep_examples) {
  if (data.bleu) {
    return [&model, &data, keep_examples](const ForwardOptions& options, const ProgressCallback& progress) {
      auto& translation = *model.sequence_to_sequence();
      const auto gates = options.head_gates.defined() ? options.head_gates : all_heads_on(model.config());
      const auto scores = score_gate_settings(translation, *data.bleu, gates.unsqueeze(0), options, progress);
      EvaluationResult result;
      result.metric_name = "bleu";
      result.cancelled = scores.empty();
      result.metric = result.cancelled ? 0.0 : scores.front().bleu.score;
      result.loss = std::nan("");
      result.count = static_cast<int64_t>(data.bleu->sources.size());
      if (keep_examples && !result.cancelled)  // each source's BLEU counts: [N, kBleuStatistics]
        result.example_sums = bleu_example_scores(*data.bleu, scores).sums.select(1, 0);
      return result;
    };
  }
  if (data.is_classification()) {
    auto batches = std::make_shared<ClassifierBatches>();
    batches->inputs = data.inputs;
    batches->labels = data.labels;
    return [&model, batches, keep_examples](const ForwardOptions& options, const ProgressCallback& progress) {
      return evaluate_accuracy(model, *batches, options, progress, keep_examples);
    };
  }
  return [&model, &data, keep_examples](const ForwardOptions& options, const ProgressCallback& progress) {
    return evaluate_perplexity(model, data.inputs, options, progress, keep_examples);
  };
}

torch::Tensor gates_from_flags(const ModelConfig& config, const std::vector<std::vector<bool>>& flags) {
  auto gates = all_heads_on(config);  // [L, H_max]
  auto access = gates.accessor<float, 2>();
  for (size_t layer = 0; layer < flags.size() && static_cast<int64_t>(layer) < gates.size(0); ++layer)
    for (size_t head = 0; head < flags[layer].size() && static_cast<int64_t>(head) < gates.size(1); ++head)
      if (!flags[layer][head]) access[layer][head] = 0.0f;
  return gates;
}

SignificanceOptions significance_options(const SettingValues& settings) {
  SignificanceOptions options;
  options.resamples = settings.integer("bootstrap");
  options.seed = static_cast<uint64_t>(settings.integer("bootstrap-seed"));
  options.correction = correction_from_name(settings.choice("correction"));
  return options;
}

std::vector<HeadRef> rank_heads(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                const std::string& order_name, const ProgressCallback& progress,
                                const std::vector<int64_t>& blocks) {
  // Only the chosen blocks' heads take part: the others stay out of the order (and so stay on).
  auto chosen = [&](std::vector<HeadRef> order) {
    if (blocks.empty()) return order;
    std::vector<HeadRef> kept;
    for (const auto& head : order)
      if (std::find(blocks.begin(), blocks.end(), head.layer) != blocks.end()) kept.push_back(head);
    return kept;
  };
  if (order_name == "importance") {
    const auto importance = head_importance(model, model_name, data, true, {}, progress);
    if (importance.cancelled) return {};
    return chosen(order_heads(importance.scores));
  }
  if (order_name == "oracle") {
    const auto ablation = ablate_heads(model, model_name, data, AblationMode::Single, {}, progress, blocks);
    if (ablation.cancelled) return {};
    std::vector<std::vector<double>> harm(model.config().n_blocks);
    for (const auto& effect : ablation.heads)
      harm[effect.layer - 1].push_back(damage(ablation.metric_name, ablation.baseline, effect.metric));
    return chosen(order_heads(harm));
  }
  throw Error("pruning order must be importance or oracle, got '" + order_name + "'");
}

PruningResult pruning_curves(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                             const std::vector<RankedOrder>& orders, double step_percent,
                             const ProgressCallback& progress, const SignificanceOptions& significance) {
  PruningResult result;
  result.model = model_name;
  result.metric_name = data.metric_name();
  result.significance = significance;
  for (const auto& order : orders) {
    const auto points = pruning_curve(model, data, order.name, order.heads, step_percent, progress, significance);
    if (points.empty()) return result.cancelled = true, result;
    result.points.insert(result.points.end(), points.begin(), points.end());
  }
  return result;
}

}  // namespace aw

// app/gui/model_session.cpp — see model_session.h.
#include "app/gui/model_session.h"

#include "analysis/analysis_inputs.h"
#include "analysis/attention_export.h"
#include "analysis/attention_stats.h"
#include "analysis/head_ablation.h"
#include "analysis/head_importance.h"
#include "analysis/lama_attention.h"
#include "analysis/word_weights.h"
#include "analysis/top_tokens.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "models/text/data_split.h"
#include "models/errors.h"
#include "models/runtime.h"

#include <torch/torch.h>

#include <mutex>

namespace aw {
namespace {

constexpr int64_t kTopPredictions = 5;

using ModelRef = std::shared_ptr<const LoadedModel>;

ProgressCallback phase_progress(const AnalysisProgress& progress, const QString& phase) {
  return [progress, phase](int64_t done, int64_t total) { return !progress || progress(done, total, phase); };
}

// LibTorch errors (CUDA out of memory, …) come with a C++ backtrace: keep the first line for people.
template <typename Function>
auto guarded(Function&& function) -> decltype(function()) {
  try {
    return function();
  } catch (const Error&) {
    throw;
  } catch (const c10::Error& error) {
    const std::string message = error.what_without_backtrace();
    throw Error(message.substr(0, message.find('\n')));
  }
}

ModelSummary summarise(const LoadedModel& loaded) {
  ModelSummary summary;
  summary.name = QString::fromStdString(loaded.name);
  summary.dir = QString::fromStdString(loaded.dir);
  summary.architecture = QString::fromStdString(loaded.config.family_name());
  summary.layers = static_cast<int>(loaded.config.n_layers);
  for (auto heads : loaded.config.heads_per_layer) summary.heads_per_layer.push_back(static_cast<int>(heads));
  summary.parameters = loaded.parameter_count;
  summary.dtype = QString::fromStdString(loaded.stored_dtype);
  summary.max_positions = static_cast<int>(loaded.config.max_positions);
  summary.classifier = loaded.config.is_classifier();
  summary.causal = loaded.config.causal;
  return summary;
}

void require_causal_language_model(const LoadedModel& loaded, const QString& analysis) {
  if (!loaded.config.is_language_model())
    throw Error(analysis.toStdString() + " needs a causal language model; " + loaded.name + " is a " +
                loaded.config.family_name() + (loaded.config.is_classifier() ? " classifier" : " encoder"));
}

// The split `attention-cli split` makes by default: 80 % train, 10 % valid, the rest test.
constexpr double kTrainPercent = 80, kValidPercent = 10;

const char* part_name(LabelledPart part) {
  switch (part) {
    case LabelledPart::Train: return "train";
    case LabelledPart::Valid: return "valid";
    case LabelledPart::Test: return "test";
    case LabelledPart::Whole: break;
  }
  return "whole";
}

// The labelled examples of one part of `data` with the model's classes; `described` names them.
std::vector<LabelledExample> labelled_part(const LoadedModel& loaded, const QString& data, LabelledPart part, int seed,
                                           std::string* described) {
  if (data.isEmpty()) throw Error("choose a labelled file (label<TAB>text lines) first");
  const auto path = data.toStdString();
  if (part == LabelledPart::Whole) {
    if (described) *described = path;
    return read_labelled_file(path, loaded.config.labels);
  }
  const auto split = split_labelled_lines(path, static_cast<uint64_t>(seed), kTrainPercent, kValidPercent);
  const auto& lines = part == LabelledPart::Train ? split.train : part == LabelledPart::Valid ? split.valid : split.test;
  const auto name = path + " (" + part_name(part) + " part of the seed-" + std::to_string(seed) + " 80/10/10 split)";
  if (described) *described = name;
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return parse_labelled_text(text, name, loaded.config.labels);
}

}  // namespace

struct ModelSession::Impl {
  torch::Device device = resolve_device("auto");
  mutable std::mutex mutex;  // guards `models`; each job copies the references it needs
  std::vector<ModelRef> models;

  ModelRef model(int index) const {
    std::lock_guard<std::mutex> lock(mutex);
    if (index < 0 || index >= static_cast<int>(models.size()))
      throw Error("no model number " + std::to_string(index + 1) + " is loaded");
    return models[index];
  }
  EvaluationData data(const LoadedModel& loaded, const CorpusSettings& corpus) const {
    if (corpus.path.isEmpty()) throw Error("choose a data file first");
    return read_evaluation_data(loaded, corpus.path.toStdString(), corpus.window, corpus.batch);
  }
  torch::Tensor gates(const LoadedModel& loaded, const HeadGates& flags) const {
    return gates_from_flags(loaded.config, flags.on).to(loaded.device);
  }
  AttentionCapture capture(const LoadedModel& loaded, const Encoding& encoding, const QString& text,
                           const HeadGates& gates) const;
};

ModelSession::ModelSession() : impl_(std::make_unique<Impl>()) {
  configure_allocator();
  configure_threads();
}
ModelSession::~ModelSession() = default;

ModelSummary ModelSession::load(const QString& dir) {
  auto loaded = guarded([&] { return load_checkpoint(dir.toStdString(), impl_->device); });
  auto summary = summarise(loaded);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->models.push_back(std::make_shared<const LoadedModel>(std::move(loaded)));
  return summary;
}

void ModelSession::clear() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->models.clear();
}

int ModelSession::count() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return static_cast<int>(impl_->models.size());
}
ModelSummary ModelSession::summary(int index) const { return summarise(*impl_->model(index)); }
QString ModelSession::deviceDescription() const { return QString::fromStdString(describe_device(impl_->device)); }

AttentionCapture ModelSession::attend(int index, const QString& text, const HeadGates& gates) const {
  const auto loaded = impl_->model(index);
  const auto encoding = loaded->tokenizer->encode(text.toStdString());
  if (encoding.ids.empty()) throw Error("the sentence gives no tokens");
  if (static_cast<int64_t>(encoding.ids.size()) > loaded->config.max_positions)
    throw Error("the sentence has " + std::to_string(encoding.ids.size()) + " tokens but " + loaded->name +
                " allows " + std::to_string(loaded->config.max_positions));
  return impl_->capture(*loaded, encoding, text, gates);
}

AttentionCapture ModelSession::attendDocument(int index, const QString& text, const HeadGates& gates) const {
  const auto loaded = impl_->model(index);
  auto encoding = loaded->tokenizer->encode(text.toStdString());
  if (encoding.ids.empty()) throw Error("the document gives no tokens");
  truncate_to_positions(encoding, loaded->config.max_positions);
  return impl_->capture(*loaded, encoding, text, gates);
}

AttentionCapture ModelSession::Impl::capture(const LoadedModel& loaded, const Encoding& encoding,
                                             const QString& text, const HeadGates& gates) const {
  return guarded([&] {
    c10::InferenceMode inference;  // the conversion below reads the captured tensors
    ForwardOptions options;
    if (!gates.on.empty()) options.head_gates = this->gates(loaded, gates);
    const auto result = capture_attention(*loaded.model, encoding, options);

    AttentionCapture capture;
    capture.text = text;
    for (const auto& token : encoding.tokens) capture.tokens << QString::fromStdString(token);
    for (const auto& layer : result.attention) {
      const auto values = layer.select(0, 0).to(torch::kCPU, torch::kFloat32).contiguous();  // (H, rows, n)
      capture.heads_per_layer.push_back(static_cast<int>(values.size(0)));
      capture.rows_per_layer.push_back(static_cast<int>(values.size(1)));
      capture.weights_by_layer.emplace_back(values.data_ptr<float>(), values.data_ptr<float>() + values.numel());
    }
    capture.classifier = loaded.config.is_classifier();
    const auto probabilities = torch::softmax(result.logits.select(0, 0).to(torch::kCPU, torch::kFloat32), -1);
    if (capture.classifier) {  // (C)
      std::vector<Prediction> classes;
      const auto access = probabilities.accessor<float, 1>();
      for (int64_t c = 0; c < probabilities.size(0); ++c)
        classes.push_back({QString::fromStdString(c < static_cast<int64_t>(loaded.config.labels.size())
                                                      ? loaded.config.labels[c]
                                                      : std::to_string(c)),
                           access[c]});
      capture.predictions.push_back(classes);
    } else {  // (n, V): the top tokens of every position at once
      const auto [values, ids] = probabilities.topk(std::min<int64_t>(kTopPredictions, probabilities.size(-1)), -1);
      const auto value_access = values.accessor<float, 2>();
      const auto id_access = ids.accessor<int64_t, 2>();
      for (int64_t position = 0; position < values.size(0); ++position) {
        std::vector<Prediction> top;
        for (int64_t k = 0; k < values.size(1); ++k)
          top.push_back({QString::fromStdString(loaded.tokenizer->token_text(id_access[position][k])),
                         value_access[position][k]});
        capture.predictions.push_back(top);
      }
    }
    return capture;
  });
}

AnalysisOutput ModelSession::tableOne(const QList<int>& models, const std::vector<HeadGates>& gates,
                                      const CorpusSettings& corpus, bool per_head, bool include_first_row,
                                      const AnalysisProgress& progress) const {
  std::vector<AttentionStatsResult> results;
  for (int i = 0; i < models.size(); ++i) {
    const auto loaded = impl_->model(models[i]);
    require_causal_language_model(*loaded, "Table 1");
    const auto data = impl_->data(*loaded, corpus);
    AttentionStatsSettings settings;
    settings.include_first_row = include_first_row;
    if (i < static_cast<int>(gates.size()) && !gates[i].on.empty())
      settings.forward.head_gates = impl_->gates(*loaded, gates[i]);
    auto result = guarded([&] {
      return attention_stats(*loaded->model, loaded->name, data.inputs, settings,
                             phase_progress(progress, QString::fromStdString(loaded->name) + ": batches"));
    });
    if (result.cancelled) return {{}, true};
    results.push_back(std::move(result));
  }
  return {QString::fromStdString(attention_stats_csv(results, per_head)), false};
}

AnalysisOutput ModelSession::ablation(int model, const HeadGates& gates, const CorpusSettings& corpus, bool all_but_one,
                                      const AnalysisProgress& progress) const {
  const auto loaded = impl_->model(model);
  const auto data = impl_->data(*loaded, corpus);
  const auto result = guarded([&] {
    return ablate_heads(*loaded->model, loaded->name, data, all_but_one ? AblationMode::AllButOne : AblationMode::Single,
                        impl_->gates(*loaded, gates), phase_progress(progress, "batches"));
  });
  if (result.cancelled) return {{}, true};
  return {QString::fromStdString(ablation_csv(result)), false};
}

AnalysisOutput ModelSession::importance(int model, const HeadGates& gates, const CorpusSettings& corpus, bool normalize,
                                        const AnalysisProgress& progress) const {
  const auto loaded = impl_->model(model);
  const auto data = impl_->data(*loaded, corpus);
  const auto result = guarded([&] {
    return head_importance(*loaded->model, loaded->name, data, normalize, impl_->gates(*loaded, gates),
                           phase_progress(progress, "batches"));
  });
  if (result.cancelled) return {{}, true};
  return {QString::fromStdString(importance_csv(result)), false};
}

AnalysisOutput ModelSession::pruning(int model, const CorpusSettings& corpus, int step_percent,
                                     const AnalysisProgress& progress) const {
  const auto loaded = impl_->model(model);
  const auto data = impl_->data(*loaded, corpus);
  const auto result = guarded([&] {
    return pruning_study(*loaded->model, loaded->name, data, {"importance", "oracle"}, step_percent,
                         phase_progress(progress, "batches (importance, ablation, then each curve)"));
  });
  if (result.cancelled) return {{}, true};
  return {QString::fromStdString(pruning_csv(result)), false};
}

AnalysisOutput ModelSession::topTokens(const QList<int>& models, const std::vector<HeadGates>& gates,
                                       const QString& sentence, int target, int k,
                                       const AnalysisProgress& progress) const {
  std::vector<TopTokensRow> rows;
  for (int i = 0; i < models.size(); ++i) {
    const auto loaded = impl_->model(models[i]);
    require_causal_language_model(*loaded, "Top-attended tokens");
    ForwardOptions forward;
    if (i < static_cast<int>(gates.size()) && !gates[i].on.empty()) forward.head_gates = impl_->gates(*loaded, gates[i]);
    bool cancelled = false;
    auto model_rows = guarded([&] {
      return top_attended_tokens(*loaded->model, *loaded->tokenizer, loaded->name, {{sentence.toStdString(), target}}, k,
                                 forward, phase_progress(progress, "sentences"), &cancelled);
    });
    if (cancelled) return {{}, true};
    rows.insert(rows.end(), model_rows.begin(), model_rows.end());
  }
  return {QString::fromStdString(top_tokens_csv(rows, k)), false};
}

AnalysisOutput ModelSession::diagonalSweep(int model, const HeadGates& gates, const CorpusSettings& corpus,
                                           const QString& factors, const AnalysisProgress& progress) const {
  const auto loaded = impl_->model(model);
  auto points = parse_diagonal_factors(factors.toStdString());
  const auto data = impl_->data(*loaded, corpus);
  ForwardOptions base;
  base.head_gates = impl_->gates(*loaded, gates);
  const auto result = guarded([&] {
    return diagonal_sweep(loaded->name, std::move(points), data_evaluator(*loaded->model, data),
                          static_cast<int64_t>(data.inputs.size()), base, phase_progress(progress, "batches"));
  });
  if (result.cancelled) return {{}, true};
  return {QString::fromStdString(diagonal_sweep_csv(result)), false};
}

std::vector<LabelledDocument> ModelSession::labelledDocuments(int model, const QString& data, LabelledPart part,
                                                             int seed) const {
  const auto loaded = impl_->model(model);
  std::vector<LabelledDocument> documents;
  for (const auto& example : labelled_part(*loaded, data, part, seed, nullptr)) {
    auto text = QString::fromStdString(example.text_a);
    if (!example.text_b.empty()) text += "\t" + QString::fromStdString(example.text_b);
    documents.push_back({QString::fromStdString(loaded->config.labels.at(example.label)), text});
  }
  return documents;
}

AnalysisOutput ModelSession::lamaWordWeights(int model, const LamaWordSettings& settings,
                                             const AnalysisProgress& progress) const {
  const auto loaded = impl_->model(model);
  require_lama(loaded->config, loaded->name);
  WordWeightSettings words;
  if (settings.head < 0 || settings.head > loaded->config.n_heads)
    throw Error("head " + std::to_string(settings.head) + " does not exist in " + loaded->name);
  words.selection.head = settings.head;
  words.selection.scale = settings.scale_by_length ? WeightScale::Length : WeightScale::None;
  words.density_points = settings.density_points;
  std::vector<std::string> typed;
  for (const auto& word : settings.words) typed.push_back(word.toStdString());
  words.words = resolve_words(*loaded->tokenizer, typed);

  std::string described;
  const auto examples = labelled_part(*loaded, settings.data, settings.part, settings.seed, &described);
  const auto attention = guarded([&] {
    return lama_document_attention(*loaded->model, *loaded->tokenizer, examples, settings.batch,
                                   phase_progress(progress, "batches"));
  });
  if (attention.cancelled) return {{}, true, {}};
  const auto& labels = loaded->config.labels;
  const auto report = word_weight_report(attention.documents, labels, words);
  KeywordSettings keyword_settings;
  keyword_settings.selection = words.selection;
  keyword_settings.top = settings.top;
  keyword_settings.min_count = settings.min_count;
  AnalysisOutput output;
  output.csv = QString::fromStdString(word_summary_csv(report.summary));
  output.parts["occurrences"] = QString::fromStdString(word_weights_csv(report.occurrences));
  output.parts["density"] = QString::fromStdString(word_density_csv(report.densities));
  output.parts["keywords"] =
      QString::fromStdString(keywords_csv(top_keywords(attention.documents, labels, keyword_settings)));
  auto description = QString("%1: %2 documents").arg(QString::fromStdString(described)).arg(attention.documents.size());
  if (attention.truncated > 0)
    description += QString(", %1 cut to %2 words").arg(attention.truncated).arg(loaded->config.max_positions);
  output.parts["description"] = description;
  return output;
}

}  // namespace aw

// app/gui/model_session.cpp — see model_session.h.
#include "app/gui/model_session.h"

#include "analysis/capture/expert_routing.h"
#include "models/checkpoint/gguf_model.h"
#include "app/gui/session_tensors.h"
#include "app/gui/token_display.h"

#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/capture/attention_thumbnail.h"
#include "analysis/capture/pooled_attention.h"
#include "analysis/core/attention_blocks.h"
#include "analysis/core/labelled_parts.h"
#include "analysis/core/registry.h"
#include "analysis/capture/staged_capture.h"
#include "analysis/capture/translation_capture.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "models/errors.h"
#include "models/memory_budget.h"
#include "models/runtime.h"

#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace aw {
namespace {

using session::guarded;
using session::weight_block;

// A predicted token's text. Hugging Face models often have more embedding rows than tokens (padded
// to a multiple of 64 or 128): a row past the tokenizer gets a name, not an error.
QString prediction_label(const Tokenizer& tokenizer, int64_t id) {
  if (id < tokenizer.vocab_size()) return shown_token(tokenizer.token_text(id));
  return QString("<id %1: no token>").arg(id);
}

constexpr int64_t kTopPredictions = 5;

using ModelRef = std::shared_ptr<const LoadedModel>;

ModelSummary summarise(const LoadedModel& loaded) {
  ModelSummary summary;
  summary.name = QString::fromStdString(loaded.name);
  summary.dir = QString::fromStdString(loaded.dir);
  summary.architecture = QString::fromStdString(loaded.config.family_name());
  summary.layers = static_cast<int>(loaded.config.n_blocks);
  for (auto heads : loaded.config.heads_per_block) summary.heads_per_block.push_back(static_cast<int>(heads));
  for (const auto& sizes : loaded.config.decoder.query_groups) summary.query_groups.emplace_back(sizes.begin(), sizes.end());
  summary.parameters = loaded.parameter_count;
  summary.dtype = QString::fromStdString(loaded.stored_dtype);
  if (loaded.dtype != torch::kFloat32) summary.dtype += QString(", computing in %1").arg(QString::fromStdString(dtype_name(loaded.dtype)));
  summary.max_positions = static_cast<int>(loaded.config.max_positions);
  summary.classifier = loaded.config.is_classifier();
  summary.causal = loaded.config.causal;
  summary.translation = loaded.config.is_translation();
  const auto names = block_names(loaded.config);
  for (int64_t block = 0; summary.translation && block < loaded.config.n_blocks; ++block) {
    auto kind = QString::fromStdString(names.kind[block]);
    kind[0] = kind[0].toUpper();
    summary.layer_names << QString("%1 %2").arg(kind).arg(names.layer[block]);
  }
  for (const auto& descriptor : analysis_registry())
    if (accepts(loaded.config, descriptor.models)) summary.analyses << QString::fromStdString(descriptor.name);
  return summary;
}

// A bad setting as the form shows it: "Window: 99 exceeds the model's 16 positions".
Error setting_message(const AnalysisDescriptor& descriptor, const SettingError& error) {
  const auto* field = descriptor.field(error.field());
  if (!field) return Error(error.problem());
  return Error((field->label.empty() ? field->name : field->label) + ": " + error.problem());
}

// The top kTopPredictions entries of each row of probabilities [rows, V], labelled by `label(id)`.
template <typename Label>
std::vector<std::vector<Prediction>> top_predictions(const torch::Tensor& probabilities, Label&& label) {
  const auto [values, ids] = probabilities.topk(std::min<int64_t>(kTopPredictions, probabilities.size(-1)), -1);
  const auto value_access = values.accessor<float, 2>();
  const auto id_access = ids.accessor<int64_t, 2>();
  std::vector<std::vector<Prediction>> rows;
  for (int64_t row = 0; row < values.size(0); ++row) {
    std::vector<Prediction> top;
    for (int64_t k = 0; k < values.size(1); ++k) top.push_back({label(id_access[row][k]), value_access[row][k]});
    rows.push_back(std::move(top));
  }
  return rows;
}

// The block downsampled to at most kThumbnailSide per side, each cell the mean of what it covers.
WeightBlock thumbnail_block(const torch::Tensor& block) {  // (H, rows, cols)
  static_assert(AttentionCapture::kThumbnailSide == kThumbnailSide, "the view's thumbnails are the export's");
  return weight_block(attention_thumbnail(block));
}

void append_block(AttentionCapture& capture, const torch::Tensor& block) {  // (H, rows, cols), float, CPU
  capture.layers.push_back(weight_block(block));
  capture.thumbnails.push_back(thumbnail_block(block));
}

// A language model's top next tokens per position, from the last layer's states [1, n, d], computed
// when first asked for (one row's product with the vocabulary, not all n) and then remembered.
std::function<std::vector<Prediction>(int)> position_predictions(ModelRef loaded, torch::Tensor final_hidden) {
  struct Remembered {
    std::mutex mutex;
    std::map<int, std::vector<Prediction>> by_position;
  };
  auto remembered = std::make_shared<Remembered>();
  return [loaded = std::move(loaded), final_hidden = std::move(final_hidden), remembered](int position) {
    std::lock_guard<std::mutex> lock(remembered->mutex);
    auto found = remembered->by_position.find(position);
    if (found != remembered->by_position.end()) return found->second;
    if (position < 0 || position >= final_hidden.size(1)) return std::vector<Prediction>{};
    auto top = guarded([&] {
      c10::InferenceMode inference;
      const auto logits = loaded->model->output(final_hidden.narrow(1, position, 1), ModelInput{});
      if (!logits.defined()) return std::vector<Prediction>{};
      const auto probabilities = torch::softmax(logits.reshape({1, -1}).to(torch::kCPU, torch::kFloat32), -1);
      return top_predictions(probabilities, [&](int64_t id) { return prediction_label(*loaded->tokenizer, id); }).front();
    });
    return remembered->by_position[position] = std::move(top);
  };
}

}  // namespace

WeightBlock session::weight_block(const torch::Tensor& block) {
  auto values = block.contiguous();
  const float* data = values.data_ptr<float>();
  return {static_cast<int>(values.size(0)), static_cast<int>(values.size(1)), static_cast<int>(values.size(2)),
          std::shared_ptr<const float>(data, [owner = std::move(values)](const float*) mutable { owner.reset(); })};
}

// The last capture of one model, which its next re-run builds on (analysis/capture/staged_capture.h): per
// layer its thumbnail and its block, whose floats are there for the layers that capture held.
struct KeptRun {
  std::mutex mutex;  // one run of a model at a time: they share the kept states
  std::unique_ptr<StagedCapture> staged;
  std::vector<WeightBlock> layers, thumbnails;
};

struct ModelSession::Impl {
  torch::Device device = resolve_device("auto");
  ComputeDtype dtype;  // asked for with setComputeDtype; nothing = the device's default
  mutable std::mutex mutex;  // guards `models` and `kept`; each job copies the references it needs
  std::vector<ModelRef> models;
  std::vector<std::shared_ptr<KeptRun>> kept;  // per model

  ModelRef model(int index) const {
    std::lock_guard<std::mutex> lock(mutex);
    if (index < 0 || index >= static_cast<int>(models.size()))
      throw Error("no model number " + std::to_string(index + 1) + " is loaded");
    return models[index];
  }
  std::shared_ptr<KeptRun> kept_run(int index) const {
    std::lock_guard<std::mutex> lock(mutex);
    return kept.at(static_cast<size_t>(index));
  }
  // `shown_layer` −1 holds every layer's block.
  AttentionCapture capture(const ModelRef& loaded, KeptRun& kept, const Encoding& encoding, const QString& text,
                           const HeadGates& gates, int shown_layer, const RunProgress& progress = {}) const;
  AttentionCapture translate(const LoadedModel& loaded, const QString& text, const HeadGates& gates,
                             const QString& target) const;
};

ModelSession::ModelSession() : impl_(std::make_unique<Impl>()) {
  configure_allocator();
  use_one_allocator_arena();  // capture blocks are made on a worker thread and freed on the UI thread
  configure_threads();
}
ModelSession::~ModelSession() = default;

void ModelSession::setComputeDtype(const QString& name) { impl_->dtype = parse_compute_dtype(name.toStdString()); }

ModelSummary ModelSession::load(const QString& dir) {
  auto loaded = guarded([&] {
    // A session-wide BF16 is a preference: the families that compute in F32 only still open.
    auto dtype = impl_->dtype;
    // A GGUF file holds a decoder LM (no config.json to ask); a folder's config says what it is.
    if (!is_gguf_model_path(dir.toStdString())) {
      const auto config = read_model_config(dir.toStdString());
      if (config.is_recurrent() || config.is_translation()) dtype = std::nullopt;
    }
    return load_checkpoint(dir.toStdString(), impl_->device, dtype);  // its threads: set by each job
  });
  auto summary = summarise(loaded);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->models.push_back(std::make_shared<const LoadedModel>(std::move(loaded)));
  impl_->kept.push_back(std::make_shared<KeptRun>());
  return summary;
}

void ModelSession::clear() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->models.clear();
  impl_->kept.clear();
}

int ModelSession::count() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return static_cast<int>(impl_->models.size());
}
ModelSummary ModelSession::summary(int index) const { return summarise(*impl_->model(index)); }
QString ModelSession::deviceDescription() const { return QString::fromStdString(describe_device(impl_->device)); }

AttentionCapture ModelSession::attend(int index, const QString& text, const HeadGates& gates, int shown_layer,
                                      const QString& target, const RunProgress& progress) const {
  const auto loaded = impl_->model(index);
  use_configured_threads();  // on this worker: OpenMP holds the count per thread
  if (loaded->config.is_translation()) return impl_->translate(*loaded, text, gates, target);
  const auto encoding = loaded->tokenizer->encode(text.toStdString());
  if (encoding.ids.empty()) throw Error("the sentence gives no tokens");
  if (static_cast<int64_t>(encoding.ids.size()) > loaded->config.max_positions)
    throw Error("the sentence has " + std::to_string(encoding.ids.size()) + " tokens but " + loaded->name +
                " allows " + std::to_string(loaded->config.max_positions));
  const int layers = static_cast<int>(loaded->config.n_blocks);
  const auto kept = impl_->kept_run(index);
  try {
    return impl_->capture(loaded, *kept, encoding, text, gates, std::clamp(shown_layer, 0, std::max(0, layers - 1)),
                          progress);
  } catch (const RunCancelled&) {
    // Stopped between two layers: the staged states are part old, part new. The next run starts afresh.
    std::lock_guard<std::mutex> lock(kept->mutex);
    kept->staged.reset();
    throw;
  }
}

AttentionCapture ModelSession::attendDocument(int index, const QString& text, const HeadGates& gates) const {
  const auto loaded = impl_->model(index);
  use_configured_threads();
  auto encoding = loaded->tokenizer->encode(text.toStdString());
  if (encoding.ids.empty()) throw Error("the document gives no tokens");
  truncate_to_positions(encoding, loaded->config.max_positions);
  return impl_->capture(loaded, *impl_->kept_run(index), encoding, text, gates, /*shown_layer=*/-1);
}

AttentionCapture ModelSession::Impl::translate(const LoadedModel& loaded, const QString& text, const HeadGates& gates,
                                               const QString& target) const {
  return guarded([&] {
    const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
    SearchSettings search;
    search.beam = kTranslationBeam;
    torch::Tensor head_gates;
    if (!gates.on.empty()) head_gates = gates_from_flags(loaded.config, gates.on).to(loaded.device);
    auto& model = *loaded.model->sequence_to_sequence();
    const auto result = target.isEmpty()
                            ? translate_and_capture(model, codec, text.toStdString(), search, head_gates)
                            : capture_translation_of(model, codec, text.toStdString(), target.toStdString(), head_gates);
    c10::InferenceMode inference;
    AttentionCapture capture;
    capture.text = text;
    for (const auto& token : result.source_tokens) capture.tokens << shown_token(token);
    for (const auto& token : result.decoder_tokens) capture.target_tokens << shown_token(token);
    capture.translation = QString::fromStdString(result.translation);
    capture.beam = kTranslationBeam;
    if (result.teacher_forced) capture.forced_target = target, capture.target_log_probability = result.hypothesis.score;
    for (size_t block = 0; block < result.attention.size(); ++block) {
      capture.layer_kinds.push_back(loaded.config.attention_block(block).kind);
      append_block(capture, result.attention[block]);
    }
    const auto& target = *loaded.target_tokenizer;
    capture.predictions = top_predictions(torch::softmax(result.logits, -1),
                                          [&](int64_t id) { return prediction_label(target, id); });
    return capture;
  });
}

AttentionCapture ModelSession::Impl::capture(const ModelRef& loaded, KeptRun& kept, const Encoding& encoding,
                                             const QString& text, const HeadGates& gates, int shown_layer,
                                             const RunProgress& progress) const {
  return guarded([&] {
    c10::InferenceMode inference;  // the conversion below reads the captured tensors
    std::lock_guard<std::mutex> lock(kept.mutex);
    // Half the command line's budget: the window holds the shown map, the pooled layers and the scene
    // beside each forward (docs/long-context.md, the window's first map at 8k).
    if (!kept.staged)
      kept.staged = std::make_unique<StagedCapture>(*loaded->model, -1,
                                                    std::min(attention_memory_budget(), memory_share(64)));
    torch::Tensor head_gates;
    if (!gates.on.empty()) head_gates = gates_from_flags(loaded->config, gates.on);
    const auto held = [&](int64_t layer) { return shown_layer < 0 || layer == shown_layer; };
    const auto layers = static_cast<size_t>(loaded->config.n_blocks);
    const auto length = static_cast<int64_t>(encoding.ids.size());
    // A text longer than a screen's pixels: each layer as block means, made tile by tile (never whole).
    const int64_t pool = length > AttentionCapture::kFullMapTokens && !loaded->config.has_lama_attention()
                             ? (length + AttentionCapture::kFullMapTokens - 1) / AttentionCapture::kFullMapTokens
                             : 0;
    LayerPooler pooler(length, pool);
    kept.layers.resize(layers);
    kept.thumbnails.resize(layers);
    // Each layer run leaves its thumbnail and, where held, its block, as it is made: no point of the
    // run holds every layer's [H, n, n].
    auto keep = [&](int64_t layer, const WeightBlock& block, const WeightBlock& thumbnail) {
      kept.thumbnails[static_cast<size_t>(layer)] = thumbnail;
      kept.layers[static_cast<size_t>(layer)] =
          held(layer) ? block.withMeanOfHeads() : WeightBlock{block.heads, block.rows, block.cols, nullptr};
    };
    // Layers done, a long text's by its row tiles; a false answer stops the run there.
    const auto report = [&](int64_t layer, double part) {
      if (progress && !progress(static_cast<double>(layer) + part, static_cast<int>(layers))) throw RunCancelled();
    };
    const auto run = pool > 0 ? kept.staged->run(encoding, head_gates, {},
                                                 [&](int64_t layer, int64_t first_row, const torch::Tensor& tile) {
                                                   if (const auto made = pooler.add(first_row, tile))
                                                     keep(layer, weight_block(made->map), weight_block(made->thumbnail));
                                                   report(layer, static_cast<double>(first_row + tile.size(-2)) / length);
                                                 })
                              : kept.staged->run(encoding, head_gates, [&](int64_t layer, const torch::Tensor& attention) {
                                  const auto block = attention.select(0, 0).to(torch::kCPU, torch::kFloat32);  // (H, rows, n)
                                  keep(layer, weight_block(block), thumbnail_block(block));
                                  report(layer, 1.0);
                                });
    // The layers below the first one run are unchanged: a block held there stays (the same floats);
    // one to hold that the last capture let go of is made again.
    auto made_again = [pool](const LayerReplay& replay, int64_t layer) {
      if (pool > 0) return weight_block(replay.pooled(layer, pool).map).withMeanOfHeads();
      return weight_block(replay.attention(layer).select(0, 0).to(torch::kCPU, torch::kFloat32)).withMeanOfHeads();
    };
    for (int64_t layer = 0; layer < run.first_layer_run; ++layer) {
      auto& block = kept.layers[static_cast<size_t>(layer)];
      if (!held(layer)) block.values.reset();
      else if (!block.values) block = made_again(run.replay, layer);
    }

    AttentionCapture capture;
    capture.text = text;
    for (const auto& token : encoding.tokens) capture.tokens << shown_token(token);
    capture.layers = kept.layers;
    capture.thumbnails = kept.thumbnails;
    capture.learned_sinks = loaded->config.decoder.attention_sinks;
    if (loaded->config.moe.experts > 0) {
      // One more forward, without capture: the router's choices under the same gates (a gated head
      // changes the residual the routers read).
      ForwardOptions routed;
      routed.head_gates = head_gates;
      for (const auto& layer : route_tokens(*loaded->model, loaded->name, encoding, routed)) {
        ExpertTokens tokens{static_cast<int>(layer.layer), static_cast<int>(layer.experts.size(1)), {}, {}};
        const auto experts = layer.experts.contiguous(), weights = layer.weights.contiguous();
        tokens.experts.assign(experts.data_ptr<int64_t>(), experts.data_ptr<int64_t>() + experts.numel());
        tokens.weights.assign(weights.data_ptr<float>(), weights.data_ptr<float>() + weights.numel());
        capture.expert_layers.push_back(std::move(tokens));
      }
      capture.expert_count = static_cast<int>(loaded->config.moe.experts);
    }
    if (shown_layer >= 0) {
      capture.replay_layer = [loaded, replay = run.replay, made_again](int layer) {  // `loaded` keeps the model alive
        return guarded([&] {
          use_configured_threads();
          c10::InferenceMode inference;
          return made_again(replay, layer);
        });
      };
    }
    if (pool > 0) {
      capture.pool = static_cast<int>(pool);
      for (const auto& label : block_span_labels(0, length, pool)) capture.row_labels << QString::fromStdString(label);
      capture.column_labels = capture.row_labels;
      capture.region = [loaded, replay = run.replay, length](int layer, int first_row, int end_row, int first_col, int end_col) {
        return guarded([&] {
          if (first_row < 0 || first_row >= end_row || end_row > length || first_col < 0 || first_col >= end_col ||
              end_col > length)
            throw Error("rows [" + std::to_string(first_row) + ", " + std::to_string(end_row) + ") × keys [" +
                        std::to_string(first_col) + ", " + std::to_string(end_col) + ") are not inside the text's " +
                        std::to_string(length) + " tokens");
          use_configured_threads();
          c10::InferenceMode inference;
          std::vector<torch::Tensor> rows;  // only the region's rows are computed, tile by tile
          replay.tiles(layer, [&](int64_t, const torch::Tensor& tile) {
            // A copy of the region's columns: a view (an F32 tile on the CPU) would keep each whole tile alive.
            rows.push_back(tile.select(0, 0).narrow(2, first_col, end_col - first_col)
                               .to(torch::kCPU, torch::kFloat32, /*non_blocking=*/false, /*copy=*/true));
          }, first_row, end_row);
          return weight_block(torch::cat(rows, 1)).withMeanOfHeads();
        });
      };
    }
    capture.classifier = loaded->config.is_classifier();
    if (capture.classifier) {  // (C)
      const auto probabilities =
          torch::softmax(kept.staged->output(run.final_hidden).select(0, 0).to(torch::kCPU, torch::kFloat32), -1);
      std::vector<Prediction> classes;
      const auto access = probabilities.accessor<float, 1>();
      for (int64_t c = 0; c < probabilities.size(0); ++c)
        classes.push_back({QString::fromStdString(c < static_cast<int64_t>(loaded->config.labels.size())
                                                      ? loaded->config.labels[c]
                                                      : std::to_string(c)),
                           access[c]});
      capture.predictions.push_back(classes);
    } else if (loaded->config.is_language_model()) {
      capture.predict_position = position_predictions(loaded, run.final_hidden);
      // The view opens on the last position: its product with the vocabulary (150 MB of weights at
      // GPT-2 size) is made here, on the worker, not on the UI thread.
      capture.predict_position(capture.length() - 1);
    }
    return capture;
  });
}

std::vector<LabelledDocument> ModelSession::labelledDocuments(int model, const QString& data, const QString& part,
                                                             int seed) const {
  const auto loaded = impl_->model(model);
  if (data.isEmpty()) throw Error("choose a labelled file (label<TAB>text lines) first");
  std::vector<LabelledDocument> documents;
  for (const auto& example : read_labelled_part(data.toStdString(), loaded->config.labels,
                                                parse_labelled_part(part.toStdString()), static_cast<uint64_t>(seed))) {
    auto text = QString::fromStdString(example.text_a);
    if (!example.text_b.empty()) text += "\t" + QString::fromStdString(example.text_b);
    documents.push_back({QString::fromStdString(loaded->config.labels.at(example.label)), text});
  }
  return documents;
}

const ResultTable& AnalysisOutput::mainTable() const {
  static const ResultTable empty;
  const auto found = tables.find(main);
  return found == tables.end() ? empty : found->second;
}

const ResultTable* AnalysisOutput::part(const std::string& name) const {
  const auto found = tables.find(name);
  return found == tables.end() ? nullptr : &found->second;
}

AnalysisOutput ModelSession::run(const QString& analysis, const QList<int>& models, const AnalysisSettings& settings,
                                 const AnalysisProgress& progress) const {
  const auto* descriptor = find_analysis(analysis.toStdString());
  if (!descriptor) throw Error("no analysis is called '" + analysis.toStdString() + "'");
  // The job keeps its own references: a session cleared meanwhile does not pull the models away.
  std::vector<ModelRef> loaded;
  for (int index : models) loaded.push_back(impl_->model(index));
  use_configured_threads();
  AnalysisRequest request;
  for (const auto& model : loaded) request.models.push_back(model.get());
  request.settings = descriptor->settings();
  for (auto value = settings.begin(); value != settings.end(); ++value)
    request.settings.set(value.key().toStdString(), value.value().toStdString());
  request.progress = [&progress](int64_t done, int64_t total, const std::string& phase) {
    return !progress || progress(done, total, QString::fromStdString(phase));
  };
  AnalysisOutput output;
  request.note = [&output](const std::string& message) { output.notes << QString::fromStdString(message); };

  AnalysisReport report;
  try {
    report = guarded([&] { return (*descriptor)(request); });
  } catch (const SettingError& error) {
    throw setting_message(*descriptor, error);
  }
  if (report.cancelled) {
    output.cancelled = true;
    return output;
  }
  output.tables = std::move(report.tables);
  output.main = descriptor->stdout_part;
  output.description = QString::fromStdString(report.description);
  if (report.head_scores) {
    output.head_scores = std::move(report.head_scores);
    output.head_scores->model = models.value(output.head_scores->model, -1);  // request index → session index
  }
  return output;
}

QString ModelSession::headsOffText(int index, const HeadGates& gates) const {
  const auto loaded = impl_->model(index);
  std::vector<HeadRef> off;
  for (size_t block = 0; block < gates.on.size(); ++block)
    for (size_t head = 0; head < gates.on[block].size(); ++head)
      if (!gates.on[block][head]) off.push_back({static_cast<int64_t>(block), static_cast<int64_t>(head)});
  return QString::fromStdString(heads_off_group_text(heads_off_group(off, loaded->config)));
}

}  // namespace aw

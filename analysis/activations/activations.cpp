#include "analysis/activations/activations.h"

#include "models/checkpoint/safetensors.h"
#include "models/errors.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>

namespace aw {
namespace {

std::vector<int64_t> every(int64_t count) {
  std::vector<int64_t> all(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) all[static_cast<size_t>(i)] = i;
  return all;
}

// The key/value head each query head of `layer` reads (grouped-query attention), else the head itself.
std::vector<int64_t> kv_owner(const ModelConfig& config, int64_t layer) {
  const int64_t heads = config.heads_per_block.at(layer);
  if (config.decoder.query_groups.empty()) return every(heads);
  std::vector<int64_t> owner;
  const auto& groups = config.decoder.query_groups.at(layer);
  for (int64_t group = 0; group < static_cast<int64_t>(groups.size()); ++group)
    owner.insert(owner.end(), static_cast<size_t>(groups[group]), group);
  return owner;
}

// The heads of `layer` a point's tensor keeps: the asked query heads, or for K and V the key/value
// heads those read.
std::vector<int64_t> kept_heads(const ModelConfig& config, int64_t layer, HookPoint point,
                                const std::vector<int64_t>& asked) {
  const int64_t heads = config.heads_per_block.at(layer);
  auto query_heads = asked.empty() ? every(heads) : asked;
  if (!query_heads.empty() && query_heads.back() >= heads)
    throw Error("head " + std::to_string(query_heads.back()) + " is beyond layer " + std::to_string(layer) + "'s " +
                std::to_string(heads) + " heads (numbered from 0)");
  if (point != HookPoint::K && point != HookPoint::V) return query_heads;
  const auto owner = kv_owner(config, layer);
  std::vector<int64_t> kv;
  for (const auto head : query_heads) kv.push_back(owner[static_cast<size_t>(head)]);
  kv.erase(std::unique(kv.begin(), kv.end()), kv.end());  // owners ascend with their query heads
  return kv;
}

// The width e of a point's last dimension.
int64_t point_width(const ModelConfig& config, HookPoint point, int64_t layer, int64_t n) {
  switch (point) {
    case HookPoint::Q: case HookPoint::K: case HookPoint::V: case HookPoint::Z: return config.head_width(layer);
    case HookPoint::Scores: case HookPoint::Pattern: return n;
    case HookPoint::MlpAct: return config.d_ff;
    case HookPoint::Logits: return config.is_language_model() ? config.vocab_size : config.num_labels;
    default: return config.d_model;
  }
}

std::string join(const std::vector<int64_t>& numbers) { return nlohmann::json(numbers).dump(); }

const char* dtype_text(torch::ScalarType dtype) {
  return dtype == torch::kFloat16 ? "F16" : dtype == torch::kBFloat16 ? "BF16" : "F32";
}

// Writes each hooked tile's asked rows to the next declared tensor, checking that the forward reaches
// the points in the planned order.
class TileWriter {
 public:
  TileWriter(SafetensorsWriter& writer, const std::vector<ActivationTensor>& plan, const ActivationsRequest& request,
             const ModelConfig& config, int64_t n)
      : writer_(writer), plan_(plan), request_(request), config_(config), n_(n) {}

  void take(const HookSite& site, const torch::Tensor& value) {
    TORCH_INTERNAL_ASSERT(next_ < plan_.size() && plan_[next_].point == site.point && plan_[next_].layer == site.layer,
                          "activations arrived out of the planned order");
    if (site.point == HookPoint::Logits && !config_.is_language_model()) {  // a classifier's [B, C]
      writer_.write(value.select(0, 0).to(request_.dtype));
      return finished();
    }
    auto rows = value.select(0, 0);  // [h?, r, e]
    if (per_head(site.point)) {
      const auto heads = kept_heads(config_, site.layer, site.point, request_.heads);
      if (static_cast<int64_t>(heads.size()) != rows.size(0))
        rows = rows.index_select(0, torch::tensor(heads, torch::kLong).to(rows.device()));
    } else {
      rows = rows.unsqueeze(0);  // [1, r, e]
    }
    const int64_t first = site.first_position, count = rows.size(1);
    // The asked positions within this tile, and their rank among all asked positions.
    const auto& positions = request_.positions;
    int64_t rank = 0;
    if (!positions.empty()) {
      const auto begin = std::lower_bound(positions.begin(), positions.end(), first);
      const auto end = std::lower_bound(begin, positions.end(), first + count);
      rank = begin - positions.begin();
      if (begin == end) return done_rows(0, count);
      std::vector<int64_t> local;
      for (auto it = begin; it != end; ++it) local.push_back(*it - first);
      if (static_cast<int64_t>(local.size()) != count)
        rows = rows.index_select(1, torch::tensor(local, torch::kLong).to(rows.device()));
    } else {
      rank = first;
    }
    auto converted = rows.to(request_.dtype);  // [h or 1, r, e]: write_rows's [A, rows, C]
    writer_.write_rows(converted, rank);
    done_rows(converted.size(1), count);
  }

 private:
  // `written` asked rows of `seen` tile rows: the tensor is done once the forward passed its last row.
  void done_rows(int64_t written, int64_t seen) {
    written_ += written;
    seen_ += seen;
    if (seen_ >= n_) {  // every point's rows are the text's positions
      TORCH_INTERNAL_ASSERT(written_ == plan_[next_].shape[plan_[next_].shape.size() - 2]);
      finished();
    }
  }
  void finished() {
    ++next_;
    written_ = seen_ = 0;
  }

  SafetensorsWriter& writer_;
  const std::vector<ActivationTensor>& plan_;
  const ActivationsRequest& request_;
  const ModelConfig& config_;
  int64_t n_;
  size_t next_ = 0;
  int64_t written_ = 0, seen_ = 0;
};

}  // namespace

std::vector<ActivationTensor> planned_activations(const AttentionModel& model, int64_t n,
                                                  const ActivationsRequest& request) {
  const auto& config = model.config();
  const auto available = model.hook_points();
  if (available.empty()) throw Error("a " + config.family_name() + " model has no hook points yet (docs/hooks.md)");
  for (const auto point : request.points)
    if (std::find(available.begin(), available.end(), point) == available.end())
      throw Error("a " + config.family_name() + " model has no point '" + hook_point_name(point) + "'; it has " +
                  hook_point_list(available));
  if (request.dtype != torch::kFloat32 && request.dtype != torch::kFloat16 && request.dtype != torch::kBFloat16)
    throw Error("activations are written as F32, F16 or BF16");
  const auto layers = request.layers.empty() ? every(config.n_blocks) : request.layers;
  const int64_t rows = request.positions.empty() ? n : static_cast<int64_t>(request.positions.size());
  std::vector<ActivationTensor> plan;
  auto asked = [&](HookPoint point) {
    return std::find(request.points.begin(), request.points.end(), point) != request.points.end();
  };
  for (const auto layer : layers)
    for (int i = 0; i < kHookPointCount; ++i) {
      const auto point = static_cast<HookPoint>(i);
      if (!per_layer(point) || !asked(point)) continue;
      const int64_t width = point_width(config, point, layer, n);
      std::vector<int64_t> shape{rows, width};
      if (per_head(point))
        shape.insert(shape.begin(), static_cast<int64_t>(kept_heads(config, layer, point, request.heads).size()));
      plan.push_back({hook_name(point, layer), point, layer, shape});
    }
  for (const auto point : {HookPoint::FinalNorm, HookPoint::Logits}) {
    if (!asked(point)) continue;
    std::vector<int64_t> shape{rows, point_width(config, point, -1, n)};
    if (point == HookPoint::Logits && !config.is_language_model()) shape = {config.num_labels};
    plan.push_back({hook_name(point, -1), point, -1, shape});
  }
  return plan;
}

ActivationsSummary write_activations(AttentionModel& model, const std::vector<int64_t>& ids,
                                     const ActivationsRequest& request, const std::string& path,
                                     std::map<std::string, std::string> metadata, const ProgressCallback& progress) {
  const auto& config = model.config();
  const auto n = static_cast<int64_t>(ids.size());
  if (n == 0) throw Error("the text gives no tokens");
  if (!request.positions.empty() && request.positions.back() >= n)
    throw Error("position " + std::to_string(request.positions.back()) + " is beyond the text's " + std::to_string(n) +
                " tokens (numbered from 0)");
  const auto plan = planned_activations(model, n, request);
  ActivationsSummary summary;
  std::vector<SafetensorsWriter::Declared> declared;
  for (const auto& tensor : plan) {
    declared.push_back({tensor.name, request.dtype, tensor.shape});
    int64_t elements = 1;
    for (const auto size : tensor.shape) elements *= size;
    summary.bytes += elements * static_cast<int64_t>(c10::elementSize(request.dtype));
  }
  summary.tensors = static_cast<int64_t>(plan.size());
  std::vector<std::string> point_names;
  for (const auto point : request.points) point_names.push_back(hook_point_name(point));
  metadata["format"] = "attention-workbench activations 1";
  metadata["ids"] = join(ids);
  metadata["points"] = nlohmann::json(point_names).dump();
  metadata["layers"] = join(request.layers.empty() ? every(config.n_blocks) : request.layers);
  metadata["heads"] = request.heads.empty() ? "all" : join(request.heads);
  metadata["positions"] = request.positions.empty() ? "all" : join(request.positions);
  metadata["dtype"] = dtype_text(request.dtype);
  SafetensorsWriter writer(path, declared, metadata);
  TileWriter tiles(writer, plan, request, config, n);

  // Readers at the asked layers only: a layer without hooks runs as it does without this.
  ForwardOptions options;
  options.memory_budget = request.memory_budget;
  const auto reader = [&tiles](const HookSite& site, const torch::Tensor& value) {
    tiles.take(site, value);
    return torch::Tensor();
  };
  for (const auto point : request.points) {
    if (!per_layer(point)) options.hooks.add(point, -1, reader);
    else
      for (const auto layer : request.layers.empty() ? every(config.n_blocks) : request.layers)
        options.hooks.add(point, layer, reader);
  }

  torch::InferenceMode inference;
  const auto device = model.module().parameters().front().device();
  ModelInput input;
  input.input_ids = torch::tensor(ids, torch::kLong).unsqueeze(0).to(device);
  auto hidden = model.embed(input);
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
    hidden = model.run_layers(std::move(hidden), input, layer, layer + 1, options).hidden;
    if (!report_progress(progress, layer + 1, config.n_blocks)) return summary.cancelled = true, summary;
  }
  // The output layer only when its points are asked: the unembedding is the cost at a large vocabulary.
  const bool after_layers = std::any_of(request.points.begin(), request.points.end(),
                                        [](HookPoint point) { return !per_layer(point); });
  if (after_layers) model.hooked_output(hidden, input, options.hooks);
  writer.finish();
  return summary;
}

}  // namespace aw

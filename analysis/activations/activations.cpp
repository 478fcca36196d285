#include "analysis/activations/activations.h"

#include "models/attention_kind.h"
#include "models/checkpoint/safetensors.h"
#include "models/errors.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <set>
#include <utility>

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

// The heads of a block a point's tensor keeps: the asked query heads, or for K and V the key/value
// heads those read. `where` names the block for the message: "layer 0", "cross layer 1".
std::vector<int64_t> kept_heads(const ModelConfig& config, int64_t block, HookPoint point,
                                const std::vector<int64_t>& asked, const std::string& where) {
  const int64_t heads = config.heads_per_block.at(block);
  auto query_heads = asked.empty() ? every(heads) : asked;
  if (!query_heads.empty() && query_heads.back() >= heads)
    throw Error("head " + std::to_string(query_heads.back()) + " is beyond " + where + "'s " + std::to_string(heads) +
                " heads (numbered from 0)");
  if (point != HookPoint::K && point != HookPoint::V) return query_heads;
  const auto owner = kv_owner(config, block);
  std::vector<int64_t> kv;
  for (const auto head : query_heads) kv.push_back(owner[static_cast<size_t>(head)]);
  kv.erase(std::unique(kv.begin(), kv.end()), kv.end());  // owners ascend with their query heads
  return kv;
}

const std::string kEncoder = to_string(AttentionKind::Encoder), kDecoder = to_string(AttentionKind::Decoder);

// A translation model's points read the source (enc) or the target (dec, cross, the logits); the
// keys of its scores and pattern are the target's for dec only.
bool rows_are_target(const ModelConfig& config, const HookAddress& address) {
  return config.is_translation() && address.group != kEncoder;
}
bool keys_are_target(const ModelConfig& config, const HookAddress& address) {
  return config.is_translation() && address.group == kDecoder;
}

// The width e of a point's last dimension.
int64_t point_width(const ModelConfig& config, const HookAddress& address, int64_t keys) {
  switch (address.point) {
    case HookPoint::Z:
      if (config.has_lama_attention()) return config.d_model;  // S: a mix of the annotations
      return config.head_width(address.layer);
    case HookPoint::Q: case HookPoint::K: case HookPoint::V: return config.head_width(address.layer);
    case HookPoint::Scores: case HookPoint::Pattern: return keys;
    case HookPoint::Router: return config.moe.experts;  // the router's logits, one per expert
    case HookPoint::MlpAct:
      if (!config.is_translation()) return config.d_ff;
      return address.group == kEncoder ? config.translation.encoder_ffn : config.translation.decoder_ffn;
    case HookPoint::Logits:
      if (config.is_translation()) return config.translation.target_vocab_size;
      return config.is_classifier() ? config.num_labels : config.vocab_size;
    default: return config.d_model;
  }
}

std::string join(const std::vector<int64_t>& numbers) { return nlohmann::json(numbers).dump(); }

const char* dtype_text(torch::ScalarType dtype) {
  return dtype == torch::kFloat16 ? "F16" : dtype == torch::kBFloat16 ? "BF16" : "F32";
}

// Writes each hooked tile's asked rows to the next declared tensor, checking that the forward reaches
// the planned points in the planned order (a reader at −1 also sees the sites no tensor asks: those
// pass).
class TileWriter {
 public:
  TileWriter(SafetensorsWriter& writer, const std::vector<ActivationTensor>& plan, const ActivationsRequest& request,
             const ModelConfig& config)
      : writer_(writer), plan_(plan), request_(request), config_(config) {
    for (const auto& tensor : plan) planned_.insert({static_cast<int>(tensor.point), tensor.layer});
  }

  void take(const HookSite& site, const torch::Tensor& value) {
    if (!planned_.count({static_cast<int>(site.point), site.layer})) return;
    TORCH_INTERNAL_ASSERT(next_ < plan_.size() && plan_[next_].point == site.point && plan_[next_].layer == site.layer,
                          "activations arrived out of the planned order");
    const auto& tensor = plan_[next_];
    if (site.point == HookPoint::Logits && config_.is_classifier()) {  // a classifier's [B, C]
      writer_.write(value.select(0, 0).to(request_.dtype));
      return finished();
    }
    auto rows = value.select(0, 0);  // [h?, r, e]
    if (per_head(site.point)) {
      if (static_cast<int64_t>(tensor.heads.size()) != rows.size(0))
        rows = rows.index_select(0, torch::tensor(tensor.heads, torch::kLong).to(rows.device()));
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
    const auto& tensor = plan_[next_];
    if (seen_ >= tensor.sequence) {
      TORCH_INTERNAL_ASSERT(written_ == tensor.shape[tensor.shape.size() - 2]);
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
  std::set<std::pair<int, int64_t>> planned_;  // (point, layer)
  size_t next_ = 0;
  int64_t written_ = 0, seen_ = 0;
};

// Every asked layer within each asked kind's layers.
void check_layers(const std::vector<HookAddress>& addresses, const ActivationsRequest& request) {
  if (request.layers.empty()) return;
  for (const auto& asked : request.points) {
    int64_t layers = 0;
    for (const auto& address : addresses)
      if (address.group == asked.group && address.number >= 0) layers = std::max(layers, address.number + 1);
    if (layers == 0) continue;  // final_norm, logits
    if (request.layers.back() >= layers)
      throw Error("layer " + std::to_string(request.layers.back()) + " is beyond the model's " +
                  std::to_string(layers) + (asked.group.empty() ? "" : " " + asked.group) +
                  " layers (numbered from 0)");
  }
}

}  // namespace

std::vector<ActivationTensor> planned_activations(const AttentionModel& model, int64_t n,
                                                  const ActivationsRequest& request) {
  const auto& config = model.config();
  const auto addresses = model.hook_addresses();
  if (addresses.empty()) throw Error("a " + config.family_name() + " model has no hook points yet (docs/hooks.md)");
  for (const auto& asked : request.points) {
    const bool has = std::any_of(addresses.begin(), addresses.end(), [&](const HookAddress& address) {
      return address.group == asked.group && address.point == asked.point;
    });
    if (!has)
      throw Error("a " + config.family_name() + " model has no point '" + asked.short_name() + "'; it has " +
                  short_name_list(addresses));
  }
  if (request.dtype != torch::kFloat32 && request.dtype != torch::kFloat16 && request.dtype != torch::kBFloat16)
    throw Error("activations are written as F32, F16 or BF16");
  check_layers(addresses, request);
  const auto m = static_cast<int64_t>(request.target_ids.size());
  auto asked = [&](const HookAddress& address) {
    if (address.number >= 0 && !request.layers.empty() &&
        !std::binary_search(request.layers.begin(), request.layers.end(), address.number))
      return false;
    return std::any_of(request.points.begin(), request.points.end(), [&](const GroupedPoint& point) {
      return point.group == address.group && point.point == address.point;
    });
  };
  std::vector<ActivationTensor> plan;
  for (const auto& address : addresses) {
    if (!asked(address)) continue;
    const bool target = rows_are_target(config, address);
    if (target && m == 0)
      throw Error(address.short_name() + " needs a target (the translation the decoder reads, teacher-forced)");
    // LAMA's heads have one query each (the context), not a row per word.
    const bool one_query = config.has_lama_attention() && per_head(address.point);
    if (one_query && !request.positions.empty())
      throw Error(address.name() + " has one query row per head (LAMA's context), not one per position; "
                  "--positions applies to attn_in");
    const int64_t sequence = one_query ? 1 : target ? m : n;
    if (!request.positions.empty() && request.positions.back() >= sequence)
      throw Error("position " + std::to_string(request.positions.back()) + " is beyond the " +
                  (target ? "target" : "text") + "'s " + std::to_string(sequence) + " tokens (numbered from 0)");
    const int64_t rows = request.positions.empty() ? sequence : static_cast<int64_t>(request.positions.size());
    ActivationTensor tensor{address.name(), address.point, address.layer, sequence, {}, {}};
    tensor.shape = {rows, point_width(config, address, keys_are_target(config, address) ? m : n)};
    if (address.point == HookPoint::Logits && config.is_classifier()) tensor.shape = {config.num_labels};
    if (per_head(address.point)) {
      const auto where = (address.group.empty() ? "" : address.group + " ") + "layer " + std::to_string(address.number);
      tensor.heads = kept_heads(config, address.layer, address.point, request.heads, where);
      tensor.shape.insert(tensor.shape.begin(), static_cast<int64_t>(tensor.heads.size()));
    }
    plan.push_back(std::move(tensor));
  }
  return plan;
}

ActivationsSummary write_activations(AttentionModel& model, const std::vector<int64_t>& ids,
                                     const ActivationsRequest& request, const std::string& path,
                                     std::map<std::string, std::string> metadata, const ProgressCallback& progress) {
  const auto& config = model.config();
  const auto n = static_cast<int64_t>(ids.size());
  if (n == 0) throw Error("the text gives no tokens");
  if (!request.target_ids.empty() && !config.is_translation())
    throw Error("a " + config.family_name() + " model reads one text; a target is for translation models");
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
  for (const auto& point : request.points) point_names.push_back(point.short_name());
  metadata["format"] = "attention-workbench activations 1";
  metadata["ids"] = join(ids);
  if (!request.target_ids.empty()) metadata["target_ids"] = join(request.target_ids);
  metadata["points"] = nlohmann::json(point_names).dump();
  metadata["layers"] = request.layers.empty() ? "all" : join(request.layers);
  metadata["heads"] = request.heads.empty() ? "all" : join(request.heads);
  metadata["positions"] = request.positions.empty() ? "all" : join(request.positions);
  metadata["dtype"] = dtype_text(request.dtype);
  SafetensorsWriter writer(path, declared, metadata);
  TileWriter tiles(writer, plan, request, config);

  // Readers at the asked sites only: a layer without hooks runs as it does without this.
  ForwardOptions options;
  options.memory_budget = request.memory_budget;
  const auto reader = [&tiles](const HookSite& site, const torch::Tensor& value) {
    tiles.take(site, value);
    return torch::Tensor();
  };
  std::set<std::pair<int, int64_t>> hooked;
  for (const auto& tensor : plan)
    if (hooked.insert({static_cast<int>(tensor.point), tensor.layer}).second)
      options.hooks.add(tensor.point, tensor.layer, reader);

  torch::InferenceMode inference;
  const auto device = model.module().parameters().front().device();
  ModelInput input;
  input.input_ids = torch::tensor(ids, torch::kLong).unsqueeze(0).to(device);
  if (!request.target_ids.empty())
    input.decoder_input_ids = torch::tensor(request.target_ids, torch::kLong).unsqueeze(0).to(device);
  // Block by block (a translation's decoder a layer, its self and cross block, at a time); without a
  // target, a translation model's encoder only.
  const int64_t encoder_blocks = config.is_translation() ? config.translation.encoder_layers : config.n_blocks;
  const int64_t blocks = input.decoder_input_ids.defined() ? config.n_blocks : encoder_blocks;
  auto hidden = model.embed(input);
  for (int64_t block = 0; block < blocks;) {
    const int64_t end = block + (block < encoder_blocks ? 1 : 2);
    hidden = model.run_layers(std::move(hidden), input, block, end, options).hidden;
    block = end;
    if (!report_progress(progress, block, blocks)) return summary.cancelled = true, summary;
  }
  // The output layer only when its points are asked: the unembedding is the cost at a large vocabulary.
  const bool after_layers =
      std::any_of(plan.begin(), plan.end(), [](const ActivationTensor& tensor) { return tensor.layer < 0; });
  if (after_layers) model.hooked_output(hidden, input, options.hooks);
  writer.finish();
  return summary;
}

}  // namespace aw

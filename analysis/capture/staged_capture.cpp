// analysis/capture/staged_capture.cpp — see staged_capture.h.
#include "analysis/capture/staged_capture.h"

#include "analysis/capture/attention_capture.h"
#include "models/nn/attention.h"
#include "models/runtime.h"

#include <torch/torch.h>

namespace aw {

ForwardOptions LayerReplay::options() const {
  ForwardOptions options;
  options.memory_budget = memory_budget_;
  return options;
}

torch::Tensor LayerReplay::attention(int64_t layer) const {
  TORCH_CHECK(model_ && layer >= 0 && layer < layers(), "no layer ", layer, " in this run");
  c10::InferenceMode inference;
  return model_->layer_attention(layer_inputs_[static_cast<size_t>(layer)]->tensor(), input_, layer, options());
}

void LayerReplay::tiles(int64_t layer, const TileConsumer& consumer, int64_t first_row, int64_t end_row) const {
  TORCH_CHECK(model_ && layer >= 0 && layer < layers(), "no layer ", layer, " in this run");
  c10::InferenceMode inference;
  model_->layer_attention_tiles(layer_inputs_[static_cast<size_t>(layer)]->tensor(), input_, layer, options(), consumer,
                                first_row, end_row);
}

PooledLayer LayerReplay::pooled(int64_t layer, int64_t pool) const {
  const int64_t length = input_.input_ids.size(1);
  LayerPooler pooler(length, pool);
  std::optional<PooledLayer> made;
  tiles(layer, [&](int64_t first_row, const torch::Tensor& tile) {
    if (auto layer_made = pooler.add(first_row, tile)) made = std::move(layer_made);
  });
  TORCH_CHECK(made.has_value(), "layer ", layer, " gave no tiles");
  return std::move(*made);
}

StagedRun StagedCapture::run(const Encoding& encoding, const torch::Tensor& gates, const AttentionObserver& each_layer,
                             const AttentionTileObserver& each_tile) {
  c10::InferenceMode inference;
  if (model_.module().is_training()) model_.module().eval();  // no write when it already is: the UI thread may be reading
  const auto& config = model_.config();
  const int64_t layers = config.n_blocks;
  const auto wanted = gates.defined() ? gates.to(torch::kCPU, torch::kFloat32).contiguous()
                                      : torch::ones({layers, config.max_heads()}, torch::kFloat32);

  ForwardOptions options;
  options.memory_budget = memory_budget_;
  // The first layer whose gates differ from the kept run's; 0 for another text (or none kept).
  int64_t first = 0;
  torch::Tensor hidden;  // entering layer `first`, once known
  const bool same_text = !layer_inputs_.empty() && encoding.ids == ids_ && encoding.type_ids == type_ids_;
  if (same_text) {
    first = layers;
    for (int64_t layer = 0; layer < layers; ++layer)
      if (!torch::equal(wanted[layer], gates_[layer])) {
        first = layer;
        break;
      }
  } else {
    clear();
    input_ = encoding_input(encoding);
    ids_ = encoding.ids;
    type_ids_ = encoding.type_ids;
    hidden = model_.embed(input_);
    const int64_t memory = states_in_memory_up_to_ < 0 ? resolved_memory_budget(options) : states_in_memory_up_to_;
    states_in_file_ = layers > 0 && layers * static_cast<int64_t>(hidden.nbytes()) > memory;
    layer_inputs_.push_back(KeptState::keep(hidden, states_in_file_));
  }

  const bool observed = each_layer || each_tile;
  options.capture = observed ? CaptureMode::Stats : CaptureMode::Full;
  options.observer = each_layer;
  options.tile_observer = each_tile;
  if (gates.defined()) options.head_gates = gates.to(final_hidden_.defined() ? final_hidden_.device() : hidden.device());
  StagedRun result;
  result.first_layer_run = first;
  if (!observed) result.attention.resize(static_cast<size_t>(layers));
  if (first < layers) {
    layer_inputs_.resize(static_cast<size_t>(first) + 1);  // the states above `first` change
    if (!hidden.defined()) hidden = layer_inputs_.back()->tensor();
    // One layer per call, keeping what enters the next: run_layers is layer-by-layer anyway.
    for (int64_t layer = first; layer < layers; ++layer) {
      auto step = model_.run_layers(hidden, input_, layer, layer + 1, options);
      if (!step.attention.empty()) result.attention[layer] = std::move(step.attention.front());
      hidden = std::move(step.hidden);
      if (layer + 1 < layers) layer_inputs_.push_back(KeptState::keep(hidden, states_in_file_));
      if (states_in_file_) release_free_memory();  // a long text: the holes its layer left (runtime.h)
    }
    final_hidden_ = hidden;
  } else if (layers == 0 && !final_hidden_.defined()) {  // no attention layers (a recurrent baseline): the
    final_hidden_ = model_.run_layers(hidden, input_, 0, 0, options).hidden;  // encoder's states
  }
  gates_ = wanted;
  result.final_hidden = final_hidden_;
  result.replay = LayerReplay(model_, input_,
                              std::vector<std::shared_ptr<const KeptState>>(layer_inputs_.begin(),
                                                                            layer_inputs_.begin() + layers),
                              memory_budget_);
  return result;
}

torch::Tensor StagedCapture::output(const torch::Tensor& final_hidden) const {
  c10::InferenceMode inference;
  return model_.output(final_hidden, input_);
}

void StagedCapture::clear() {
  input_ = {};
  ids_.clear();
  type_ids_.clear();
  gates_ = torch::Tensor();
  layer_inputs_.clear();
  final_hidden_ = torch::Tensor();
  states_in_file_ = false;
}

}  // namespace aw

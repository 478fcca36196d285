// analysis/capture/staged_capture.h — one text captured again and again under changing head gates, as the
// desktop application does on every head toggle. A gate in layer l cannot change what enters layer
// l, so the hidden states entering each layer are kept and a re-run starts at the lowest layer whose
// gates changed: a toggle in the last of 12 layers runs one layer, not twelve.
#pragma once

#include "analysis/capture/kept_state.h"
#include "analysis/capture/pooled_attention.h"
#include "models/nn/model.h"
#include "models/text/tokenizer.h"

#include <torch/types.h>

#include <memory>
#include <vector>

namespace aw {

// Any layer's attention of one run, made again when asked (AttentionModel::layer_attention) from the
// state that entered the layer: a view can keep the layer it shows instead of every layer's
// [H, n, n]. Copies share the states; a replay stays valid, and keeps giving its own run's attention,
// after the StagedCapture runs again (a re-run makes new states, it does not overwrite these).
class LayerReplay {
 public:
  LayerReplay() = default;
  // `memory_budget` tiles each layer made again (ForwardOptions::memory_budget; 0 = the process's).
  LayerReplay(AttentionModel& model, ModelInput input, std::vector<std::shared_ptr<const KeptState>> layer_inputs,
              int64_t memory_budget = 0)
      : model_(&model), input_(std::move(input)), layer_inputs_(std::move(layer_inputs)), memory_budget_(memory_budget) {}

  // [1, H, rows, n], equal to what the run captured for `layer`; in inference mode, so any thread may
  // ask while the model is not being trained.
  torch::Tensor attention(int64_t layer) const;
  // The same tile by tile ([1, H, rows, n] in row order), only query rows [first_row, end_row) (end −1
  // = to the last): a long text's layer pooled, or a region of it, without its whole matrix.
  void tiles(int64_t layer, const TileConsumer& consumer, int64_t first_row = 0, int64_t end_row = -1) const;
  // The layer's block means of pool × pool tokens and its thumbnail, pooled tile by tile.
  PooledLayer pooled(int64_t layer, int64_t pool) const;
  int64_t layers() const { return static_cast<int64_t>(layer_inputs_.size()); }

 private:
  ForwardOptions options() const;

  AttentionModel* model_ = nullptr;
  ModelInput input_;
  std::vector<std::shared_ptr<const KeptState>> layer_inputs_;  // [1, n, d] entering each attention layer
  int64_t memory_budget_ = 0;
};

struct StagedRun {
  // Per layer [1, H, rows, n] for the layers run (first_layer_run and above); undefined below, where
  // the caller's copy of the previous run's attention still holds. Empty when run() was given an
  // observer (or a tile observer), which saw each of them instead.
  std::vector<torch::Tensor> attention;
  torch::Tensor final_hidden;  // [1, n, d]: what the last layer gave, before the model's output head
  int64_t first_layer_run = 0;
  LayerReplay replay;          // every layer's attention of this run, when asked
};

class StagedCapture {
 public:
  // `model` must outlive this; it is only read (inference mode). A text's states stay in memory while
  // all of them take at most `states_in_memory_up_to` bytes (−1: the memory budget; 0: never); beyond,
  // they go to a temporary file (kept_state.h), so a long text's run holds one state, not one per layer.
  // `memory_budget` bounds each run's and replay's attention tile and feed-forward chunk
  // (ForwardOptions::memory_budget; 0 = the process's, models/memory_budget.h).
  explicit StagedCapture(AttentionModel& model, int64_t states_in_memory_up_to = -1, int64_t memory_budget = 0)
      : model_(model), states_in_memory_up_to_(states_in_memory_up_to), memory_budget_(memory_budget) {}

  // Runs `encoding` (a batch of one) with full capture under `gates` ([L, H_max]; undefined = all on).
  // Equal, value for value, to a full forward under the same gates: the layers skipped would compute
  // exactly what they computed last time.
  // With `each_layer` set, each layer run hands it its attention and none is kept in the result, so
  // a long text's run never holds every layer's [H, n, n] at once.
  // With `each_tile` set instead, each tile of each layer's attention goes to it as it is made
  // ([1, H, rows, n], models/nn/attention.h): not even one layer's matrix is held.
  StagedRun run(const Encoding& encoding, const torch::Tensor& gates, const AttentionObserver& each_layer = {},
                const AttentionTileObserver& each_tile = {});
  // The model's output (logits) for `final_hidden` rows of the last run's input; the caller narrows
  // the rows (a language model's one position) to avoid the vocabulary-wide product for every token.
  torch::Tensor output(const torch::Tensor& final_hidden) const;
  // Drops the kept states (n × d values per layer, in memory or in a file).
  void clear();
  // Whether the last text's states went to a file.
  bool states_in_file() const { return states_in_file_; }

 private:
  AttentionModel& model_;
  int64_t states_in_memory_up_to_;
  int64_t memory_budget_;
  bool states_in_file_ = false;
  ModelInput input_;                        // of the kept states
  std::vector<int64_t> ids_, type_ids_;
  torch::Tensor gates_;                     // [L, H_max] float on the CPU, all-on spelled out as ones
  std::vector<std::shared_ptr<const KeptState>> layer_inputs_;  // [1, n, d] entering layer l (the embedding
                                                                // alone for a model without attention layers)
  torch::Tensor final_hidden_;              // [1, n, d] leaving layer L−1 (or the encoder): always in memory
};

}  // namespace aw

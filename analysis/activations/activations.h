// analysis/activations/activations.h — a forward's activations at named hook points (models/nn/hooks.h)
// written to a safetensors file as they are computed: one tensor per point and layer, only the asked
// layers, heads and positions, in F32, F16 or BF16. A point that comes in tiles (a long text's
// attention pattern, each head's write) is written tile by tile, so the file may be far larger than
// memory. docs/hooks.md shows how to read it from numpy.
#pragma once

#include "models/nn/model.h"
#include "models/progress.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace aw {

struct ActivationsRequest {
  // In any order; each one of the model's (its hook_addresses' short names). A translation model's
  // carry their kind: {"enc", ResidPost}, {"cross", Pattern}.
  std::vector<GroupedPoint> points;
  std::vector<int64_t> layers;     // 0-based within each kind of block, ascending; empty = every layer
  std::vector<int64_t> heads;      // 0-based, ascending, for the per-head points; empty = every head
  std::vector<int64_t> positions;  // 0-based, ascending; empty = every position
  torch::ScalarType dtype = torch::kFloat32;  // F32, F16 or BF16
  int64_t memory_budget = 0;  // of the forward's tiles (ForwardOptions); 0 = the process's
  // A translation model's target (decoder_input_ids, read teacher-forced); its points need it.
  std::vector<int64_t> target_ids;
};

struct ActivationsSummary {
  int64_t tensors = 0;
  int64_t bytes = 0;  // of tensor data
  bool cancelled = false;  // nothing was written then
};

// One tensor's name and shape in the file: its HookAddress's name and, by point, [P, e] (residual
// like), [h, P, e] (per head; K and V: the key/value heads the asked heads read), [h, P, keys] (scores
// and pattern: P query rows, every key), [C] (a classifier's logits).
struct ActivationTensor {
  std::string name;
  HookPoint point;
  int64_t layer;     // the hook layer (HookSite's): the block's index; −1 after the layers
  int64_t sequence;  // the positions its rows come from: the text's n, a translation's target's m
  std::vector<int64_t> shape;
  std::vector<int64_t> heads;  // per-head points: the heads kept (K, V: the key/value heads)
};
// The tensors `request` asks of a text of n tokens (a translation: n source tokens and
// request.target_ids), in the order the forward makes them. Throws aw::Error for a point the model
// lacks (naming those it has), a layer, head or position it lacks, or a dtype other than F32/F16/BF16.
std::vector<ActivationTensor> planned_activations(const AttentionModel& model, int64_t n,
                                                  const ActivationsRequest& request);

// Runs `ids` (one text) with readers at the asked points and writes them to `path` (atomically: a
// failed or cancelled run leaves no file). `metadata` is added to the file's own (ids, points,
// layers, heads, positions, dtype). `progress` sees (layers done, L) and cancels by returning false.
ActivationsSummary write_activations(AttentionModel& model, const std::vector<int64_t>& ids,
                                     const ActivationsRequest& request, const std::string& path,
                                     std::map<std::string, std::string> metadata = {},
                                     const ProgressCallback& progress = {});

}  // namespace aw

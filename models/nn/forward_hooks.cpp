// models/nn/forward_hooks.cpp — see forward_hooks.h.
#include "models/nn/forward_hooks.h"

#include <torch/torch.h>

#include <utility>

namespace aw {

Hooks forward_hooks(std::vector<torch::Tensor> layer_gates, const Hooks& caller, AttentionSink& sink,
                    int64_t first_layer, int64_t end_layer) {
  Hooks hooks;
  bool gated = false;
  for (const auto& gates : layer_gates) gated = gated || gates.defined();
  if (gated)
    hooks.add(HookPoint::Z, -1, [gates = std::move(layer_gates)](const HookSite& site, const torch::Tensor& mixed) {
      if (site.layer >= static_cast<int64_t>(gates.size()) || !gates[site.layer].defined()) return torch::Tensor();
      const auto& layer = gates[site.layer];                                                 // (k·B|1, H)
      // k·B gate rows: k settings of the same B rows, which part ways here (setting-major).
      auto contexts = layer.size(0) > mixed.size(0) ? mixed.repeat({layer.size(0) / mixed.size(0), 1, 1, 1}) : mixed;
      return contexts * layer.view({layer.size(0), layer.size(1), 1, 1});                    // (k·B, H, n, dh)
    });
  hooks.append(caller);
  if (sink.wants_probabilities())
    for (int64_t layer = first_layer; layer < end_layer; ++layer)
      if (auto consume = sink.tiles(layer))
        hooks.add(HookPoint::Pattern, layer, [consume = std::move(consume)](const HookSite& site, const torch::Tensor& tile) {
          consume(site.first_position, tile);
          return torch::Tensor();
        });
  return hooks;
}

}  // namespace aw

// models/nn/hooks.h — named points inside a forward and the hooks that read or write them
// (docs/hooks.md: each point's name, shape and place, and the families that have it).
//
// A hook sees the tensor at its point and returns it changed, or an undefined tensor to leave it as it
// is (a reader). Every hook at a point runs in the order added, each seeing the one before's result.
// A forward without hooks asks one bit per point and nothing else.
//
// Every intervention of a forward is a hook here: the head gates are the first writer at z, the
// captured attention the last reader at pattern (models/nn/forward_hooks.h), patching's replacements
// writers at their points. What stays outside is global to the forward: the diagonal intervention
// (it is part of the score formula BET models are trained with and enters BET(SF)'s reweighting
// pre-pass, which no point exposes), the memory budget and the choice of the explicit attention.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aw {

// In the order a layer computes them. Shapes (dimension letters of model.h; r = the positions of one
// tile, e the point's own width):
//   residual-like [B, n|r, e]: ResidPre, AttnIn, AttnOut, ResidMid, MlpIn, MlpAct, MlpOut, ResidPost,
//                              FinalNorm, Logits; Router [B, n|r, E]: a sparse layer's router logits,
//                              before the top-k (mixtures of experts)
//   per head     [B, H|Hkv, n|r, e]: Q, K, V (K and V as stored: one per key/value head), Scores and
//                              Pattern ([B, H, r, keys]: query rows), Z, HeadOut
enum class HookPoint {
  ResidPre, AttnIn, Q, K, V, Scores, Pattern, Z, HeadOut, AttnOut, ResidMid, MlpIn, Router, MlpAct, MlpOut, ResidPost,
  FinalNorm, Logits,
};
constexpr int kHookPointCount = static_cast<int>(HookPoint::Logits) + 1;

// Where a hook is called: the point, its layer (−1 for FinalNorm and Logits) and the first position
// of the tensor's rows (0 unless the point comes in tiles of positions: Scores, Pattern, HeadOut, and
// Router and MlpAct of a long text).
struct HookSite {
  HookPoint point;
  int64_t layer;
  int64_t first_position;
};
using HookFunction = std::function<torch::Tensor(const HookSite& site, const torch::Tensor& value)>;

class Hooks {
 public:
  // `layer` −1: every layer (and the points after the layers).
  void add(HookPoint point, int64_t layer, HookFunction function);
  // Every hook of `other`, after this one's.
  void append(const Hooks& other);
  bool empty() const { return points_ == 0; }
  bool has(HookPoint point, int64_t layer) const;
  // `value` after every hook at the site. A write keeps the point's shape, but for one thing: a writer
  // at Z may return k·B rows for B (k settings of the same rows, setting-major), which part ways from
  // there as gate settings do (the ablation sweep's gates, patching one head per setting).
  torch::Tensor run(HookPoint point, int64_t layer, int64_t first_position, torch::Tensor value) const;

 private:
  struct Hook {
    HookPoint point;
    int64_t layer;
    HookFunction function;
  };
  std::vector<Hook> hooks_;
  uint32_t points_ = 0;  // bit i: some hook at point i
};

// One layer's view of a forward's hooks, as the modules of that layer call them.
struct LayerHooks {
  const Hooks* hooks = nullptr;
  int64_t layer = -1;

  bool has(HookPoint point) const { return hooks && hooks->has(point, layer); }
  torch::Tensor run(HookPoint point, torch::Tensor value, int64_t first_position = 0) const {
    return has(point) ? hooks->run(point, layer, first_position, std::move(value)) : value;
  }
};

// Whether a point's tensor has a head dimension (dimension 1) and where its positions are.
bool per_head(HookPoint point);
int64_t position_dimension(HookPoint point);
// Whether the point is one per layer (all but FinalNorm and Logits).
bool per_layer(HookPoint point);

// Names: a point's short name ("resid_pre", "attn.z", "mlp.act", "final_norm"), the full name of one
// layer's ("blocks.3.attn.z"; FinalNorm and Logits have no layer), and the point a short name ("z" or
// "attn.z") or a full name stands for (nullopt when none; `layer` set from a full name).
std::string hook_point_name(HookPoint point);
std::string hook_name(HookPoint point, int64_t layer);
std::optional<HookPoint> hook_point_named(const std::string& name, int64_t* layer = nullptr);
// "resid_pre, attn_in, …" of `points`, for the message about a name a model does not have.
std::string hook_point_list(const std::vector<HookPoint>& points);

// One point of a model at one place, and its name. A model with one kind of block names its points
// "blocks.<l>.<point>" (hook_name); a translation model's carry their block's kind first:
// "enc.blocks.0.attn.z", "dec.blocks.1.resid_post", "cross.blocks.1.attn.pattern", "enc.final_norm".
struct HookAddress {
  HookPoint point;
  int64_t layer;      // where Hooks::add and HookSite place it: the block's index; −1 after the layers
  std::string group;  // "" or a translation model's "enc", "dec", "cross" (attention_kind.h)
  int64_t number;     // the layer within its group as the name numbers it; −1: none (final_norm, logits)

  std::string name() const;
  // The name without "blocks.<number>.", as --hooks takes it: "resid_post", "z", "cross.z".
  std::string short_name() const;
};
// The addresses of one stack of `layers` blocks with `points`, in the order a forward passes them.
std::vector<HookAddress> stacked_addresses(const std::vector<HookPoint>& points, int64_t layers);
// The address of (point, layer) among `addresses`, or nullptr.
const HookAddress* find_address(const std::vector<HookAddress>& addresses, HookPoint point, int64_t layer);
// The group and the point of a short name ("z", "attn.z", "cross.attn.z"); nullopt when it names none.
struct GroupedPoint {
  GroupedPoint(HookPoint point) : point(point) {}  // NOLINT(google-explicit-constructor): a one-kind model's
  GroupedPoint(std::string group, HookPoint point) : group(std::move(group)), point(point) {}
  std::string group;  // "" or "enc", "dec", "cross"
  HookPoint point;

  std::string short_name() const { return (group.empty() ? "" : group + ".") + hook_point_name(point); }
  bool operator==(const GroupedPoint& other) const { return group == other.group && point == other.point; }
};
std::optional<GroupedPoint> grouped_point_named(const std::string& name);
// Each short name of `addresses` once, in order: "resid_pre, attn_in, …", for the message about a name
// a model does not have.
std::string short_name_list(const std::vector<HookAddress>& addresses);

}  // namespace aw

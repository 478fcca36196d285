#include "models/nn/hooks.h"

#include "models/attention_kind.h"
#include "models/errors.h"
#include "models/parse_number.h"

#include <algorithm>
#include <array>

namespace aw {
namespace {

struct PointName {
  HookPoint point;
  const char* name;  // short; inside the attention also under "attn."
  bool in_attention;
};
// In declaration order, checked below.
constexpr std::array<PointName, kHookPointCount> kPointNames = {{
    {HookPoint::ResidPre, "resid_pre", false},   {HookPoint::AttnIn, "attn_in", false},
    {HookPoint::Q, "q", true},                   {HookPoint::K, "k", true},
    {HookPoint::V, "v", true},                   {HookPoint::Scores, "scores", true},
    {HookPoint::Pattern, "pattern", true},       {HookPoint::Z, "z", true},
    {HookPoint::HeadOut, "head_out", true},      {HookPoint::AttnOut, "attn_out", false},
    {HookPoint::ResidMid, "resid_mid", false},   {HookPoint::MlpIn, "mlp_in", false},
    {HookPoint::Router, "router", false},        {HookPoint::MlpAct, "mlp_act", false},
    {HookPoint::MlpOut, "mlp_out", false},
    {HookPoint::ResidPost, "resid_post", false}, {HookPoint::FinalNorm, "final_norm", false},
    {HookPoint::Logits, "logits", false},
}};
constexpr bool in_declaration_order() {
  for (int i = 0; i < kHookPointCount; ++i)
    if (static_cast<int>(kPointNames[i].point) != i) return false;
  return true;
}
static_assert(in_declaration_order(), "kPointNames lists the points in HookPoint's order");

const PointName& entry(HookPoint point) { return kPointNames[static_cast<size_t>(point)]; }

uint32_t bit(HookPoint point) { return uint32_t{1} << static_cast<int>(point); }

std::optional<HookPoint> short_named(const std::string& name) {
  for (const auto& each : kPointNames) {
    if (name == each.name) return each.point;
    if (each.in_attention && name == std::string("attn.") + each.name) return each.point;
  }
  return std::nullopt;
}

// k·B rows of the same shape otherwise (Hooks::run).
bool splits_rows(const torch::Tensor& changed, const torch::Tensor& value) {
  return changed.dim() == value.dim() && value.size(0) > 0 && changed.size(0) % value.size(0) == 0 &&
         changed.sizes().slice(1) == value.sizes().slice(1);
}

}  // namespace

void Hooks::add(HookPoint point, int64_t layer, HookFunction function) {
  hooks_.push_back({point, layer, std::move(function)});
  points_ |= bit(point);
}

void Hooks::append(const Hooks& other) {
  hooks_.insert(hooks_.end(), other.hooks_.begin(), other.hooks_.end());
  points_ |= other.points_;
}

bool Hooks::has(HookPoint point, int64_t layer) const {
  if (!(points_ & bit(point))) return false;
  for (const auto& hook : hooks_)
    if (hook.point == point && (hook.layer < 0 || hook.layer == layer)) return true;
  return false;
}

torch::Tensor Hooks::run(HookPoint point, int64_t layer, int64_t first_position, torch::Tensor value) const {
  const HookSite site{point, layer, first_position};
  for (const auto& hook : hooks_) {
    if (hook.point != point || (hook.layer >= 0 && hook.layer != layer)) continue;
    auto changed = hook.function(site, value);
    if (!changed.defined()) continue;
    if (changed.sizes() != value.sizes() && !(point == HookPoint::Z && splits_rows(changed, value)))
      throw Error("a hook at " + hook_name(point, layer) + " wrote a tensor of shape " + shape_string(changed.sizes()) +
                  "; the point's is " + shape_string(value.sizes()));
    value = std::move(changed);
  }
  return value;
}

bool per_head(HookPoint point) {
  switch (point) {
    case HookPoint::Q: case HookPoint::K: case HookPoint::V: case HookPoint::Scores: case HookPoint::Pattern:
    case HookPoint::Z: case HookPoint::HeadOut: return true;
    default: return false;
  }
}

int64_t position_dimension(HookPoint point) { return per_head(point) ? 2 : 1; }

bool per_layer(HookPoint point) { return point != HookPoint::FinalNorm && point != HookPoint::Logits; }

std::string hook_point_name(HookPoint point) { return entry(point).name; }

std::string hook_name(HookPoint point, int64_t layer) {
  const auto& named = entry(point);
  if (!per_layer(point)) return named.name;
  return "blocks." + std::to_string(layer) + "." + (named.in_attention ? "attn." : "") + named.name;
}

std::optional<HookPoint> hook_point_named(const std::string& name, int64_t* layer) {
  const std::string prefix = "blocks.";
  if (name.compare(0, prefix.size(), prefix) != 0) return short_named(name);
  const auto dot = name.find('.', prefix.size());
  if (dot == std::string::npos) return std::nullopt;
  int64_t number = -1;
  const auto point = short_named(name.substr(dot + 1));
  if (!parse_integer(name.substr(prefix.size(), dot - prefix.size()), number) || number < 0 || !point ||
      !per_layer(*point))
    return std::nullopt;
  if (layer) *layer = number;
  return point;
}

std::string hook_point_list(const std::vector<HookPoint>& points) {
  std::string list;
  for (const auto point : points) list += (list.empty() ? "" : ", ") + hook_point_name(point);
  return list;
}

std::string HookAddress::name() const {
  const std::string prefix = group.empty() ? "" : group + ".";
  if (number < 0) return prefix + hook_point_name(point);
  return prefix + hook_name(point, number);
}

std::string HookAddress::short_name() const { return GroupedPoint(group, point).short_name(); }

std::vector<HookAddress> stacked_addresses(const std::vector<HookPoint>& points, int64_t layers) {
  std::vector<HookAddress> addresses;
  for (int64_t layer = 0; layer < layers; ++layer)
    for (const auto point : points)
      if (per_layer(point)) addresses.push_back({point, layer, "", layer});
  for (const auto point : points)
    if (!per_layer(point)) addresses.push_back({point, -1, "", -1});
  return addresses;
}

const HookAddress* find_address(const std::vector<HookAddress>& addresses, HookPoint point, int64_t layer) {
  for (const auto& address : addresses)
    if (address.point == point && address.layer == layer) return &address;
  return nullptr;
}

std::optional<GroupedPoint> grouped_point_named(const std::string& name) {
  const auto dot = name.find('.');
  if (dot != std::string::npos) {
    const auto group = name.substr(0, dot);
    if (parse_attention_kind(group)) {
      const auto point = short_named(name.substr(dot + 1));
      if (!point) return std::nullopt;
      return GroupedPoint{group, *point};
    }
  }
  const auto point = short_named(name);
  if (!point) return std::nullopt;
  return GroupedPoint{"", *point};
}

std::string short_name_list(const std::vector<HookAddress>& addresses) {
  std::vector<std::string> names;
  for (const auto& address : addresses) {
    auto name = address.short_name();
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace aw

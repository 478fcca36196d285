// analysis/patching/head_patching.cpp — see head_patching.h.
#include "analysis/patching/head_patching.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <numeric>

namespace aw {
namespace {

// A batch of pairs, right-padded: both prompts and where each one ends.
struct PairBatch {
  ModelInput clean, corrupted;
  torch::Tensor last;    // [B] long: each pair's last position
  torch::Tensor tokens;  // [B, 2] long: answer, foil
};

PairBatch pair_batch(const std::vector<PatchPair>& pairs, size_t first, size_t count, const torch::Device& device) {
  size_t longest = 0;
  for (size_t i = first; i < first + count; ++i) longest = std::max(longest, pairs[i].clean.size());
  const auto rows = static_cast<int64_t>(count), length = static_cast<int64_t>(longest);
  auto clean = torch::zeros({rows, length}, torch::kLong), corrupted = torch::zeros({rows, length}, torch::kLong);
  auto mask = torch::zeros({rows, length}, torch::kLong), last = torch::empty({rows}, torch::kLong);
  auto tokens = torch::empty({rows, 2}, torch::kLong);
  for (int64_t b = 0; b < rows; ++b) {
    const auto& pair = pairs[first + static_cast<size_t>(b)];
    const auto n = static_cast<int64_t>(pair.clean.size());
    clean[b].narrow(0, 0, n).copy_(torch::tensor(pair.clean, torch::kLong));
    corrupted[b].narrow(0, 0, n).copy_(torch::tensor(pair.corrupted, torch::kLong));
    mask[b].narrow(0, 0, n).fill_(1);
    last[b] = n - 1;
    tokens[b][0] = pair.answer;
    tokens[b][1] = pair.foil;
  }
  PairBatch batch;
  batch.clean.input_ids = clean.to(device);
  batch.corrupted.input_ids = corrupted.to(device);
  batch.clean.attention_mask = batch.corrupted.attention_mask = mask.to(device);
  batch.last = last.to(device);
  batch.tokens = tokens.to(device);
  return batch;
}

// hidden [k·B, n, d] at each row's last position (row s·B + b ends where pair b does): [k·B, 1, d].
torch::Tensor at_last(const torch::Tensor& hidden, const torch::Tensor& last) {
  const int64_t rows = hidden.size(0), batch = last.size(0);
  const auto index = last.repeat({rows / batch}).view({rows, 1, 1}).expand({rows, 1, hidden.size(2)});
  return hidden.gather(1, index);
}

// A writer at `point` of `layer` that puts `clean`'s unit `unit` (a head, or a key/value head) into the
// run, at every position or at `position`; `clean` is the clean run's whole [B, H, n, e] there.
HookFunction unit_patch(const torch::Tensor& clean, int64_t unit, int64_t position) {
  return [&clean, unit, position](const HookSite& site, const torch::Tensor& value) {
    const int64_t rows = value.size(2);
    auto patched = value.clone();
    auto target = patched.select(1, unit);                                               // (B, rows, e)
    const auto source = clean.select(1, unit).narrow(1, site.first_position, rows);
    if (position < 0) target.copy_(source);
    else if (position >= site.first_position && position < site.first_position + rows)
      target.select(1, position - site.first_position).copy_(source.select(1, position - site.first_position));
    return patched;
  };
}

// A residual-stream point's writer: position `position` of the clean run's value [B, n, e] in place of
// the corrupted run's (in the tile that holds it).
HookFunction position_patch(const torch::Tensor& clean, int64_t position) {
  return [&clean, position](const HookSite& site, const torch::Tensor& value) {
    const int64_t at = position - site.first_position;
    if (at < 0 || at >= value.size(1)) return torch::Tensor();
    auto patched = value.clone();
    patched.select(1, at).copy_(clean.select(1, position));
    return patched;
  };
}

}  // namespace

std::vector<int64_t> patched_positions(const std::vector<PatchPair>& pairs, int64_t position, HookPoint point) {
  if (position >= 0) return {position};
  const auto& first = pairs.front();
  for (const auto& pair : pairs)
    if (pair.clean.size() != first.clean.size())
      throw Error("patching at '" + hook_point_name(point) + "' position by position needs prompts of one length: line " +
                  std::to_string(first.line) + " has " + std::to_string(first.clean.size()) + " tokens, line " +
                  std::to_string(pair.line) + " " + std::to_string(pair.clean.size()) + "; or choose one position (--position)");
  std::vector<int64_t> every(first.clean.size());
  std::iota(every.begin(), every.end(), int64_t{0});
  return every;
}

namespace {

// Pattern patching's source at `layer`: the clean run's attention mixing the corrupted run's values
// (one per key/value head as the V point holds them; each query head reads its group's), gated as
// the layer's contexts are.
torch::Tensor clean_pattern_contexts(const ModelConfig& config, int64_t layer, const torch::Tensor& pattern,
                                     torch::Tensor values, const torch::Tensor& gates) {
  if (!config.decoder.query_groups.empty()) {
    const auto& groups = config.decoder.query_groups.at(layer);
    values = values.repeat_interleave(torch::tensor(groups, torch::dtype(torch::kLong).device(values.device())), 1);
  }
  auto mixed = torch::matmul(pattern.to(values.scalar_type()), values);                    // (B, H, n, dh)
  if (gates.defined())
    mixed = mixed * gates[layer].narrow(0, 0, mixed.size(1)).to(mixed.options()).view({1, -1, 1, 1});
  return mixed;
}

// m = logit(answer) − logit(foil) at the last position of each of the k·B rows: [k·B] float64.
torch::Tensor logit_difference(AttentionModel& model, const torch::Tensor& hidden, const PairBatch& batch) {
  const auto logits = model.output(at_last(hidden, batch.last), ModelInput{}).squeeze(1);  // (k·B, V)
  const auto tokens = batch.tokens.repeat({logits.size(0) / batch.tokens.size(0), 1});
  const auto chosen = logits.gather(1, tokens).to(torch::kFloat64);
  return chosen.select(1, 0) - chosen.select(1, 1);
}

}  // namespace

std::string direct_logit_refusal(const ModelConfig& config) {
  if (config.decoder.post_norms)
    return "no DLA: a " + config.family_name() +
           " model normalises the attention's output (every head's write together) before the residual, so no "
           "head's write is its own";
  if (config.decoder.final_softcap > 0)
    return "no DLA: a " + config.family_name() + " model soft-caps its logits, so the heads' writes do not add up to them";
  return "";
}

PatchResult patch_heads(AttentionModel& model, const std::vector<PatchPair>& pairs, const PatchSettings& settings,
                        const ProgressCallback& progress) {
  const auto points = model.hook_points();
  if (std::find(points.begin(), points.end(), HookPoint::Z) == points.end())
    throw Error("a " + model.config().family_name() + " model's head outputs cannot be patched here");
  c10::InferenceMode inference;
  model.module().eval();
  const auto& config = model.config();
  const int64_t layers = config.n_blocks, count = static_cast<int64_t>(pairs.size());
  const auto device = model.module().parameters().front().device();
  for (const auto& pair : pairs)
    if (settings.position >= static_cast<int64_t>(pair.clean.size()))
      throw Error("line " + std::to_string(pair.line) + ": position " + std::to_string(settings.position) +
                  " is past the prompt's " + std::to_string(pair.clean.size()) + " tokens");
  const bool at_point = settings.kind == PatchKind::Output && settings.point != HookPoint::Z;
  if (at_point) {
    if (!per_layer(settings.point) || settings.point == HookPoint::Scores || settings.point == HookPoint::Pattern)
      throw Error("patching at '" + hook_point_name(settings.point) + "' is not offered: a head's z, q, k, v or "
                  "head_out, or a layer's residual-stream point (resid_pre … resid_post); the pattern: --kind pattern");
    if (std::find(points.begin(), points.end(), settings.point) == points.end())
      throw Error("a " + config.family_name() + " model has no point '" + hook_point_name(settings.point) + "'");
  }
  const bool key_value = at_point && (settings.point == HookPoint::K || settings.point == HookPoint::V);
  const bool by_position = at_point && !per_head(settings.point);
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  PatchResult result;
  result.heads_per_layer = config.heads_per_block;
  if (key_value)
    for (int64_t layer = 0; layer < layers; ++layer) result.heads_per_layer[layer] = config.kv_heads_in(layer);
  if (by_position) {
    result.positions = patched_positions(pairs, settings.position, settings.point);
    result.heads_per_layer.assign(static_cast<size_t>(layers), static_cast<int64_t>(result.positions.size()));
  }
  const int64_t widest = std::max(config.max_heads(), *std::max_element(result.heads_per_layer.begin(),
                                                                         result.heads_per_layer.end()));
  result.clean = torch::empty({count}, torch::kFloat64);
  result.corrupted = torch::empty({count}, torch::kFloat64);
  result.patched = torch::full({layers, widest, count}, nan, torch::kFloat64);
  result.dla = torch::full({layers, widest, count}, nan, torch::kFloat64);
  bool grouped = false;  // a key/value head read by several query heads has no write of its own
  for (int64_t layer = 0; layer < layers; ++layer) grouped |= config.kv_heads_in(layer) != config.heads_per_block[layer];
  if (by_position)
    result.dla_refused = "no DLA: patching at '" + hook_point_name(settings.point) + "' patches positions, not heads";
  else if (key_value && grouped)
    result.dla_refused = "no DLA: patching at '" + hook_point_name(settings.point) +
                         "' patches key/value heads, each read by several query heads";
  else
    result.dla_refused = direct_logit_refusal(config);
  ForwardOptions plain;
  plain.head_gates = settings.gates;
  const int64_t batches = (count + settings.batch - 1) / settings.batch, total = batches * (layers + 1);
  int64_t done = 0;

  for (int64_t first = 0; first < count; first += settings.batch) {
    const int64_t rows = std::min(settings.batch, count - first);
    const auto batch = pair_batch(pairs, static_cast<size_t>(first), static_cast<size_t>(rows), device);
    // The clean run: every layer's contexts, gated as the run goes on with them (and its attention,
    // for pattern patching), kept; z patching and the DLA read them, a residual point neither.
    std::vector<torch::Tensor> contexts(layers), patterns(layers);
    ForwardOptions clean = plain;
    if (!by_position)
      clean.hooks.add(HookPoint::Z, -1, [&contexts](const HookSite& site, const torch::Tensor& mixed) {
        contexts[site.layer] = mixed;
        return torch::Tensor();
      });
    std::vector<std::vector<torch::Tensor>> point_tiles(layers);  // the clean run at the point, tile by tile
    if (at_point)
      clean.hooks.add(settings.point, -1, [&point_tiles](const HookSite& site, const torch::Tensor& value) {
        point_tiles[site.layer].push_back(value);
        return torch::Tensor();
      });
    if (settings.kind == PatchKind::Pattern) {
      clean.capture = CaptureMode::Stats;
      clean.observer = [&patterns](int64_t layer, const torch::Tensor& probabilities) { patterns[layer] = probabilities; };
    }
    const auto clean_hidden = model.run_layers(model.embed(batch.clean), batch.clean, 0, layers, clean).hidden;
    result.clean.narrow(0, first, rows).copy_(logit_difference(model, clean_hidden, batch));
    // Direct logit attribution: each head's write at the last position, through the final norm.
    const auto residual = at_last(clean_hidden, batch.last).squeeze(1);                        // (B, d)
    for (int64_t layer = 0; layer < layers && result.dla_refused.empty(); ++layer) {
      const auto& mixed = contexts[layer];  // (B, H, n, dh); a head switched off wrote nothing
      const auto index = batch.last.view({rows, 1, 1, 1}).expand({rows, mixed.size(1), 1, mixed.size(3)});
      const auto writes = model.head_writes(layer, mixed.gather(2, index).squeeze(2));          // (B, H, d)
      const auto logits = model.direct_logits(residual, writes, batch.tokens).to(torch::kFloat64);  // (B, H, 2)
      result.dla[layer].narrow(0, 0, writes.size(1)).narrow(1, first, rows).copy_(
          (logits.select(2, 0) - logits.select(2, 1)).transpose(0, 1));
    }
    // The corrupted run, layer by layer: the state entering each layer kept for the patched runs.
    std::vector<torch::Tensor> entering(layers + 1);
    entering[0] = model.embed(batch.corrupted);
    for (int64_t layer = 0; layer < layers; ++layer)
      entering[layer + 1] = model.run_layers(entering[layer], batch.corrupted, layer, layer + 1, plain).hidden;
    result.corrupted.narrow(0, first, rows).copy_(logit_difference(model, entering[layers], batch));
    if (!report_progress(progress, ++done, total)) return result.cancelled = true, result;

    // At another point than z: each unit patched in a run of its own, from its layer up.
    for (int64_t layer = 0; layer < layers && at_point; ++layer) {
      const auto& tiles = point_tiles[layer];
      const auto whole = tiles.size() == 1 ? tiles.front() : torch::cat(tiles, position_dimension(settings.point));
      for (int64_t unit = 0; unit < result.heads_per_layer[layer]; ++unit) {
        ForwardOptions patched = plain;
        patched.hooks.add(settings.point, layer, by_position ? position_patch(whole, result.positions[unit])
                                                          : unit_patch(whole, unit, settings.position));
        const auto hidden = model.run_layers(entering[layer], batch.corrupted, layer, layers, patched).hidden;
        result.patched[layer][unit].narrow(0, first, rows).copy_(logit_difference(model, hidden, batch));
      }
      if (!report_progress(progress, ++done, total)) return result.cancelled = true, result;
    }
    // Each layer's heads patched, one setting per head, from that layer up.
    for (int64_t layer = 0; layer < layers && !at_point; ++layer) {
      const int64_t heads = config.heads_per_block[layer];
      ForwardOptions patched = plain;
      torch::Tensor values;  // (B, Hkv, n, dh): the corrupted run's, for pattern patching
      if (settings.kind == PatchKind::Pattern)
        patched.hooks.add(HookPoint::V, layer, [&values](const HookSite&, const torch::Tensor& value) {
          values = value;
          return torch::Tensor();
        });
      // After the gates (forward_hooks.h): the source is gated as the corrupted contexts are.
      patched.hooks.add(HookPoint::Z, layer, [&, layer, heads](const HookSite&, const torch::Tensor& mixed) {
        const auto source = settings.kind == PatchKind::Output ? contexts[layer]
                                                               : clean_pattern_contexts(config, layer, patterns[layer],
                                                                                        values, settings.gates);
        // where[s, h, i]: setting s takes the source for head s (at the chosen position, or all).
        auto where = torch::eye(heads, torch::dtype(torch::kBool).device(mixed.device())).view({heads, 1, heads, 1, 1});
        if (settings.position >= 0) {
          auto at_position = torch::zeros({mixed.size(2)}, torch::dtype(torch::kBool).device(mixed.device()));
          at_position[settings.position] = true;
          where = where & at_position.view({1, 1, 1, -1, 1});
        }
        const auto split = torch::where(where, source.unsqueeze(0), mixed.unsqueeze(0));    // (k, B, H, n, dh)
        return split.reshape({heads * mixed.size(0), mixed.size(1), mixed.size(2), mixed.size(3)});
      });
      const auto hidden = model.run_layers(entering[layer], batch.corrupted, layer, layers, patched).hidden;
      const auto metric = logit_difference(model, hidden, batch).view({heads, rows});
      result.patched[layer].narrow(0, 0, heads).narrow(1, first, rows).copy_(metric);
      if (!report_progress(progress, ++done, total)) return result.cancelled = true, result;
    }
  }
  return result;
}

void require_restorable(const std::string& path, const torch::Tensor& clean, const torch::Tensor& corrupted) {
  if (!(std::abs((clean - corrupted).mean().item<double>()) > 1e-6))
    throw Error(path + ": the clean and corrupted prompts give the same mean logit difference (" +
                std::to_string(clean.mean().item<double>()) + "): there is no effect to restore");
}

}  // namespace aw

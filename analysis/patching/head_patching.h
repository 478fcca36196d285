// analysis/patching/head_patching.h — activation patching per attention head, and direct logit
// attribution, on clean/corrupted prompt pairs (patch_pairs.h). The metric of a run is the logit
// difference m = logit(answer) − logit(foil) at the prompt's last position.
//   output patching   the corrupted run with one head's context — its attention output before the
//                     output projection — replaced by the clean run's (at every position, or one)
//   pattern patching  the corrupted run with one head's attention probabilities replaced by the
//                     clean run's, mixing the corrupted run's own values
//   DLA               on the clean run, what each head writes at the last position, through the final
//                     norm (its scale taken from the full run) onto W_U[answer] − W_U[foil]
// Batched as the ablation sweep is: the corrupted run's layers below the patched one run once, and
// the heads of a layer are its k settings, the rows part ways at that layer (k·B rows above it).
#pragma once

#include "analysis/patching/patch_pairs.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

enum class PatchKind { Output, Pattern };

struct PatchSettings {
  PatchKind kind = PatchKind::Output;
  // Output patching at this hook point (models/nn/hooks.h): z (the head's context, the default), q, k,
  // v or head_out, per head (K and V per key/value head: the units of the result); or a layer's
  // residual-stream point (resid_pre … resid_post, mlp_act), per position: the units are `position`
  // alone, or (−1) every position of pairs that all have one length.
  HookPoint point = HookPoint::Z;
  int64_t position = -1;  // output patching at this token position only (0-based); −1 = every position
  int64_t batch = 8;      // pairs per forward
  torch::Tensor gates;    // [L, H_max] gates every run is made under (undefined: all on)
};

struct PatchResult {
  std::vector<int64_t> heads_per_layer;  // the units patched: key/value heads for K and V, positions for
                                         // a residual-stream point
  std::vector<int64_t> positions;        // a residual-stream point: each unit's position (empty otherwise)
  torch::Tensor clean, corrupted;  // [P] float64: m of each pair's clean and corrupted run
  torch::Tensor patched;           // [L, H_max, P] float64: m with that head patched (NaN: no such head)
  torch::Tensor dla;               // [L, H_max, P] float64: each head's direct logit attribution on the clean run
  std::string dla_refused;         // why the model has no DLA (dla then all NaN); "" when it has one
  bool cancelled = false;
};

// Why a head's direct logit attribution is not defined for a model, or "" when it is: a head's write
// must reach the logits through the final norm alone — not through a norm on the attention's output
// (Gemma, OLMo 2: one norm over every head's sum), and not through soft-capped logits (Gemma 2).
std::string direct_logit_refusal(const ModelConfig& config);

// The positions a residual-stream point is patched at, one unit each: `position`, or (−1) every position
// of prompts that all have one length (a position is then the same place in every pair). Throws aw::Error
// naming two lines of different lengths.
std::vector<int64_t> patched_positions(const std::vector<PatchPair>& pairs, int64_t position, HookPoint point);

// Throws aw::Error "<path>: the clean and corrupted prompts give the same mean logit difference (m): there
// is no effect to restore" when the runs' m [P] do not differ on average (every effect would divide by 0).
void require_restorable(const std::string& path, const torch::Tensor& clean, const torch::Tensor& corrupted);

// Every pair through `model` (inference mode): throws aw::Error when the model cannot patch heads
// (has no z point), lacks the point, or a position is outside a pair. `progress` is told (layers patched and
// pairs' batches done, total).
PatchResult patch_heads(AttentionModel& model, const std::vector<PatchPair>& pairs, const PatchSettings& settings,
                        const ProgressCallback& progress = {});

}  // namespace aw

// analysis/logit_lens/logit_lens.h — the logit lens (nostalgebraist 2020, "interpreting GPT: the logit
// lens"): the residual stream after every layer read as if it were the last, through the model's own
// output (its final norm, the unembedding and, for Gemma 2, the logits' soft-cap). Per chosen position
// and layer: the top-k tokens with their probabilities, the rank and probability of the token the
// position is scored against (the next token of the text, or one target for every position), and the
// KL divergence from the model's own output distribution to the layer's. Layer 0 is the embeddings
// (Hugging Face's hidden_states[0]); layer L is the model's output, where the KL is 0.
//
// The forward runs layer by layer (AttentionModel::run_layers), keeping only the chosen positions'
// states ([L + 1, P, d]); the unembedding, the cost at long context, is made for those P positions
// alone, after the last layer, when the model's own distribution is known.
#pragma once

#include "models/nn/model.h"
#include "models/progress.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace aw {

struct LogitLensSettings {
  std::vector<int64_t> positions;  // 0-based, ascending, each < the text's length
  int64_t k = 5;                   // top tokens per layer and position, 1 … V
  int64_t target = -1;             // the token every position is scored against; −1 = each one's next token
  // Also each head's write at every chosen position, read through the final norm (its scale taken
  // from the model's last state there) and the unembedding: direct logit attribution per head.
  bool heads = false;
};

// One layer read at one position.
struct LogitLensCell {
  int64_t layer = 0;     // 0 = the embeddings, l = the state after layer l (1 … L)
  int64_t position = 0;  // 0-based
  int64_t scored = -1;   // the token ranked: the target or the next token; −1 at the text's last position without a target
  int64_t rank = 0;      // 1 = the layer's top token (ties counted in the token's favour); 0 when nothing is scored
  double probability = std::numeric_limits<double>::quiet_NaN();  // the scored token's; NaN when nothing is scored
  double kl = 0;         // KL(the model's output ‖ this layer's distribution), in nats
  std::vector<int64_t> top;              // the k most probable tokens, best first
  std::vector<double> top_probability;   // their probabilities
};

// One head's write read at one position (LogitLensSettings::heads): logits, not probabilities — a
// head's write is a term of the logits, not a distribution of its own. The final norm's bias and the
// output projection's are no head's and are left out.
struct LogitLensHeadCell {
  int64_t layer = 1;     // 1 … L, the layer whose attention the head is in
  int64_t head = 0;      // 0-based
  int64_t position = 0;  // 0-based
  int64_t scored = -1;   // as LogitLensCell::scored
  double dla = std::numeric_limits<double>::quiet_NaN();  // the scored token's logit from this head; NaN when none
  std::vector<int64_t> top;        // the k tokens this head's write raises most, most first
  std::vector<double> top_logit;   // their logits from it
};

struct LogitLensResult {
  std::vector<LogitLensCell> cells;  // layer-major: every position of layer 0, then of layer 1, …
  std::vector<LogitLensHeadCell> heads;  // with heads: layer-major, then head, then position
  bool cancelled = false;
};

// The lens of `ids` (one text, no padding) through a language model, under `forward`'s gates and
// memory budget (nothing is captured). `progress` sees (layers run + layers read, 2L + 1) and cancels
// by returning false. Throws aw::Error for a model that is not a language model, an empty text, a
// position outside it, k outside 1 … V or a target outside the vocabulary; with heads, for a model
// whose heads' writes do not reach the logits through the final norm alone (direct_logits' refusal).
LogitLensResult logit_lens(AttentionModel& model, const std::vector<int64_t>& ids, const LogitLensSettings& settings,
                           const ForwardOptions& forward = {}, const ProgressCallback& progress = {});

}  // namespace aw

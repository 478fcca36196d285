// analysis/circuits/translation_path_patching.h — path patching (path_patching.h) on a pre-norm
// translation model, by attention kind. A sender's clean output is written to the residual stream its
// block writes (encoder heads: the encoder's; decoder and cross heads: the decoder's), and reaches only
// a receiver that reads that stream:
//   encoder block r's q, k, v       the encoder's stream entering block r (encoder senders before r)
//   decoder self block r's q, k, v  the decoder's stream entering it (decoder and cross senders before r)
//   cross block r's q               the decoder's stream after its layer's self-attention (the same)
//   cross block r's k, v            the encoder's last state, through its final norm (every encoder sender)
//   the logits                      the decoder's last state (decoder and cross senders)
// A pair of sender and receiver without such a path is NaN. Definitions: docs/circuits.md "Path
// patching on translation models".
#pragma once

#include "analysis/circuits/path_patching.h"

namespace aw {

// Whether `sender`'s block writes the stream `receiver` reads, before it (the logits: after every block).
bool path_exists(const ModelConfig& config, const PathSender& sender, const PathReceiver& receiver);

// path_patch() for a translation model (pairs with a target; settings checked by check_path_patch).
PathPatchResult translation_path_patch(SequenceToSequenceModel& model, const std::vector<PatchPair>& pairs,
                                       const PathPatchSettings& settings, const ProgressCallback& progress);

}  // namespace aw

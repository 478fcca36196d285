// analysis/circuits/composition.h — how much each head's output is read by a later head's queries,
// keys or values, from the weights alone (Elhage et al. 2021, "A Mathematical Framework for
// Transformer Circuits": Q-, K- and V-composition), against the same score of random matrices of the
// same shapes; and per head the OV circuit's copying score and, without rotary positions, the QK
// circuit's preferred offset. Definitions: docs/circuits.md "Composition scores".
#pragma once

#include "analysis/circuits/head_weights.h"
#include "models/progress.h"

#include <cstdint>
#include <vector>

namespace aw {

// Sender head (l1, h1) into receiver head (l2, h2), l1 < l2, 0-based. With x the residual, the
// sender writes OV₁x (OV = W_O W_V) and the receiver scores x_qᵀ QK₂ x_k (QK = W_Qᵀ W_K):
//   q = ‖QK₂ᵀ OV₁‖_F / (‖QK₂‖_F ‖OV₁‖_F)   (the write read as a query)
//   k = ‖QK₂ OV₁‖_F / (‖QK₂‖_F ‖OV₁‖_F)    (read as a key)
//   v = ‖OV₂ OV₁‖_F / (‖OV₂‖_F ‖OV₁‖_F)    (read as a value)
struct CompositionPair {
  int64_t sender_layer = 0, sender_head = 0, receiver_layer = 0, receiver_head = 0;
  double q = 0, k = 0, v = 0;
};

// Every pair, receiver layer by receiver layer (progress counts them); empty with `cancelled` set when
// the progress callback cancels. A translation model's "layers" are its attention blocks: a pair is
// listed where the receiver reads the stream the sender writes to (head_weights.h), and a kind the
// receiver does not read that stream with is NaN (an encoder head into cross-attention: q NaN; a
// decoder head into cross-attention: k and v NaN).
std::vector<CompositionPair> composition_scores(const HeadWeights& weights, const ProgressCallback& progress,
                                                bool* cancelled);

// The K-composition of `draws` random sender/receiver pairs whose W_Q, W_K, W_V [dh, d] and W_O
// [d, dh] have independent standard normal entries (Q- and V-composition have the same distribution
// for such matrices), sorted. The scores do not depend on the entries' scale.
struct ChanceBaseline {
  std::vector<double> sorted;
  double mean = 0, sd = 0;
  double quantile(double q) const;          // linear interpolation between the order statistics
  double share_at_least(double x) const;    // (1 + #{draws ≥ x}) / (1 + draws): a one-sided p-value
};
ChanceBaseline composition_baseline(int64_t d_model, int64_t d_head, int64_t draws, uint64_t seed);
// The same with the receiver's W_Q, W_K [receiver_head, d] and the sender's W_V, W_O of width sender_head
// (a translation model's encoder and decoder heads may differ).
ChanceBaseline composition_baseline(int64_t d_model, int64_t receiver_head, int64_t sender_head, int64_t draws,
                                    uint64_t seed);

// Per head: the copying score of W_U OV W_E (its eigenvalues λ: Σ Re λ / Σ |λ|, and the share of Σ |λ|
// on eigenvalues with Re λ > 0), NaN without an unembedding; and with a position table, the QK
// circuit of the first `span` positions: each query's softmax over the keys it may see of
// Pᵀ QK P · scale, averaged by offset (query − key); the offset with the most weight and that weight.
// `causal` is a one-stack model's; a translation model's encoder heads see both ways, its decoder
// heads are causal, its cross-attention heads have no positional pattern (queries and keys are
// different sequences) and its encoder heads no copying score (the unembedding reads the decoder).
struct HeadCircuit {
  int64_t layer = 0, head = 0;
  double copying = 0, positive_share = 0;
  bool has_positional = false;
  int64_t positional_offset = 0;
  double positional_weight = 0;
};
std::vector<HeadCircuit> head_circuits(const HeadWeights& weights, int64_t span, bool causal);

}  // namespace aw

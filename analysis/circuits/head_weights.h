// analysis/circuits/head_weights.h — every head of a transformer as the matrices of its QK and OV
// circuits (Elhage et al. 2021), with the norms' weights folded in (docs/circuits.md "Folding the
// norms"): what the composition scores, the copying score and the positional pattern are made of.
// Dimension letters: H heads of a layer, dh head width, d model width, V vocabulary, P positions.
// A translation model has two residual streams (docs/circuits.md "Translation models"): 0 the
// encoder's, 1 the decoder's; its "layers" here are its attention blocks in the models' one numbering
// (encoder blocks, then each decoder layer's self- and cross-attention).
#pragma once

#include "models/checkpoint/checkpoint.h"

#include <torch/types.h>

#include <string>
#include <vector>

namespace aw {

struct LayerHeadWeights {
  torch::Tensor query;   // [H, dh, d]: each head's rows of W_Q × the reading norm's weight (and its q-norm's)
  torch::Tensor key;     // [H, dh, d]: of each query head's key/value head, folded the same way
  torch::Tensor value;   // [H, dh, d]
  torch::Tensor kv_key, kv_value;  // [Hkv, dh, d]: the same once per key/value head
  torch::Tensor kv_of;             // [H] long: each query head's key/value head
  torch::Tensor output;  // [H, d, dh]: each head's columns of W_O × the post-attention norm's weight, centred
                         // where LayerNorm reads the residual
  // The residual stream the queries read, the one the keys and values read, the one the output is
  // added to: all 0 in a one-stack model; a translation model's cross-attention reads queries from the
  // decoder's (1) and keys and values from the encoder's output (0), and writes to the decoder's.
  int query_stream = 0, key_stream = 0, write_stream = 0;
  double score_scale = 1;  // what the dot products are multiplied by (1/√dh, Gemma's query scale)
};

struct HeadWeights {
  std::vector<LayerHeadWeights> layers;
  torch::Tensor embedding;    // [d, V]: the token embeddings as written to the residual (centred like W_O);
                              // a translation model's source embeddings (stream 0)
  torch::Tensor decoder_embedding;  // [d, V_target]: a translation model's target embeddings (stream 1)
  torch::Tensor unembedding;  // [V, d]: the LM head × the final norm's weight, reading the last stream;
                              // undefined for a classifier
  torch::Tensor positions;    // [P, d]: a learned or sinusoidal position table, each row normalised as the
                              // reading norm would a residual holding it alone; undefined for rotary and
                              // post-norm models (a translation model's encoder positions)
  torch::Tensor decoder_positions;  // [P, d]: a translation model's decoder positions, the same way
  bool translation = false;   // two streams: 0 the encoder's, 1 the decoder's
  bool shared_vocabulary = true;  // a translation model's source and target tokens are one vocabulary
  bool centred = false;       // LayerNorm reads the residual: the writes were centred
  std::string folded;         // what was folded, in words (the tables' metadata)
};

// The heads of `loaded` on the CPU in `dtype` (float64, or float32 where a model's vocabulary and
// layers would not fit twice over in memory: the callers sum the scores in float64 either way). Throws aw::Error (one line, naming the model) for a
// model that is not made of transformer blocks (LAMA, the BiGRU classifiers) or has fewer than
// `min_layers` layers (a translation model: fewer than `min_layers` attention blocks).
HeadWeights head_weights(const LoadedModel& loaded, const std::string& analysis, int64_t min_layers,
                         torch::ScalarType dtype);
// float64 for a model of up to 100 million weights, float32 above.
torch::ScalarType head_weights_dtype(const LoadedModel& loaded);

}  // namespace aw

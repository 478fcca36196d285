// analysis/circuits/edge_graph.h — the graph of edge attribution patching (Syed et al. 2023; Hanna et al.
// 2024): senders are the input embedding, every attention head and every MLP, each writing into the
// residual stream; receivers are every head's query, key and value input (key/value heads under grouped
// queries), every MLP's input and the logits. An edge joins a sender to a receiver that reads the
// residual stream after the sender has written to it. Definitions: docs/circuits.md "Edge attribution".
#pragma once

#include "models/nn/model_config.h"

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

enum class SenderKind { Input, Head, Mlp };
struct EdgeSender {
  SenderKind kind = SenderKind::Input;
  int64_t layer = -1;  // −1 for the input
  int64_t head = -1;   // heads only
};

enum class ReceiverKind { Query, Key, Value, Mlp, Logits };
struct EdgeReceiver {
  ReceiverKind kind = ReceiverKind::Logits;
  int64_t layer = -1;  // −1 for the logits
  int64_t head = -1;   // q: the query head; k, v: the key/value head
};

struct EdgeGraph {
  // Senders: the input, then per layer its heads and its MLP. Receivers: per layer the q of each query
  // head, the k and then the v of each key/value head, the MLP; then the logits. A translation model's
  // (translation_edges.h): per attention block in its one numbering, its MLP after an encoder block and
  // after a cross block (the decoder layer's), and two inputs: the source's first, the target's where
  // the decoder's senders begin.
  std::vector<EdgeSender> senders;
  std::vector<EdgeReceiver> receivers;
  torch::Tensor edges;                   // [U, V] bool: the receiver reads what the sender wrote
  std::vector<int64_t> first_head;       // per layer (block): the sender index of its head 0
  std::vector<int64_t> mlp_senders;      // per layer (block): the sender index of its MLP (−1: none)
  std::vector<int64_t> first_receiver;   // per layer (block) and one more: the receiver index of its q 0 (the logits')
  // A translation model's two residual streams: the senders from `decoder_senders` on write the
  // decoder's (the others the encoder's); receiver_stream[v] is 0 (encoder) or 1 (decoder). −1 and
  // empty for a model of one stream.
  int64_t decoder_senders = -1;
  std::vector<int64_t> receiver_stream;
  int64_t edge_count() const;
  int64_t logits_receiver() const { return static_cast<int64_t>(receivers.size()) - 1; }
};

// Throws aw::Error (one line) for a model without the graph: not a language model of transformer
// blocks or a pre-norm translation model, or with heads that do not read the residual stream apart
// (check_heads_read_apart).
EdgeGraph edge_graph(const ModelConfig& config);

// "input", "1.3", "mlp 1"; "q 2.1", "k 2.1", "v 2.1", "mlp 2", "logits" (1-based). With the config, a
// translation model's by kind: "source", "target", "enc1.3", "mlp enc1", "mlp dec2", "k cross1.2".
std::string sender_label(const EdgeSender& sender);
std::string receiver_label(const EdgeReceiver& receiver);
std::string sender_label(const EdgeSender& sender, const ModelConfig& config);
std::string receiver_label(const EdgeReceiver& receiver, const ModelConfig& config);

}  // namespace aw

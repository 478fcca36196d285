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
  // head, the k and then the v of each key/value head, the MLP; then the logits.
  std::vector<EdgeSender> senders;
  std::vector<EdgeReceiver> receivers;
  torch::Tensor edges;                   // [U, V] bool: the receiver reads what the sender wrote
  std::vector<int64_t> first_head;       // per layer: the sender index of its head 0
  std::vector<int64_t> mlp_senders;      // per layer: the sender index of its MLP
  std::vector<int64_t> first_receiver;   // per layer and one more: the receiver index of its q 0 (the logits')
  int64_t edge_count() const;
  int64_t logits_receiver() const { return static_cast<int64_t>(receivers.size()) - 1; }
};

// Throws aw::Error (one line) for a model without the graph: not a language model of transformer
// blocks, or with heads that do not read the residual stream apart (check_heads_read_apart).
EdgeGraph edge_graph(const ModelConfig& config);

// "input", "1.3", "mlp 1"; "q 2.1", "k 2.1", "v 2.1", "mlp 2", "logits" (1-based).
std::string sender_label(const EdgeSender& sender);
std::string receiver_label(const EdgeReceiver& receiver);

}  // namespace aw

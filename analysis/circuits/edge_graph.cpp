// analysis/circuits/edge_graph.cpp — see edge_graph.h. Each node has a stage in the order the residual
// stream is written: the input 0, layer l's heads 2l + 1, its MLP 2l + 2. Layer l's q, k and v read
// what stages up to 2l wrote, its MLP up to 2l + 1 (2l under the parallel residual, where both sublayers
// read the layer's input), the logits everything.
#include "analysis/circuits/edge_graph.h"

#include "analysis/circuits/head_input_gradients.h"
#include "analysis/circuits/path_patching.h"
#include "analysis/circuits/translation_edges.h"
#include "models/errors.h"

#include <torch/torch.h>

namespace aw {

int64_t EdgeGraph::edge_count() const { return edges.sum().item<int64_t>(); }

EdgeGraph edge_graph(const ModelConfig& config) {
  if (config.is_translation()) return translation_edge_graph(config);
  if (!config.is_language_model() || config.is_recurrent())
    throw Error("edge attribution needs a language model of transformer blocks or a pre-norm translation model");
  check_heads_read_apart(config);
  EdgeGraph graph;
  std::vector<int64_t> sender_stage{0}, receiver_reads;
  graph.senders.push_back({});
  const bool parallel = config.decoder.parallel_residual;
  for (int64_t l = 0; l < config.n_blocks; ++l) {
    graph.first_head.push_back(static_cast<int64_t>(graph.senders.size()));
    for (int64_t h = 0; h < config.heads_per_block[l]; ++h) {
      graph.senders.push_back({SenderKind::Head, l, h});
      sender_stage.push_back(2 * l + 1);
    }
    graph.mlp_senders.push_back(static_cast<int64_t>(graph.senders.size()));
    graph.senders.push_back({SenderKind::Mlp, l, -1});
    sender_stage.push_back(2 * l + 2);

    graph.first_receiver.push_back(static_cast<int64_t>(graph.receivers.size()));
    for (int64_t h = 0; h < config.heads_per_block[l]; ++h) graph.receivers.push_back({ReceiverKind::Query, l, h});
    for (const auto kind : {ReceiverKind::Key, ReceiverKind::Value})
      for (int64_t g = 0; g < config.kv_heads_in(l); ++g) graph.receivers.push_back({kind, l, g});
    receiver_reads.resize(graph.receivers.size(), 2 * l);
    graph.receivers.push_back({ReceiverKind::Mlp, l, -1});
    receiver_reads.push_back(parallel ? 2 * l : 2 * l + 1);
  }
  graph.first_receiver.push_back(static_cast<int64_t>(graph.receivers.size()));
  graph.receivers.push_back({});
  receiver_reads.push_back(2 * config.n_blocks);
  const auto stages = torch::tensor(sender_stage, torch::kLong).unsqueeze(1);
  const auto reads = torch::tensor(receiver_reads, torch::kLong).unsqueeze(0);
  graph.edges = stages <= reads;
  return graph;
}

std::string sender_label(const EdgeSender& sender) {
  switch (sender.kind) {
    case SenderKind::Input: return "input";
    case SenderKind::Head: return std::to_string(sender.layer + 1) + "." + std::to_string(sender.head + 1);
    case SenderKind::Mlp: return "mlp " + std::to_string(sender.layer + 1);
  }
  return "";
}

std::string receiver_label(const EdgeReceiver& receiver) {
  const auto head = std::to_string(receiver.layer + 1) + "." + std::to_string(receiver.head + 1);
  switch (receiver.kind) {
    case ReceiverKind::Query: return "q " + head;
    case ReceiverKind::Key: return "k " + head;
    case ReceiverKind::Value: return "v " + head;
    case ReceiverKind::Mlp: return "mlp " + std::to_string(receiver.layer + 1);
    case ReceiverKind::Logits: return "logits";
  }
  return "";
}

std::string sender_label(const EdgeSender& sender, const ModelConfig& config) {
  if (!config.is_translation()) return sender_label(sender);
  switch (sender.kind) {
    case SenderKind::Input: return sender.layer < 0 ? "source" : "target";
    case SenderKind::Head: return block_name(config, sender.layer) + "." + std::to_string(sender.head + 1);
    case SenderKind::Mlp: return "mlp " + mlp_layer_name(config, sender.layer);
  }
  return "";
}

std::string receiver_label(const EdgeReceiver& receiver, const ModelConfig& config) {
  if (!config.is_translation()) return receiver_label(receiver);
  const auto head = receiver.layer < 0 ? std::string() : block_name(config, receiver.layer) + "." + std::to_string(receiver.head + 1);
  switch (receiver.kind) {
    case ReceiverKind::Query: return "q " + head;
    case ReceiverKind::Key: return "k " + head;
    case ReceiverKind::Value: return "v " + head;
    case ReceiverKind::Mlp: return "mlp " + mlp_layer_name(config, receiver.layer);
    case ReceiverKind::Logits: return "logits";
  }
  return "";
}

}  // namespace aw

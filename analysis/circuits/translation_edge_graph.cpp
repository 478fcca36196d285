// analysis/circuits/translation_edge_graph.cpp — the graph of translation_edges.h. Each node has a stream
// and a stage in the order its stream is written. The encoder's: the source 0, encoder layer l's heads
// 2l + 1, its MLP 2l + 2; its q, k, v read stage 2l, its MLP 2l + 1, every cross-attention's k and v the
// last (2 Le). The decoder's: the target 0, decoder layer j's self-attention heads 3j + 1, its
// cross-attention heads 3j + 2, its MLP 3j + 3; its self-attention's q, k, v read 3j, the
// cross-attention's q 3j + 1, the MLP 3j + 2, the logits 3 Ld.
#include "analysis/circuits/head_input_gradients.h"
#include "analysis/circuits/translation_edges.h"
#include "models/errors.h"

#include <torch/torch.h>

namespace aw {

std::string mlp_layer_name(const ModelConfig& config, int64_t block) {
  const auto where = config.attention_block(block);
  return (where.kind == AttentionKind::Encoder ? "enc" : "dec") + std::to_string(where.layer + 1);
}

EdgeGraph translation_edge_graph(const ModelConfig& config) {
  check_heads_read_apart(config);  // post-norm refused
  if (config.translation.decoder_bird_eye)
    throw Error("edge attribution is not defined for bet_sf's bird-eye reweighting");
  EdgeGraph graph;
  std::vector<int64_t> sender_stream, sender_stage, receiver_reads;
  auto send = [&](EdgeSender sender, int64_t stream, int64_t stage) {
    graph.senders.push_back(sender);
    sender_stream.push_back(stream), sender_stage.push_back(stage);
  };
  auto receive = [&](EdgeReceiver receiver, int64_t stream, int64_t reads) {
    graph.receivers.push_back(receiver);
    graph.receiver_stream.push_back(stream), receiver_reads.push_back(reads);
  };
  auto heads_of = [&](int64_t block, int64_t stream, int64_t stage) {
    graph.first_head.push_back(static_cast<int64_t>(graph.senders.size()));
    for (int64_t h = 0; h < config.heads_per_block[block]; ++h) send({SenderKind::Head, block, h}, stream, stage);
  };
  const auto le = config.translation.encoder_layers;
  send({SenderKind::Input, -1, -1}, 0, 0);
  for (int64_t b = 0; b < config.n_blocks; ++b) {
    const auto where = config.attention_block(b);
    const auto l = where.layer;
    if (where.kind == AttentionKind::Encoder) {
      heads_of(b, 0, 2 * l + 1);
      graph.mlp_senders.push_back(static_cast<int64_t>(graph.senders.size()));
      send({SenderKind::Mlp, b, -1}, 0, 2 * l + 2);
      continue;
    }
    if (b == le) {
      graph.decoder_senders = static_cast<int64_t>(graph.senders.size());
      send({SenderKind::Input, le, -1}, 1, 0);
    }
    if (where.kind == AttentionKind::Decoder) {
      heads_of(b, 1, 3 * l + 1);
      graph.mlp_senders.push_back(-1);  // the layer's MLP follows its cross-attention
    } else {
      heads_of(b, 1, 3 * l + 2);
      graph.mlp_senders.push_back(static_cast<int64_t>(graph.senders.size()));
      send({SenderKind::Mlp, b, -1}, 1, 3 * l + 3);
    }
  }
  for (int64_t b = 0; b < config.n_blocks; ++b) {
    const auto where = config.attention_block(b);
    const auto l = where.layer;
    graph.first_receiver.push_back(static_cast<int64_t>(graph.receivers.size()));
    const auto heads = config.heads_per_block[b];
    const bool encoder = where.kind == AttentionKind::Encoder, cross = where.kind == AttentionKind::Cross;
    // q, then k, then v of each head: the stream and stage each reads.
    const int64_t q_stream = encoder ? 0 : 1, kv_stream = encoder || cross ? 0 : 1;
    const int64_t q_reads = encoder ? 2 * l : cross ? 3 * l + 1 : 3 * l;
    const int64_t kv_reads = encoder ? 2 * l : cross ? 2 * le : 3 * l;
    for (int64_t h = 0; h < heads; ++h) receive({ReceiverKind::Query, b, h}, q_stream, q_reads);
    for (const auto kind : {ReceiverKind::Key, ReceiverKind::Value})
      for (int64_t h = 0; h < heads; ++h) receive({kind, b, h}, kv_stream, kv_reads);
    if (encoder) receive({ReceiverKind::Mlp, b, -1}, 0, 2 * l + 1);
    if (cross) receive({ReceiverKind::Mlp, b, -1}, 1, 3 * l + 2);
  }
  graph.first_receiver.push_back(static_cast<int64_t>(graph.receivers.size()));
  receive({}, 1, 3 * config.translation.decoder_layers);
  const auto streams = torch::tensor(sender_stream, torch::kLong).unsqueeze(1);
  const auto stages = torch::tensor(sender_stage, torch::kLong).unsqueeze(1);
  const auto read_streams = torch::tensor(graph.receiver_stream, torch::kLong).unsqueeze(0);
  const auto reads = torch::tensor(receiver_reads, torch::kLong).unsqueeze(0);
  graph.edges = (streams == read_streams).logical_and(stages <= reads);
  return graph;
}

}  // namespace aw

// analysis/circuits/translation_circuit_runs.cpp — circuit faithfulness on a translation model
// (translation_edges.h), as circuit_faithfulness.cpp does it on one stream. Per batch: the corrupted run,
// reading every sender's write; then per circuit the clean run in which every receiver reads its stream
// less Σ over its edges outside the circuit of (a_now − a_corrupted):
//   - an encoder or decoder self-attention block's q, k and v, from its input (resid_pre);
//   - a cross-attention block's q, from the decoder's stream after its layer's self-attention (resid_mid
//     of the block before), and its k and v, from the encoder's last state through the final norm;
//   - an MLP's input through its norm, from the stream before it (resid_mid);
//   - the logits from the decoder's last state.
#include "analysis/circuits/translation_edges.h"

#include "analysis/circuits/pair_batches.h"
#include "analysis/circuits/translation_edge_reading.h"
#include "models/errors.h"

#include <torch/torch.h>

namespace aw {
namespace translation_edges {

// The inputs of receivers [first, first + count) that read a stream whose senders start at `from`:
// state [B, len, d] less the changes along their edges outside the circuit → [count, B, len, d].
torch::Tensor own_inputs(const torch::Tensor& state, const torch::Tensor& outside, int64_t first, int64_t count,
                         int64_t from, const torch::Tensor& now, const torch::Tensor& corrupted) {
  const auto change = (now - corrupted).flatten(1);                                               // [U_s, B·len·d]
  const auto mask = outside.narrow(0, from, change.size(0)).narrow(1, first, count).t().to(change.scalar_type());  // [count, U_s]
  return state.unsqueeze(0) - torch::matmul(mask, change).view({count, state.size(0), state.size(1), state.size(2)});
}

torch::Tensor patched_run(TranslationTransformerImpl& model, const PairBatch& batch, const EdgeGraph& graph,
                          const torch::Tensor& outside, const StreamWrites& corrupted, const torch::Tensor& gates) {
  const auto& config = model.config();
  const auto blocks = config.n_blocks;
  StreamWrites now;
  ForwardOptions options;
  options.head_gates = gates;
  read_translation_writes(model, graph, options, now);
  // A receiver group's own inputs in stream 0 (encoder) or 1 (decoder).
  auto own = [&](const torch::Tensor& state, int64_t first, int64_t count, int stream) {
    return stream == 0 ? own_inputs(state, outside, first, count, 0, *now.encoder, *corrupted.encoder)
                       : own_inputs(state, outside, first, count, graph.decoder_senders, *now.decoder, *corrupted.decoder);
  };
  std::vector<torch::Tensor> q(static_cast<size_t>(blocks)), k(q), v(q), middle(q);
  auto heads = [&](int64_t block, ReceiverKind kind, const torch::Tensor& states) {
    return read_heads(model, block, kind, states);
  };
  options.hooks.add(HookPoint::ResidPre, -1, [&](const HookSite& site, const torch::Tensor& x) {
    const auto b = site.layer, h = config.heads_per_block[b], first = graph.first_receiver[b];
    const int stream = config.attention_block(b).kind == AttentionKind::Encoder ? 0 : 1;
    const auto states = own(x, first, 3 * h, stream);
    q[b] = heads(b, ReceiverKind::Query, states.narrow(0, 0, h));
    k[b] = heads(b, ReceiverKind::Key, states.narrow(0, h, h));
    v[b] = heads(b, ReceiverKind::Value, states.narrow(0, 2 * h, h));
    return torch::Tensor();
  });
  options.hooks.add(HookPoint::ResidMid, -1, [&](const HookSite& site, const torch::Tensor& x) {
    const auto b = site.layer;
    middle[b] = x;
    if (config.attention_block(b).kind == AttentionKind::Decoder) {  // the next block's cross-attention queries
      const auto cross = b + 1, h = config.heads_per_block[cross];
      q[cross] = heads(cross, ReceiverKind::Query, own(x, graph.first_receiver[cross], h, 1));
    }
    return torch::Tensor();
  });
  options.hooks.add(HookPoint::ResidPost, config.translation.encoder_layers - 1,
                    [&](const HookSite&, const torch::Tensor& x) {  // every cross-attention's keys and values
                      for (int64_t b = 0; b < blocks; ++b) {
                        if (config.attention_block(b).kind != AttentionKind::Cross) continue;
                        const auto h = config.heads_per_block[b];
                        const auto states = own(x, graph.first_receiver[b] + h, 2 * h, 0);
                        k[b] = heads(b, ReceiverKind::Key, states.narrow(0, 0, h));
                        v[b] = heads(b, ReceiverKind::Value, states.narrow(0, h, h));
                      }
                      return torch::Tensor();
                    });
  auto replace = [](std::vector<torch::Tensor>& values) {
    return [&values](const HookSite& site, const torch::Tensor& x) { return values[site.layer].to(x.scalar_type()); };
  };
  options.hooks.add(HookPoint::Q, -1, replace(q));
  options.hooks.add(HookPoint::K, -1, replace(k));
  options.hooks.add(HookPoint::V, -1, replace(v));
  options.hooks.add(HookPoint::MlpIn, -1, [&](const HookSite& site, const torch::Tensor&) {
    const auto b = site.layer;
    const int stream = config.attention_block(b).kind == AttentionKind::Encoder ? 0 : 1;
    const auto state = own(middle[b], graph.first_receiver[b] + 3 * config.heads_per_block[b], 1, stream)[0];
    return mlp_norm(model, b, state);
  });
  const auto last = model.forward(batch.clean, options).hidden;
  const auto final_input = own(last, graph.logits_receiver(), 1, 1)[0];
  return pair_metric(last_logits(model, final_input, batch), batch);
}

CircuitRuns runs(TranslationTransformerImpl& model, const std::vector<PatchPair>& pairs, const EdgeGraph& graph,
                 const std::vector<torch::Tensor>& circuits, int64_t batch_size, const torch::Tensor& gates,
                 const ProgressCallback& progress) {
  model.eval();
  torch::NoGradGuard no_gradients;
  CircuitRuns result;
  const auto c_count = static_cast<int64_t>(circuits.size());
  result.patched = torch::zeros({c_count, static_cast<int64_t>(pairs.size())}, torch::kFloat64);
  const auto device = model.parameters().front().device();
  const auto device_gates = gates.defined() ? gates.to(device) : torch::Tensor();
  std::vector<torch::Tensor> outside;
  for (const auto& circuit : circuits) outside.push_back(graph.edges.logical_and(circuit.logical_not()).to(device));
  const auto batches = batches_by_length(pairs, batch_size);
  for (size_t index = 0; index < batches.size(); ++index) {
    const auto batch = make_batch(pairs, batches[index], device);
    const auto pair_index = torch::tensor(batch.pairs, torch::kLong);
    StreamWrites corrupted;
    ForwardOptions options;
    options.head_gates = device_gates;
    read_translation_writes(model, graph, options, corrupted);
    model.forward(batch.corrupted, options);
    for (int64_t c = 0; c < c_count; ++c) {
      result.patched[c].index_put_({pair_index}, patched_run(model, batch, graph, outside[c], corrupted, device_gates));
      if (!report_progress(progress, static_cast<int64_t>(index) * c_count + c + 1,
                           static_cast<int64_t>(batches.size()) * c_count))
        return result.cancelled = true, result;
    }
  }
  return result;
}

}  // namespace translation_edges

CircuitRuns translation_circuit_runs(SequenceToSequenceModel& model, const std::vector<PatchPair>& pairs,
                                     const EdgeGraph& graph, const std::vector<torch::Tensor>& circuits, int64_t batch,
                                     const torch::Tensor& gates, const ProgressCallback& progress) {
  auto* found = dynamic_cast<TranslationTransformerImpl*>(&model);
  if (!found) throw Error("circuit faithfulness needs a translation model of transformer blocks");
  return translation_edges::runs(*found, pairs, graph, circuits, batch, gates, progress);
}

}  // namespace aw

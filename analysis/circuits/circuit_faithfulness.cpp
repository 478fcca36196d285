// analysis/circuits/circuit_faithfulness.cpp — see circuit_faithfulness.h. Per batch: the corrupted
// run, reading every sender's write; then per circuit the clean run with
//   - at each layer's input: the q, k and v of every head recomputed from its own input (head_inputs),
//     written at the Q, K and V hooks;
//   - at each MLP's input: its norm applied to its own input;
//   - after the last layer: the logits' own input through the final norm and unembedding;
// each own input being the residual stream there less M_vᵀ (a_now − a_corrupted), M the edges outside
// the circuit ([U, V] as 0/1).
#include "analysis/circuits/circuit_faithfulness.h"

#include "analysis/circuits/edge_senders.h"
#include "analysis/circuits/head_input_gradients.h"
#include "analysis/circuits/pair_batches.h"
#include "analysis/circuits/translation_edges.h"
#include "models/errors.h"
#include "models/nn/transformer.h"

#include <torch/torch.h>

#include <memory>

namespace aw {
namespace {

// The inputs of receivers [first, first + count) of `outside` [U, V]: state [B, n, d] less the writes'
// changes along their edges outside the circuit → [count, B, n, d]. Only the first `senders` senders
// (those written before the receivers read: senders come in the order they write) are looked at.
torch::Tensor own_inputs(const torch::Tensor& state, const torch::Tensor& outside, int64_t first, int64_t count,
                         int64_t senders, const torch::Tensor& now, const torch::Tensor& corrupted) {
  const auto change = (now.narrow(0, 0, senders) - corrupted.narrow(0, 0, senders)).flatten(1);  // [S, B·n·d]
  const auto mask = outside.narrow(0, 0, senders).narrow(1, first, count).t().to(change.scalar_type());  // [count, S]
  return state.unsqueeze(0) - torch::matmul(mask, change).view({count, state.size(0), state.size(1), state.size(2)});
}

torch::Tensor patched_run(TransformerImpl& model, const PairBatch& batch, const EdgeGraph& graph,
                          const torch::Tensor& outside, const torch::Tensor& corrupted, const torch::Tensor& gates) {
  const auto& config = model.config();
  const auto layers = config.n_blocks;
  const bool parallel = config.decoder.parallel_residual;
  auto now = std::make_shared<torch::Tensor>();
  ForwardOptions options;
  options.head_gates = gates;
  read_sender_writes(model, graph, options, now);
  HeadInputs inputs;
  torch::Tensor layer_input, middle;
  options.hooks.add(HookPoint::ResidPre, -1, [&](const HookSite& site, const torch::Tensor& x) {
    const auto l = site.layer;
    const auto h = config.heads_per_block[l], g = config.kv_heads_in(l);
    const auto first = graph.first_receiver[l];
    const auto states = own_inputs(x, outside, first, h + 2 * g, graph.first_head[l], *now, corrupted);
    inputs = head_inputs(model, l, states.narrow(0, 0, h), states.narrow(0, h, g), states.narrow(0, h + g, g));
    layer_input = x;
    return torch::Tensor();
  });
  options.hooks.add(HookPoint::Q, -1, [&](const HookSite&, const torch::Tensor&) { return inputs.q.to(layer_input.scalar_type()); });
  options.hooks.add(HookPoint::K, -1, [&](const HookSite&, const torch::Tensor&) { return inputs.k.to(layer_input.scalar_type()); });
  options.hooks.add(HookPoint::V, -1, [&](const HookSite&, const torch::Tensor&) { return inputs.v.to(layer_input.scalar_type()); });
  options.hooks.add(HookPoint::ResidMid, -1, [&](const HookSite&, const torch::Tensor& x) { return middle = x, torch::Tensor(); });
  options.hooks.add(HookPoint::MlpIn, -1, [&](const HookSite& site, const torch::Tensor&) {
    const auto l = site.layer;
    auto& block = *model.layers[l]->as<TransformerBlockImpl>();
    const auto state = own_inputs(parallel ? layer_input : middle, outside, graph.first_receiver[l + 1] - 1, 1,
                                  parallel ? graph.first_head[l] : graph.mlp_senders[l], *now, corrupted)[0];
    return block.ln_2 ? block.ln_2(state) : state;
  });
  const auto last = model.run_layers(model.embed(batch.clean), batch.clean, 0, layers, options).hidden;
  const auto final_input = own_inputs(last, outside, graph.logits_receiver(), 1, static_cast<int64_t>(graph.senders.size()),
                                      *now, corrupted)[0];
  return pair_metric(last_logits(model, final_input, batch), batch);
}

}  // namespace

CircuitRuns circuit_runs(AttentionModel& attention_model, const std::vector<PatchPair>& pairs, const EdgeGraph& graph,
                         const std::vector<torch::Tensor>& circuits, int64_t batch_size, const torch::Tensor& gates,
                         const ProgressCallback& progress) {
  if (auto* translation = attention_model.sequence_to_sequence())
    return translation_circuit_runs(*translation, pairs, graph, circuits, batch_size, gates, progress);
  auto* found = dynamic_cast<TransformerImpl*>(&attention_model);
  if (!found) throw Error("circuit faithfulness needs a language model of transformer blocks");
  auto& model = *found;
  model.eval();
  torch::NoGradGuard no_gradients;
  CircuitRuns runs;
  const auto c_count = static_cast<int64_t>(circuits.size());
  runs.patched = torch::zeros({c_count, static_cast<int64_t>(pairs.size())}, torch::kFloat64);
  const auto device = model.parameters().front().device();
  const auto device_gates = gates.defined() ? gates.to(device) : torch::Tensor();
  std::vector<torch::Tensor> outside;
  for (const auto& circuit : circuits) outside.push_back(graph.edges.logical_and(circuit.logical_not()).to(device));
  const auto batches = batches_by_length(pairs, batch_size);
  for (size_t index = 0; index < batches.size(); ++index) {
    const auto batch = make_batch(pairs, batches[index], device);
    const auto pair_index = torch::tensor(batch.pairs, torch::kLong);
    auto corrupted = std::make_shared<torch::Tensor>();
    ForwardOptions options;
    options.head_gates = device_gates;
    read_sender_writes(model, graph, options, corrupted);
    model.run_layers(model.embed(batch.corrupted), batch.corrupted, 0, model.config().n_blocks, options);
    for (int64_t c = 0; c < c_count; ++c) {
      runs.patched[c].index_put_({pair_index}, patched_run(model, batch, graph, outside[c], *corrupted, device_gates));
      if (!report_progress(progress, static_cast<int64_t>(index) * c_count + c + 1,
                           static_cast<int64_t>(batches.size()) * c_count))
        return runs.cancelled = true, runs;
    }
  }
  return runs;
}

}  // namespace aw

// analysis/circuits/edge_attribution.cpp — see edge_attribution.h. Per batch of pairs of one length:
//   1. the corrupted run, reading every sender's write (edge_senders.h);
//   2. the gradient runs, α = 1 (the clean run, whose senders' writes are read too) first, then
//      α = (k−1)/k … 1/k with the input embedding e_x + α (e_c − e_x) written at the first layer's input:
//      one backward of Σ m to every layer's q, k, v and MLP input and to the last layer's output;
//   3. per layer, each receiver's gradient with respect to the residual stream it reads (heads:
//      head_input_gradients; the MLP: the VJP of its norm), and the scores of every sender into it in
//      one product: (a_x − a_c) [U, B·n·d] · G [V_l, B·n·d]ᵀ.
#include "analysis/circuits/edge_attribution.h"

#include "analysis/circuits/edge_senders.h"
#include "analysis/circuits/head_input_gradients.h"
#include "analysis/circuits/pair_batches.h"
#include "analysis/circuits/translation_edges.h"
#include "models/errors.h"
#include "models/nn/transformer.h"

#include <torch/torch.h>

#include <limits>
#include <memory>

namespace aw {
namespace {

// What a gradient run leaves: each layer's input and, sequential, its state before the MLP; the
// tensors whose gradients are taken.
struct GradientRun {
  std::vector<torch::Tensor> state, middle, q, k, v, mlp_in;
  torch::Tensor last;      // the last layer's output
  torch::Tensor m;         // [B] float64
};

GradientRun gradient_run(TransformerImpl& model, const PairBatch& batch, const torch::Tensor& corrupted_input,
                         double alpha, const torch::Tensor& gates, ForwardOptions options) {
  const auto layers = model.config().n_blocks;
  GradientRun run;
  for (auto* each : {&run.state, &run.middle, &run.q, &run.k, &run.v, &run.mlp_in}) each->resize(static_cast<size_t>(layers));
  ForwardOptions own;
  own.head_gates = gates;
  if (alpha < 1)
    own.hooks.add(HookPoint::ResidPre, 0, [&](const HookSite&, const torch::Tensor& x) {
      return corrupted_input + alpha * (x - corrupted_input);
    });
  own.hooks.append(options.hooks);  // readers of the run's senders' writes
  auto keep = [](std::vector<torch::Tensor>& into) {
    return [&into](const HookSite& site, const torch::Tensor& x) { return into[site.layer] = x, torch::Tensor(); };
  };
  own.hooks.add(HookPoint::ResidPre, -1, keep(run.state));
  own.hooks.add(HookPoint::ResidMid, -1, keep(run.middle));
  own.hooks.add(HookPoint::Q, -1, keep(run.q));
  own.hooks.add(HookPoint::K, -1, keep(run.k));
  own.hooks.add(HookPoint::V, -1, keep(run.v));
  own.hooks.add(HookPoint::MlpIn, -1, keep(run.mlp_in));
  torch::AutoGradMode on(true);
  run.last = model.run_layers(model.embed(batch.clean), batch.clean, 0, layers, own).hidden;
  run.m = pair_metric(last_logits(model, run.last, batch), batch);
  return run;
}

// What the MLP's input gradient is in the residual stream: through its norm, where it has one.
torch::Tensor through_norm(const Norm& norm, const torch::Tensor& x, const torch::Tensor& g) {
  if (!norm) return g;
  return norm_vjp([&](const torch::Tensor& t) { return norm.ptr()->forward(t); }, x, g);
}

}  // namespace

EdgeAttributionResult edge_attribution(AttentionModel& attention_model, const std::vector<PatchPair>& pairs,
                                       const EdgeAttributionSettings& settings, const ProgressCallback& progress) {
  if (auto* translation = attention_model.sequence_to_sequence())
    return translation_edge_attribution(*translation, pairs, settings, progress);
  const auto& config = attention_model.config();
  EdgeAttributionResult result;
  result.graph = edge_graph(config);
  if (settings.steps < 1) throw Error("edge attribution needs at least 1 step");
  auto* found = dynamic_cast<TransformerImpl*>(&attention_model);
  if (!found) throw Error("edge attribution needs a language model of transformer blocks");
  auto& model = *found;
  model.eval();
  const auto& graph = result.graph;
  const auto u_count = static_cast<int64_t>(graph.senders.size()), v_count = static_cast<int64_t>(graph.receivers.size());
  const auto p = static_cast<int64_t>(pairs.size());
  result.scores = torch::zeros({u_count, v_count}, torch::kFloat64);
  result.clean = torch::zeros({p}, torch::kFloat64);
  result.corrupted = torch::zeros({p}, torch::kFloat64);
  const auto device = model.parameters().front().device();
  const auto gates = settings.gates.defined() ? settings.gates.to(device) : torch::Tensor();
  const auto layers = config.n_blocks;
  const bool parallel = config.decoder.parallel_residual;

  const auto batches = batches_by_length(pairs, settings.batch);
  const auto runs_per_batch = settings.steps + 1;
  for (size_t index = 0; index < batches.size(); ++index) {
    const auto batch = make_batch(pairs, batches[index], device);
    const auto pair_index = torch::tensor(batch.pairs, torch::kLong);
    auto corrupted = std::make_shared<torch::Tensor>(), clean = std::make_shared<torch::Tensor>();
    {
      torch::NoGradGuard no_gradients;
      ForwardOptions options;
      options.head_gates = gates;
      read_sender_writes(model, graph, options, corrupted);
      const auto last = model.run_layers(model.embed(batch.corrupted), batch.corrupted, 0, layers, options).hidden;
      result.corrupted.index_put_({pair_index}, pair_metric(last_logits(model, last, batch), batch));
    }
    const auto corrupted_input = corrupted->select(0, 0);
    torch::Tensor difference;  // [U, B·n·d]: a_x − a_c
    for (int64_t j = settings.steps; j >= 1; --j) {
      ForwardOptions readers;
      if (j == settings.steps) read_sender_writes(model, graph, readers, clean);
      auto run = gradient_run(model, batch, corrupted_input, static_cast<double>(j) / static_cast<double>(settings.steps),
                              gates, readers);
      if (j == settings.steps) {
        result.clean.index_put_({pair_index}, run.m.detach());
        difference = (*corrupted - *clean).flatten(1);
        if (difference.scalar_type() == torch::kBFloat16 || difference.scalar_type() == torch::kHalf)
          difference = difference.to(torch::kFloat32);
      }
      std::vector<torch::Tensor> wanted;
      for (int64_t l = 0; l < layers; ++l)
        for (const auto* each : {&run.q, &run.k, &run.v, &run.mlp_in}) wanted.push_back((*each)[l]);
      wanted.push_back(run.last);
      auto grads = torch::autograd::grad({run.m.sum()}, wanted, {}, /*retain_graph=*/false, /*create_graph=*/false,
                                         /*allow_unused=*/true);
      for (size_t i = 0; i < grads.size(); ++i)
        if (!grads[i].defined()) grads[i] = torch::zeros_like(wanted[i]);
      torch::NoGradGuard no_gradients;
      // Senders come in the order they write: receivers that read up to sender `senders` − 1 need no more rows.
      auto add_scores = [&](int64_t first_receiver, const torch::Tensor& gradients, int64_t senders) {  // [V_l, B, n, d]
        const auto product = torch::matmul(difference.narrow(0, 0, senders), gradients.flatten(1).to(difference.scalar_type()).t());
        result.scores.narrow(0, 0, senders).narrow(1, first_receiver, gradients.size(0))
            .add_(product.to(torch::kCPU, torch::kFloat64) / static_cast<double>(settings.steps));
      };
      for (int64_t l = 0; l < layers; ++l) {
        const auto base = static_cast<size_t>(4 * l);
        auto& block = *model.layers[l]->as<TransformerBlockImpl>();
        const auto heads = head_input_gradients(model, l, run.state[l].detach(), grads[base], grads[base + 1], grads[base + 2]);
        const auto mlp_state = parallel ? run.state[l] : run.middle[l];
        const auto mlp = through_norm(block.ln_2, mlp_state, grads[base + 3]);
        add_scores(graph.first_receiver[l], torch::cat({heads.query, heads.key, heads.value, mlp.unsqueeze(0)}, 0),
                   parallel ? graph.first_head[l] : graph.mlp_senders[l]);
      }
      add_scores(graph.logits_receiver(), grads.back().unsqueeze(0), u_count);
      if (!report_progress(progress, static_cast<int64_t>(index) * runs_per_batch + (settings.steps - j + 2),
                           static_cast<int64_t>(batches.size()) * runs_per_batch)) {
        result.cancelled = true;
        return result;
      }
    }
  }
  result.scores.div_(static_cast<double>(p));
  result.scores.masked_fill_(graph.edges.logical_not(), std::numeric_limits<double>::quiet_NaN());
  return result;
}

}  // namespace aw

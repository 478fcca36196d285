// analysis/circuits/translation_edge_attribution.cpp — edge attribution on a translation model
// (translation_edges.h), as edge_attribution.cpp does it on one stream. Per batch of pairs of one source
// and target length:
//   1. the corrupted run, reading every sender's write into its stream (translation_edge_reading.h);
//   2. the gradient runs, α = 1 (the clean run, whose writes are read too) first, then α = (k−1)/k … 1/k
//      with the source's embedding e_x + α (e_c − e_x) (the target is the same in both runs): one backward
//      of Σ m to every block's q, k, v, every MLP's input and the decoder's last state;
//   3. each receiver's gradient with respect to the stream it reads (heads: each its own copy through its
//      norm and projection slice; MLPs: the VJP of their norm), and the scores of every sender of that
//      stream into it in one product: (a_x − a_c) [U_s, B·len·d] · G [V, B·len·d]ᵀ.
#include "analysis/circuits/translation_edges.h"

#include "analysis/circuits/head_input_gradients.h"
#include "analysis/circuits/pair_batches.h"
#include "analysis/circuits/translation_edge_reading.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <limits>

namespace aw {
namespace translation_edges {

struct GradientRun {
  std::vector<torch::Tensor> state, middle, q, k, v, mlp_in;  // per block (empty where it has none)
  torch::Tensor encoder_last, last;                            // the encoder's last state, the decoder's
  torch::Tensor m;                                             // [B] float64
};

GradientRun gradient_run(TranslationTransformerImpl& model, const PairBatch& batch, const torch::Tensor& corrupted_input,
                         double alpha, const torch::Tensor& gates, const ForwardOptions& readers) {
  const auto blocks = model.config().n_blocks;
  GradientRun run;
  for (auto* each : {&run.state, &run.middle, &run.q, &run.k, &run.v, &run.mlp_in}) each->resize(static_cast<size_t>(blocks));
  ForwardOptions own;
  own.head_gates = gates;
  if (alpha < 1)
    own.hooks.add(HookPoint::ResidPre, 0, [&](const HookSite&, const torch::Tensor& x) {
      return corrupted_input + alpha * (x - corrupted_input);
    });
  own.hooks.append(readers.hooks);
  auto keep = [](std::vector<torch::Tensor>& into) {
    return [&into](const HookSite& site, const torch::Tensor& x) { return into[site.layer] = x, torch::Tensor(); };
  };
  own.hooks.add(HookPoint::ResidPre, -1, keep(run.state));
  own.hooks.add(HookPoint::ResidMid, -1, keep(run.middle));
  own.hooks.add(HookPoint::Q, -1, keep(run.q));
  own.hooks.add(HookPoint::K, -1, keep(run.k));
  own.hooks.add(HookPoint::V, -1, keep(run.v));
  own.hooks.add(HookPoint::MlpIn, -1, keep(run.mlp_in));
  own.hooks.add(HookPoint::ResidPost, model.config().translation.encoder_layers - 1,
                [&](const HookSite&, const torch::Tensor& x) { return run.encoder_last = x, torch::Tensor(); });
  torch::AutoGradMode on(true);
  const auto result = model.forward(batch.clean, own);
  run.last = result.hidden;
  run.m = pair_metric(result.logits.select(1, batch.length - 1), batch);
  return run;
}

// Each head's gradient with respect to its own copy of `state` [H, B, len, d] (per_head_gradients).
torch::Tensor head_gradients(TranslationTransformerImpl& model, int64_t block, ReceiverKind kind, const torch::Tensor& state,
                             const torch::Tensor& grad) {
  return per_head_gradients([&](const torch::Tensor& copies) { return read_heads(model, block, kind, copies); }, state, grad,
                            model.config().heads_per_block[block]);
}

EdgeAttributionResult attribute(TranslationTransformerImpl& model, const std::vector<PatchPair>& pairs,
                                const EdgeAttributionSettings& settings, const ProgressCallback& progress) {
  const auto& config = model.config();
  EdgeAttributionResult result;
  result.graph = translation_edge_graph(config);
  if (settings.steps < 1) throw Error("edge attribution needs at least 1 step");
  model.eval();
  const auto& graph = result.graph;
  const auto u_count = static_cast<int64_t>(graph.senders.size()), v_count = static_cast<int64_t>(graph.receivers.size());
  const auto split = graph.decoder_senders;
  const auto p = static_cast<int64_t>(pairs.size());
  result.scores = torch::zeros({u_count, v_count}, torch::kFloat64);
  result.clean = torch::zeros({p}, torch::kFloat64);
  result.corrupted = torch::zeros({p}, torch::kFloat64);
  const auto device = model.parameters().front().device();
  const auto gates = settings.gates.defined() ? settings.gates.to(device) : torch::Tensor();
  const auto batches = batches_by_length(pairs, settings.batch);
  const auto runs_per_batch = settings.steps + 1;
  for (size_t index = 0; index < batches.size(); ++index) {
    const auto batch = make_batch(pairs, batches[index], device);
    const auto pair_index = torch::tensor(batch.pairs, torch::kLong);
    StreamWrites corrupted, clean;
    {
      torch::NoGradGuard no_gradients;
      ForwardOptions options;
      options.head_gates = gates;
      read_translation_writes(model, graph, options, corrupted);
      const auto logits = model.forward(batch.corrupted, options).logits;
      result.corrupted.index_put_({pair_index}, pair_metric(logits.select(1, batch.length - 1), batch));
    }
    const auto corrupted_input = corrupted.encoder->select(0, 0);
    torch::Tensor difference[2];  // per stream [U_s, B·len·d]: a_x − a_c
    for (int64_t j = settings.steps; j >= 1; --j) {
      ForwardOptions readers;
      if (j == settings.steps) read_translation_writes(model, graph, readers, clean);
      auto run = gradient_run(model, batch, corrupted_input, static_cast<double>(j) / static_cast<double>(settings.steps),
                              gates, readers);
      if (j == settings.steps) {
        result.clean.index_put_({pair_index}, run.m.detach());
        difference[0] = (*corrupted.encoder - *clean.encoder).flatten(1);
        difference[1] = (*corrupted.decoder - *clean.decoder).flatten(1);
        for (auto& each : difference)
          if (each.scalar_type() == torch::kBFloat16 || each.scalar_type() == torch::kHalf) each = each.to(torch::kFloat32);
      }
      std::vector<torch::Tensor> wanted;
      for (int64_t b = 0; b < config.n_blocks; ++b)
        for (const auto* each : {&run.q, &run.k, &run.v, &run.mlp_in})
          if ((*each)[b].defined()) wanted.push_back((*each)[b]);
      wanted.push_back(run.last);
      auto grads = torch::autograd::grad({run.m.sum()}, wanted, {}, /*retain_graph=*/false, /*create_graph=*/false,
                                         /*allow_unused=*/true);
      for (size_t i = 0; i < grads.size(); ++i)
        if (!grads[i].defined()) grads[i] = torch::zeros_like(wanted[i]);
      torch::NoGradGuard no_gradients;
      // The scores of every sender of `stream` into receivers [first, first + V) ([V, B, len, d] gradients).
      auto add_scores = [&](int64_t first, const torch::Tensor& gradients, int stream) {
        const auto& diff = difference[stream];
        const auto product = torch::matmul(diff, gradients.flatten(1).to(diff.scalar_type()).t());
        const auto from = stream == 0 ? 0 : split;
        result.scores.narrow(0, from, diff.size(0)).narrow(1, first, gradients.size(0))
            .add_(product.to(torch::kCPU, torch::kFloat64) / static_cast<double>(settings.steps));
      };
      size_t next = 0;
      for (int64_t b = 0; b < config.n_blocks; ++b) {
        const auto kind = config.attention_block(b).kind;
        const auto heads = config.heads_per_block[b];
        const auto first = graph.first_receiver[b];
        const auto& grad_q = grads[next++];
        const auto& grad_k = grads[next++];
        const auto& grad_v = grads[next++];
        const bool has_mlp = run.mlp_in[b].defined();
        const auto query_state = kind == AttentionKind::Cross ? run.middle[b - 1] : run.state[b];
        const auto kv_state = kind == AttentionKind::Cross ? run.encoder_last : run.state[b];
        const int query_stream = kind == AttentionKind::Encoder ? 0 : 1;
        const int kv_stream = kind == AttentionKind::Decoder ? 1 : 0;
        add_scores(first, head_gradients(model, b, ReceiverKind::Query, query_state, grad_q), query_stream);
        add_scores(first + heads, torch::cat({head_gradients(model, b, ReceiverKind::Key, kv_state, grad_k),
                                              head_gradients(model, b, ReceiverKind::Value, kv_state, grad_v)}),
                   kv_stream);
        if (has_mlp) {
          const auto& grad_mlp = grads[next++];
          add_scores(first + 3 * heads, norm_vjp([&](const torch::Tensor& x) { return mlp_norm(model, b, x); }, run.middle[b], grad_mlp).unsqueeze(0), query_stream);
        }
      }
      add_scores(graph.logits_receiver(), grads.back().unsqueeze(0), 1);
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

}  // namespace translation_edges

EdgeAttributionResult translation_edge_attribution(SequenceToSequenceModel& model, const std::vector<PatchPair>& pairs,
                                                   const EdgeAttributionSettings& settings,
                                                   const ProgressCallback& progress) {
  auto* found = dynamic_cast<TranslationTransformerImpl*>(&model);
  if (!found) throw Error("edge attribution needs a translation model of transformer blocks");
  return translation_edges::attribute(*found, pairs, settings, progress);
}

}  // namespace aw

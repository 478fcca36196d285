// models/nn/lama.cpp — the LAMA forward (see lama.h).
#include "models/nn/lama.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <cmath>

namespace aw {
namespace {

namespace F = torch::nn::functional;

// Gates of the one LAMA layer: [1, m] or [B, 1, m] → [1|B, m]; undefined stays undefined.
torch::Tensor lama_gates(const torch::Tensor& head_gates, int64_t heads, int64_t batch, const torch::Tensor& like) {
  if (!head_gates.defined()) return {};
  auto gates = head_gates.to(like.device(), like.scalar_type());
  const bool shape_ok = (gates.dim() == 2 && gates.size(0) == 1 && gates.size(1) == heads) ||
                        (gates.dim() == 3 && gates.size(0) == batch && gates.size(1) == 1 && gates.size(2) == heads);
  if (!shape_ok)
    throw Error("head gates have shape " + shape_string(gates.sizes()) + "; expected [1, " + std::to_string(heads) +
                "] or [" + std::to_string(batch) + ", 1, " + std::to_string(heads) + "]");
  return gates.dim() == 2 ? gates : gates.select(1, 0);                                    // (1|B, m)
}

}  // namespace

LamaImpl::LamaImpl(ModelConfig config) : config_(std::move(config)) {
  const auto& recurrent = config_.recurrent;
  const int64_t width = 2 * recurrent.rnn_hidden, heads = config_.n_heads;
  encoder = register_module("encoder", WordGru(config_));
  word_proj = register_module("word_proj", Dense(width, width, true));
  if (recurrent.context == LamaContext::Learned) context = register_parameter("context", torch::empty({width}));
  else if (recurrent.embedding_dim != width) context_proj = register_module("context_proj", Dense(recurrent.embedding_dim, width, true));
  p = register_parameter("p", torch::empty({width, heads}));
  q = register_parameter("q", torch::empty({width, heads}));
  mlp = register_module("mlp", ClassifierMlp(heads * width, recurrent.classifier_hidden, config_.num_labels, config_.dropout));
  initialise_recurrent_weights(*this);
  torch::NoGradGuard no_grad;
  if (context.defined()) context.normal_(0.0, 1.0 / std::sqrt(static_cast<double>(width)));
}

torch::Tensor LamaImpl::embed(const ModelInput& input) {
  TORCH_CHECK(input.input_ids.dim() == 2, "input_ids must be [B, n]");
  const auto device = p.device();
  const auto encoded = encoder(input.input_ids.to(device), document_lengths(input));
  if (config_.recurrent.context == LamaContext::Mean) return torch::cat({encoded.annotations, encoded.embeddings}, -1);  // (B, n, 2h+E)
  return encoded.annotations;                                                                            // (B, n, 2h)
}

LamaAttention LamaImpl::attend(const torch::Tensor& embedded, const torch::Tensor& mask, const torch::Tensor& gates,
                               const LayerHooks& hooks) {
  const int64_t batch = embedded.size(0), width = 2 * config_.recurrent.rnn_hidden;
  const auto annotations = hooks.run(HookPoint::AttnIn, embedded.narrow(-1, 0, width));  // H (B, n, 2h)
  const auto keep = mask.defined() ? mask.to(embedded.device()).gt(0) : torch::Tensor();  // (B, n) bool
  LamaAttention out;
  if (context.defined()) {
    out.context = context.unsqueeze(0).expand({batch, width});                            // (B, 2h)
  } else {
    // The mean of the unpadded word embeddings, mapped to 2h when E ≠ 2h.
    const auto embeddings = embedded.narrow(-1, width, config_.recurrent.embedding_dim);            // (B, n, E)
    const auto weights = keep.defined() ? keep.to(embedded.scalar_type()).unsqueeze(-1)
                                        : torch::ones({batch, embedded.size(1), 1}, embedded.options());
    const auto mean = (embeddings * weights).sum(1) / weights.sum(1);                     // (B, E)
    out.context = context_proj ? context_proj(mean) : mean;                               // (B, 2h)
  }
  const auto u = torch::tanh(word_proj(annotations));                                     // (B, n, 2h)
  out.scores = low_rank_scores(out.context, u, p, q);                                     // (B, n, m)
  auto normalised = F::normalize(torch::tanh(out.scores), F::NormalizeFuncOptions().p(2).dim(-1));
  auto logits = normalised.transpose(1, 2);                                               // (B, m, n)
  if (keep.defined()) logits = logits.masked_fill(keep.logical_not().unsqueeze(1), -INFINITY);
  // The points see one query row per head: scores and pattern [B, m, 1, n], z [B, m, 1, 2h].
  logits = hooks.run(HookPoint::Scores, logits.unsqueeze(2)).squeeze(2);
  out.attention = hooks.run(HookPoint::Pattern, torch::softmax(logits, -1).unsqueeze(2)).squeeze(2);  // (B, m, n)
  out.pooled = torch::matmul(out.attention, annotations);                                 // (B, m, 2h)
  if (gates.defined()) out.pooled = out.pooled * gates.unsqueeze(-1);
  out.pooled = hooks.run(HookPoint::Z, out.pooled.unsqueeze(2)).squeeze(2);
  return out;
}

LayersResult LamaImpl::run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_layer,
                                  int64_t end_layer, const ForwardOptions& options) {
  if (first_layer >= end_layer) return {std::move(hidden), {}};
  TORCH_CHECK(first_layer == 0 && end_layer == 1, "LAMA has one attention layer; asked for layers ", first_layer,
              "..", end_layer);
  const auto gates = lama_gates(options.head_gates, config_.n_heads, hidden.size(0), hidden);
  const LayerHooks hooks{options.hooks.empty() ? nullptr : &options.hooks, 0};
  auto attended = attend(hidden, input.attention_mask, gates, hooks);
  AttentionSink sink(options);
  if (sink.wants_probabilities()) sink.take(0, attended.attention.unsqueeze(2));    // (B, m, 1, n)
  return {std::move(attended.pooled), sink.release()};
}

torch::Tensor LamaImpl::output(const torch::Tensor& hidden, const ModelInput& /*input*/) {
  return mlp(hidden.flatten(1));                                                          // (B, C)
}

torch::Tensor LamaImpl::hooked_output(const torch::Tensor& hidden, const ModelInput& input, const Hooks& hooks) {
  return LayerHooks{hooks.empty() ? nullptr : &hooks, -1}.run(HookPoint::Logits, output(hidden, input));
}

std::vector<HookPoint> LamaImpl::hook_points() const {
  return {HookPoint::AttnIn, HookPoint::Scores, HookPoint::Pattern, HookPoint::Z, HookPoint::Logits};
}

ForwardResult LamaImpl::forward(const ModelInput& input, const ForwardOptions& options) {
  auto layers_result = run_layers(embed(input), input, 0, 1, options);
  ForwardResult result;
  result.hidden = std::move(layers_result.hidden);                                        // S (B, m, 2h)
  result.attention = std::move(layers_result.attention);
  result.logits = options.hooks.empty() ? output(result.hidden, input)
                                        : hooked_output(result.hidden, input, options.hooks);
  return result;
}

torch::Tensor low_rank_scores(const torch::Tensor& context, const torch::Tensor& u, const torch::Tensor& p,
                              const torch::Tensor& q) {
  return torch::matmul(context, p).unsqueeze(1) * torch::matmul(u, q);                   // (B, 1, m) ⊙ (B, n, m)
}

torch::Tensor penal_disagreement(const torch::Tensor& attention) {
  const auto heads = attention.size(1);
  const auto gram = torch::matmul(attention, attention.transpose(1, 2));                  // (B, m, m)
  const auto identity = torch::eye(heads, attention.options());
  return (gram - identity).pow(2).sum({1, 2}).mean();
}

torch::Tensor embedding_disagreement(const torch::Tensor& pooled) {
  const auto heads = pooled.size(1);
  if (heads < 2) return torch::zeros({}, pooled.options());
  const auto unit = F::normalize(pooled, F::NormalizeFuncOptions().p(2).dim(-1));        // (B, m, 2h)
  const auto cosine = torch::matmul(unit, unit.transpose(1, 2));                          // (B, m, m)
  const auto off_diagonal = cosine.sum({1, 2}) - cosine.diagonal(0, 1, 2).sum(-1);        // (B)
  return (off_diagonal / static_cast<double>(heads * (heads - 1))).mean();
}

torch::Tensor classification_regularizer(const ModelConfig& config, const ForwardResult& result) {
  const auto& recurrent = config.recurrent;
  if (!config.has_lama_attention() || recurrent.regularizer == Regularizer::None || recurrent.regularizer_weight == 0.0)
    return {};
  if (recurrent.regularizer == Regularizer::Penal)
    return recurrent.regularizer_weight * penal_disagreement(result.attention.at(0).squeeze(2));
  return recurrent.regularizer_weight * embedding_disagreement(result.hidden);
}

}  // namespace aw

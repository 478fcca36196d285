// analysis/circuits/translation_attribution.cpp — see translation_attribution.h.
#include "analysis/circuits/translation_attribution.h"

#include "analysis/circuits/max_flow.h"
#include "analysis/circuits/token_attribution.h"

#include <torch/torch.h>

namespace aw {
namespace {

AttentionKind kind_of(const ModelConfig& config, size_t block) {
  return config.attention_block(static_cast<int64_t>(block)).kind;
}

// The source and target lengths, from the first encoder and the first decoder block.
std::pair<int64_t, int64_t> lengths(const ModelConfig& config, const std::vector<torch::Tensor>& patterns) {
  int64_t n = 0, m = 0;
  for (size_t block = 0; block < patterns.size(); ++block) {
    const auto kind = kind_of(config, block);
    if (kind == AttentionKind::Encoder) n = patterns[block].size(-1);
    if (kind == AttentionKind::Decoder) m = patterns[block].size(-1);
  }
  return {n, m};
}

// A cross block's mean over heads with each row divided by its sum: [m, n].
torch::Tensor cross_rows(const torch::Tensor& pattern) {
  const auto mean = pattern.to(torch::kFloat64).mean(0);
  return mean / mean.sum(-1, /*keepdim=*/true);
}

torch::Tensor positive_weighted(const torch::Tensor& pattern, const torch::Tensor& gradient) {
  return (gradient.to(torch::kFloat64) * pattern.to(torch::kFloat64)).clamp_min(0).mean(0);
}

}  // namespace

torch::Tensor translation_attention(const ModelConfig& config, const std::vector<torch::Tensor>& patterns,
                                    int64_t position) {
  torch::Tensor source, target;
  for (size_t block = 0; block < patterns.size(); ++block) {
    const auto kind = kind_of(config, block);
    if (kind == AttentionKind::Cross) source = patterns[block].to(torch::kFloat64).mean(0)[position];
    if (kind == AttentionKind::Decoder) target = patterns[block].to(torch::kFloat64).mean(0)[position];
  }
  return torch::cat({source, target});
}

torch::Tensor translation_rollout(const ModelConfig& config, const std::vector<torch::Tensor>& patterns,
                                  int64_t position) {
  const auto sizes = lengths(config, patterns);
  const int64_t n = sizes.first, m = sizes.second;
  auto encoder = torch::eye(n, torch::kFloat64);
  auto decoder = torch::cat({torch::zeros({m, n}, torch::kFloat64), torch::eye(m, torch::kFloat64)}, 1);
  for (size_t block = 0; block < patterns.size(); ++block) {
    switch (kind_of(config, block)) {
      case AttentionKind::Encoder: encoder = torch::matmul(residual_attention(patterns[block]), encoder); break;
      case AttentionKind::Decoder: decoder = torch::matmul(residual_attention(patterns[block]), decoder); break;
      case AttentionKind::Cross: {
        const auto read = torch::matmul(cross_rows(patterns[block]), encoder);  // [m, n]
        decoder = 0.5 * decoder + 0.5 * torch::cat({read, torch::zeros({m, m}, torch::kFloat64)}, 1);
        break;
      }
    }
  }
  return decoder[position].clone();
}

torch::Tensor translation_flow(const ModelConfig& config, const std::vector<torch::Tensor>& patterns,
                               int64_t position) {
  const auto sizes = lengths(config, patterns);
  const int64_t n = sizes.first, m = sizes.second;
  int64_t encoder_blocks = 0, decoder_blocks = 0;
  for (size_t block = 0; block < patterns.size(); ++block)
    (kind_of(config, block) == AttentionKind::Encoder ? encoder_blocks : decoder_blocks) += 1;
  // Nodes: the encoder's levels 0 … Le of n tokens, then the decoder's levels 0 … (its blocks) of m
  // tokens, then the source. Level 0 holds the input tokens; each block adds a level above.
  auto source_node = [n](int64_t level, int64_t i) { return level * n + i; };
  const int64_t decoder_base = (encoder_blocks + 1) * n;
  auto target_node = [decoder_base, m](int64_t level, int64_t i) { return decoder_base + level * m + i; };
  const int64_t start = decoder_base + (decoder_blocks + 1) * m;
  FlowNetwork network(start + 1);
  auto add_matrix = [&](const torch::Tensor& weights, auto from, auto to, double scale) {
    const auto values = weights.contiguous();
    const auto* data = values.data_ptr<double>();
    const auto rows = values.size(0), cols = values.size(1);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        if (data[i * cols + j] > 0) network.add_edge(from(i), to(j), scale * data[i * cols + j]);
  };
  int64_t encoder_level = 0, decoder_level = 0;
  for (size_t block = 0; block < patterns.size(); ++block) {
    const auto kind = kind_of(config, block);
    if (kind == AttentionKind::Encoder) {
      ++encoder_level;
      add_matrix(residual_attention(patterns[block]), [&](int64_t i) { return source_node(encoder_level, i); },
                 [&](int64_t j) { return source_node(encoder_level - 1, j); }, 1.0);
      continue;
    }
    ++decoder_level;
    auto above = [&](int64_t i) { return target_node(decoder_level, i); };
    if (kind == AttentionKind::Decoder) {
      add_matrix(residual_attention(patterns[block]), above, [&](int64_t j) { return target_node(decoder_level - 1, j); },
                 1.0);
    } else {
      for (int64_t i = 0; i < m; ++i) network.add_edge(above(i), target_node(decoder_level - 1, i), 0.5);
      add_matrix(cross_rows(patterns[block]), above, [&](int64_t j) { return source_node(encoder_blocks, j); }, 0.5);
    }
  }
  network.add_edge(start, target_node(decoder_blocks, position), 1.0);
  auto flow = torch::zeros({n + m}, torch::kFloat64);
  for (int64_t j = 0; j < n; ++j) flow[j] = network.max_flow(start, source_node(0, j));
  for (int64_t j = 0; j < m; ++j) flow[n + j] = network.max_flow(start, target_node(0, j));
  return flow;
}

torch::Tensor residual_normalised(const torch::Tensor& relevance) {
  const auto identity = torch::eye(relevance.size(0), relevance.options());
  const auto off = relevance - identity;
  const auto sums = off.sum(-1, /*keepdim=*/true);
  return identity + torch::where(sums != 0, off / sums, torch::zeros_like(off));
}

torch::Tensor translation_gradient_rollout(const ModelConfig& config, const std::vector<torch::Tensor>& patterns,
                                           const std::vector<torch::Tensor>& gradients, int64_t position) {
  const auto sizes = lengths(config, patterns);
  const int64_t n = sizes.first, m = sizes.second;
  auto source_source = torch::eye(n, torch::kFloat64);
  auto target_target = torch::eye(m, torch::kFloat64);
  auto target_source = torch::zeros({m, n}, torch::kFloat64);
  for (size_t block = 0; block < patterns.size(); ++block) {
    const auto weighted = positive_weighted(patterns[block], gradients[block]);
    switch (kind_of(config, block)) {
      case AttentionKind::Encoder: source_source = source_source + torch::matmul(weighted, source_source); break;
      case AttentionKind::Decoder:
        target_target = target_target + torch::matmul(weighted, target_target);
        target_source = target_source + torch::matmul(weighted, target_source);
        break;
      case AttentionKind::Cross:
        target_source = target_source + torch::matmul(residual_normalised(target_target).t(),
                                                      torch::matmul(weighted, residual_normalised(source_source)));
        break;
    }
  }
  return torch::cat({target_source[position], target_target[position]});
}

}  // namespace aw

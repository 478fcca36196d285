// analysis/circuits/composition.cpp — see composition.h. Every Frobenius norm of a d × d product is
// taken through dh × dh matrices: with C = A O₁ (A one of the receiver's W_Q, W_K, W_V),
// ‖Bᵀ C V₁‖²_F = tr(Cᵀ (B Bᵀ) C (V₁ V₁ᵀ)), so no d × d matrix is formed and a 1B-class model's
// 130,000 pairs cost one [H·dh, d] × [d, H·dh] product per pair of layers.
#include "analysis/circuits/composition.h"

#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace aw {
namespace {

// x xᵀ of x [..., dh, d]: [..., dh, dh] in float64.
torch::Tensor row_gram(const torch::Tensor& x) { return torch::matmul(x, x.transpose(-1, -2)).to(torch::kFloat64); }
// xᵀ x of x [..., d, dh].
torch::Tensor column_gram(const torch::Tensor& x) { return torch::matmul(x.transpose(-1, -2), x).to(torch::kFloat64); }

// tr(Cᵀ G C G') for C [..., dh2, dh1] and symmetric G [.., dh2, dh2], G' [..., dh1, dh1] broadcasting
// against it: Σ C ⊙ (G C G').
torch::Tensor traced(const torch::Tensor& left, const torch::Tensor& core, const torch::Tensor& right) {
  return (core * torch::matmul(torch::matmul(left, core), right)).sum({-2, -1}).clamp_min(0);
}

// tr(A B) of symmetric [..., dh, dh] matrices: Σ A ⊙ B.
torch::Tensor trace_product(const torch::Tensor& a, const torch::Tensor& b) { return (a * b).sum({-2, -1}).clamp_min(0); }

// Cores C[j, i] = A_j O_i of receiver rows A [H2, dh2, d] and sender columns O [H1, d, dh1]: one product,
// [H2, H1, dh2, dh1] in float64 (a translation model's encoder and decoder heads may differ in width).
torch::Tensor cores(const torch::Tensor& rows, const torch::Tensor& columns) {
  const auto h2 = rows.size(0), h1 = columns.size(0), dh2 = rows.size(1), dh1 = columns.size(2);
  const auto stacked_rows = rows.reshape({h2 * dh2, rows.size(2)});                         // [H2·dh2, d]
  const auto stacked_columns = columns.permute({1, 0, 2}).reshape({columns.size(1), h1 * dh1});  // [d, H1·dh1]
  return torch::matmul(stacked_rows, stacked_columns).reshape({h2, dh2, h1, dh1}).permute({0, 2, 1, 3}).to(torch::kFloat64);
}

}  // namespace

std::vector<CompositionPair> composition_scores(const HeadWeights& weights, const ProgressCallback& progress,
                                                bool* cancelled) {
  c10::InferenceMode inference;
  std::vector<CompositionPair> pairs;
  const auto layers = static_cast<int64_t>(weights.layers.size());
  // Per layer: the Gram matrices every pair reuses, and ‖QK‖², ‖OV‖² per head.
  std::vector<torch::Tensor> gram_q, gram_k, gram_v, gram_o, qk_norm2, ov_norm2;
  for (const auto& layer : weights.layers) {
    gram_q.push_back(row_gram(layer.query));
    gram_k.push_back(row_gram(layer.kv_key).index_select(0, layer.kv_of));
    gram_v.push_back(row_gram(layer.kv_value).index_select(0, layer.kv_of));
    gram_o.push_back(column_gram(layer.output));
    qk_norm2.push_back(trace_product(gram_q.back(), gram_k.back()));
    ov_norm2.push_back(trace_product(gram_o.back(), gram_v.back()));
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t receiver = 1; receiver < layers; ++receiver) {
    const auto& to = weights.layers[receiver];
    for (int64_t sender = 0; sender < receiver; ++sender) {
      const auto& from = weights.layers[sender];
      // A translation model's sender composes only with what reads the stream it writes to: an encoder
      // head with encoder heads and with cross-attention's keys and values, a decoder head with later
      // decoder heads and with cross-attention's queries.
      const bool reads_query = from.write_stream == to.query_stream, reads_key = from.write_stream == to.key_stream;
      if (!reads_query && !reads_key) continue;
      const auto sender_v = gram_v[sender].unsqueeze(0);  // [1, H1, dh, dh]
      const auto ov = ov_norm2[sender].unsqueeze(0);      // [1, H1]
      const auto h2 = to.query.size(0), h1 = from.output.size(0);
      const auto absent = torch::full({h2, h1}, nan, torch::kFloat64);
      torch::Tensor q = absent, k = absent, v = absent;
      if (reads_query) {
        const auto q_num = traced(gram_k[receiver].unsqueeze(1), cores(to.query, from.output), sender_v);
        q = (q_num / (qk_norm2[receiver].unsqueeze(1) * ov)).sqrt().contiguous();  // [H2, H1]
      }
      if (reads_key) {
        // The key and value cores once per key/value head, then read by each query head of its group.
        const auto key_cores = cores(to.kv_key, from.output).index_select(0, to.kv_of);
        const auto value_cores = cores(to.kv_value, from.output).index_select(0, to.kv_of);
        const auto k_num = traced(gram_q[receiver].unsqueeze(1), key_cores, sender_v);
        const auto v_num = traced(gram_o[receiver].unsqueeze(1), value_cores, sender_v);
        k = (k_num / (qk_norm2[receiver].unsqueeze(1) * ov)).sqrt().contiguous();
        v = (v_num / (ov_norm2[receiver].unsqueeze(1) * ov)).sqrt().contiguous();
      }
      const auto* q_data = q.data_ptr<double>();
      const auto* k_data = k.data_ptr<double>();
      const auto* v_data = v.data_ptr<double>();
      for (int64_t i = 0; i < h1; ++i)
        for (int64_t j = 0; j < h2; ++j)
          pairs.push_back({sender, i, receiver, j, q_data[j * h1 + i], k_data[j * h1 + i], v_data[j * h1 + i]});
    }
    if (!report_progress(progress, receiver, layers - 1)) {
      if (cancelled) *cancelled = true;
      return {};
    }
  }
  // Sender-major: every later head a sender writes to, together.
  std::stable_sort(pairs.begin(), pairs.end(), [](const CompositionPair& a, const CompositionPair& b) {
    return std::tie(a.sender_layer, a.sender_head, a.receiver_layer, a.receiver_head) <
           std::tie(b.sender_layer, b.sender_head, b.receiver_layer, b.receiver_head);
  });
  return pairs;
}

double ChanceBaseline::quantile(double q) const {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(at));
  const auto above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

double ChanceBaseline::share_at_least(double x) const {
  const auto at_least = sorted.end() - std::lower_bound(sorted.begin(), sorted.end(), x);
  return static_cast<double>(1 + at_least) / static_cast<double>(1 + sorted.size());
}

ChanceBaseline composition_baseline(int64_t d_model, int64_t d_head, int64_t draws, uint64_t seed) {
  return composition_baseline(d_model, d_head, d_head, draws, seed);
}

ChanceBaseline composition_baseline(int64_t d_model, int64_t receiver_head, int64_t sender_head, int64_t draws,
                                    uint64_t seed) {
  c10::InferenceMode inference;
  auto generator = at::detail::createCPUGenerator(seed);
  ChanceBaseline baseline;
  constexpr int64_t kChunk = 64;  // draws at a time: four [chunk, dh, d] matrices
  for (int64_t done = 0; done < draws; done += kChunk) {
    const auto n = std::min(kChunk, draws - done);
    const auto options = torch::TensorOptions().dtype(torch::kFloat32);
    const auto query = at::normal(0, 1, {n, receiver_head, d_model}, generator, options);
    const auto key = at::normal(0, 1, {n, receiver_head, d_model}, generator, options);
    const auto value = at::normal(0, 1, {n, sender_head, d_model}, generator, options);  // the sender's
    const auto output = at::normal(0, 1, {n, d_model, sender_head}, generator, options);
    const auto gram_q = row_gram(query), gram_k = row_gram(key), gram_v = row_gram(value), gram_o = column_gram(output);
    const auto core = torch::matmul(key, output).to(torch::kFloat64);  // [n, dh, dh]
    const auto score = (traced(gram_q, core, gram_v) /
                        (trace_product(gram_q, gram_k) * trace_product(gram_o, gram_v))).sqrt().contiguous();
    const auto* data = score.data_ptr<double>();
    baseline.sorted.insert(baseline.sorted.end(), data, data + n);
  }
  std::sort(baseline.sorted.begin(), baseline.sorted.end());
  double sum = 0, squares = 0;
  for (double x : baseline.sorted) sum += x, squares += x * x;
  const auto count = static_cast<double>(baseline.sorted.size());
  baseline.mean = sum / count;
  baseline.sd = count > 1 ? std::sqrt(std::max(0.0, (squares - sum * sum / count) / (count - 1))) : 0;
  return baseline;
}

std::vector<HeadCircuit> head_circuits(const HeadWeights& weights, int64_t span, bool causal) {
  c10::InferenceMode inference;
  std::vector<HeadCircuit> heads;
  // Per stream a head's values read (0, and a translation model's decoder 1): W_E W_U [d, d] once,
  // where the unembedding reads what the head writes; each head's eigenvalues are those of V G O
  // [dh, dh] (cyclic: the V × V matrix W_U W_O W_V W_E has no other non-zero ones).
  const int unembedded = weights.translation ? 1 : 0;
  std::array<torch::Tensor, 2> through_vocabulary, stream_positions;
  std::array<bool, 2> stream_causal{causal, true};  // a translation model: the encoder sees both ways
  if (weights.translation) stream_causal[0] = false;
  const std::array<const torch::Tensor*, 2> embeddings{&weights.embedding, &weights.decoder_embedding};
  const std::array<const torch::Tensor*, 2> tables{&weights.positions, &weights.decoder_positions};
  for (int stream = 0; stream < 2; ++stream) {
    // Source tokens read as target tokens only where the two share one vocabulary.
    const bool same_tokens = stream == unembedded || weights.shared_vocabulary;
    if (weights.unembedding.defined() && embeddings[stream]->defined() && same_tokens)
      through_vocabulary[stream] = torch::matmul(*embeddings[stream], weights.unembedding);
    if (tables[stream]->defined()) stream_positions[stream] = tables[stream]->narrow(0, 0, std::min(span, tables[stream]->size(0)));
  }
  for (int64_t layer = 0; layer < static_cast<int64_t>(weights.layers.size()); ++layer) {
    const auto& w = weights.layers[layer];
    const auto h = w.query.size(0);
    torch::Tensor copying, positive;
    // Copying needs the unembedding to read what the head writes (not a translation model's encoder).
    const auto& vocabulary = through_vocabulary[w.key_stream];
    if (vocabulary.defined() && w.write_stream == unembedded) {
      const auto circuit = torch::matmul(torch::matmul(w.value, vocabulary), w.output).to(torch::kFloat64);
      const auto eigenvalues = torch::linalg_eigvals(circuit);  // [H, dh] complex
      const auto modulus = eigenvalues.abs();
      const auto real = torch::real(eigenvalues);
      const auto mass = modulus.sum(-1);
      copying = (real.sum(-1) / mass).contiguous();
      positive = ((modulus * (real > 0)).sum(-1) / mass).contiguous();
    }
    // The positional pattern where queries and keys read one stream's positions (not cross-attention).
    const auto& table = stream_positions[w.query_stream];
    torch::Tensor weight_by_offset;  // [H, 2·N − 1]: offsets −(N−1) … N−1
    if (table.defined() && w.query_stream == w.key_stream) {
      const auto& positions = table;  // [N, d]
      const auto n = positions.size(0);
      const auto queries = torch::matmul(positions.unsqueeze(0), w.query.transpose(-1, -2));  // [H, N, dh]
      const auto keys = torch::matmul(positions.unsqueeze(0), w.key.transpose(-1, -2));
      auto scores = torch::matmul(queries, keys.transpose(-1, -2)).to(torch::kFloat64) * w.score_scale;
      const auto index = torch::arange(n, torch::kLong);
      const auto offset = index.unsqueeze(1) - index.unsqueeze(0);  // [N, N]: query − key
      if (stream_causal[w.query_stream]) scores = scores.masked_fill(offset.lt(0), -std::numeric_limits<double>::infinity());
      const auto probabilities = torch::softmax(scores, -1);
      const auto slot = (offset + (n - 1)).reshape({-1});
      const auto sums = torch::zeros({h, 2 * n - 1}, torch::kFloat64).index_add_(1, slot, probabilities.reshape({h, -1}));
      const auto counts = torch::zeros({2 * n - 1}, torch::kFloat64).index_add_(0, slot, torch::ones({n * n}, torch::kFloat64));
      weight_by_offset = (sums / counts).contiguous();
    }
    for (int64_t head = 0; head < h; ++head) {
      HeadCircuit circuit;
      circuit.layer = layer;
      circuit.head = head;
      const double nan = std::numeric_limits<double>::quiet_NaN();
      circuit.copying = copying.defined() ? copying[head].item<double>() : nan;
      circuit.positive_share = positive.defined() ? positive[head].item<double>() : nan;
      if (weight_by_offset.defined()) {
        const auto row = weight_by_offset[head];
        const auto best = row.argmax().item<int64_t>();
        circuit.has_positional = true;
        circuit.positional_offset = best - (table.size(0) - 1);
        circuit.positional_weight = row[best].item<double>();
      }
      heads.push_back(circuit);
    }
  }
  return heads;
}

}  // namespace aw

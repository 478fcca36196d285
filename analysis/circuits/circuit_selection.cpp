// analysis/circuits/circuit_selection.cpp — see circuit_selection.h. The greedy search keeps a heap of
// the edges into the circuit's nodes; a node joins when an edge out of it is chosen, and brings its
// receivers' edges: a head its q, and its group's k and v (the first head of a group to join brings
// them), an MLP its input.
#include "analysis/circuits/circuit_selection.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <queue>
#include <tuple>
#include <vector>

namespace aw {

CircuitSelection circuit_selection_named(const std::string& name) {
  if (name == "top") return CircuitSelection::Top;
  if (name == "greedy") return CircuitSelection::Greedy;
  throw Error("circuit selection '" + name + "': greedy or top");
}

namespace {

torch::Tensor top(const torch::Tensor& magnitude, int64_t size) {
  const auto flat = magnitude.flatten();
  const auto order = std::get<1>(torch::sort(flat, /*stable=*/true, /*dim=*/0, /*descending=*/true));
  auto chosen = torch::zeros({flat.size(0)}, torch::kBool);
  chosen.index_fill_(0, order.narrow(0, 0, size), true);
  return chosen.view(magnitude.sizes());
}

// The key/value head of each query head of `layer`.
std::vector<int64_t> kv_of_queries(const ModelConfig& config, int64_t layer) {
  std::vector<int64_t> kv;
  if (config.decoder.query_groups.empty()) {
    for (int64_t h = 0; h < config.heads_per_block[layer]; ++h) kv.push_back(h);
    return kv;
  }
  const auto& groups = config.decoder.query_groups[layer];
  for (size_t g = 0; g < groups.size(); ++g)
    for (int64_t i = 0; i < groups[g]; ++i) kv.push_back(static_cast<int64_t>(g));
  return kv;
}

torch::Tensor greedy(const ModelConfig& config, const EdgeGraph& graph, const torch::Tensor& magnitude, int64_t size) {
  const auto u_count = magnitude.size(0), v_count = magnitude.size(1);
  const auto values = magnitude.contiguous();
  const auto m = values.accessor<double, 2>();
  // (|score|, −edge index) in a max-heap: the larger score first, then the earlier edge.
  std::priority_queue<std::pair<double, int64_t>> heap;
  std::vector<bool> receiver_open(static_cast<size_t>(v_count), false), sender_in(static_cast<size_t>(u_count), false);
  auto open = [&](int64_t v) {
    if (receiver_open[v]) return;
    receiver_open[v] = true;
    for (int64_t u = 0; u < u_count; ++u)
      if (m[u][v] >= 0) heap.emplace(m[u][v], -(u * v_count + v));
  };
  auto join = [&](int64_t u) {
    if (sender_in[u]) return;
    sender_in[u] = true;
    const auto& sender = graph.senders[u];
    if (sender.kind == SenderKind::Input) return;
    const auto first = graph.first_receiver[sender.layer];
    if (sender.kind == SenderKind::Mlp) return open(graph.first_receiver[sender.layer + 1] - 1);
    const auto h = config.heads_per_block[sender.layer], g = config.kv_heads_in(sender.layer);
    const auto kv = kv_of_queries(config, sender.layer)[sender.head];
    open(first + sender.head);
    open(first + h + kv);
    open(first + h + g + kv);
  };
  open(graph.logits_receiver());
  auto chosen = torch::zeros({u_count * v_count}, torch::kBool);
  for (int64_t taken = 0; taken < size; ++taken) {
    const auto index = -heap.top().second;
    heap.pop();
    chosen[index] = true;
    join(index / v_count);
  }
  return chosen.view({u_count, v_count});
}

}  // namespace

torch::Tensor circuit_edges(const ModelConfig& config, const EdgeGraph& graph, const torch::Tensor& scores, int64_t size,
                            CircuitSelection selection) {
  const auto edges = graph.edge_count();
  if (size < 0 || size > edges)
    throw Error("a circuit of " + std::to_string(size) + " edges: the model's graph has " + std::to_string(edges));
  const auto magnitude = scores.to(torch::kFloat64).abs().nan_to_num(-1.0);  // no edge: below every edge
  return selection == CircuitSelection::Top ? top(magnitude, size) : greedy(config, graph, magnitude, size);
}

}  // namespace aw

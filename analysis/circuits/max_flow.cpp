// analysis/circuits/max_flow.cpp — see max_flow.h.
#include "analysis/circuits/max_flow.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace aw {

FlowNetwork::FlowNetwork(int64_t nodes) : first_edge_(static_cast<size_t>(nodes)) {}

void FlowNetwork::add_edge(int64_t from, int64_t to, double capacity) {
  first_edge_[from].push_back(static_cast<int64_t>(edges_.size()));
  edges_.push_back({to, capacity, 0});
  first_edge_[to].push_back(static_cast<int64_t>(edges_.size()));
  edges_.push_back({from, 0, 0});
}

bool FlowNetwork::levelled(int64_t source, int64_t sink, double epsilon) {
  level_.assign(first_edge_.size(), -1);
  level_[source] = 0;
  std::deque<int64_t> queue{source};
  while (!queue.empty()) {
    const auto node = queue.front();
    queue.pop_front();
    for (const auto index : first_edge_[node]) {
      const auto& edge = edges_[index];
      if (level_[edge.to] < 0 && edge.capacity - edge.flow > epsilon) {
        level_[edge.to] = level_[node] + 1;
        queue.push_back(edge.to);
      }
    }
  }
  return level_[sink] >= 0;
}

double FlowNetwork::push(int64_t node, int64_t sink, double limit, double epsilon) {
  if (node == sink) return limit;
  for (auto& i = next_[node]; i < static_cast<int64_t>(first_edge_[node].size()); ++i) {
    const auto index = first_edge_[node][i];
    auto& edge = edges_[index];
    const double room = edge.capacity - edge.flow;
    if (room <= epsilon || level_[edge.to] != level_[node] + 1) continue;
    const double pushed = push(edge.to, sink, std::min(limit, room), epsilon);
    if (pushed > 0) {
      edge.flow += pushed;
      edges_[index ^ 1].flow -= pushed;
      return pushed;
    }
  }
  return 0;
}

double FlowNetwork::max_flow(int64_t source, int64_t sink, double epsilon) {
  for (auto& edge : edges_) edge.flow = 0;
  if (source == sink) return 0;
  double total = 0;
  while (levelled(source, sink, epsilon)) {
    next_.assign(first_edge_.size(), 0);
    while (const double pushed = push(source, sink, std::numeric_limits<double>::infinity(), epsilon)) total += pushed;
  }
  return total;
}

}  // namespace aw

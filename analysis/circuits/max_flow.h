// analysis/circuits/max_flow.h — the maximum flow of a network with real capacities (Dinic's
// algorithm: breadth-first levels, then blocking flows along them), for attention flow (Abnar &
// Zuidema 2020), where each token's share of an output is the most that can flow to it through the
// layers' attention.
#pragma once

#include <cstdint>
#include <vector>

namespace aw {

class FlowNetwork {
 public:
  explicit FlowNetwork(int64_t nodes);
  void add_edge(int64_t from, int64_t to, double capacity);
  // The maximum flow from `source` to `sink`; the network is left as it was (flows start at 0 on
  // every call). Capacities below `epsilon` left on an edge count as none (real arithmetic).
  double max_flow(int64_t source, int64_t sink, double epsilon = 1e-12);
  int64_t nodes() const { return static_cast<int64_t>(first_edge_.size()); }

 private:
  struct Edge {
    int64_t to;
    double capacity;
    double flow;
  };
  bool levelled(int64_t source, int64_t sink, double epsilon);
  double push(int64_t node, int64_t sink, double limit, double epsilon);

  std::vector<Edge> edges_;                  // edge 2k and its reverse 2k + 1
  std::vector<std::vector<int64_t>> first_edge_;  // the edges leaving each node
  std::vector<int64_t> level_, next_;
};

}  // namespace aw

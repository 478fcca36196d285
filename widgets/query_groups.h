// widgets/query_groups.h — grouped-query attention as the views lay it out: per layer, how many query
// heads read each key/value head (in head order). The heads panel and the overview put the heads of
// one group together with a wider gap between groups. Plain values, no LibTorch.
#pragma once

#include <algorithm>
#include <vector>

namespace aw {

struct QueryGroups {
  std::vector<std::vector<int>> sizes;  // [layer][group]; empty = no groups

  // Groups of one head each (every head its own key and value) are no grouping: none kept.
  static QueryGroups of(const std::vector<std::vector<int>>& sizes) {
    for (const auto& layer : sizes)
      for (int size : layer)
        if (size > 1) return {sizes};
    return {};
  }
  // The key/value head that query head `head` of `layer` reads; −1 without groups.
  int groupOf(int layer, int head) const {
    if (layer < 0 || layer >= static_cast<int>(sizes.size()) || head < 0) return -1;
    int end = 0;
    for (int group = 0; group < static_cast<int>(sizes[layer].size()); ++group)
      if (head < (end += sizes[layer][group])) return group;
    return -1;
  }
  // Group boundaries left of a head (0 for the first group, and without groups).
  int boundariesBefore(int layer, int head) const { return std::max(0, groupOf(layer, head)); }
  int groupsIn(int layer) const {
    return layer >= 0 && layer < static_cast<int>(sizes.size()) ? static_cast<int>(sizes[layer].size()) : 0;
  }
  // The size every group of every layer has (0 where they differ, or without groups).
  int uniformSize() const {
    int size = 0;
    for (const auto& layer : sizes)
      for (int group : layer)
        if (size == 0) size = group;
        else if (group != size) return 0;
    return size;
  }
  // The most boundaries of any layer (widths are laid out for it).
  int maxBoundaries() const {
    size_t groups = 1;
    for (const auto& layer : sizes) groups = std::max(groups, layer.size());
    return static_cast<int>(groups) - 1;
  }
};

}  // namespace aw

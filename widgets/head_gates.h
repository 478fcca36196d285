// widgets/head_gates.h — which attention heads are switched on: the state the heads panel edits and
// every view and analysis runs with. Plain values, no LibTorch.
#pragma once

#include <QString>

#include <vector>

namespace aw {

struct HeadGates {
  std::vector<std::vector<bool>> on;  // [layer][head], both 0-based

  static HeadGates allOn(const std::vector<int>& heads_per_block) {
    HeadGates gates;
    for (int heads : heads_per_block) gates.on.emplace_back(static_cast<size_t>(heads), true);
    return gates;
  }
  int total() const {
    int count = 0;
    for (const auto& layer : on) count += static_cast<int>(layer.size());
    return count;
  }
  int offCount() const {
    int count = 0;
    for (const auto& layer : on)
      for (bool head_on : layer) count += head_on ? 0 : 1;
    return count;
  }
  bool isOn(int layer, int head) const {
    return layer >= 0 && layer < static_cast<int>(on.size()) && head >= 0 &&
           head < static_cast<int>(on[layer].size()) && on[layer][head];
  }
  // "7 of 24 heads off", or "all 24 heads on".
  QString summary() const {
    return offCount() == 0 ? QString("all %1 heads on").arg(total())
                           : QString("%1 of %2 heads off").arg(offCount()).arg(total());
  }
  bool operator==(const HeadGates& other) const { return on == other.on; }
  bool operator!=(const HeadGates& other) const { return on != other.on; }
};

}  // namespace aw

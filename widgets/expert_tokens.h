// widgets/expert_tokens.h — one sparse layer's expert choice per token, as the window keeps it (plain
// data: the session library holds it without Qt's GUI modules; widgets/expert_strip.h draws it).
#pragma once

#include <vector>

namespace aw {

struct ExpertTokens {
  int layer = 0;                // 0-based
  int k = 0;                    // experts per token
  std::vector<int> experts;     // tokens × k, best first (the checkpoint's 0-based numbers)
  std::vector<float> weights;   // tokens × k
};

}  // namespace aw

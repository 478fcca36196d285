// analysis/circuits/token_curves.h — deletion and insertion curves (the faithfulness of a token
// ranking, as Samek et al. 2017 and Petsiuk et al. 2018 measure saliency): the explained output's
// probability as the top-ranked tokens are removed one step at a time (deletion: a faithful ranking
// makes it fall early) or restored to an input with all of them removed (insertion: rise early). A
// token is removed by masking it as a key in every layer, as padding is: no position moves.
#pragma once

#include "analysis/circuits/token_attribution.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct CurvePoint {
  int64_t removed = 0;  // tokens removed (deletion) or still removed (insertion)
  double probability = 0;
};

struct RankingCurves {
  std::string method;
  std::vector<CurvePoint> deletion, insertion;  // at the same counts of tokens ranked
  double deletion_area = 0, insertion_area = 0;  // under each curve over the share of tokens ranked, 0 … 1
};

// The candidates ordered by score, highest first, ties by position.
std::vector<int64_t> ranked(const torch::Tensor& scores, const std::vector<int64_t>& candidates);
// The counts a curve is read at: every count 0 … m when m ≤ steps, else `steps` + 1 evenly spaced
// counts from 0 to m.
std::vector<int64_t> curve_counts(int64_t m, int64_t steps);

// Both curves of each order over `candidates` (the positions that may be removed), averaged when
// several orders are given (a random ranking's draws), in one batched forward per curve.
RankingCurves ranking_curves(AttentionModel& model, const ModelInput& input, const AttributionOutput& output,
                             const std::vector<std::vector<int64_t>>& orders, const std::vector<int64_t>& counts,
                             const ForwardOptions& options, const std::string& method);

}  // namespace aw

// analysis/heads/prunable_share_change.h — Michel §6 tested: whether the share of heads prunable within
// --max-drop grows from a run's first kept epoch to its last by more than the choice of test examples
// explains. Both checkpoints' curves are scored on the same examples, so one paired bootstrap over them
// serves both: each resample recomputes every point of the two curves from the drawn examples (loss
// over tokens, correct over examples, BLEU from summed n-gram counts), then each curve's prunable share
// by prunable_shares' rule. The paper reads its Figure 5 by eye; one training run is still one run.
#pragma once

#include "analysis/heads/head_pruning.h"

#include "table/result_table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct ShareChange {
  std::string order;
  int64_t first_epoch = 0;
  int64_t last_epoch = 0;
  double first_percent = 0.0;  // the prunable share at the first checkpoint (% of the heads)
  double last_percent = 0.0;
  double delta = 0.0;          // last − first, in percentage points
  DeltaSignificance significance;  // with a bootstrap: over the examples, corrected across the orders
};

// One change per order between the series' first and last checkpoints. `first` and `last` hold those
// checkpoints' example scores, one per order as pruning_curves gives them (undefined without a
// bootstrap: the changes then come without intervals). Throws aw::Error for fewer than two
// checkpoints, or when the two checkpoints' examples differ (in number, or in tokens per example).
std::vector<ShareChange> prunable_share_changes(const PruningSeriesResult& series, const std::vector<ExampleScores>& first,
                                                const std::vector<ExampleScores>& last);

// Table `order,first_epoch,last_epoch,first_percent,last_percent,delta` (and with a bootstrap its
// significance columns) with the series' metadata.
ResultTable share_change_table(const PruningSeriesResult& series, const std::vector<ShareChange>& changes);

}  // namespace aw

// analysis/heads/checkpoint_series.h — Michel §6's training dynamics: the checkpoints a run kept after each
// epoch (train --keep-epochs writes <run>/epoch-1, epoch-2, …), and one table joining an analysis's
// per-checkpoint tables with the epoch and step of each row in front.
#pragma once

#include "table/result_table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct SeriesCheckpoint {
  std::string dir;    // <run>/epoch-N
  int64_t epoch = 0;  // N (1-based)
  int64_t step = 0;   // optimiser steps done at the epoch's end (its training.json history)
};

// The epoch-N folders of `run_dir`, by ascending N. Throws aw::Error naming the folder when it has
// none ("train with --keep-epochs"), or when a folder's training.json history does not end at
// epoch N.
std::vector<SeriesCheckpoint> checkpoint_series(const std::string& run_dir);

// One table from one per checkpoint (their columns all equal): `joined` (its metadata) with the first
// table's columns behind epoch and step, then each table's rows with its checkpoint's epoch and step
// in front. The checkpoint tables' own metadata is left out.
ResultTable series_table(ResultTable joined, const std::vector<SeriesCheckpoint>& checkpoints,
                         const std::vector<ResultTable>& tables);

}  // namespace aw

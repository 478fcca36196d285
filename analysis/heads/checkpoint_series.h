// analysis/heads/checkpoint_series.h — Michel §6's training dynamics: the checkpoints a run kept after each
// epoch (train --keep-epochs writes <run>/epoch-1, epoch-2, …), and one CSV joining an analysis's
// per-checkpoint CSVs with the epoch and step of each row in front.
#pragma once

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

// One CSV from one per checkpoint (each a "# …" comment line, a header line and rows, the headers all
// equal): "# <comment>", the header with "epoch,step," in front, then each CSV's rows with its
// checkpoint's epoch and step in front.
std::string series_csv(const std::string& comment, const std::vector<SeriesCheckpoint>& checkpoints,
                       const std::vector<std::string>& csvs);

}  // namespace aw

// models/training/training_state.h — what a training run keeps on disk beside its checkpoint: the
// resumable state in training_state.pt (float32 weights, the optimiser's moments, where the run stands, the CPU
// generator) and training.json (the settings, that position, the validation metric and the loss
// history). Internal to models/training: the loop writes both, --resume reads the state back.
#pragma once

#include "models/nn/model.h"
#include "models/training/trainer.h"
#include "models/training/training_history.h"

#include <torch/optim/optimizer.h>

#include <cstdint>
#include <string>

namespace aw::training_detail {

// Where a run stands; saved with the state so that --resume continues at the same step.
struct RunPosition {
  int64_t step = 0;            // optimiser steps done
  int64_t epoch = 0;           // epoch in progress (0-based)
  int64_t batch_in_epoch = 0;  // batches of that epoch done
  double best_metric = 0.0;    // best validation metric so far (perplexity or accuracy)
  double epoch_loss_sum = 0.0; // the epoch's step losses so far (its history record is their mean)
  int64_t epochs_since_best = 0;  // epochs validated since the best one (early stopping counts them)
};

// Whether `patience` epochs in a row have gone by without a better validation metric.
inline bool stops_early(const TrainSettings& settings, const RunPosition& position) {
  return settings.patience > 0 && position.epochs_since_best >= settings.patience;
}

// Writes <dir>/training_state.pt (through a .tmp file, renamed when whole).
void save_training_state(const std::string& dir, AttentionModel& model, torch::optim::Optimizer& optimizer,
                         const RunPosition& position, const TrainSettings& settings);

// Reads <dir>/training_state.pt into the model and the optimiser, and the CPU generator's state; the
// position it was saved at. Throws aw::Error naming `dir` when there is no state to resume from, or when
// the state is another optimiser's than settings.optimizer.
RunPosition load_training_state(const std::string& dir, AttentionModel& model, torch::optim::Optimizer& optimizer,
                                const TrainSettings& settings);

// Writes <dir>/training.json.
void write_training_json(const std::string& dir, const TrainSettings& settings, const std::string& metric_name,
                         const RunPosition& position, double valid_metric, const TrainingHistory& history);

}  // namespace aw::training_detail

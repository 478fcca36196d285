// models/training/training_state.h — what a training run keeps on disk beside its checkpoint: the
// resumable state in training_state.pt (float32 weights, Adam's moments, where the run stands, the CPU
// generator) and training.json (the settings, that position, the validation metric and the loss
// history). Internal to models/training: the loop writes both, --resume reads the state back.
#pragma once

#include "models/nn/model.h"
#include "models/training/trainer.h"
#include "models/training/training_history.h"

#include <torch/optim/adam.h>

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
};

// Writes <dir>/training_state.pt (through a .tmp file, renamed when whole).
void save_training_state(const std::string& dir, AttentionModel& model, torch::optim::Adam& optimizer,
                         const RunPosition& position);

// Reads <dir>/training_state.pt into the model and the optimiser, and the CPU generator's state; the
// position it was saved at. Throws aw::Error naming `dir` when there is no state to resume from.
RunPosition load_training_state(const std::string& dir, AttentionModel& model, torch::optim::Adam& optimizer);

// Writes <dir>/training.json.
void write_training_json(const std::string& dir, const TrainSettings& settings, const std::string& metric_name,
                         const RunPosition& position, double valid_metric, const TrainingHistory& history);

}  // namespace aw::training_detail

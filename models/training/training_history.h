// models/training/training_history.h — the loss history a training run keeps in its training.json:
// one record per --log-every report (the mean training loss since the previous report) and one per
// finished epoch (the epoch's mean training loss, then the validation loss and metric after it).
// Bird-Eye Figures 4–5 plot these; the checkpoint series of Michel §6 reads the epochs' steps.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct StepRecord {
  int64_t step = 0;          // optimiser steps done when reported
  int64_t epoch = 0;         // 1-based epoch the step belongs to
  double train_loss = 0.0;   // mean minimised loss (task + auxiliary) over the steps since the last report
  double auxiliary_loss = 0.0;  // its auxiliary part (BET(SG)'s pointer loss, LAMA's λ·D; 0 without)
  double learning_rate = 0.0;
};

struct EpochRecord {
  int64_t epoch = 0;         // 1-based
  int64_t step = 0;          // optimiser steps done at the epoch's end
  double train_loss = 0.0;   // mean minimised loss over the epoch's steps
  double valid_loss = 0.0;   // mean validation cross-entropy (per predicted token, or per example)
  double valid_metric = 0.0; // validation perplexity or accuracy
};

struct TrainingHistory {
  std::string metric_name;   // "perplexity" or "accuracy"
  std::vector<StepRecord> steps;
  std::vector<EpochRecord> epochs;
};

// {"metric": …, "steps": [{step, epoch, train_loss, auxiliary_loss, learning_rate}], "epochs": [{epoch,
// step, train_loss, valid_loss, valid_<metric>}]}: the "history" member of training.json.
nlohmann::json history_json(const TrainingHistory& history);

// The history of the training.json in `dir`. Throws aw::Error naming the file when there is none,
// when it is not valid JSON, or when it holds no "history" (a run from before histories were kept)
// or a malformed one.
TrainingHistory read_training_history(const std::string& dir);

// The history of `dir`'s training.json when it has one; an empty history otherwise (a fresh run, or a
// folder trained before histories were kept): what a --resume run continues.
TrainingHistory history_to_resume(const std::string& dir);

}  // namespace aw

// models/training/training_loop.h — the loop every training task shares (trainer.cpp sets up the
// tasks): each epoch visits the examples in an order seeded by (seed, epoch), one optimiser step per
// batch under the learning-rate schedule, progress reports every log_every steps, then validation,
// the run's folder saved (and <out>/best, and with keep_epochs <out>/epoch-N), stop and resume.
// Internal to models/training.
#pragma once

#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "models/text/tokenizer.h"
#include "models/training/evaluation.h"
#include "models/training/trainer.h"

#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace aw::training_detail {

// What one run trains on, whatever the task: `examples` rows (LM windows or documents) visited in
// a seeded order, one optimiser step per batch of rows, and a validation metric per epoch.
struct TrainingTask {
  std::string metric_name;      // "perplexity" (lower is better) or "accuracy" (higher is better)
  int64_t examples = 0;
  std::function<StepLosses(AttentionModel&, torch::optim::Optimizer&, const torch::Tensor& rows)> step;
  std::function<EvaluationResult(AttentionModel&)> validate;
  bool improves(double candidate, double best) const {
    return metric_name == "accuracy" ? candidate > best : candidate < best;
  }
  double worst() const {
    return metric_name == "accuracy" ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
};

// The config, vocabulary and tokenizer of a run: the fresh ones, or the --resume folder's own.
struct RunSetup {
  ModelConfig config;
  std::vector<std::string> vocabulary;
  std::shared_ptr<const Tokenizer> tokenizer;
  std::string sentencepiece_model;  // transformer_mt: its SentencePiece model, copied into every saved folder
};

// Builds the model from setup.config with settings.seed (or reads settings.resume_dir's state and
// history) and trains it to settings.epochs or until `observer` says stop.
TrainSummary run_training(const RunSetup& setup, const TrainSettings& settings, const TrainingTask& task,
                          const TrainObserver& observer);

}  // namespace aw::training_detail

// models/training/evaluation.h — the metric every analysis compares against: perplexity of a language
// model over corpus windows (exp of the mean next-token cross-entropy over all predicted tokens; a
// translation model's over reference translations, teacher-forced), or accuracy of a classifier over
// labelled examples.
#pragma once

#include "models/text/corpus.h"
#include "models/progress.h"
#include "models/nn/model.h"

#include <string>
#include <vector>

namespace aw {

struct EvaluationResult {
  std::string metric_name;  // "perplexity" or "accuracy"
  double metric = 0.0;
  double loss = 0.0;        // mean cross-entropy (nats per predicted token, or per example)
  int64_t count = 0;        // predicted tokens, or examples
  int64_t batches_done = 0;
  bool cancelled = false;
  // Classifiers: confusion[true class][predicted class] = examples; empty for language models.
  std::vector<std::vector<int64_t>> confusion;
  // With keep_examples, per example (window, translation pair, classified example) in order, float64
  // on the CPU: its summed token loss or 1/0 for correct, and its predicted tokens or 1. A bootstrap
  // over examples (analysis/statistics/delta_significance.h) recomputes the metric from resampled rows.
  torch::Tensor example_sums;    // [N]
  torch::Tensor example_counts;  // [N]
};

// Precision, recall and F1 of one class from a confusion matrix (0 where a ratio is 0/0).
struct ClassScores {
  double precision = 0.0, recall = 0.0, f1 = 0.0;
  int64_t support = 0;  // examples whose true class it is
};
std::vector<ClassScores> per_class_scores(const std::vector<std::vector<int64_t>>& confusion);
// The unweighted mean of the per-class F1 scores.
double macro_f1(const std::vector<ClassScores>& scores);

// Sum of next-token cross-entropies of one batch and the number of predicted tokens (padding and
// each window's first token are not predicted). Both stay on the model's device. A translation
// model's batch predicts its decoder ids (ModelInput::predicted_ids). `label_smoothing` ε > 0 gives
// the smoothed cross-entropy used in training: (1 − ε) · CE + ε · mean over the vocabulary of −log p.
struct LossSum {
  torch::Tensor total;  // scalar
  torch::Tensor count;  // scalar
  torch::Tensor row_total;  // [B]: each row's part of total
  torch::Tensor row_count;  // [B]
};
LossSum language_model_loss(const torch::Tensor& logits, const ModelInput& input, double label_smoothing = 0.0);

EvaluationResult evaluate_perplexity(AttentionModel& model, const std::vector<ModelInput>& batches,
                                     const ForwardOptions& options = {}, const ProgressCallback& progress = {},
                                     bool keep_examples = false);

EvaluationResult evaluate_accuracy(AttentionModel& model, const ClassifierBatches& batches,
                                   const ForwardOptions& options = {}, const ProgressCallback& progress = {},
                                   bool keep_examples = false);

}  // namespace aw

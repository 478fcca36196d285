// analysis/data/evaluation_data.h — the ground floor of analysis/: the data every corpus analysis
// consumes (EvaluationData), every example's part in a metric (ExampleScores, what the bootstrap
// resamples), and the whole-dataset evaluation a sweep calls per point (Evaluator). It includes no
// other analysis folder, so every mechanism folder and statistics/ may build on it.
#pragma once

#include "models/nn/model.h"
#include "models/progress.h"
#include "models/text/corpus.h"
#include "models/training/evaluation.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace aw {

struct BleuTask;  // analysis/data/translation_scores.h

// What an analysis evaluates on: language-model windows or a translation model's teacher-forced
// pairs (labels empty → perplexity), classifier batches (one label tensor per input → accuracy), or
// with `bleu` set a translation model's sources decoded under each setting (→ corpus BLEU; `inputs`
// still hold the pairs teacher-forced, for the loss-based head importance).
struct EvaluationData {
  std::vector<ModelInput> inputs;
  std::vector<torch::Tensor> labels;
  bool classification = false;
  std::shared_ptr<const BleuTask> bleu;
  bool is_classification() const { return classification; }
  std::string metric_name() const { return bleu ? "bleu" : is_classification() ? "accuracy" : "perplexity"; }
  // The units evaluate_gate_settings reports progress in: data batches, or BLEU's source chunks.
  int64_t progress_units() const;
  // What one example is, plural, as significance names what it resamples: "windows" (of a language
  // model's text), "sentence pairs" (teacher-forced translation), "examples" (a classifier's) or
  // "sentences" (BLEU's decoded sources).
  std::string unit = "windows";
  // The examples the bootstrap resamples (ExampleScores' rows): every batch's rows, or BLEU's sources.
  int64_t examples() const;
  // Which examples the bootstrap resamples together, one number per example (0, 1, … in order):
  // windows cut from one paragraph of a text (`unit` is then "paragraphs"). Empty: every example is
  // its own unit.
  std::vector<int64_t> blocks;
  // The independent units resampled: the blocks, or the examples.
  int64_t units() const;
};
EvaluationData language_model_data(std::vector<ModelInput> windows);
EvaluationData classification_data(const ClassifierBatches& batches);

// Throws aw::Error when there is no data, or when its kind does not fit the model (a classifier
// needs labelled examples, a language model plain text).
void check_data_fits(const ModelConfig& config, const EvaluationData& data);

// Each example's share of every setting's metric, so that analyses can resample examples (the paired
// bootstrap, analysis/statistics/delta_significance.h). An example is a row of a batch (a language-model
// window, a teacher-forced translation pair, a classified example) or, for BLEU, a decoded source.
struct ExampleScores {
  std::string metric_name;  // as EvaluationData::metric_name()
  // [N, S] float64: the example's summed token loss (perplexity) or 1/0 for correct (accuracy);
  // [N, S, kBleuStatistics] for BLEU, models/text/bleu.h's per-sentence counts (bleu_statistics).
  torch::Tensor sums;
  torch::Tensor counts;  // [N] float64: predicted tokens, or 1 per classified example; undefined for BLEU
};

struct TranslationScores;  // analysis/data/translation_scores.h
// Each decoded source's BLEU statistics under every setting of `scores`: sums [N, S, kBleuStatistics].
ExampleScores bleu_example_scores(const BleuTask& task, const std::vector<TranslationScores>& scores);

// Runs the whole dataset with the given forward options and gives its metric (perplexity, accuracy
// or BLEU): what a sweep calls once per point (analysis/core/corpus_data.h makes one for a model and
// its data).
using Evaluator = std::function<EvaluationResult(const ForwardOptions&, const ProgressCallback&)>;

// How much worse `changed` is than `baseline`: perplexity going up, accuracy or BLEU going down.
double damage(const std::string& metric_name, double baseline, double changed);

}  // namespace aw

// analysis/heads/gate_evaluation.h — the metric of a model under many head-gate settings at once, the
// engine behind ablation and pruning curves. Settings that agree on every layer below their first
// layer share that part of the forward: its output is computed once per data batch and reused, and the
// settings go through the upper layers together as one batch (gates with a batch dimension). Where
// the model splits rows at its gates (AttentionModel::splits_rows_at_gates), the settings of one
// forward also share layer `first_layer`'s attention, which a gate cannot change.
#pragma once

#include "models/text/corpus.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw {

struct BleuTask;  // analysis/evaluation/translation_scores.h

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

struct GateMetric {
  double metric = 0.0;  // perplexity, accuracy or BLEU
  double loss = 0.0;    // mean cross-entropy (NaN for BLEU, which has none)
};

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

struct TranslationScores;  // analysis/evaluation/translation_scores.h
// Each decoded source's BLEU statistics under every setting of `scores`: sums [N, S, kBleuStatistics].
ExampleScores bleu_example_scores(const BleuTask& task, const std::vector<TranslationScores>& scores);

// gates: [S, L, H_max], every setting equal to gates[0] on layers below first_layer. Returns one
// metric per setting, or an empty vector when `progress` cancels (called once per data batch), and
// with `examples` set, every example's part in those metrics (on the CPU).
// At most `max_batch_rows` rows (settings × windows) go through a forward together; 0 = the
// default for the model's device (default_batch_rows).
std::vector<GateMetric> evaluate_gate_settings(AttentionModel& model, const EvaluationData& data,
                                               const torch::Tensor& gates, int64_t first_layer,
                                               const ProgressCallback& progress = {}, int64_t max_batch_rows = 0,
                                               ExampleScores* examples = nullptr);

// The same with a first layer per setting (0..L; L = the settings differ in no layer): setting s
// equals gates[0] on the layers below first_layers[s]. One pass over the data serves every group
// of settings: the shared forward climbs from one group's first layer to the next.
std::vector<GateMetric> evaluate_gate_settings(AttentionModel& model, const EvaluationData& data,
                                               const torch::Tensor& gates, const std::vector<int64_t>& first_layers,
                                               const ProgressCallback& progress = {}, int64_t max_batch_rows = 0,
                                               ExampleScores* examples = nullptr);

// Rows per forward for sequences of `length` tokens: about 2048 tokens on the CPU, where the
// matmuls already run at full speed and larger batches only made every activation bigger (a
// 64-row sweep of the bench model touched 2.5× as many fresh pages as a 16-row one, at ~10 µs a
// page on these VMs); 64 rows on a GPU, to keep it busy.
int64_t default_batch_rows(const torch::Device& device, int64_t length);

// How much worse `changed` is than `baseline`: perplexity going up, accuracy or BLEU going down.
double damage(const std::string& metric_name, double baseline, double changed);

}  // namespace aw

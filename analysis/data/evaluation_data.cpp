// analysis/data/evaluation_data.cpp — see evaluation_data.h.
#include "analysis/data/evaluation_data.h"

#include "analysis/data/translation_scores.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>

namespace aw {

ExampleScores bleu_example_scores(const BleuTask& task, const std::vector<TranslationScores>& scores) {
  const auto sources = static_cast<int64_t>(task.references.size());
  const auto settings = static_cast<int64_t>(scores.size());
  auto sums = torch::zeros({sources, settings, kBleuStatistics}, torch::kFloat64);
  auto cells = sums.accessor<double, 3>();
  for (int64_t s = 0; s < settings; ++s)
    for (int64_t i = 0; i < sources; ++i) {
      const auto statistics = sentence_bleu_statistics(scores[s].hypotheses[i], task.references[i], i);
      for (int k = 0; k < kBleuStatistics; ++k) cells[i][s][k] = static_cast<double>(statistics[k]);
    }
  return {"bleu", sums, {}};
}

int64_t EvaluationData::progress_units() const {
  return bleu ? bleu->chunks() : static_cast<int64_t>(inputs.size());
}

int64_t EvaluationData::examples() const {
  if (bleu) return static_cast<int64_t>(bleu->sources.size());
  int64_t rows = 0;
  for (const auto& input : inputs) rows += input.input_ids.size(0);
  return rows;
}

int64_t EvaluationData::units() const {
  return blocks.empty() ? examples() : *std::max_element(blocks.begin(), blocks.end()) + 1;
}

EvaluationData language_model_data(std::vector<ModelInput> windows) {
  EvaluationData data;
  data.inputs = std::move(windows);
  return data;
}

EvaluationData classification_data(const ClassifierBatches& batches) {
  EvaluationData data;
  data.inputs = batches.inputs;
  data.labels = batches.labels;
  data.classification = true;
  data.unit = "examples";
  return data;
}

void check_data_fits(const ModelConfig& config, const EvaluationData& data) {
  if (data.inputs.empty()) throw Error("no data to evaluate (the corpus gave no batches)");
  if (data.is_classification() != config.is_classifier())
    throw Error(config.is_classifier() ? "a classifier needs labelled data (label<TAB>text lines)"
                                       : "a language model needs plain text, not labelled data");
}

double damage(const std::string& metric_name, double baseline, double changed) {
  return metric_name == "accuracy" || metric_name == "bleu" ? baseline - changed : changed - baseline;
}

}  // namespace aw

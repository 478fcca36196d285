// models/training/evaluation.cpp — perplexity and accuracy (see evaluation.h).
#include "models/training/evaluation.h"

#include "models/distribution.h"
#include "models/errors.h"
#include "models/training/token_loss.h"

#include <torch/torch.h>

#include <cmath>

namespace aw {
namespace {

torch::Device device_of(AttentionModel& model) { return model.module().parameters().front().device(); }

// Each predicted token's cross-entropy from its logits: float32, [rows · positions].
torch::Tensor token_losses(const torch::Tensor& logits, const torch::Tensor& targets, double label_smoothing) {
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, logits.size(-1)}).to(torch::kFloat32), targets.reshape({-1}).to(logits.device()),
      torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone).label_smoothing(label_smoothing));
}

// The sums of a batch's token losses [B · (n−1)] over the tokens its mask predicts.
LossSum summed_losses(const torch::Tensor& losses, const ModelInput& input, int64_t rows, int64_t length) {
  const auto keep = predicted_token_mask(input, losses.device(), losses.scalar_type());  // (B, n-1)
  const auto kept = losses * keep.reshape({-1});
  LossSum sums;
  sums.total = kept.sum();  // over the flat tokens, as ever: the same float32 summation order
  sums.count = keep.sum();
  sums.row_total = kept.view({rows, length - 1}).sum(1);
  sums.row_count = keep.sum(1);
  return sums;
}

// One batch's loss sums from its last hidden states, the output layer and loss run over cache-sized
// chunks of positions (token_loss.h), so no batch's [B, n, V] logits are ever held at once.
LossSum batch_loss(AttentionModel& model, const ModelInput& input, const ForwardOptions& options) {
  const auto& ids = input.predicted_ids();
  const int64_t rows = ids.size(0), length = ids.size(1);
  const auto hidden = model.run_layers(model.embed(input), input, 0, model.config().n_blocks, options).hidden;
  return summed_losses(next_token_losses(model, hidden, input).reshape({-1}), input, rows, length);
}

}  // namespace

LossSum language_model_loss(const torch::Tensor& logits, const ModelInput& input, double label_smoothing) {
  const int64_t rows = logits.size(0), length = logits.size(1);
  const auto targets = input.predicted_ids().narrow(1, 1, length - 1);                        // (B, n-1)
  return summed_losses(token_losses(logits.narrow(1, 0, length - 1), targets, label_smoothing), input, rows, length);
}

EvaluationResult evaluate_perplexity(AttentionModel& model, const std::vector<ModelInput>& batches,
                                     const ForwardOptions& options, const ProgressCallback& progress,
                                     bool keep_examples) {
  if (!model.config().is_language_model() && !model.config().is_translation())
    throw Error("perplexity needs a language model; " + model.config().family_name() + " here is " +
                (model.config().is_classifier() ? "a classifier (use a labelled file for accuracy)"
                                                : "an encoder without a language-model head"));
  c10::InferenceMode inference;
  const auto device = device_of(model);
  EvaluationResult result;
  result.metric_name = "perplexity";
  const auto sums_options = torch::dtype(torch::kFloat64).device(device);
  const auto batch_count = static_cast<int64_t>(batches.size());
  // Loss and token count per batch; with --distributed, this process's batches (distribution.h).
  const auto& distribution = current_distribution();
  BatchSums batch_sums(batch_count, {2}, sums_options);
  std::vector<torch::Tensor> row_totals(batches.size()), row_counts(batches.size());
  std::vector<int64_t> rows_per_batch;
  for (const auto& batch : batches) rows_per_batch.push_back(batch.input_ids.size(0));
  for (int64_t index = 0; index < batch_count; ++index) {
    ++result.batches_done;
    if (distribution.owns(index)) {
      const auto input = batches[index].to(device);
      const auto sums = batch_loss(model, input, options);
      batch_sums.row(index).copy_(torch::stack({sums.total.to(torch::kFloat64), sums.count.to(torch::kFloat64)}));
      if (keep_examples) row_totals[index] = sums.row_total, row_counts[index] = sums.row_count;
    }
    if (!report_progress(progress, result.batches_done, batch_count)) {
      result.cancelled = true;
      break;
    }
  }
  if (result.cancelled && distribution.shared()) return result;  // the others would wait for this share
  const auto totals = batch_sums.total(distribution).cpu();
  const auto total = totals[0].item<double>(), count = totals[1].item<double>();
  result.count = static_cast<int64_t>(count);
  result.loss = result.count > 0 ? total / result.count : 0.0;
  result.metric = std::exp(result.loss);
  if (keep_examples && result.batches_done > 0) {
    rows_per_batch.resize(result.batches_done);
    row_totals.resize(result.batches_done), row_counts.resize(result.batches_done);
    const auto host = torch::dtype(torch::kFloat64);
    result.example_sums = collect_batch_rows(row_totals, rows_per_batch, host, distribution);
    result.example_counts = collect_batch_rows(row_counts, rows_per_batch, host, distribution);
  }
  return result;
}

EvaluationResult evaluate_accuracy(AttentionModel& model, const ClassifierBatches& batches,
                                   const ForwardOptions& options, const ProgressCallback& progress,
                                   bool keep_examples) {
  if (!model.config().is_classifier())
    throw Error("accuracy needs a classifier; " + model.config().family_name() +
                " here has no classification head (use a plain text file for perplexity)");
  c10::InferenceMode inference;
  const auto device = device_of(model);
  EvaluationResult result;
  result.metric_name = "accuracy";
  const int64_t classes = model.config().num_labels;
  auto confusion = torch::zeros({classes * classes}, torch::dtype(torch::kLong).device(device));  // true·C + predicted
  const auto batch_count = static_cast<int64_t>(batches.inputs.size());
  // Correct count and summed loss per batch; with --distributed, this process's batches (distribution.h).
  const auto& distribution = current_distribution();
  BatchSums batch_sums(batch_count, {2}, torch::dtype(torch::kFloat64).device(device));
  std::vector<torch::Tensor> example_correct(batches.inputs.size());
  std::vector<int64_t> rows_per_batch;
  for (const auto& labels : batches.labels) rows_per_batch.push_back(labels.size(0));
  for (int64_t i = 0; i < batch_count; ++i) {
    ++result.batches_done;
    result.count += rows_per_batch[i];
    if (distribution.owns(i)) {
      const auto input = batches.inputs[i].to(device);
      const auto labels = batches.labels[i].to(device);
      const auto logits = model.forward(input, options).logits.to(torch::kFloat32);  // (b, C)
      const auto predicted = logits.argmax(-1);
      const auto correct = predicted.eq(labels);
      const auto loss = torch::nn::functional::cross_entropy(
          logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
      batch_sums.row(i).copy_(torch::stack({correct.sum().to(torch::kFloat64), loss.to(torch::kFloat64)}));
      if (keep_examples) example_correct[i] = correct;
      confusion += torch::bincount(labels * classes + predicted, {}, classes * classes);
    }
    if (!report_progress(progress, result.batches_done, batch_count)) {
      result.cancelled = true;
      break;
    }
  }
  if (result.cancelled && distribution.shared()) return result;  // the others would wait for this share
  const auto totals = batch_sums.total(distribution).cpu();
  distribution.sum_over_processes(confusion);
  const auto counts = confusion.cpu();
  const auto* cells = counts.data_ptr<int64_t>();
  result.confusion.assign(classes, std::vector<int64_t>(classes, 0));
  for (int64_t i = 0; i < classes * classes; ++i) result.confusion[i / classes][i % classes] = cells[i];
  if (result.count > 0) {
    result.metric = totals[0].item<double>() / result.count;
    result.loss = totals[1].item<double>() / result.count;
  }
  if (keep_examples && result.batches_done > 0) {
    rows_per_batch.resize(result.batches_done), example_correct.resize(result.batches_done);
    result.example_sums =
        collect_batch_rows(example_correct, rows_per_batch, torch::dtype(torch::kFloat64), distribution);
    result.example_counts = torch::ones_like(result.example_sums);
  }
  return result;
}

std::vector<ClassScores> per_class_scores(const std::vector<std::vector<int64_t>>& confusion) {
  const auto classes = confusion.size();
  std::vector<ClassScores> scores(classes);
  for (size_t c = 0; c < classes; ++c) {
    int64_t predicted = 0, actual = 0;
    for (size_t other = 0; other < classes; ++other) {
      predicted += confusion[other][c];
      actual += confusion[c][other];
    }
    const auto hits = static_cast<double>(confusion[c][c]);
    auto& score = scores[c];
    score.support = actual;
    score.precision = predicted > 0 ? hits / predicted : 0.0;
    score.recall = actual > 0 ? hits / actual : 0.0;
    const double sum = score.precision + score.recall;
    score.f1 = sum > 0 ? 2 * score.precision * score.recall / sum : 0.0;
  }
  return scores;
}

double macro_f1(const std::vector<ClassScores>& scores) {
  if (scores.empty()) return 0.0;
  double total = 0.0;
  for (const auto& score : scores) total += score.f1;
  return total / static_cast<double>(scores.size());
}

}  // namespace aw

// analysis/heads/gate_evaluation.cpp — see gate_evaluation.h.
#include "analysis/heads/gate_evaluation.h"

#include "analysis/core/parallel_workers.h"
#include "models/training/token_loss.h"
#include "analysis/data/translation_scores.h"
#include "models/distribution.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace aw {
namespace {

ModelInput repeat_input(const ModelInput& input, int64_t times) {
  return input.map([&](const torch::Tensor& t) { return t.repeat({times, 1}); });
}

constexpr int64_t kCpuTokensPerForward = 2048;
constexpr int64_t kGpuRowsPerForward = 64;

}  // namespace

int64_t default_batch_rows(const torch::Device& device, int64_t length) {
  return device.is_cuda() ? kGpuRowsPerForward : std::max<int64_t>(1, kCpuTokensPerForward / std::max<int64_t>(1, length));
}

std::vector<GateMetric> evaluate_gate_settings(AttentionModel& model, const EvaluationData& data,
                                               const torch::Tensor& gates, int64_t first_layer,
                                               const ProgressCallback& progress, int64_t max_batch_rows,
                                               ExampleScores* examples) {
  return evaluate_gate_settings(model, data, gates, std::vector<int64_t>(gates.size(0), first_layer), progress,
                                max_batch_rows, examples);
}

std::vector<GateMetric> evaluate_gate_settings(AttentionModel& model, const EvaluationData& data,
                                               const torch::Tensor& gates, const std::vector<int64_t>& first_layers,
                                               const ProgressCallback& progress, int64_t max_batch_rows,
                                               ExampleScores* examples) {
  const auto& config = model.config();
  check_data_fits(config, data);
  TORCH_CHECK(gates.dim() == 3 && gates.size(1) == config.n_blocks && gates.size(2) == config.max_heads(),
              "gate settings must be [S, L, H_max]");
  TORCH_CHECK(static_cast<int64_t>(first_layers.size()) == gates.size(0), "one first layer per gate setting");
  const auto& distribution = current_distribution();
  if (data.bleu) {
    if (distribution.shared())
      throw Error("--distributed splits loss and accuracy sweeps, not BLEU's decoding: run BLEU sweeps in one process");
    // Decoding has no lower layers to share: every setting translates from the first block up.
    auto* translation = model.sequence_to_sequence();
    if (!translation) throw Error("the BLEU metric needs a translation model");
    const auto scores = score_gate_settings(*translation, *data.bleu, gates, {}, progress, max_batch_rows);
    std::vector<GateMetric> metrics;
    for (const auto& score : scores) metrics.push_back({score.bleu.score, std::nan("")});
    if (examples && !scores.empty()) *examples = bleu_example_scores(*data.bleu, scores);
    return metrics;
  }
  c10::InferenceMode inference;
  model.module().eval();
  const auto device = model.module().parameters().front().device();
  const auto settings = gates.size(0);
  const auto all_gates = gates.to(device, torch::kFloat32);
  const auto sums_options = torch::dtype(torch::kFloat64).device(device);
  const auto batches = static_cast<int64_t>(data.inputs.size());
  // Per batch: loss, predicted count and correct count of every setting (models/distribution.h).
  BatchSums sums(batches, {3, settings}, sums_options);
  // Per example (examples requested): rows of all batches in order, one column per setting.
  std::vector<int64_t> first_row{0};
  for (const auto& input : data.inputs) first_row.push_back(first_row.back() + input.input_ids.size(0));
  torch::Tensor example_sums, example_counts;
  if (examples) {
    example_sums = torch::zeros({first_row.back(), settings}, sums_options);
    example_counts = torch::zeros({first_row.back()}, sums_options);
  }

  // The settings grouped by first layer, lowest first: one shared lower forward climbs through the
  // groups' first layers, each group going up from its own.
  std::map<int64_t, std::vector<int64_t>> groups;
  for (int64_t s = 0; s < settings; ++s) {
    TORCH_CHECK(first_layers[s] >= 0 && first_layers[s] <= config.n_blocks, "first layer out of range");
    groups[first_layers[s]].push_back(s);
  }

  const int workers = cpu_workers(device);  // chunks of settings side by side (parallel_workers.h)

  for (int64_t index = 0; index < batches; ++index) {
    if (!distribution.owns(index)) {  // another process's batch
      if (!report_progress(progress, index + 1, batches)) return {};
      continue;
    }
    const auto batch_sums = sums.row(index);  // [3, S]
    const ModelInput input = data.inputs[index].to(device);
    const int64_t rows = input.input_ids.size(0);
    const int64_t row_limit = max_batch_rows > 0 ? max_batch_rows : default_batch_rows(device, input.input_ids.size(1));
    const int64_t chunk = std::max<int64_t>(1, row_limit / rows);

    // The shared lower layers, once per batch, with the settings' common gates (setting 0's): the
    // state at each group's first layer, and that group's chunks of settings.
    struct Job {
      int64_t first_layer;
      torch::Tensor shared;         // the state before first_layer, B rows
      std::vector<int64_t> members; // the settings of this chunk
    };
    std::vector<Job> jobs;
    ForwardOptions lower;
    lower.head_gates = all_gates[0];
    auto shared = model.embed(input);
    int64_t reached = 0;
    for (const auto& [first, members] : groups) {
      shared = model.run_layers(shared, input, reached, first, lower).hidden;
      reached = first;
      for (size_t start = 0; start < members.size(); start += static_cast<size_t>(chunk))
        jobs.push_back({first, shared,
                        std::vector<int64_t>(members.begin() + static_cast<std::ptrdiff_t>(start),
                                             members.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                   members.size(), start + static_cast<size_t>(chunk))))});
    }

    auto run_job = [&](int64_t job_index) {
      const auto& job = jobs[static_cast<size_t>(job_index)];
      const auto size = static_cast<int64_t>(job.members.size());
      const auto members = torch::tensor(job.members, torch::dtype(torch::kLong).device(device));
      const auto repeated = repeat_input(input, size);                                       // setting-major rows
      ForwardOptions upper;
      upper.head_gates = all_gates.index_select(0, members).repeat_interleave(rows, 0);     // (size·B, L, H)
      // A model that splits rows at the gates also shares the first upper layer's attention.
      const bool split_at_gates = model.splits_rows_at_gates() && job.first_layer < config.n_blocks;
      const auto hidden = split_at_gates
                              ? model.run_layers(job.shared, input, job.first_layer, config.n_blocks, upper).hidden
                              : model.run_layers(job.shared.repeat({size, 1, 1}), repeated, job.first_layer,
                                                 config.n_blocks, upper).hidden;           // (size·B, n, d)
      torch::Tensor job_loss, job_count, job_correct;                                       // (size) each
      torch::Tensor job_examples;                                                           // (B, size)
      if (data.is_classification()) {
        const auto logits = model.output(hidden, repeated).to(torch::kFloat32);             // (size·B, C)
        const auto labels = data.labels[index].to(device).repeat({size});
        const auto losses = torch::nn::functional::cross_entropy(
            logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
        job_loss = losses.view({size, rows}).sum(1);
        const auto example_correct = logits.argmax(-1).eq(labels).view({size, rows});
        job_correct = example_correct.sum(1);
        job_count = torch::full({size}, static_cast<double>(rows), sums_options);
        if (examples) job_examples = example_correct.t().to(torch::kFloat64);                // (B, size)
      } else {
        // Output layer and loss in cache-sized chunks of positions (models/training/token_loss.h).
        const auto losses = next_token_losses(model, hidden, repeated).reshape({-1});        // (size·B·(n−1))
        const auto keep = predicted_token_mask(repeated, losses.device(), losses.scalar_type()).reshape({-1});
        const auto kept = losses * keep;
        job_loss = kept.view({size, -1}).sum(1);
        job_count = keep.view({size, -1}).sum(1);
        if (examples) job_examples = kept.view({size, rows, -1}).to(torch::kFloat64).sum(2).t();
      }
      // Disjoint columns of the batch's rows: side-by-side jobs never write the same element.
      if (examples) example_sums.narrow(0, first_row[index], rows).index_copy_(1, members, job_examples);
      // Each job adds to its own settings' sums only, so jobs may run side by side.
      batch_sums[0].index_add_(0, members, job_loss.to(torch::kFloat64));
      batch_sums[1].index_add_(0, members, job_count.to(torch::kFloat64));
      if (job_correct.defined()) batch_sums[2].index_add_(0, members, job_correct.to(torch::kFloat64));
    };
    if (examples) {
      // Predicted tokens per row (1 per classified example), the same under every setting.
      example_counts.narrow(0, first_row[index], rows)
          .copy_(data.is_classification() ? torch::ones({rows}, sums_options)
                                          : predicted_token_mask(input, sums_options.device(), torch::kFloat64).sum(1));
    }
    run_on_workers(static_cast<int64_t>(jobs.size()), workers, run_job);
    if (!report_progress(progress, index + 1, batches)) return {};
  }

  const auto host = sums.total(distribution).cpu();
  if (examples) {
    distribution.sum_over_processes(example_sums);
    distribution.sum_over_processes(example_counts);
    *examples = {data.metric_name(), example_sums.cpu(), example_counts.cpu()};
  }
  const auto values = host.accessor<double, 2>();
  std::vector<GateMetric> metrics(settings);
  for (int64_t s = 0; s < settings; ++s) {
    const double n = values[1][s];
    metrics[s].loss = n > 0 ? values[0][s] / n : 0.0;
    metrics[s].metric = data.is_classification() ? (n > 0 ? values[2][s] / n : 0.0) : std::exp(metrics[s].loss);
  }
  return metrics;
}

}  // namespace aw

// models/training/training_loop.cpp — the loop every training task shares (see training_loop.h).
#include "models/training/training_loop.h"

#include "models/checkpoint/checkpoint.h"
#include "models/training/multi_tensor_optim.h"
#include "models/training/training_history.h"
#include "models/training/training_state.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <numeric>
#include <random>

namespace aw::training_detail {
namespace fs = std::filesystem;
namespace {

// The optimiser the settings name: Adam (β = 0.9, 0.98, ε = 1e-9; LibTorch's, stepped with multi-tensor
// kernels) or SGD with momentum, each with the settings' weight decay; the learning rate is set before
// every step.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::vector<torch::Tensor>& parameters,
                                                        const TrainSettings& settings) {
  if (settings.optimizer == "sgd")
    return std::make_unique<torch::optim::SGD>(
        parameters, torch::optim::SGDOptions(settings.lr).momentum(settings.momentum).weight_decay(settings.weight_decay));
  return std::make_unique<MultiTensorAdam>(
      parameters, torch::optim::AdamOptions(settings.lr).betas({0.9, 0.98}).eps(1e-9).weight_decay(settings.weight_decay));
}

// The order in which an epoch visits the windows: a shuffle seeded by (seed, epoch) alone, so a
// resumed run replays the same order.
std::vector<int64_t> epoch_order(int64_t windows, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> order(windows);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 engine(seed * 1000003ULL + static_cast<uint64_t>(epoch));
  for (int64_t i = windows - 1; i > 0; --i) {  // Fisher–Yates with our own draw, same on every libstdc++
    const auto j = static_cast<int64_t>(engine() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

}  // namespace

TrainSummary run_training(const RunSetup& setup, const TrainSettings& settings, const TrainingTask& task,
                          const TrainObserver& observer) {
  const int64_t batches_per_epoch = (task.examples + settings.batch - 1) / settings.batch;
  const int64_t total_steps = batches_per_epoch * settings.epochs;

  torch::manual_seed(settings.seed);
  auto model = create_model(setup.config);
  auto& module = model->module();
  module.to(settings.device);
  const auto optimizer_owner = make_optimizer(module.parameters(), settings);
  auto& optimizer = *optimizer_owner;
  RunPosition position;
  position.best_metric = task.worst();
  TrainSummary summary;
  auto& history = summary.history;
  if (!settings.resume_dir.empty()) {
    position = load_training_state(settings.resume_dir, *model, optimizer, settings);
    history = history_to_resume(settings.resume_dir);
    // Only what the saved state had reached: records past it would be replayed.
    history.steps.erase(std::remove_if(history.steps.begin(), history.steps.end(),
                                       [&](const StepRecord& record) { return record.step > position.step; }),
                        history.steps.end());
    history.epochs.erase(std::remove_if(history.epochs.begin(), history.epochs.end(),
                                        [&](const EpochRecord& record) { return record.epoch > position.epoch; }),
                         history.epochs.end());
  }
  history.metric_name = task.metric_name;
  summary.metric_name = task.metric_name;
  // A resumed run's last validation is its last recorded epoch's, not 0: a snapshot or a stop before
  // this process validates writes it into training.json.
  if (!history.epochs.empty()) summary.last_valid_metric = history.epochs.back().valid_metric;
  summary.parameters = count_parameters(*model);
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  int64_t tokens_since_report = 0, steps_since_report = 0, tokens_total = 0;
  double loss_since_report = 0.0, auxiliary_since_report = 0.0;
  int64_t last_save_step = position.step;

  auto save_all = [&](double valid_metric) {
    save_native_checkpoint(settings.out_dir, *model, setup.vocabulary, settings.storage, setup.sentencepiece_model);
    save_training_state(settings.out_dir, *model, optimizer, position, settings);
    write_training_json(settings.out_dir, settings, task.metric_name, position, valid_metric, history);
  };
  // A checkpoint folder other than the run's own: best/ and, with keep_epochs, epoch-N/.
  auto save_copy = [&](const std::string& name, double valid_metric) {
    const auto dir = (fs::path(settings.out_dir) / name).string();
    save_native_checkpoint(dir, *model, setup.vocabulary, settings.storage, setup.sentencepiece_model);
    write_training_json(dir, settings, task.metric_name, position, valid_metric, history);
  };

  auto report = [&](TrainProgress progress) {
    progress.step = position.step;
    progress.total_steps = total_steps;
    progress.epoch = position.epoch;
    progress.metric_name = task.metric_name;
    return !observer || observer(progress);
  };

  while (position.epoch < settings.epochs && !summary.stopped) {
    module.train();
    const auto order = epoch_order(task.examples, settings.seed, position.epoch);
    while (position.batch_in_epoch < batches_per_epoch && !summary.stopped) {
      const auto first = position.batch_in_epoch * settings.batch;
      const auto count = std::min(settings.batch, task.examples - first);
      const auto rows = torch::tensor(std::vector<int64_t>(order.begin() + first, order.begin() + first + count),
                                      torch::kLong);
      const double rate = learning_rate_at(settings, position.step + 1, total_steps);
      for (auto& group : optimizer.param_groups()) group.options().set_lr(rate);
      const auto losses = task.step(*model, optimizer, rows);
      ++position.step;
      ++position.batch_in_epoch;
      ++summary.steps;

      // One host sync per step for the progress figures is negligible next to the step itself.
      const auto tokens = losses.tokens.item<int64_t>();
      tokens_since_report += tokens;
      tokens_total += tokens;
      const double step_loss = losses.loss.item<double>();
      loss_since_report += step_loss;
      position.epoch_loss_sum += step_loss;
      if (losses.pointer.defined()) auxiliary_since_report += losses.pointer.item<double>();
      ++steps_since_report;
      if (position.step % settings.log_every == 0 || position.step == total_steps) {
        const auto now = std::chrono::steady_clock::now();
        const double elapsed = std::chrono::duration<double>(now - last_report).count();
        const double overall = std::chrono::duration<double>(now - start).count();
        TrainProgress progress;
        progress.loss = loss_since_report / steps_since_report;
        progress.pointer_loss = auxiliary_since_report / steps_since_report;
        progress.learning_rate = rate;
        progress.tokens_per_second = elapsed > 0 ? tokens_since_report / elapsed : 0.0;
        progress.eta_seconds = overall / summary.steps * (total_steps - position.step);
        history.steps.push_back(
            {position.step, position.epoch + 1, progress.loss, progress.pointer_loss, progress.learning_rate});
        last_report = now;
        tokens_since_report = steps_since_report = 0;
        loss_since_report = auxiliary_since_report = 0.0;
        // A snapshot at a report, where nothing is accumulated yet, resumes exactly (as a stop does).
        if (settings.save_every > 0 && position.step - last_save_step >= settings.save_every &&
            position.batch_in_epoch < batches_per_epoch) {
          save_all(summary.last_valid_metric);
          last_save_step = position.step;
        }
        summary.stopped = !report(progress);
      }
    }
    if (summary.stopped) break;

    // Epoch done: validate, save the folder (and the best one), move the position on.
    module.eval();
    const auto validation = task.validate(*model);
    const double valid = validation.metric;
    summary.last_valid_metric = valid;
    ++summary.epochs_done;
    const bool best = task.improves(valid, position.best_metric);
    if (best) position.best_metric = valid;
    position.epochs_since_best = best ? 0 : position.epochs_since_best + 1;
    history.epochs.push_back({position.epoch + 1, position.step,
                              position.epoch_loss_sum / static_cast<double>(std::max<int64_t>(position.batch_in_epoch, 1)),
                              validation.loss, valid});
    ++position.epoch;
    position.batch_in_epoch = 0;
    position.epoch_loss_sum = 0.0;
    save_all(valid);
    last_save_step = position.step;
    if (best) save_copy("best", valid);
    if (settings.keep_epochs) save_copy("epoch-" + std::to_string(position.epoch), valid);
    TrainProgress progress;
    progress.epoch_end = true;
    progress.valid_metric = valid;
    progress.valid_loss = validation.loss;
    if (task.metric_name == "perplexity") progress.valid_perplexity = valid;
    summary.stopped = !report(progress) && position.epoch < settings.epochs;
    // Early stopping: `patience` epochs in a row without a better validation metric end the run here
    // (best/ holds the best epoch; the state saved above would resume after it).
    if (stops_early(settings, position) && position.epoch < settings.epochs) {
      summary.stopped_early = true;
      break;
    }
  }
  // Interrupted inside an epoch: save where we are so --resume continues from this step.
  if (summary.stopped && position.batch_in_epoch > 0) save_all(summary.last_valid_metric);

  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  summary.tokens_per_second = summary.seconds > 0 ? tokens_total / summary.seconds : 0.0;
  summary.best_valid_metric = position.best_metric;
  if (task.metric_name == "perplexity") {
    summary.best_valid_perplexity = summary.best_valid_metric;
    summary.last_valid_perplexity = summary.last_valid_metric;
  }
  return summary;
}

}  // namespace aw::training_detail

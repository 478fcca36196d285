// models/training/training_state.cpp — a run's resumable state and its training.json (see
// training_state.h).
#include "models/training/training_state.h"

#include "models/errors.h"

#include <ATen/core/Generator.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <mutex>

namespace aw::training_detail {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStateFile = "training_state.pt";

}  // namespace

// Weights in float32 and the optimiser moments, so a resumed run continues exactly where it stopped
// even when the checkpoint itself is stored in F16.
void save_training_state(const std::string& dir, AttentionModel& model, torch::optim::Optimizer& optimizer,
                         const RunPosition& position, const TrainSettings& settings) {
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  archive.write("optimizer_sgd", torch::tensor(settings.optimizer == "sgd" ? 1 : 0, torch::kLong));
  archive.write("epochs_since_best", torch::tensor(position.epochs_since_best, torch::kLong));
  for (const auto& item : model.module().named_parameters())
    archive.write("parameter." + item.key(), item.value().detach().to(torch::kCPU));
  archive.write("position", torch::tensor({position.step, position.epoch, position.batch_in_epoch}, torch::kLong));
  archive.write("best_metric", torch::tensor(position.best_metric, torch::kFloat64));
  archive.write("epoch_loss_sum", torch::tensor(position.epoch_loss_sum, torch::kFloat64));
  auto generator = at::globalContext().defaultGenerator(torch::kCPU);  // a handle sharing the global state
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    archive.write("rng_state", generator.get_state());
  }
  const auto path = (fs::path(dir) / kStateFile).string();
  archive.save_to(path + ".tmp");
  fs::rename(path + ".tmp", path);
}

RunPosition load_training_state(const std::string& dir, AttentionModel& model, torch::optim::Optimizer& optimizer,
                                const TrainSettings& settings) {
  const auto path = (fs::path(dir) / kStateFile).string();
  if (!fs::exists(path)) fail_in_file(dir, std::string("no ") + kStateFile + " to resume from");
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  // The moments of one optimiser mean nothing to another: states from before SGD was offered are Adam's.
  torch::Tensor sgd;
  const std::string saved = archive.try_read("optimizer_sgd", sgd) && sgd.item<int64_t>() == 1 ? "sgd" : "adam";
  if (saved != settings.optimizer)
    fail_in_file(dir, "was trained with --optimizer " + saved + "; it cannot resume with --optimizer " + settings.optimizer);
  optimizer.load(archive);
  torch::NoGradGuard no_grad;
  for (auto& item : model.module().named_parameters()) {
    torch::Tensor value;
    archive.read("parameter." + item.key(), value);
    item.value().copy_(value);
  }
  torch::Tensor position_values, best, rng_state, epoch_loss_sum;
  archive.read("position", position_values);
  if (!archive.try_read("best_metric", best)) archive.read("best_perplexity", best);  // states written before classifiers
  archive.read("rng_state", rng_state);
  auto generator = at::globalContext().defaultGenerator(torch::kCPU);  // a handle sharing the global state
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(rng_state);
  }
  RunPosition position;
  position.step = position_values[0].item<int64_t>();
  position.epoch = position_values[1].item<int64_t>();
  position.batch_in_epoch = position_values[2].item<int64_t>();
  position.best_metric = best.item<double>();
  // States written before the history: the epoch's mean then covers the resumed steps only.
  if (archive.try_read("epoch_loss_sum", epoch_loss_sum)) position.epoch_loss_sum = epoch_loss_sum.item<double>();
  torch::Tensor since_best;
  if (archive.try_read("epochs_since_best", since_best)) position.epochs_since_best = since_best.item<int64_t>();
  return position;
}

void write_training_json(const std::string& dir, const TrainSettings& settings, const std::string& metric_name,
                         const RunPosition& position, double valid_metric, const TrainingHistory& history) {
  nlohmann::json json = {{"train", settings.train_path}, {"valid", settings.valid_path},
                         {"epochs", settings.epochs},    {"batch", settings.batch},
                         {"lr", settings.lr},            {"warmup_steps", settings.warmup_steps},
                         {"schedule", settings.schedule}, {"clip", settings.clip},
                         {"seed", settings.seed},        {"lambda_p", settings.pointer_weight},
                         {"label_smoothing", settings.label_smoothing},
                         {"storage", settings.storage == torch::kFloat16 ? "F16" : "F32"},
                         {"device", settings.device.str()},  // a run's numbers differ by device
                         {"step", position.step},
                         {"epoch", position.epoch},      {"valid_" + metric_name, valid_metric},
                         {"best_valid_" + metric_name, position.best_metric},
                         {"keep_epochs", settings.keep_epochs},
                         {"optimizer", settings.optimizer},      {"momentum", settings.momentum},
                         {"weight_decay", settings.weight_decay}, {"patience", settings.patience},
                         {"stopped_early", stops_early(settings, position) && position.epoch < settings.epochs},
                         {"history", history_json(history)}};
  std::ofstream out(fs::path(dir) / "training.json");
  out << json.dump(2) << "\n";
}

}  // namespace aw::training_detail

// models/training/training_history.cpp — see training_history.h.
#include "models/training/training_history.h"

#include "models/errors.h"
#include "models/json_input.h"

#include <filesystem>

namespace aw {
namespace fs = std::filesystem;
namespace {

std::string training_json_path(const std::string& dir) { return (fs::path(dir) / "training.json").string(); }

// The number `key` of one history record, or an error naming the file and the record.
double record_number(const nlohmann::json& record, const std::string& key, const std::string& path,
                     const std::string& where) {
  const auto found = record.find(key);
  if (found == record.end() || !found->is_number())
    fail_in_file(path, where + " has no number \"" + key + "\"");
  return found->get<double>();
}

int64_t record_count(const nlohmann::json& record, const std::string& key, const std::string& path,
                     const std::string& where) {
  const auto found = record.find(key);
  if (found == record.end() || !found->is_number_integer() || found->get<int64_t>() < 0)
    fail_in_file(path, where + " has no whole number \"" + key + "\"");
  return found->get<int64_t>();
}

const nlohmann::json& record_list(const nlohmann::json& history, const std::string& key, const std::string& path) {
  const auto found = history.find(key);
  if (found == history.end() || !found->is_array())
    fail_in_file(path, "\"history\" has no \"" + key + "\" list");
  return *found;
}

TrainingHistory parse_history(const nlohmann::json& history, const std::string& path) {
  if (!history.is_object()) fail_in_file(path, "\"history\" is not an object");
  TrainingHistory parsed;
  const auto metric = history.find("metric");
  if (metric == history.end() || !metric->is_string() ||
      (*metric != "perplexity" && *metric != "accuracy"))
    fail_in_file(path, "\"history\" has no \"metric\" (perplexity or accuracy)");
  parsed.metric_name = metric->get<std::string>();
  const auto& steps = record_list(history, "steps", path);
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto where = "history step record " + std::to_string(i + 1);
    if (!steps[i].is_object()) fail_in_file(path, where + " is not an object");
    StepRecord record;
    record.step = record_count(steps[i], "step", path, where);
    record.epoch = record_count(steps[i], "epoch", path, where);
    record.train_loss = record_number(steps[i], "train_loss", path, where);
    record.auxiliary_loss = record_number(steps[i], "auxiliary_loss", path, where);
    record.learning_rate = record_number(steps[i], "learning_rate", path, where);
    parsed.steps.push_back(record);
  }
  const auto& epochs = record_list(history, "epochs", path);
  for (size_t i = 0; i < epochs.size(); ++i) {
    const auto where = "history epoch record " + std::to_string(i + 1);
    if (!epochs[i].is_object()) fail_in_file(path, where + " is not an object");
    EpochRecord record;
    record.epoch = record_count(epochs[i], "epoch", path, where);
    record.step = record_count(epochs[i], "step", path, where);
    record.train_loss = record_number(epochs[i], "train_loss", path, where);
    record.valid_loss = record_number(epochs[i], "valid_loss", path, where);
    record.valid_metric = record_number(epochs[i], "valid_" + parsed.metric_name, path, where);
    parsed.epochs.push_back(record);
  }
  return parsed;
}

}  // namespace

nlohmann::json history_json(const TrainingHistory& history) {
  auto steps = nlohmann::json::array(), epochs = nlohmann::json::array();
  for (const auto& record : history.steps)
    steps.push_back({{"step", record.step},
                     {"epoch", record.epoch},
                     {"train_loss", record.train_loss},
                     {"auxiliary_loss", record.auxiliary_loss},
                     {"learning_rate", record.learning_rate}});
  for (const auto& record : history.epochs)
    epochs.push_back({{"epoch", record.epoch},
                      {"step", record.step},
                      {"train_loss", record.train_loss},
                      {"valid_loss", record.valid_loss},
                      {"valid_" + history.metric_name, record.valid_metric}});
  return {{"metric", history.metric_name}, {"steps", steps}, {"epochs", epochs}};
}

TrainingHistory read_training_history(const std::string& dir) {
  const auto path = training_json_path(dir);
  if (!fs::exists(path))
    fail_in_file(dir, "has no training.json (a folder written by attention-cli train has one)");
  const auto json = read_untrusted_json(path);
  if (!json.is_object() || !json.contains("history"))
    fail_in_file(path, "holds no loss history (the run predates it; train again, or --resume it to start one)");
  return parse_history(json["history"], path);
}

TrainingHistory history_to_resume(const std::string& dir) {
  const auto path = training_json_path(dir);
  if (!fs::exists(path)) return {};
  const auto json = read_untrusted_json(path);
  if (!json.is_object() || !json.contains("history")) return {};
  return parse_history(json["history"], path);
}

}  // namespace aw

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

// A reader of one history record: a whole number or a number of it by key, errors naming the record.
struct RecordReader {
  const nlohmann::json& record;
  const std::string& path;
  std::string where;  // "history step record 3"
  int64_t count(const std::string& key) const { return record_count(record, key, path, where); }
  double number(const std::string& key) const { return record_number(record, key, path, where); }
};

// Calls read(reader) for every record of the history's `key` list ("steps" or "epochs"), each an
// object; `kind` names a record in errors ("step").
template <typename Read>
void read_records(const nlohmann::json& history, const std::string& key, const std::string& kind,
                  const std::string& path, const Read& read) {
  const auto found = history.find(key);
  if (found == history.end() || !found->is_array())
    fail_in_file(path, "\"history\" has no \"" + key + "\" list");
  for (size_t i = 0; i < found->size(); ++i) {
    const RecordReader reader{(*found)[i], path, "history " + kind + " record " + std::to_string(i + 1)};
    if (!reader.record.is_object()) fail_in_file(path, reader.where + " is not an object");
    read(reader);
  }
}

TrainingHistory parse_history(const nlohmann::json& history, const std::string& path) {
  if (!history.is_object()) fail_in_file(path, "\"history\" is not an object");
  TrainingHistory parsed;
  const auto metric = history.find("metric");
  if (metric == history.end() || !metric->is_string() ||
      (*metric != "perplexity" && *metric != "accuracy"))
    fail_in_file(path, "\"history\" has no \"metric\" (perplexity or accuracy)");
  parsed.metric_name = metric->get<std::string>();
  read_records(history, "steps", "step", path, [&](const RecordReader& read) {
    parsed.steps.push_back({read.count("step"), read.count("epoch"), read.number("train_loss"),
                            read.number("auxiliary_loss"), read.number("learning_rate")});
  });
  read_records(history, "epochs", "epoch", path, [&](const RecordReader& read) {
    parsed.epochs.push_back({read.count("epoch"), read.count("step"), read.number("train_loss"),
                             read.number("valid_loss"), read.number("valid_" + parsed.metric_name)});
  });
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

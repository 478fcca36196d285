// app/cli_model_loading.cpp — see cli_model_loading.h.
#include "app/cli_model_loading.h"

#include "models/corpus.h"
#include "models/errors.h"
#include "models/runtime.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace aw {

OptionSpec model_command_spec(std::set<std::string> with_value, std::set<std::string> switches) {
  with_value.insert({"model", "device", "threads"});
  switches.insert("json");
  return {std::move(with_value), std::move(switches)};
}

LoadedModel load_from_options(const CliOptions& options) {
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));
  const auto device = resolve_device(options.get("device", "auto"));
  return load_checkpoint(options.require("model"), device);
}

std::vector<LoadedModel> load_all_from_options(const CliOptions& options) {
  options.require("model");
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));
  const auto device = resolve_device(options.get("device", "auto"));
  std::vector<LoadedModel> models;
  for (const auto& dir : options.all("model")) models.push_back(load_checkpoint(dir, device));
  return models;
}

std::vector<ModelInput> corpus_windows(const CliOptions& options, const std::string& command, const LoadedModel& loaded,
                                       const std::string& path, int64_t batch_size) {
  const auto positions = loaded.config.max_positions;
  const auto window = options.get_int("window", std::min<int64_t>(128, positions), 2);
  if (window > positions)
    throw Error("attention-cli " + command + ": --window " + std::to_string(window) + " exceeds the model's " +
                std::to_string(positions) + " positions");
  return make_window_batches(read_token_corpus(path, *loaded.tokenizer), window, batch_size);
}

EvaluationData evaluation_data(const CliOptions& options, const std::string& command, const LoadedModel& loaded,
                               const std::string& path, int64_t batch_size) {
  if (!loaded.config.is_classifier()) return language_model_data(corpus_windows(options, command, loaded, path, batch_size));
  const auto batches = make_classifier_batches(read_labelled_file(path, loaded.config.labels), *loaded.tokenizer,
                                               loaded.config.max_positions, batch_size);
  if (batches.truncated > 0)
    std::fprintf(stderr, "%s: %lld examples truncated to %lld tokens\n", command.c_str(),
                 static_cast<long long>(batches.truncated), static_cast<long long>(loaded.config.max_positions));
  return classification_data(batches);
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) fail_in_file(path, "cannot be written");
}

}  // namespace aw

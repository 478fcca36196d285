// app/cli/model_loading.cpp — see cli_model_loading.h.
#include "app/cli/model_loading.h"

#include "analysis/analysis_inputs.h"
#include "models/text/corpus.h"
#include "models/errors.h"
#include "models/runtime.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace aw {

std::string describe_model_kind(const ModelConfig& config) {
  if (config.is_classifier()) return "a " + config.family_name() + " classifier";
  if (config.is_language_model()) return "a " + config.family_name() + " language model";
  return "a " + config.family_name() + " encoder without a classification head";
}

void require_model(const LoadedModel& loaded, const std::string& command, ModelRequirement requirement) {
  const auto& config = loaded.config;
  const bool causal_lm = config.is_language_model();
  if (requirement == ModelRequirement::CausalLanguageModel && !causal_lm)
    throw Error(loaded.dir + ": " + command + " needs a causal language model; this checkpoint is " +
                describe_model_kind(config));
  if (requirement == ModelRequirement::LanguageModelOrClassifier && !causal_lm && !config.is_classifier())
    throw Error(loaded.dir + ": " + command + " needs a language model or a classifier; this checkpoint is " +
                describe_model_kind(config));
}

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
  require_plain_text(path, loaded.name, command);
  return make_window_batches(read_token_corpus(path, *loaded.tokenizer), window, batch_size);
}

EvaluationData evaluation_data(const CliOptions& options, const std::string& command, const LoadedModel& loaded,
                               const std::string& path, int64_t batch_size) {
  if (!loaded.config.is_classifier()) return language_model_data(corpus_windows(options, command, loaded, path, batch_size));
  reject_window_for_classifier(options, command, loaded);
  const auto batches = make_classifier_batches(read_labelled_file(path, loaded.config.labels), *loaded.tokenizer,
                                               loaded.config.max_positions, batch_size);
  if (batches.truncated > 0)
    std::fprintf(stderr, "%s: %lld examples truncated to %lld tokens\n", command.c_str(),
                 static_cast<long long>(batches.truncated), static_cast<long long>(loaded.config.max_positions));
  return classification_data(batches);
}

void reject_window_for_classifier(const CliOptions& options, const std::string& command, const LoadedModel& loaded) {
  if (loaded.config.is_classifier() && options.has("window"))
    throw Error("attention-cli " + command + ": --window applies to language models; " + loaded.name + " is " +
                describe_model_kind(loaded.config) + " and reads each example whole (up to its " +
                std::to_string(loaded.config.max_positions) + " positions)");
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) fail_in_file(path, "cannot be written");
}

}  // namespace aw

// app/cli/model_loading.h — what the model and analysis commands of attention-cli share: their
// common options, loading the --model checkpoint(s), cutting a corpus into windows, writing --out.
#pragma once

#include "analysis/gate_evaluation.h"
#include "app/cli/options.h"
#include "models/checkpoint/checkpoint.h"
#include "models/nn/model.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace aw {

// `with_value` and `switches` plus what every model command takes: --model, --device, --threads, --json.
OptionSpec model_command_spec(std::set<std::string> with_value, std::set<std::string> switches = {});

// What a command can run on. Refusing the other kinds at the door keeps a command from producing
// numbers that mean nothing for them (see docs/analyses.md, "Which models and data").
enum class ModelRequirement {
  CausalLanguageModel,        // stats, diag-sweep, top-tokens: causal attention, next-token rows
  LanguageModelOrClassifier,  // eval, ablate, importance, prune: perplexity or accuracy
};

// "a bet_sf language model", "a bert classifier", "a bert encoder without a classification head".
std::string describe_model_kind(const ModelConfig& config);

// Throws aw::Error "<dir>: <command> needs a causal language model; this checkpoint is a bert
// classifier" when `loaded` is not what `command` can run on.
void require_model(const LoadedModel& loaded, const std::string& command, ModelRequirement requirement);

// Sets the thread count and loads --model on --device.
LoadedModel load_from_options(const CliOptions& options);
// Every --model, in order (repeatable), on the same device.
std::vector<LoadedModel> load_all_from_options(const CliOptions& options);

// `path` tokenised for `loaded` and cut into windows of --window tokens (default min(128, the
// model's positions); more than the model's positions is an error), batches of `batch_size`.
// A file of label<TAB>text lines is refused: read as plain text its labels would become tokens.
std::vector<ModelInput> corpus_windows(const CliOptions& options, const std::string& command, const LoadedModel& loaded,
                                       const std::string& path, int64_t batch_size);

// The data an analysis runs on: labelled examples for a classifier (label<TAB>text lines), corpus
// windows for a language model. Says on stderr how many examples were truncated. --window is an
// error for a classifier (its examples are cut at the model's positions, not into windows).
EvaluationData evaluation_data(const CliOptions& options, const std::string& command, const LoadedModel& loaded,
                               const std::string& path, int64_t batch_size);

// Throws for --window given with a classifier: it would be silently ignored otherwise.
void reject_window_for_classifier(const CliOptions& options, const std::string& command, const LoadedModel& loaded);

void write_text_file(const std::string& path, const std::string& text);

}  // namespace aw

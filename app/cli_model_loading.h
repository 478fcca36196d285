// app/cli_model_loading.h — what the model and analysis commands of attention-cli share: their
// common options, loading the --model checkpoint(s), cutting a corpus into windows, writing --out.
#pragma once

#include "analysis/gate_evaluation.h"
#include "app/cli_options.h"
#include "models/checkpoint.h"
#include "models/model.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace aw {

// `with_value` and `switches` plus what every model command takes: --model, --device, --threads, --json.
OptionSpec model_command_spec(std::set<std::string> with_value, std::set<std::string> switches = {});

// Sets the thread count and loads --model on --device.
LoadedModel load_from_options(const CliOptions& options);
// Every --model, in order (repeatable), on the same device.
std::vector<LoadedModel> load_all_from_options(const CliOptions& options);

// `path` tokenised for `loaded` and cut into windows of --window tokens (default min(128, the
// model's positions); more than the model's positions is an error), batches of `batch_size`.
std::vector<ModelInput> corpus_windows(const CliOptions& options, const std::string& command, const LoadedModel& loaded,
                                       const std::string& path, int64_t batch_size);

// The data an analysis runs on: labelled examples for a classifier (label<TAB>text lines), corpus
// windows for a language model. Says on stderr how many examples were truncated.
EvaluationData evaluation_data(const CliOptions& options, const std::string& command, const LoadedModel& loaded,
                               const std::string& path, int64_t batch_size);

void write_text_file(const std::string& path, const std::string& text);

}  // namespace aw

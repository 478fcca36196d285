// app/cli/model_loading.h — what the model commands of attention-cli share: their common options,
// loading the --model checkpoint(s), and writing an output file.
#pragma once

#include "app/cli/options.h"
#include "models/checkpoint/checkpoint.h"

#include <set>
#include <string>
#include <vector>

namespace aw {

// `with_value` and `switches` plus what every model command takes: --model, --revision, --device, --dtype,
// --threads, --json.
OptionSpec model_command_spec(std::set<std::string> with_value, std::set<std::string> switches = {});

// --device as given, else the environment's AW_DEVICE (so a whole test suite can be pointed at
// CUDA or kept on the CPU: AW_DEVICE=cuda ctest -L cli), else "auto".
std::string device_option(const CliOptions& options);

// --dtype f32|bf16|f16|auto (default auto: BF16 on CUDA where the family allows it, else F32).
ComputeDtype dtype_option(const CliOptions& options);

// A folder or file, or a model by its Hub name in the local cache at `revision` (models/checkpoint/
// hub_cache.h; load_checkpoint names a snapshot after its model, not its commit).
LoadedModel load_model_argument(const std::string& argument, const std::string& revision, const torch::Device& device,
                                const ComputeDtype& dtype);
// Sets the thread count and loads --model (at --revision) on --device in --dtype.
LoadedModel load_from_options(const CliOptions& options);
// Every --model, in order (repeatable), on the same device; with `cuda_index` ≥ 0, "cuda" (or
// "auto" finding CUDA) means that GPU: a distributed rank's LOCAL_RANK. "cuda:N" stays N.
std::vector<LoadedModel> load_all_from_options(const CliOptions& options, int cuda_index = -1);

void write_text_file(const std::string& path, const std::string& text);

// --out-dtype f32|f16 of a binary attention export (default f32); throws "attention-cli <command>:
// --out-dtype X: expected f32 or f16".
torch::ScalarType attention_out_dtype(const CliOptions& options, const std::string& command);

}  // namespace aw

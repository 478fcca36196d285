// app/cli/model_loading.cpp — see model_loading.h.
#include "app/cli/model_loading.h"

#include "models/attention_path.h"
#include "models/checkpoint/hub_cache.h"
#include "models/errors.h"
#include "models/memory_budget.h"
#include "models/runtime.h"
#include "models/text/special_tokens.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace aw {

OptionSpec model_command_spec(std::set<std::string> with_value, std::set<std::string> switches) {
  with_value.insert({"model", "revision", "device", "threads", "dtype", "memory-budget"});
  switches.insert({"json", "explicit-attention", "special-tokens-as-text"});
  return {std::move(with_value), std::move(switches)};
}

std::string device_option(const CliOptions& options) {
  const char* from_environment = std::getenv("AW_DEVICE");
  return options.get("device", from_environment && *from_environment ? from_environment : "auto");
}

ComputeDtype dtype_option(const CliOptions& options) { return parse_compute_dtype(options.get("dtype", "auto")); }

// --memory-budget: the bytes one tile of attention may take (models/memory_budget.h);
// --explicit-attention: no fused kernel, even where this LibTorch has one (models/attention_path.h);
// --special-tokens-as-text: "[SEP]" or "<unk>" in a text read as text (models/text/special_tokens.h).
void apply_attention_options(const CliOptions& options) {
  if (options.has("memory-budget")) set_attention_memory_budget(parse_memory_size(options.get("memory-budget", "")));
  set_fused_attention_allowed(!options.flag("explicit-attention"));  // a switch: flag(), not has()
  set_special_tokens_in_text(!options.flag("special-tokens-as-text"));
}

LoadedModel load_model_argument(const std::string& argument, const std::string& revision, const torch::Device& device,
                                const ComputeDtype& dtype) {
  return load_checkpoint(resolve_model_argument(argument, revision), device, dtype);
}

LoadedModel load_from_options(const CliOptions& options) {
  apply_attention_options(options);
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));
  const auto device = resolve_device(device_option(options));
  return load_model_argument(options.require("model"), options.get("revision", ""), device, dtype_option(options));
}

std::vector<LoadedModel> load_all_from_options(const CliOptions& options, int cuda_index) {
  options.require("model");
  apply_attention_options(options);
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));
  const auto device_name = device_option(options);
  auto device = resolve_device(device_name);
  if (device.is_cuda() && cuda_index >= 0 && device_name.find(':') == std::string::npos) {  // not cuda:N
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (cuda_index >= count)  // NCCL refuses two ranks on one GPU, so a rank never falls back to another's
      throw Error("--distributed: LOCAL_RANK " + std::to_string(cuda_index) + " asks for CUDA device " +
                  std::to_string(cuda_index) + ", but this machine has " + std::to_string(count) +
                  " (NCCL runs one rank per GPU: start at most " + std::to_string(count) + " ranks here)");
    device = resolve_device("cuda:" + std::to_string(cuda_index));
  }
  std::vector<LoadedModel> models;
  const auto dtype = dtype_option(options);
  for (const auto& dir : options.all("model"))
    models.push_back(load_model_argument(dir, options.get("revision", ""), device, dtype));
  return models;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) fail_in_file(path, "cannot be written");
}

torch::ScalarType attention_out_dtype(const CliOptions& options, const std::string& command) {
  const auto name = options.get("out-dtype", "f32");
  if (name != "f32" && name != "f16")
    throw Error("attention-cli " + command + ": --out-dtype " + name + ": expected f32 or f16");
  return name == "f16" ? torch::kFloat16 : torch::kFloat32;
}

}  // namespace aw

// app/cli/activations_command.cpp — attention-cli activations: one text's activations at named hook
// points (docs/hooks.md) to a safetensors file, written as the forward computes them.
#include "analysis/activations/activations.h"
#include "analysis/core/numbered_list.h"
#include "app/cli/commands.h"
#include "app/cli/model_loading.h"
#include "app/cli/progress.h"
#include "models/errors.h"
#include "models/text/corpus.h"
#include "models/translation/translation_codec.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <sstream>

namespace aw {
namespace {

const std::string kCommand = "attention-cli activations";

std::vector<GroupedPoint> parse_points(const std::string& list, const AttentionModel& model) {
  const auto addresses = model.hook_addresses();
  std::vector<GroupedPoint> points;
  std::stringstream names(list);
  std::string name;
  while (std::getline(names, name, ',')) {
    const auto point = grouped_point_named(name);
    const bool has = point && std::any_of(addresses.begin(), addresses.end(), [&](const HookAddress& address) {
                       return address.group == point->group && address.point == point->point;
                     });
    if (!has)
      throw Error(kCommand + ": --hooks " + name + ": " +
                  (addresses.empty() ? "a " + model.config().family_name() + " model has no hook points yet"
                                     : "not a point of a " + model.config().family_name() + " model; it has " +
                                           short_name_list(addresses)));
    if (std::find(points.begin(), points.end(), *point) == points.end()) points.push_back(*point);
  }
  if (points.empty()) throw Error(kCommand + ": --hooks is empty; name one or more points (docs/hooks.md)");
  return points;
}

torch::ScalarType activation_dtype(const std::string& name) {
  if (name == "f32") return torch::kFloat32;
  if (name == "f16") return torch::kFloat16;
  if (name == "bf16") return torch::kBFloat16;
  throw Error(kCommand + ": --out-dtype " + name + ": expected f32, f16 or bf16");
}

std::string text_of(const CliOptions& options) {
  if (options.has("text") == options.has("text-file"))
    throw Error(kCommand + ": give either --text \"…\" or --text-file FILE");
  if (options.has("text")) return options.get("text", "");
  const auto path = options.get("text-file", "");
  auto text = read_whole_file(path);
  if (text.empty()) fail_in_file(path, "the file is empty");
  return text;
}

}  // namespace

int run_activations(int argc, char** argv) {
  const CliOptions options(
      "activations", model_command_spec({"text", "text-file", "target", "hooks", "layers", "heads", "positions", "out", "out-dtype"}),
      argc, argv, 2);
  const auto hooks = options.require("hooks");
  const auto out = options.require("out");
  if (out.size() < 12 || out.compare(out.size() - 12, 12, ".safetensors") != 0)
    throw Error(kCommand + ": --out " + out + ": the file must end in .safetensors");
  const auto text = text_of(options);
  ActivationsRequest request;
  request.dtype = activation_dtype(options.get("out-dtype", "f32"));
  const auto loaded = load_from_options(options);
  const auto& config = loaded.config;
  request.points = parse_points(hooks, *loaded.model);
  std::vector<int64_t> ids;
  if (config.is_translation()) {  // the source as the encoder reads it; the target teacher-forced
    const TranslationCodec codec(config, loaded.tokenizer, loaded.target_tokenizer);
    ids = codec.source_ids(text);
    if (options.has("target")) {
      const auto decoder = codec.decoder_ids(options.get("target", ""));
      request.target_ids.assign(decoder.begin(), decoder.end() - 1);  // start and tokens: EOS is predicted
    }
  } else {
    if (options.has("target"))
      throw Error(kCommand + ": --target is a translation model's (the text its decoder reads); a " +
                  config.family_name() + " model reads one text");
    ids = loaded.tokenizer->encode(text).ids;
  }
  if (ids.empty()) throw Error(kCommand + ": the text gives no tokens (empty text)");
  const auto n = static_cast<int64_t>(ids.size()), m = static_cast<int64_t>(request.target_ids.size());
  for (const auto& [length, what] : {std::pair<int64_t, const char*>{n, "text"}, {m, "target"}})
    if (length > config.max_positions)
      throw Error(kCommand + ": the " + what + " has " + std::to_string(length) + " tokens but " + loaded.name +
                  " allows " + std::to_string(config.max_positions) + " positions");
  const int64_t layers = config.is_translation()
                             ? std::max(config.translation.encoder_layers, config.translation.decoder_layers)
                             : config.n_blocks;
  try {  // numbered from 0, as the hook names are (blocks.0 …), within each kind of block
    if (options.has("layers")) request.layers = parse_numbered_list(options.get("layers", ""), layers, "layer", 0);
    if (options.has("heads")) request.heads = parse_numbered_list(options.get("heads", ""), config.max_heads(), "head", 0);
    if (options.has("positions"))
      request.positions = parse_numbered_list(options.get("positions", ""), std::max(n, m), "position", 0);
  } catch (const Error& error) {
    throw Error(kCommand + ": " + error.what());
  }
  install_interrupt_handler();
  ProgressLine progress("activations", "layers");
  ActivationsSummary summary;
  try {
    summary = write_activations(*loaded.model, ids, request, out, {{"model", loaded.name}},
                                [&progress](int64_t done, int64_t total) { return progress(done, total); });
  } catch (const Error& error) {
    throw Error(kCommand + ": " + error.what());
  }
  if (summary.cancelled) {
    std::fprintf(stderr, "activations: cancelled; %s not written\n", out.c_str());
    return 130;
  }
  std::printf("%s: %lld tensors, %.1f MB, %lld tokens\n", out.c_str(), static_cast<long long>(summary.tensors),
              static_cast<double>(summary.bytes) / 1e6, static_cast<long long>(n));
  return 0;
}

}  // namespace aw

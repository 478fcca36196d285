// app/cli_train_command.cpp — `attention-cli train`: builds the vocabulary and the config from the
// options, runs the trainer with a progress line per N steps, and saves on Ctrl-C.
#include "app/cli_commands.h"
#include "app/cli_options.h"
#include "app/cli_progress.h"
#include "models/errors.h"
#include "models/model_config.h"
#include "models/runtime.h"
#include "models/trainer.h"
#include "models/vocabulary.h"

#include <cstdio>
#include <iostream>

namespace aw {
namespace {

double get_number(const CliOptions& options, const std::string& name, double fallback) {
  if (!options.has(name)) return fallback;
  const auto text = options.get(name, "");
  size_t parsed = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &parsed);
  } catch (const std::exception&) {
    parsed = 0;
  }
  if (parsed == 0 || parsed != text.size())
    throw Error("attention-cli train: --" + name + " expects a number, got '" + text + "'");
  return value;
}

std::string format_duration(double seconds) {
  const auto total = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (total >= 3600) std::snprintf(text, sizeof text, "%lldh%02lldm", total / 3600, total / 60 % 60);
  else std::snprintf(text, sizeof text, "%lldm%02llds", total / 60, total % 60);
  return text;
}

}  // namespace

int run_train(int argc, char** argv) {
  const OptionSpec spec{{"arch", "layers", "heads", "d-model", "d-ff", "window", "train", "valid", "epochs", "batch",
                         "lr", "warmup", "schedule", "dropout", "clip", "seed", "out", "resume", "min-count",
                         "log-every", "diag-mode", "lambda-p", "norm", "positions", "activation", "device", "threads"},
                        {"no-diag-free-mask", "untied", "f16", "json"}};
  const CliOptions options("train", spec, argc, argv, 2);
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));

  TrainSettings settings;
  settings.train_path = options.require("train");
  settings.valid_path = options.require("valid");
  settings.resume_dir = options.get("resume", "");
  settings.out_dir = options.has("out") ? options.get("out", "") : settings.resume_dir;
  if (settings.out_dir.empty()) throw Error("attention-cli train: --out is required");
  settings.epochs = options.get_int("epochs", 10, 1);
  settings.batch = options.get_int("batch", 16, 1);
  settings.lr = get_number(options, "lr", 1e-3);
  settings.warmup_steps = options.get_int("warmup", 200, 0);
  settings.schedule = options.get("schedule", "inverse_sqrt");
  settings.clip = get_number(options, "clip", 1.0);
  settings.seed = static_cast<uint64_t>(options.get_int("seed", 1, 0));
  settings.log_every = options.get_int("log-every", 50, 1);
  settings.device = resolve_device(options.get("device", "auto"));
  settings.storage = options.flag("f16") ? torch::kFloat16 : torch::kFloat32;

  // BET(SG) trains with its pointer loss (weight 1 unless --lambda-p says otherwise); the other
  // architectures have no syntax hints to point at.
  const auto arch = settings.resume_dir.empty() ? options.get("arch", "transformer_lm")
                                                : read_model_config(settings.resume_dir).model_type;
  settings.pointer_weight = get_number(options, "lambda-p", arch == "bet_sg" ? 1.0 : 0.0);
  if (settings.pointer_weight < 0) throw Error("attention-cli train: --lambda-p must be ≥ 0");
  if (settings.pointer_weight > 0 && arch != "bet_sg")
    throw Error("attention-cli train: --lambda-p applies to --arch bet_sg only (this run trains " + arch + ")");

  ModelConfig config;
  std::vector<std::string> vocabulary;
  if (settings.resume_dir.empty()) {
    vocabulary = build_word_vocabulary(settings.train_path, options.get_int("min-count", 1, 1));
    nlohmann::json json = {{"model_type", arch},
                           {"vocab_size", static_cast<int64_t>(vocabulary.size())},
                           {"n_layers", options.get_int("layers", 2, 1)},
                           {"n_heads", options.get_int("heads", 4, 1)},
                           {"d_model", options.get_int("d-model", 128, 1)},
                           {"max_positions", options.get_int("window", 64, 2)},
                           {"dropout", get_number(options, "dropout", 0.1)},
                           {"norm", options.get("norm", "pre")},
                           {"positions", options.get("positions", "learned")},
                           {"activation", options.get("activation", "gelu")},
                           {"tie_embeddings", !options.flag("untied")},
                           {"diag_mode", options.get("diag-mode", "normal")}};
    if (options.has("d-ff")) json["d_ff"] = options.get_int("d-ff", 0, 1);
    if (arch == "bet_sf") json["diag_free_mask"] = !options.flag("no-diag-free-mask");
    if (arch != "transformer_lm" && arch != "bet_sf" && arch != "bet_sg")
      throw Error("attention-cli train: --arch must be transformer_lm, bet_sf or bet_sg, got '" + arch + "'");
    config = parse_model_config(json, "attention-cli train");
  }

  install_interrupt_handler();
  const bool json_output = options.flag("json");
  const auto summary = train_language_model(config, vocabulary, settings, [&](const TrainProgress& progress) {
    if (progress.epoch_end) {
      std::fprintf(stderr, "epoch %lld/%lld done: step %lld, valid perplexity %.2f\n",
                   static_cast<long long>(progress.epoch), static_cast<long long>(settings.epochs),
                   static_cast<long long>(progress.step), progress.valid_perplexity);
    } else {
      char pointer[40] = "";
      if (settings.pointer_weight > 0) std::snprintf(pointer, sizeof pointer, " (pointer %.4f)", progress.pointer_loss);
      std::fprintf(stderr, "step %lld/%lld  epoch %lld  loss %.4f%s  lr %.2e  %.0f tokens/s  ETA %s\n",
                   static_cast<long long>(progress.step), static_cast<long long>(progress.total_steps),
                   static_cast<long long>(progress.epoch + 1), progress.loss, pointer, progress.learning_rate,
                   progress.tokens_per_second, format_duration(progress.eta_seconds).c_str());
    }
    return !interrupt_requested();
  });

  if (json_output) {
    std::cout << nlohmann::json{{"out", settings.out_dir},
                                {"steps", summary.steps},
                                {"epochs_done", summary.epochs_done},
                                {"best_valid_perplexity", summary.best_valid_perplexity},
                                {"last_valid_perplexity", summary.last_valid_perplexity},
                                {"tokens_per_second", summary.tokens_per_second},
                                {"seconds", summary.seconds},
                                {"parameters", summary.parameters},
                                {"stopped", summary.stopped}}
                     .dump(2)
              << "\n";
  } else {
    std::printf("%s: %lld steps, %lld epochs in %s (%.0f tokens/s), %lld parameters; best valid perplexity %.2f; "
                "saved to %s\n",
                summary.stopped ? "stopped (saved, continue with --resume)" : "done",
                static_cast<long long>(summary.steps), static_cast<long long>(summary.epochs_done),
                format_duration(summary.seconds).c_str(), summary.tokens_per_second,
                static_cast<long long>(summary.parameters), summary.best_valid_perplexity,
                settings.out_dir.c_str());
  }
  return summary.stopped ? 130 : 0;
}

}  // namespace aw

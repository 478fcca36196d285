// app/cli/train_command.cpp — `attention-cli train`: builds the vocabulary and the config from the
// options, runs the trainer with a progress line per N steps, and saves on Ctrl-C. Language models
// (transformer_lm, bet_sf, bet_sg) train on text; classifiers (lama, bigru_mean,
// encoder_classifier) on label<TAB>text files; translation models (transformer_mt) on
// source<TAB>target pairs, with a SentencePiece model trained on the training pairs first.
#include "analysis/core/corpus_data.h"
#include "app/cli/model_loading.h"
#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "app/cli/progress.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "models/errors.h"
#include "models/json_input.h"
#include "models/parse_number.h"
#include "models/nn/model_config.h"
#include "models/runtime.h"
#include "models/training/trainer.h"
#include "models/text/tokenizer.h"
#include "models/text/vocabulary.h"
#include "models/translation/translation_data.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace aw {
namespace {

double get_number(const CliOptions& options, const std::string& name, double fallback) {
  if (!options.has(name)) return fallback;
  const auto text = options.get(name, "");
  double value = 0.0;
  if (!parse_real(text, value))
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

// The family a command line trains, parsed once, before the options (language models and classifiers
// take different options): --arch (default transformer_lm), or the model_type of the --resume folder.
ModelFamily requested_family(int argc, char** argv) {
  std::string arch = "transformer_lm", resume;
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--arch") == 0) arch = argv[i + 1];
    if (std::strcmp(argv[i], "--resume") == 0) resume = argv[i + 1];
  }
  if (!resume.empty()) return read_model_config(resume).family;
  const auto family = parse_enum<ModelFamily>(arch);
  if (!family || family_traits(*family).trained_as == TrainedAs::None)  // the Hugging Face families are loaded only
    throw Error("attention-cli train: --arch must be transformer_lm, bet_sf, bet_sg, lama, bigru_max, "
                "bigru_mean, encoder_classifier or transformer_mt, got '" + arch + "'");
  return *family;
}

// The text column of every line of a label<TAB>text file (for the vocabulary).
std::vector<std::string> labelled_texts(const std::string& path, const std::vector<std::string>& labels) {
  std::vector<std::string> texts;
  for (const auto& example : read_labelled_file(path, labels)) texts.push_back(example.text_a);
  return texts;
}

void print_progress(const TrainSettings& settings, const TrainProgress& progress, const char* auxiliary_name,
                    const char* unit) {
  if (progress.epoch_end) {
    std::fprintf(stderr, "epoch %lld/%lld done: step %lld, valid %s %.4f (loss %.4f)\n",
                 static_cast<long long>(progress.epoch), static_cast<long long>(settings.epochs),
                 static_cast<long long>(progress.step), progress.metric_name.c_str(), progress.valid_metric,
                 progress.valid_loss);
    return;
  }
  char auxiliary[40] = "";
  if (auxiliary_name) std::snprintf(auxiliary, sizeof auxiliary, " (%s %.4f)", auxiliary_name, progress.pointer_loss);
  std::fprintf(stderr, "step %lld/%lld  epoch %lld  loss %.4f%s  lr %.2e  %.0f %s/s  ETA %s\n",
               static_cast<long long>(progress.step), static_cast<long long>(progress.total_steps),
               static_cast<long long>(progress.epoch + 1), progress.loss, auxiliary, progress.learning_rate,
               progress.tokens_per_second, unit, format_duration(progress.eta_seconds).c_str());
}

void print_summary(const CliOptions& options, const TrainSettings& settings, const TrainSummary& summary,
                   const char* unit) {
  if (options.flag("json")) {
    std::cout << nlohmann::json{{"out", settings.out_dir},
                                {"steps", summary.steps},
                                {"epochs_done", summary.epochs_done},
                                {"best_valid_" + summary.metric_name, summary.best_valid_metric},
                                {"last_valid_" + summary.metric_name, summary.last_valid_metric},
                                {std::string(unit) + "_per_second", summary.tokens_per_second},
                                {"seconds", summary.seconds},
                                {"parameters", summary.parameters},
                                {"stopped", summary.stopped}}
                     .dump(2)
              << "\n";
    return;
  }
  // A run stopped before its first epoch ended has not been validated: say so, not "inf".
  char best[96];
  if (std::isfinite(summary.best_valid_metric))
    std::snprintf(best, sizeof best, "best valid %s %.4f", summary.metric_name.c_str(), summary.best_valid_metric);
  else
    std::snprintf(best, sizeof best, "not validated yet (stopped before the first epoch ended)");
  std::printf("%s: %lld steps, %lld epochs in %s (%.0f %s/s), %lld parameters; %s; saved to %s\n",
              summary.stopped         ? "stopped (saved, continue with --resume)"
              : summary.stopped_early ? "done (stopped early: validation did not improve for --patience epochs)"
                                      : "done",
              static_cast<long long>(summary.steps), static_cast<long long>(summary.epochs_done),
              format_duration(summary.seconds).c_str(), summary.tokens_per_second, unit,
              static_cast<long long>(summary.parameters), best, settings.out_dir.c_str());
}

// The settings a --resume folder was trained with (its training.json), which a resumed run keeps
// unless the command line overrides them: a resumed run with defaults in their place would change
// its batch, schedule and data order, or the dtype it saves in, silently.
TrainSettings resumed_defaults(const std::string& resume_dir, TrainSettings defaults) {
  const auto path = std::filesystem::path(resume_dir) / "training.json";
  std::ifstream in(path);
  if (!in) throw Error(path.string() + ": cannot open (a --resume folder holds the training.json its run wrote)");
  const auto json = read_untrusted_json(path.string());
  try {
    defaults.epochs = json.value("epochs", defaults.epochs);
    defaults.batch = json.value("batch", defaults.batch);
    defaults.lr = json.value("lr", defaults.lr);
    defaults.warmup_steps = json.value("warmup_steps", defaults.warmup_steps);
    defaults.schedule = json.value("schedule", defaults.schedule);
    defaults.clip = json.value("clip", defaults.clip);
    defaults.seed = json.value("seed", defaults.seed);
    defaults.pointer_weight = json.value("lambda_p", defaults.pointer_weight);
    defaults.label_smoothing = json.value("label_smoothing", defaults.label_smoothing);
    if (json.value("storage", std::string("F32")) == "F16") defaults.storage = torch::kFloat16;
    defaults.keep_epochs = json.value("keep_epochs", defaults.keep_epochs);
    defaults.optimizer = json.value("optimizer", defaults.optimizer);
    defaults.momentum = json.value("momentum", defaults.momentum);
    defaults.weight_decay = json.value("weight_decay", defaults.weight_decay);
    defaults.patience = json.value("patience", defaults.patience);
  } catch (const nlohmann::json::exception&) {
    throw Error(path.string() + ": not a training.json this tool wrote (a setting has the wrong type)");
  }
  return defaults;
}

// Settings every architecture shares: the options, else the --resume folder's, else the defaults.
TrainSettings common_settings(const CliOptions& options, int64_t default_batch, int64_t default_warmup,
                              double default_label_smoothing = 0.0) {
  TrainSettings fallback;
  fallback.epochs = 10;
  fallback.batch = default_batch;
  fallback.lr = 1e-3;
  fallback.warmup_steps = default_warmup;
  fallback.schedule = "inverse_sqrt";
  fallback.clip = 1.0;
  fallback.seed = 1;
  fallback.label_smoothing = default_label_smoothing;
  if (options.has("resume")) fallback = resumed_defaults(options.get("resume", ""), fallback);

  TrainSettings settings = fallback;
  settings.train_path = options.require("train");
  settings.valid_path = options.require("valid");
  settings.resume_dir = options.get("resume", "");
  settings.out_dir = options.has("out") ? options.get("out", "") : settings.resume_dir;
  if (settings.out_dir.empty() && !options.flag("dry-run")) throw Error("attention-cli train: --out is required");
  settings.epochs = options.get_int("epochs", fallback.epochs, 1);
  settings.batch = options.get_int("batch", fallback.batch, 1);
  settings.lr = get_number(options, "lr", fallback.lr);
  settings.warmup_steps = options.get_int("warmup", fallback.warmup_steps, 0);
  settings.schedule = options.get("schedule", fallback.schedule);
  settings.clip = get_number(options, "clip", fallback.clip);
  settings.seed = static_cast<uint64_t>(options.get_int("seed", static_cast<int64_t>(fallback.seed), 0));
  settings.log_every = options.get_int("log-every", 50, 1);
  settings.save_every = options.get_int("save-every", 0, 0);
  settings.device = resolve_device(device_option(options));
  settings.storage = options.flag("f16") ? torch::kFloat16 : fallback.storage;
  settings.keep_epochs = options.flag("keep-epochs") || fallback.keep_epochs;
  settings.optimizer = options.get("optimizer", fallback.optimizer);
  settings.momentum = get_number(options, "momentum", fallback.momentum);
  if (options.has("momentum") && settings.optimizer != "sgd")
    throw Error("attention-cli train: --momentum applies to --optimizer sgd (this run uses " + settings.optimizer + ")");
  settings.weight_decay = get_number(options, "weight-decay", fallback.weight_decay);
  settings.patience = options.get_int("patience", fallback.patience, 0);
  check_train_settings(settings);  // before anything is read or built: a bad setting is the only line
  return settings;
}

// The config of a fresh classifier run from the options (labels from the training file).
ModelConfig classifier_config(const CliOptions& options, ModelFamily family, int64_t vocab_size,
                              const std::vector<std::string>& labels) {
  nlohmann::json json = {{"model_type", to_string(family)},
                         {"vocab_size", vocab_size},
                         {"labels", labels},
                         {"max_positions", options.get_int("window", 256, 2)},
                         {"normalize_words", !options.flag("raw-words")}};
  if (family_traits(family).network == Network::Transformer) {  // encoder_classifier
    json["n_layers"] = options.get_int("layers", 1, 1);
    json["n_heads"] = options.get_int("heads", 4, 1);
    json["d_model"] = options.get_int("d-model", 128, 1);
    json["dropout"] = get_number(options, "dropout", 0.1);
    json["activation"] = options.get("activation", "gelu");
    json["norm"] = options.get("norm", "pre");
    json["positions"] = options.get("positions", "learned");
    if (options.has("d-ff")) json["d_ff"] = options.get_int("d-ff", 0, 1);
    if (options.has("d-head")) json["d_head"] = options.get_int("d-head", 0, 1);
  } else {
    json["embedding_dim"] = options.get_int("embedding-dim", 100, 1);
    json["rnn_hidden"] = options.get_int("hidden", 64, 1);
    json["classifier_hidden"] = options.get_int("mlp-hidden", 512, 1);
    json["dropout"] = get_number(options, "dropout", 0.4);
    if (family == ModelFamily::Lama) {
      json["n_heads"] = options.get_int("heads", 10, 1);
      json["context"] = options.get("context", "mean");
      json["regularizer"] = options.get("regularizer", "none");
      json["regularizer_weight"] = get_number(options, "lambda", 0.2);
    }
  }
  for (const char* lama_only : {"context", "regularizer", "lambda"})
    if (options.has(lama_only) && family != ModelFamily::Lama)
      throw Error("attention-cli train: --" + std::string(lama_only) + " applies to --arch lama only (this run trains " +
                  to_string(family) + ")");
  return parse_model_config(json, "attention-cli train");
}

int run_train_classifier(int argc, char** argv, ModelFamily family) {
  const OptionSpec spec{{"arch", "train", "valid", "out", "resume", "epochs", "batch", "lr", "warmup", "schedule",
                         "clip", "seed", "min-count", "log-every", "save-every", "optimizer", "momentum", "weight-decay",
                         "patience", "device", "threads", "window", "dropout",
                         "heads", "context", "regularizer", "lambda", "embedding-dim", "hidden", "mlp-hidden",
                         "layers", "d-model", "d-ff", "d-head", "activation", "norm", "positions"},
                        {"f16", "json", "dry-run", "raw-words", "keep-epochs"}};
  const CliOptions options("train", spec, argc, argv, 2);
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));
  auto settings = common_settings(options, 32, 100);

  ModelConfig config;
  std::vector<std::string> vocabulary;
  if (settings.resume_dir.empty()) {
    const auto labels = read_label_names(settings.train_path);
    const bool normalize = !options.flag("raw-words");
    vocabulary = build_text_vocabulary(labelled_texts(settings.train_path, labels), options.get_int("min-count", 1, 1),
                                       normalize, settings.train_path);
    config = classifier_config(options, family, static_cast<int64_t>(vocabulary.size()), labels);
  }
  if (config.has_lama_attention() && config.recurrent.context == LamaContext::Mean &&
      config.recurrent.embedding_dim != 2 * config.recurrent.rnn_hidden)
    std::fprintf(stderr,
                 "train: --embedding-dim %lld ≠ 2 × --hidden (%lld): the mean-embedding context goes through a learned "
                 "%lld×%lld projection (the paper uses E = 2h; docs/lama.md)\n",
                 static_cast<long long>(config.recurrent.embedding_dim),
                 static_cast<long long>(2 * config.recurrent.rnn_hidden),
                 static_cast<long long>(2 * config.recurrent.rnn_hidden),
                 static_cast<long long>(config.recurrent.embedding_dim));
  if (options.flag("dry-run")) {
    // The model this command line would train, without training it (parameter counts for docs/results.md).
    if (!settings.resume_dir.empty()) throw Error("attention-cli train: --dry-run describes a fresh run, not --resume");
    auto model = create_model(config);
    const auto parameters = count_parameters(*model);
    if (options.flag("json"))
      std::cout << nlohmann::json{{"model_type", config.family_name()}, {"heads", config.n_heads},
                                  {"vocab_size", config.vocab_size}, {"labels", config.labels},
                                  {"parameters", parameters}}
                       .dump(2)
                << "\n";
    else
      std::printf("%s: %lld parameters (vocabulary %lld, %lld classes)\n", config.family_name().c_str(),
                  static_cast<long long>(parameters), static_cast<long long>(config.vocab_size),
                  static_cast<long long>(config.num_labels));
    return 0;
  }

  install_interrupt_handler();
  const bool regularised = config.has_lama_attention() && config.recurrent.regularizer != Regularizer::None;
  const auto regularizer_name = to_string(config.recurrent.regularizer);
  const auto summary = train_classifier(config, vocabulary, settings, [&](const TrainProgress& progress) {
    print_progress(settings, progress, regularised ? regularizer_name.c_str() : nullptr, "words");
    return !interrupt_requested();
  });
  print_summary(options, settings, summary, "words");
  return summary.stopped ? 130 : 0;
}

// A fresh translation run's SentencePiece model: trained on both sides of the training pairs (one
// vocabulary for source and target, as the tied embeddings need), written to <out>/spm.model.
std::string train_translation_tokenizer(const CliOptions& options, const TrainSettings& settings) {
  std::vector<std::string> sentences;
  for (const auto& pair : read_translation_pairs(settings.train_path)) {
    sentences.push_back(pair.source);
    sentences.push_back(pair.target);
  }
  const auto prefix = (std::filesystem::path(settings.out_dir) / "spm").string();
  const auto pieces = options.get_int("vocab-size", 8000, 8);
  std::fprintf(stderr, "training a %lld-piece SentencePiece %s model on %zu sentences of %s\n",
               static_cast<long long>(pieces), options.get("spm-type", "unigram").c_str(), sentences.size(),
               settings.train_path.c_str());
  train_sentencepiece(sentences, prefix, static_cast<int>(pieces), options.get("spm-type", "unigram"), settings.seed);
  std::filesystem::remove(prefix + ".vocab");  // the .model holds the pieces; the .vocab is a readable copy
  return prefix + ".model";
}

int run_train_translation(int argc, char** argv) {
  const OptionSpec spec{{"arch", "layers", "decoder-layers", "heads", "d-model", "d-ff", "window", "train", "valid",
                         "epochs", "batch", "lr", "warmup", "schedule", "dropout", "clip", "seed", "out", "resume",
                         "log-every", "save-every", "optimizer", "momentum", "weight-decay", "patience", "diag-mode", "norm",
                         "positions", "activation", "device", "threads",
                         "label-smoothing", "vocab-size", "spm-type"},
                        {"bird-eye-decoder", "no-diag-free-mask", "untied", "f16", "json", "keep-epochs"}};
  const CliOptions options("train", spec, argc, argv, 2);
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));
  auto settings = common_settings(options, 32, 400, 0.1);
  settings.label_smoothing = get_number(options, "label-smoothing", settings.label_smoothing);
  if (settings.label_smoothing < 0 || settings.label_smoothing >= 1)  // before the tokenizer's training, not after
    throw Error("attention-cli train: --label-smoothing must be in [0, 1), got " + options.get("label-smoothing", ""));
  for (const auto& path : {settings.train_path, settings.valid_path}) read_translation_pairs(path);  // fail early

  ModelConfig config;
  std::string sentencepiece_model;
  for (const char* fresh_only : {"vocab-size", "spm-type"})
    if (options.has(fresh_only) && !settings.resume_dir.empty())
      throw Error("attention-cli train: --" + std::string(fresh_only) + " applies to a fresh run, not --resume");
  if (settings.resume_dir.empty()) {
    std::filesystem::create_directories(settings.out_dir);
    sentencepiece_model = train_translation_tokenizer(options, settings);
    const auto pieces = load_sentencepiece_tokenizer(sentencepiece_model, "", false)->vocab_size();
    const auto encoder_layers = options.get_int("layers", 3, 1);
    nlohmann::json json = {{"model_type", "transformer_mt"},
                           {"vocab_size", pieces},
                           {"encoder_layers", encoder_layers},
                           {"decoder_layers", options.get_int("decoder-layers", encoder_layers, 1)},
                           {"n_heads", options.get_int("heads", 4, 1)},
                           {"d_model", options.get_int("d-model", 256, 1)},
                           {"max_positions", options.get_int("window", 64, 2)},
                           {"dropout", get_number(options, "dropout", 0.1)},
                           {"norm", options.get("norm", "pre")},
                           {"positions", options.get("positions", "sinusoidal")},
                           {"activation", options.get("activation", "relu")},
                           {"tie_embeddings", !options.flag("untied")},
                           {"decoder_bird_eye", options.flag("bird-eye-decoder")},
                           {"decoder_diag_free_mask", options.flag("bird-eye-decoder") && !options.flag("no-diag-free-mask")},
                           {"diag_mode", options.get("diag-mode", "normal")}};
    if (options.flag("no-diag-free-mask") && !options.flag("bird-eye-decoder"))
      throw Error("attention-cli train: --no-diag-free-mask applies with --bird-eye-decoder only");
    if (options.has("d-ff")) json["d_ff"] = options.get_int("d-ff", 0, 1);
    config = parse_model_config(json, "attention-cli train");
  }

  install_interrupt_handler();
  const auto summary = train_translation_model(config, sentencepiece_model, settings, [&](const TrainProgress& progress) {
    print_progress(settings, progress, nullptr, "tokens");
    return !interrupt_requested();
  });
  print_summary(options, settings, summary, "tokens");
  return summary.stopped ? 130 : 0;
}

}  // namespace

// `--seeds 1,2,3 --out DIR`: the same command once per seed, as `--seed S --out DIR/seed-S` (so each
// run is exactly what that single command trains), one after another.
int run_train_seeds(int argc, char** argv) {
  std::vector<std::string> rest;
  std::string seeds, out;
  for (int i = 2; i < argc; ++i) {
    const std::string argument = argv[i];
    if ((argument == "--seeds" || argument == "--out") && i + 1 < argc) {
      (argument == "--seeds" ? seeds : out) = argv[++i];
      continue;
    }
    if (argument == "--seed" || argument == "--resume")
      throw Error("attention-cli train: --seeds runs one training per seed; " + argument + " does not go with it");
    rest.push_back(argument);
  }
  if (out.empty()) throw Error("attention-cli train: --seeds needs --out DIR (the runs go to DIR/seed-S)");
  std::vector<int64_t> values;
  for (const auto& text : split_list(seeds)) {
    int64_t seed = -1;
    if (!parse_integer(text, seed) || seed < 0)
      throw Error("attention-cli train: --seeds expects seeds such as 1,2,3, got '" + seeds + "'");
    values.push_back(seed);
  }
  if (values.empty()) throw Error("attention-cli train: --seeds expects seeds such as 1,2,3, got '" + seeds + "'");
  for (size_t run = 0; run < values.size(); ++run) {
    std::vector<std::string> arguments = {argv[0], argv[1]};
    arguments.insert(arguments.end(), rest.begin(), rest.end());
    const auto dir = out + "/seed-" + std::to_string(values[run]);
    for (const auto& extra : {std::string("--seed"), std::to_string(values[run]), std::string("--out"), dir})
      arguments.push_back(extra);
    std::vector<char*> pointers;
    for (auto& argument : arguments) pointers.push_back(argument.data());
    std::fprintf(stderr, "train: seed %lld (%zu of %zu) → %s\n", static_cast<long long>(values[run]), run + 1,
                 values.size(), dir.c_str());
    const int status = run_train(static_cast<int>(pointers.size()), pointers.data());
    if (status != 0) return status;
  }
  return 0;
}

int run_train(int argc, char** argv) {
  for (int i = 2; i < argc; ++i)
    if (std::strcmp(argv[i], "--seeds") == 0) return run_train_seeds(argc, argv);
  const auto family = requested_family(argc, argv);
  const auto trained_as = family_traits(family).trained_as;
  if (trained_as == TrainedAs::Classifier) return run_train_classifier(argc, argv, family);
  if (trained_as == TrainedAs::Translation) return run_train_translation(argc, argv);
  const OptionSpec spec{{"arch", "layers", "heads", "d-model", "d-ff", "window", "train", "valid", "epochs", "batch",
                         "lr", "warmup", "schedule", "dropout", "clip", "seed", "out", "resume", "min-count",
                         "log-every", "save-every", "optimizer", "momentum", "weight-decay", "patience", "diag-mode", "lambda-p",
                         "norm", "positions", "activation", "device", "threads"},
                        {"no-diag-free-mask", "untied", "f16", "json", "keep-epochs"}};
  const CliOptions options("train", spec, argc, argv, 2);
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));

  auto settings = common_settings(options, 16, 200);

  // BET(SG) trains with its pointer loss (weight 1 unless --lambda-p says otherwise); the other
  // architectures have no syntax hints to point at.
  const auto arch = to_string(family);
  if (!options.has("resume")) settings.pointer_weight = family == ModelFamily::BetSg ? 1.0 : 0.0;
  settings.pointer_weight = get_number(options, "lambda-p", settings.pointer_weight);
  if (settings.pointer_weight < 0) throw Error("attention-cli train: --lambda-p must be ≥ 0");
  if (settings.pointer_weight > 0 && family != ModelFamily::BetSg)
    throw Error("attention-cli train: --lambda-p applies to --arch bet_sg only (this run trains " + arch + ")");

  // A classifier's label<TAB>text file would train the language model on its labels as words.
  for (const auto& path : {settings.train_path, settings.valid_path}) require_plain_text(path, arch, "train --arch " + arch);

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
    // The mask is on by default where the model reweights (bet_sf) and off elsewhere.
    if (options.flag("no-diag-free-mask")) json["diag_free_mask"] = false;
    config = parse_model_config(json, "attention-cli train");
  }

  install_interrupt_handler();
  const auto summary = train_language_model(config, vocabulary, settings, [&](const TrainProgress& progress) {
    print_progress(settings, progress, settings.pointer_weight > 0 ? "pointer" : nullptr, "tokens");
    return !interrupt_requested();
  });
  print_summary(options, settings, summary, "tokens");
  return summary.stopped ? 130 : 0;
}

}  // namespace aw

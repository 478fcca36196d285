// models/training/trainer.cpp — the language-model training loop (see trainer.h).
#include "models/training/trainer.h"

#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "models/errors.h"
#include "models/training/evaluation.h"
#include "models/nn/lama.h"
#include "models/runtime.h"
#include "models/checkpoint/safetensors.h"
#include "models/text/syntax_hints.h"
#include "models/translation/translation_data.h"

#include <ATen/core/Generator.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

namespace aw {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStateFile = "training_state.pt";

struct Position {
  int64_t step = 0;            // optimiser steps done
  int64_t epoch = 0;           // epoch in progress (0-based)
  int64_t batch_in_epoch = 0;  // batches of that epoch done
  double best_metric = 0.0;    // best validation metric so far (perplexity or accuracy)
  double epoch_loss_sum = 0.0; // the epoch's step losses so far (its history record is their mean)
};

// What one run trains on, whatever the task: `examples` rows (LM windows or documents) visited in
// a seeded order, one optimiser step per batch of rows, and a validation metric per epoch.
struct TrainingTask {
  std::string metric_name;      // "perplexity" (lower is better) or "accuracy" (higher is better)
  int64_t examples = 0;
  std::function<StepLosses(AttentionModel&, torch::optim::Optimizer&, const torch::Tensor& rows)> step;
  std::function<EvaluationResult(AttentionModel&)> validate;
  bool improves(double candidate, double best) const {
    return metric_name == "accuracy" ? candidate > best : candidate < best;
  }
  double worst() const {
    return metric_name == "accuracy" ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
};

std::vector<std::string> read_vocabulary_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail_in_file(path, "cannot be read");
  std::vector<std::string> vocabulary;
  for (std::string line; std::getline(in, line);) vocabulary.push_back(line);
  return vocabulary;
}

// Weights in float32 and the optimiser moments, so a resumed run continues exactly where it stopped
// even when the checkpoint itself is stored in F16.
void save_training_state(const std::string& dir, AttentionModel& model, torch::optim::Adam& optimizer,
                         const Position& position) {
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  for (const auto& item : model.module().named_parameters())
    archive.write("parameter." + item.key(), item.value().detach().to(torch::kCPU));
  archive.write("position", torch::tensor({position.step, position.epoch, position.batch_in_epoch}, torch::kLong));
  archive.write("best_metric", torch::tensor(position.best_metric, torch::kFloat64));
  archive.write("epoch_loss_sum", torch::tensor(position.epoch_loss_sum, torch::kFloat64));
  auto generator = at::globalContext().defaultGenerator(torch::kCPU);  // a handle sharing the global state
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    archive.write("rng_state", generator.get_state());
  }
  const auto path = (fs::path(dir) / kStateFile).string();
  archive.save_to(path + ".tmp");
  fs::rename(path + ".tmp", path);
}

Position load_training_state(const std::string& dir, AttentionModel& model, torch::optim::Adam& optimizer) {
  const auto path = (fs::path(dir) / kStateFile).string();
  if (!fs::exists(path)) fail_in_file(dir, std::string("no ") + kStateFile + " to resume from");
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  optimizer.load(archive);
  torch::NoGradGuard no_grad;
  for (auto& item : model.module().named_parameters()) {
    torch::Tensor value;
    archive.read("parameter." + item.key(), value);
    item.value().copy_(value);
  }
  torch::Tensor position_values, best, rng_state, epoch_loss_sum;
  archive.read("position", position_values);
  if (!archive.try_read("best_metric", best)) archive.read("best_perplexity", best);  // states written before classifiers
  archive.read("rng_state", rng_state);
  auto generator = at::globalContext().defaultGenerator(torch::kCPU);  // a handle sharing the global state
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(rng_state);
  }
  Position position;
  position.step = position_values[0].item<int64_t>();
  position.epoch = position_values[1].item<int64_t>();
  position.batch_in_epoch = position_values[2].item<int64_t>();
  position.best_metric = best.item<double>();
  // States written before the history: the epoch's mean then covers the resumed steps only.
  if (archive.try_read("epoch_loss_sum", epoch_loss_sum)) position.epoch_loss_sum = epoch_loss_sum.item<double>();
  return position;
}

void write_training_json(const std::string& dir, const TrainSettings& settings, const std::string& metric_name,
                         const Position& position, double valid_metric, const TrainingHistory& history) {
  nlohmann::json json = {{"train", settings.train_path}, {"valid", settings.valid_path},
                         {"epochs", settings.epochs},    {"batch", settings.batch},
                         {"lr", settings.lr},            {"warmup_steps", settings.warmup_steps},
                         {"schedule", settings.schedule}, {"clip", settings.clip},
                         {"seed", settings.seed},        {"lambda_p", settings.pointer_weight},
                         {"label_smoothing", settings.label_smoothing},
                         {"storage", settings.storage == torch::kFloat16 ? "F16" : "F32"},
                         {"device", settings.device.str()},  // a run's numbers differ by device
                         {"step", position.step},
                         {"epoch", position.epoch},      {"valid_" + metric_name, valid_metric},
                         {"best_valid_" + metric_name, position.best_metric},
                         {"keep_epochs", settings.keep_epochs},
                         {"history", history_json(history)}};
  std::ofstream out(fs::path(dir) / "training.json");
  out << json.dump(2) << "\n";
}

// The order in which an epoch visits the windows: a shuffle seeded by (seed, epoch) alone, so a
// resumed run replays the same order.
std::vector<int64_t> epoch_order(int64_t windows, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> order(windows);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 engine(seed * 1000003ULL + static_cast<uint64_t>(epoch));
  for (int64_t i = windows - 1; i > 0; --i) {  // Fisher–Yates with our own draw, same on every libstdc++
    const auto j = static_cast<int64_t>(engine() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

// Back-propagates the step's loss, clips, steps the optimizer, and keeps the losses as plain values.
StepLosses apply_step(AttentionModel& model, torch::optim::Optimizer& optimizer, const TrainSettings& settings,
                      StepLosses losses) {
  losses.loss.backward();
  if (settings.clip > 0) torch::nn::utils::clip_grad_norm_(model.module().parameters(), settings.clip);
  optimizer.step();
  losses.loss = losses.loss.detach();
  if (losses.pointer.defined()) losses.pointer = losses.pointer.detach();
  return losses;
}

}  // namespace

StepLosses training_step(AttentionModel& model, torch::optim::Optimizer& optimizer, const ModelInput& input,
                         const torch::Tensor& hints, const TrainSettings& settings) {
  optimizer.zero_grad();
  ForwardOptions options;
  if (hints.defined()) options.capture = CaptureMode::Full;  // the pointer loss needs every layer's attention
  const auto result = model.forward(input, options);
  const auto sums = language_model_loss(result.logits, input, settings.label_smoothing);
  StepLosses losses;
  losses.tokens = sums.count;
  losses.loss = sums.total / sums.count;
  if (hints.defined()) {
    losses.pointer = pointer_loss(result.attention, hints.to(result.logits.device()));
    losses.loss = losses.loss + settings.pointer_weight * losses.pointer;
  }
  return apply_step(model, optimizer, settings, std::move(losses));
}

double learning_rate_at(const TrainSettings& settings, int64_t step, int64_t total_steps) {
  const double warmup = static_cast<double>(std::max<int64_t>(settings.warmup_steps, 1));
  const double s = static_cast<double>(std::max<int64_t>(step, 1));
  if (s <= warmup) return settings.lr * s / warmup;
  if (settings.schedule == "cosine") {
    const double progress = std::min(1.0, (s - warmup) / std::max(1.0, static_cast<double>(total_steps) - warmup));
    return settings.lr * 0.5 * (1.0 + std::cos(M_PI * progress));
  }
  return settings.lr * std::sqrt(warmup / s);
}

namespace {

// The config, vocabulary and tokenizer of a run: the fresh ones, or the --resume folder's own. The
// vocabulary goes into the output folder first and the tokenizer reads it from there.
struct RunSetup {
  ModelConfig config;
  std::vector<std::string> vocabulary;
  std::shared_ptr<const Tokenizer> tokenizer;
  std::string sentencepiece_model;  // transformer_mt: its SentencePiece model, copied into every saved folder
};

void check_settings(const TrainSettings& settings) {
  if (settings.schedule != "inverse_sqrt" && settings.schedule != "cosine")
    throw Error("--schedule must be inverse_sqrt or cosine, got " + settings.schedule);
  if (settings.epochs < 1 || settings.batch < 1) throw Error("--epochs and --batch must be at least 1");
  if (settings.label_smoothing < 0 || settings.label_smoothing >= 1)
    throw Error("--label-smoothing must be in [0, 1), got " + std::to_string(settings.label_smoothing));
}

void create_output_folder(const TrainSettings& settings) {
  std::error_code error;
  fs::create_directories(settings.out_dir, error);
  if (error) fail_in_file(settings.out_dir, "cannot create folder: " + error.message());
}

RunSetup prepare_run(const ModelConfig& fresh_config, const std::vector<std::string>& fresh_vocabulary,
                     const TrainSettings& settings) {
  check_settings(settings);
  const bool resuming = !settings.resume_dir.empty();
  RunSetup setup;
  setup.config = resuming ? read_model_config(settings.resume_dir) : fresh_config;
  setup.vocabulary =
      resuming ? read_vocabulary_file((fs::path(settings.resume_dir) / "vocab.txt").string()) : fresh_vocabulary;
  if (static_cast<int64_t>(setup.vocabulary.size()) != setup.config.vocab_size)
    throw Error("train: vocabulary of " + std::to_string(setup.vocabulary.size()) + " tokens for vocab_size " +
                std::to_string(setup.config.vocab_size));
  create_output_folder(settings);
  const auto vocab_path = (fs::path(settings.out_dir) / "vocab.txt").string();
  {
    std::ofstream out(vocab_path);
    for (const auto& token : setup.vocabulary) out << token << "\n";
    if (!out) fail_in_file(vocab_path, "cannot be written");
  }
  setup.tokenizer = load_word_tokenizer(vocab_path, setup.config.normalize_words);
  return setup;
}

// The loop every task shares: seeded order per epoch, learning-rate schedule, progress reports,
// validation and saving per epoch (and the best epoch in <out>/best), stop and resume.
TrainSummary run_training(const RunSetup& setup, const TrainSettings& settings, const TrainingTask& task,
                          const TrainObserver& observer) {
  const int64_t batches_per_epoch = (task.examples + settings.batch - 1) / settings.batch;
  const int64_t total_steps = batches_per_epoch * settings.epochs;

  torch::manual_seed(settings.seed);
  auto model = create_model(setup.config);
  auto& module = model->module();
  module.to(settings.device);
  torch::optim::Adam optimizer(module.parameters(),
                               torch::optim::AdamOptions(settings.lr).betas({0.9, 0.98}).eps(1e-9));
  Position position;
  position.best_metric = task.worst();
  TrainSummary summary;
  auto& history = summary.history;
  if (!settings.resume_dir.empty()) {
    position = load_training_state(settings.resume_dir, *model, optimizer);
    history = history_to_resume(settings.resume_dir);
    // Only what the saved state had reached: records past it would be replayed.
    history.steps.erase(std::remove_if(history.steps.begin(), history.steps.end(),
                                       [&](const StepRecord& record) { return record.step > position.step; }),
                        history.steps.end());
    history.epochs.erase(std::remove_if(history.epochs.begin(), history.epochs.end(),
                                        [&](const EpochRecord& record) { return record.epoch > position.epoch; }),
                         history.epochs.end());
  }
  history.metric_name = task.metric_name;
  summary.metric_name = task.metric_name;
  // A resumed run's last validation is its last recorded epoch's, not 0: a snapshot or a stop before
  // this process validates writes it into training.json.
  if (!history.epochs.empty()) summary.last_valid_metric = history.epochs.back().valid_metric;
  summary.parameters = count_parameters(*model);
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  int64_t tokens_since_report = 0, steps_since_report = 0, tokens_total = 0;
  double loss_since_report = 0.0, auxiliary_since_report = 0.0;
  int64_t last_save_step = position.step;

  auto save_all = [&](double valid_metric) {
    save_native_checkpoint(settings.out_dir, *model, setup.vocabulary, settings.storage, setup.sentencepiece_model);
    save_training_state(settings.out_dir, *model, optimizer, position);
    write_training_json(settings.out_dir, settings, task.metric_name, position, valid_metric, history);
  };
  // A checkpoint folder other than the run's own: best/ and, with keep_epochs, epoch-N/.
  auto save_copy = [&](const std::string& name, double valid_metric) {
    const auto dir = (fs::path(settings.out_dir) / name).string();
    save_native_checkpoint(dir, *model, setup.vocabulary, settings.storage, setup.sentencepiece_model);
    write_training_json(dir, settings, task.metric_name, position, valid_metric, history);
  };

  auto report = [&](TrainProgress progress) {
    progress.step = position.step;
    progress.total_steps = total_steps;
    progress.epoch = position.epoch;
    progress.metric_name = task.metric_name;
    return !observer || observer(progress);
  };

  while (position.epoch < settings.epochs && !summary.stopped) {
    module.train();
    const auto order = epoch_order(task.examples, settings.seed, position.epoch);
    while (position.batch_in_epoch < batches_per_epoch && !summary.stopped) {
      const auto first = position.batch_in_epoch * settings.batch;
      const auto count = std::min(settings.batch, task.examples - first);
      const auto rows = torch::tensor(std::vector<int64_t>(order.begin() + first, order.begin() + first + count),
                                      torch::kLong);
      const double rate = learning_rate_at(settings, position.step + 1, total_steps);
      for (auto& group : optimizer.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(rate);
      const auto losses = task.step(*model, optimizer, rows);
      ++position.step;
      ++position.batch_in_epoch;
      ++summary.steps;

      // One host sync per step for the progress figures is negligible next to the step itself.
      const auto tokens = losses.tokens.item<int64_t>();
      tokens_since_report += tokens;
      tokens_total += tokens;
      const double step_loss = losses.loss.item<double>();
      loss_since_report += step_loss;
      position.epoch_loss_sum += step_loss;
      if (losses.pointer.defined()) auxiliary_since_report += losses.pointer.item<double>();
      ++steps_since_report;
      if (position.step % settings.log_every == 0 || position.step == total_steps) {
        const auto now = std::chrono::steady_clock::now();
        const double elapsed = std::chrono::duration<double>(now - last_report).count();
        const double overall = std::chrono::duration<double>(now - start).count();
        TrainProgress progress;
        progress.loss = loss_since_report / steps_since_report;
        progress.pointer_loss = auxiliary_since_report / steps_since_report;
        progress.learning_rate = rate;
        progress.tokens_per_second = elapsed > 0 ? tokens_since_report / elapsed : 0.0;
        progress.eta_seconds = overall / summary.steps * (total_steps - position.step);
        history.steps.push_back(
            {position.step, position.epoch + 1, progress.loss, progress.pointer_loss, progress.learning_rate});
        last_report = now;
        tokens_since_report = steps_since_report = 0;
        loss_since_report = auxiliary_since_report = 0.0;
        // A snapshot at a report, where nothing is accumulated yet, resumes exactly (as a stop does).
        if (settings.save_every > 0 && position.step - last_save_step >= settings.save_every &&
            position.batch_in_epoch < batches_per_epoch) {
          save_all(summary.last_valid_metric);
          last_save_step = position.step;
        }
        summary.stopped = !report(progress);
      }
    }
    if (summary.stopped) break;

    // Epoch done: validate, save the folder (and the best one), move the position on.
    module.eval();
    const auto validation = task.validate(*model);
    const double valid = validation.metric;
    summary.last_valid_metric = valid;
    ++summary.epochs_done;
    const bool best = task.improves(valid, position.best_metric);
    if (best) position.best_metric = valid;
    history.epochs.push_back({position.epoch + 1, position.step,
                              position.epoch_loss_sum / static_cast<double>(std::max<int64_t>(position.batch_in_epoch, 1)),
                              validation.loss, valid});
    ++position.epoch;
    position.batch_in_epoch = 0;
    position.epoch_loss_sum = 0.0;
    save_all(valid);
    last_save_step = position.step;
    if (best) save_copy("best", valid);
    if (settings.keep_epochs) save_copy("epoch-" + std::to_string(position.epoch), valid);
    TrainProgress progress;
    progress.epoch_end = true;
    progress.valid_metric = valid;
    progress.valid_loss = validation.loss;
    if (task.metric_name == "perplexity") progress.valid_perplexity = valid;
    summary.stopped = !report(progress) && position.epoch < settings.epochs;
  }
  // Interrupted inside an epoch: save where we are so --resume continues from this step.
  if (summary.stopped && position.batch_in_epoch > 0) save_all(summary.last_valid_metric);

  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  summary.tokens_per_second = summary.seconds > 0 ? tokens_total / summary.seconds : 0.0;
  summary.best_valid_metric = position.best_metric;
  if (task.metric_name == "perplexity") {
    summary.best_valid_perplexity = summary.best_valid_metric;
    summary.last_valid_perplexity = summary.last_valid_metric;
  }
  return summary;
}

// A translation run's setup: the SentencePiece model (fresh, or the --resume folder's), which every
// saved folder gets a copy of; its pieces are the vocabulary.
RunSetup prepare_translation_run(const ModelConfig& fresh_config, const std::string& fresh_sentencepiece,
                                 const TrainSettings& settings) {
  check_settings(settings);
  const bool resuming = !settings.resume_dir.empty();
  RunSetup setup;
  setup.config = resuming ? read_model_config(settings.resume_dir) : fresh_config;
  if (setup.config.trained_as != TrainedAs::Translation)
    throw Error("train: a translation run needs --arch transformer_mt, got " + setup.config.family_name());
  const auto source = resuming ? (fs::path(settings.resume_dir) / "spm.model").string() : fresh_sentencepiece;
  if (!fs::exists(source)) fail_in_file(source, "does not exist (a transformer_mt run needs its SentencePiece model)");
  create_output_folder(settings);
  setup.sentencepiece_model = source;  // every save copies it into its folder (save_native_checkpoint)
  setup.tokenizer = load_sentencepiece_tokenizer(setup.sentencepiece_model, "", false);
  for (int64_t id = 0; id < setup.tokenizer->vocab_size(); ++id) setup.vocabulary.push_back(setup.tokenizer->token_text(id));
  if (setup.tokenizer->vocab_size() != setup.config.vocab_size)
    fail_in_file(setup.sentencepiece_model, "has " + std::to_string(setup.tokenizer->vocab_size()) +
                                                " pieces for vocab_size " + std::to_string(setup.config.vocab_size));
  return setup;
}

// The pairs of `path` encoded for the model, saying how many were too long to keep.
EncodedPairs encoded_pairs_of(const std::string& path, const RunSetup& setup) {
  const TranslationCodec codec(setup.config, setup.tokenizer, setup.tokenizer);
  auto encoded = encode_pairs(read_translation_pairs(path), codec, setup.config.max_positions,
                              setup.config.translation.pad_id);
  if (encoded.kept.empty())
    fail_in_file(path, "has no pair short enough for the model's " + std::to_string(setup.config.max_positions) +
                           " positions");
  if (encoded.skipped > 0)
    logger("training")->warn("{}: {} of {} pairs are longer than {} tokens on one side and are left out", path,
                             encoded.skipped, encoded.skipped + static_cast<int64_t>(encoded.kept.size()),
                             setup.config.max_positions);
  return encoded;
}

}  // namespace

TrainSummary train_translation_model(const ModelConfig& fresh_config, const std::string& sentencepiece_model,
                                     const TrainSettings& settings, const TrainObserver& observer) {
  if (settings.pointer_weight > 0) throw Error("train: --lambda-p applies to --arch bet_sg only");
  const auto setup = prepare_translation_run(fresh_config, sentencepiece_model, settings);
  const auto train = encoded_pairs_of(settings.train_path, setup);
  const auto valid_batches = pair_batches(encoded_pairs_of(settings.valid_path, setup), settings.batch);

  TrainingTask task;
  task.metric_name = "perplexity";
  task.examples = train.source_ids.size(0);
  task.step = [&](AttentionModel& model, torch::optim::Optimizer& optimizer, const torch::Tensor& rows) {
    return training_step(model, optimizer, pair_batch(train, rows).to(settings.device), torch::Tensor(), settings);
  };
  task.validate = [&](AttentionModel& model) { return evaluate_perplexity(model, valid_batches); };
  return run_training(setup, settings, task, observer);
}

TrainSummary train_language_model(const ModelConfig& fresh_config, const std::vector<std::string>& fresh_vocabulary,
                                  const TrainSettings& settings, const TrainObserver& observer) {
  const auto setup = prepare_run(fresh_config, fresh_vocabulary, settings);
  const auto& config = setup.config;
  if (config.trained_as != TrainedAs::LanguageModel)
    throw Error("train: --arch must be transformer_lm, bet_sf or bet_sg, got " + config.family_name());

  // Data: the same window cut as evaluation, all training windows in one padded tensor.
  const int64_t window = config.max_positions;
  const auto train_ids = read_token_corpus(settings.train_path, *setup.tokenizer);
  const auto all_windows = make_window_batches(train_ids, window, std::numeric_limits<int64_t>::max()).front();
  const bool with_pointer = settings.pointer_weight > 0;
  torch::Tensor all_hints;  // [windows, window]: BET(SG)'s hint per position, relative to its window
  if (with_pointer) {
    if (!is_conllu_path(settings.train_path))
      fail_in_file(settings.train_path, "is not a CoNLL-U (.conllu) file; the pointer loss (--lambda-p) needs its "
                                        "dependency trees");
    std::vector<int64_t> stream_hints;
    for (const auto& sentence : read_conllu(settings.train_path)) {
      const auto offset = static_cast<int64_t>(stream_hints.size());
      for (const auto hint : syntax_hints(sentence)) stream_hints.push_back(offset + hint);
    }
    // One token per word plus "<eos>" per sentence, exactly as read_token_corpus lays the text out.
    TORCH_INTERNAL_ASSERT(stream_hints.size() == train_ids.size(), "hints and tokens of ", settings.train_path,
                          " disagree: ", stream_hints.size(), " vs ", train_ids.size());
    all_hints = window_hints(stream_hints, window);
  }
  const auto valid_batches =
      make_window_batches(read_token_corpus(settings.valid_path, *setup.tokenizer), window, settings.batch);

  TrainingTask task;
  task.metric_name = "perplexity";
  task.examples = all_windows.input_ids.size(0);
  task.step = [&](AttentionModel& model, torch::optim::Optimizer& optimizer, const torch::Tensor& rows) {
    ModelInput input;
    input.input_ids = all_windows.input_ids.index_select(0, rows).to(settings.device);
    input.attention_mask = all_windows.attention_mask.index_select(0, rows).to(settings.device);
    return training_step(model, optimizer, input, with_pointer ? all_hints.index_select(0, rows) : torch::Tensor(),
                         settings);
  };
  task.validate = [&](AttentionModel& model) { return evaluate_perplexity(model, valid_batches); };
  return run_training(setup, settings, task, observer);
}

StepLosses classification_step(AttentionModel& model, torch::optim::Optimizer& optimizer, const ModelInput& input,
                               const torch::Tensor& labels, const TrainSettings& settings) {
  optimizer.zero_grad();
  const auto& config = model.config();
  ForwardOptions options;
  // LAMA's disagreement regularisers read the attention A (or S = result.hidden).
  if (config.has_lama_attention() && config.recurrent.regularizer != Regularizer::None)
    options.capture = CaptureMode::Full;
  const auto result = model.forward(input, options);
  const auto targets = labels.to(result.logits.device());
  StepLosses losses;
  losses.loss = torch::nn::functional::cross_entropy(result.logits.to(torch::kFloat32), targets);
  losses.pointer = classification_regularizer(config, result);
  if (losses.pointer.defined()) losses.loss = losses.loss + losses.pointer;
  losses.tokens = input.attention_mask.defined() ? input.attention_mask.sum() : torch::tensor(input.input_ids.numel());
  return apply_step(model, optimizer, settings, std::move(losses));
}

TrainSummary train_classifier(const ModelConfig& fresh_config, const std::vector<std::string>& fresh_vocabulary,
                              const TrainSettings& settings, const TrainObserver& observer) {
  const auto setup = prepare_run(fresh_config, fresh_vocabulary, settings);
  const auto& config = setup.config;
  if (config.trained_as != TrainedAs::Classifier)
    throw Error("train: a classifier run needs --arch lama, bigru_max, bigru_mean or encoder_classifier, got " +
                config.family_name());
  if (settings.pointer_weight > 0) throw Error("train: --lambda-p applies to --arch bet_sg only");

  // Every training document in one padded tensor; a batch is cut to its own longest document.
  const auto train_examples = read_labelled_file(settings.train_path, config.labels);
  const auto all = make_classifier_batches(train_examples, *setup.tokenizer, config.max_positions,
                                           static_cast<int64_t>(train_examples.size()));
  const auto& all_input = all.inputs.front();
  const auto& all_labels = all.labels.front();
  const auto valid_batches = make_classifier_batches(read_labelled_file(settings.valid_path, config.labels),
                                                     *setup.tokenizer, config.max_positions, settings.batch);

  TrainingTask task;
  task.metric_name = "accuracy";
  task.examples = all_labels.size(0);
  task.step = [&](AttentionModel& model, torch::optim::Optimizer& optimizer, const torch::Tensor& rows) {
    auto mask = all_input.attention_mask.index_select(0, rows);
    const auto longest = std::max<int64_t>(1, mask.sum(1).max().item<int64_t>());
    ModelInput input;
    input.input_ids = all_input.input_ids.index_select(0, rows).narrow(1, 0, longest).to(settings.device);
    input.attention_mask = mask.narrow(1, 0, longest).to(settings.device);
    return classification_step(model, optimizer, input, all_labels.index_select(0, rows), settings);
  };
  task.validate = [&](AttentionModel& model) { return evaluate_accuracy(model, valid_batches); };
  return run_training(setup, settings, task, observer);
}

}  // namespace aw

// models/training/trainer.cpp — the training entry points of trainer.h: each kind of run's setup
// (settings checked, output folder, vocabulary or SentencePiece model, data read into tensors) as a
// TrainingTask for the shared loop (training_loop.cpp), and the optimiser step of each kind of model.
#include "models/training/trainer.h"

#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/nn/lama.h"
#include "models/runtime.h"
#include "models/text/corpus.h"
#include "models/text/syntax_hints.h"
#include "models/training/evaluation.h"
#include "models/training/multi_tensor_optim.h"
#include "models/training/token_loss.h"
#include "models/training/training_loop.h"
#include "models/translation/translation_data.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

namespace aw {
namespace fs = std::filesystem;
using training_detail::RunSetup;
using training_detail::TrainingTask;
namespace {

// Clips the gradients the step's backward left (as clip_grad_norm_ does, without waiting for the device)
// and steps the optimizer.
void clip_and_step(AttentionModel& model, torch::optim::Optimizer& optimizer, const TrainSettings& settings) {
  if (settings.clip > 0) clip_gradient_norm(model.module().parameters(), settings.clip);
  optimizer.step();
}

// Back-propagates the step's loss, clips, steps the optimizer, and keeps the losses as plain values.
StepLosses apply_step(AttentionModel& model, torch::optim::Optimizer& optimizer, const TrainSettings& settings,
                      StepLosses losses) {
  losses.loss.backward();
  clip_and_step(model, optimizer, settings);
  losses.loss = losses.loss.detach();
  if (losses.pointer.defined()) losses.pointer = losses.pointer.detach();
  return losses;
}

}  // namespace

StepLosses backward_training_losses(AttentionModel& model, const ModelInput& input, const torch::Tensor& hints,
                                    const TrainSettings& settings, int64_t positions_per_chunk) {
  ForwardOptions options;
  if (hints.defined()) options.capture = CaptureMode::Full;  // the pointer loss needs every layer's attention
  const auto layers = model.run_layers(model.embed(input), input, 0, model.config().n_blocks, options);
  const auto device = layers.hidden.device();
  // Each predicted token weighs 1/count, so the chunks' weighted sum is the batch's mean token loss (in
  // float64 for a float64 model, whose loss the weights' rounding would otherwise bound at float's).
  const auto dtype = layers.hidden.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
  const auto keep = predicted_token_mask(input, device, dtype);                            // (B, n−1)
  StepLosses losses;
  losses.tokens = keep.sum();
  const auto token_loss = backward_next_token_loss(model, layers.hidden, keep / losses.tokens, input,
                                                   settings.label_smoothing, positions_per_chunk);
  losses.loss = token_loss.loss;
  if (!hints.defined()) {
    layers.hidden.backward(token_loss.hidden_gradient);
    return losses;
  }
  losses.pointer = pointer_loss(layers.attention, hints.to(device));
  const auto weighted_pointer = settings.pointer_weight * losses.pointer;
  torch::autograd::backward({layers.hidden, weighted_pointer},
                            {token_loss.hidden_gradient, torch::ones_like(weighted_pointer)});
  losses.loss = losses.loss + weighted_pointer.detach().to(losses.loss.dtype());
  losses.pointer = losses.pointer.detach();
  return losses;
}

StepLosses training_step(AttentionModel& model, torch::optim::Optimizer& optimizer, const ModelInput& input,
                         const torch::Tensor& hints, const TrainSettings& settings) {
  optimizer.zero_grad();
  auto losses = backward_training_losses(model, input, hints, settings);
  clip_and_step(model, optimizer, settings);
  return losses;
}

void check_train_settings(const TrainSettings& settings) {
  if (settings.schedule != "inverse_sqrt" && settings.schedule != "cosine" && settings.schedule != "constant")
    throw Error("--schedule must be inverse_sqrt, cosine or constant, got " + settings.schedule);
  if (settings.optimizer != "adam" && settings.optimizer != "sgd")
    throw Error("--optimizer must be adam or sgd, got " + settings.optimizer);
  if (settings.momentum < 0 || settings.momentum >= 1)
    throw Error("--momentum must be in [0, 1), got " + std::to_string(settings.momentum));
  if (settings.weight_decay < 0) throw Error("--weight-decay must be 0 or more, got " + std::to_string(settings.weight_decay));
  if (settings.patience < 0) throw Error("--patience must be 0 (never stop early) or more");
  if (settings.epochs < 1 || settings.batch < 1) throw Error("--epochs and --batch must be at least 1");
  if (settings.label_smoothing < 0 || settings.label_smoothing >= 1)
    throw Error("--label-smoothing must be in [0, 1), got " + std::to_string(settings.label_smoothing));
}

double learning_rate_at(const TrainSettings& settings, int64_t step, int64_t total_steps) {
  const double warmup = static_cast<double>(std::max<int64_t>(settings.warmup_steps, 1));
  const double s = static_cast<double>(std::max<int64_t>(step, 1));
  if (s <= warmup) return settings.lr * s / warmup;
  if (settings.schedule == "constant") return settings.lr;
  if (settings.schedule == "cosine") {
    const double progress = std::min(1.0, (s - warmup) / std::max(1.0, static_cast<double>(total_steps) - warmup));
    return settings.lr * 0.5 * (1.0 + std::cos(M_PI * progress));
  }
  return settings.lr * std::sqrt(warmup / s);
}

namespace {

void create_output_folder(const TrainSettings& settings) {
  std::error_code error;
  fs::create_directories(settings.out_dir, error);
  if (error) fail_in_file(settings.out_dir, "cannot create folder: " + error.message());
}

std::vector<std::string> read_vocabulary_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail_in_file(path, "cannot be read");
  std::vector<std::string> vocabulary;
  for (std::string line; std::getline(in, line);) vocabulary.push_back(line);
  return vocabulary;
}

// A word-level run's setup. The vocabulary goes into the output folder first and the tokenizer reads it
// from there.
RunSetup prepare_run(const ModelConfig& fresh_config, const std::vector<std::string>& fresh_vocabulary,
                     const TrainSettings& settings) {
  check_train_settings(settings);
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

// A translation run's setup: the SentencePiece model (fresh, or the --resume folder's), which every
// saved folder gets a copy of; its pieces are the vocabulary.
RunSetup prepare_translation_run(const ModelConfig& fresh_config, const std::string& fresh_sentencepiece,
                                 const TrainSettings& settings) {
  check_train_settings(settings);
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
  return training_detail::run_training(setup, settings, task, observer);
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
  return training_detail::run_training(setup, settings, task, observer);
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
  return training_detail::run_training(setup, settings, task, observer);
}

}  // namespace aw

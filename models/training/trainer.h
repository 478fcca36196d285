// models/training/trainer.h — training a language model (transformer_lm, bet_sf, bet_sg) on a word-level
// corpus (plain text, or CoNLL-U whose dependency trees give BET(SG) its syntax hints), a
// classifier (lama, bigru_mean, encoder_classifier) on label<TAB>text documents, or a translation
// model (transformer_mt) on source<TAB>target pairs. One loop for both:
// windows or documents shuffled per epoch with the seed, Adam (β = 0.9, 0.98) or SGD with momentum,
// linear warm-up then inverse-square-root or cosine decay or a constant rate, dropout, gradient
// clipping, and early stopping after `patience` epochs without a better validation metric. Each
// epoch writes a loadable checkpoint folder (plus the optimiser state for --resume) and keeps the best one by validation
// perplexity (lowest) or accuracy (highest) in <out>/best; with keep_epochs, every epoch's in
// <out>/epoch-N as well. training.json holds the loss history (training_history.h).
#pragma once

#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "models/training/training_history.h"

#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace aw {

struct TrainSettings {
  std::string train_path;
  std::string valid_path;
  std::string out_dir;
  std::string resume_dir;          // empty: start fresh
  int64_t epochs = 10;
  int64_t batch = 16;
  double lr = 1e-3;                // peak learning rate, reached after the warm-up
  int64_t warmup_steps = 200;
  std::string schedule = "inverse_sqrt";  // or "cosine" (to 0 at the last step), or "constant" (lr after the warm-up)
  std::string optimizer = "adam";  // Adam (β = 0.9, 0.98) or "sgd" with momentum (LAMA's §3.5)
  double momentum = 0.9;           // SGD's momentum
  double weight_decay = 0.0;       // L2 weight decay of either optimiser
  int64_t patience = 0;            // stop after this many epochs without a better validation metric (0: never)
  double clip = 1.0;               // max gradient ℓ2 norm; 0 = no clipping
  uint64_t seed = 1;
  double pointer_weight = 0.0;     // --lambda-p: BET(SG)'s pointer loss weight; > 0 needs a CoNLL-U train file
  double label_smoothing = 0.0;    // ε of the smoothed cross-entropy the training step minimises
  int64_t log_every = 50;          // steps between progress reports (and step records in the history)
  bool keep_epochs = false;        // also save each epoch's checkpoint in <out>/epoch-N (1-based)
  // Also save the run, resumable, at the first report N or more steps after its last save (0: only at
  // epoch ends and when stopped): a process killed without warning loses at most N steps.
  int64_t save_every = 0;
  torch::Device device = torch::kCPU;
  torch::ScalarType storage = torch::kFloat32;  // dtype of the saved weights (kFloat16 halves them)
};

struct TrainProgress {
  int64_t step = 0, total_steps = 0, epoch = 0;
  double loss = 0.0;               // mean training loss since the last report (task loss + auxiliary)
  // Mean auxiliary loss since the last report: BET(SG)'s λ_p-free pointer loss, or LAMA's λ · D
  // (0 without either).
  double pointer_loss = 0.0;
  double learning_rate = 0.0;
  double tokens_per_second = 0.0;
  double eta_seconds = 0.0;
  bool epoch_end = false;          // set once per epoch, with the validation metric
  std::string metric_name;         // "perplexity" (language models) or "accuracy" (classifiers)
  double valid_metric = 0.0;
  double valid_loss = 0.0;         // mean validation cross-entropy
  double valid_perplexity = 0.0;   // = valid_metric for language models
};

// Called every log_every steps and at each epoch end; returning false stops training after saving.
using TrainObserver = std::function<bool(const TrainProgress&)>;

struct TrainSummary {
  int64_t steps = 0;
  int64_t epochs_done = 0;
  std::string metric_name;         // "perplexity" or "accuracy"
  double best_valid_metric = 0.0;
  double last_valid_metric = 0.0;
  double best_valid_perplexity = 0.0;  // language models: = best_valid_metric
  double last_valid_perplexity = 0.0;
  double tokens_per_second = 0.0;
  double seconds = 0.0;
  int64_t parameters = 0;
  bool stopped = false;            // interrupted (and saved) before the last epoch
  bool stopped_early = false;      // validation did not improve for `patience` epochs: training ended there
  TrainingHistory history;         // as written to training.json (a resumed run's includes the earlier part)
};

// Trains `config` from scratch (fresh) or continues `settings.resume_dir`. `vocabulary` is used
// for a fresh run (ignored on resume, where the folder's own vocabulary is read).
TrainSummary train_language_model(const ModelConfig& config, const std::vector<std::string>& vocabulary,
                                  const TrainSettings& settings, const TrainObserver& observer = {});

// Trains a classifier (lama, bigru_mean, encoder_classifier; config.labels names the classes the
// label<TAB>text lines use) from scratch or from settings.resume_dir; best by validation accuracy.
TrainSummary train_classifier(const ModelConfig& config, const std::vector<std::string>& vocabulary,
                              const TrainSettings& settings, const TrainObserver& observer = {});

// The losses of one training step, as tensors on the model's device (no host sync).
struct StepLosses {
  torch::Tensor loss;     // task loss + auxiliary loss (what was minimised)
  torch::Tensor pointer;  // the auxiliary loss: pointer loss (BET(SG)) or λ · D (LAMA); undefined without
  torch::Tensor tokens;   // predicted tokens (LM) or words (classifier) in the batch
};

// Trains a translation model (transformer_mt) on source<TAB>target lines with teacher forcing and
// settings.label_smoothing, from scratch or from settings.resume_dir; best by validation perplexity of
// the reference translations. `sentencepiece_model` (a fresh run's tokenizer, shared by both sides;
// ignored on resume, where the folder's spm.model is read) is copied into every saved folder. Pairs
// longer than the model's positions on either side are left out (logged).
TrainSummary train_translation_model(const ModelConfig& config, const std::string& sentencepiece_model,
                                     const TrainSettings& settings, const TrainObserver& observer = {});

// A language or translation model's training losses on a batch, back-propagated into the parameters'
// .grad (added to what is there): forward (capturing attention when `hints` [B, n] is defined), mean token
// cross-entropy smoothed by settings.label_smoothing plus settings.pointer_weight × pointer loss. The
// output layer and loss run over chunks of `positions_per_chunk` positions (0: token_loss.h's default),
// so the batch's [B, n, V] logits are never held. The losses come back detached.
StepLosses backward_training_losses(AttentionModel& model, const ModelInput& input, const torch::Tensor& hints,
                                    const TrainSettings& settings, int64_t positions_per_chunk = 0);

// One optimiser step on a batch: zero the gradients, backward_training_losses, gradient clipping to
// settings.clip, optimizer.step(). The caller sets the learning rate and the training mode.
StepLosses training_step(AttentionModel& model, torch::optim::Optimizer& optimizer, const ModelInput& input,
                         const torch::Tensor& hints, const TrainSettings& settings);

// One optimiser step of a classifier: mean example cross-entropy plus the model's regulariser
// (classification_regularizer), backward, clipping, optimizer.step().
StepLosses classification_step(AttentionModel& model, torch::optim::Optimizer& optimizer, const ModelInput& input,
                               const torch::Tensor& labels, const TrainSettings& settings);

// Throws aw::Error with one line for a setting no run can use (an unknown schedule or optimiser, a
// momentum outside [0, 1), a negative weight decay or patience, no epoch or batch).
void check_train_settings(const TrainSettings& settings);

// The learning rate at `step` (1-based) for the settings' schedule.
double learning_rate_at(const TrainSettings& settings, int64_t step, int64_t total_steps);

}  // namespace aw

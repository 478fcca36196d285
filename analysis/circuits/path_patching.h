// analysis/circuits/path_patching.h — path patching (Wang et al. 2022; Goldowsky-Dill et al. 2023) on
// clean/corrupted pairs (analysis/patching/patch_pairs.h): the effect of one sender head's clean
// output reaching only one receiver — a later head's query, key or value input, or the logits
// directly — with every other path frozen at the corrupted run. The metric is the logit difference
// m = logit(answer) − logit(foil) at the prompt's last position, as in `patch`. Definitions:
// docs/circuits.md "Path patching". Dimension letters: B pairs of a batch, n positions, H heads.
#pragma once

#include "analysis/patching/patch_pairs.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

enum class PathKind { Logits, Query, Key, Value };
std::string path_kind_name(PathKind kind);  // "logits", "q", "k", "v"

// A sender: one head, or a set of heads of one layer whose clean outputs travel together.
struct PathSender {
  int64_t layer = 0;  // the block (a translation model's in its one numbering: model_config.h)
  std::vector<int64_t> heads;
};
// A receiver: the logits (layer −1, no heads), or the query inputs of a set of query heads of one layer,
// or the key or value inputs of a set of its key/value heads (under grouped-query attention every
// query head of a group reads them).
struct PathReceiver {
  PathKind kind = PathKind::Logits;
  int64_t layer = -1;
  std::vector<int64_t> heads;
};

// Every head of the model as a sender of its own, layer-major.
std::vector<PathSender> every_head(const ModelConfig& config);
// Each head of `layer` alone as a receiver: q of every query head, then k and v of every key/value head.
std::vector<PathReceiver> layer_receivers(const ModelConfig& config, int64_t layer);
// "1.3+1.1", "logits", "2.1+2.3" (1-based, as the tables write them); with the model's config, a
// translation model's by attention kind: "enc1.3+enc1.1", "cross2.1".
std::string sender_name(const PathSender& sender);
std::string receiver_heads_name(const PathReceiver& receiver);
std::string sender_name(const PathSender& sender, const ModelConfig& config);
std::string receiver_heads_name(const PathReceiver& receiver, const ModelConfig& config);
// Whether any head writes what `receiver` reads before it (path_exists for some block).
bool has_senders(const ModelConfig& config, const PathReceiver& receiver);
// A block's name: its layer "2", or a translation model's kind and layer "cross2" (1-based).
std::string block_name(const ModelConfig& config, int64_t block);

struct PathPatchSettings {
  std::vector<PathSender> senders;      // empty: every head alone
  std::vector<PathReceiver> receivers;  // in the table's order; empty: the logits
  int64_t batch = 8;                    // pairs per group of forwards (of one prompt length)
  int64_t rows = 256;                   // rows per forward of the patched runs
  torch::Tensor gates;                  // [L, H_max] every run is made under (undefined: all on)
};

struct PathPatchResult {
  std::vector<PathSender> senders;
  std::vector<PathReceiver> receivers;
  torch::Tensor clean, corrupted;  // [P] float64: m of each pair's clean and corrupted run
  torch::Tensor patched;           // [S, R, P] float64: m with the path patched; NaN where the receiver is
                                   // not after the sender
  bool cancelled = false;
};

// Throws aw::Error (one line) for what path_patch() refuses (below), before anything runs.
void check_path_patch(const ModelConfig& config, const PathPatchSettings& settings);

// Throws aw::Error (one line) for a model that is not a language model of transformer blocks or a
// pre-norm translation model (translation_path_patching.h: paths by attention kind), a sender or
// receiver head it lacks, or a receiver no earlier head writes to.
PathPatchResult path_patch(AttentionModel& model, const std::vector<PatchPair>& pairs, const PathPatchSettings& settings,
                           const ProgressCallback& progress = {});

}  // namespace aw

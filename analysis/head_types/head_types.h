// analysis/head_types/head_types.h — what kind of head each attention head is, from its attention
// weights A[i, j] (row i = query, column j = key) over the valid tokens t of each sequence:
//   previous_token   mean over rows i ≥ 1 of A[i, i − 1]
//   duplicate_token  mean, over rows whose token occurred earlier, of the weight on those earlier
//                    occurrences: Σ_{j < i, t[j] = t[i]} A[i, j]
//   induction        mean, over rows whose token occurred earlier, of the weight on the tokens that
//                    followed those occurrences: Σ_{1 ≤ j ≤ i, t[j − 1] = t[i]} A[i, j] (Olsson et
//                    al. 2022; on a random sequence repeated twice, the stripe i − T + 1)
//   sink             α₁, mean over every row of A[i, 0], the weight on the first token (Gu et al.
//                    2024); the model's sink rate is the share of heads with α₁ > ε
//   entropy          mean over every row of −Σ_j A[i, j] ln A[i, j], in nats
//   self             mean over every row of A[i, i]
//   learned_sink     models with learned sinks (gpt-oss): mean over every row of the sink's share,
//                    1 − Σ_j A[i, j]; a head counts towards the sink rate when α₁ or this exceeds ε
// Each score is a sum over rows and a count of rows, accumulated per head on the model's device tile
// by tile (nothing holds a layer's n × n matrix) and pooled over every sequence: a sequence adds
// its rows, not its mean. Definitions and sources: docs/head-types.md.
#pragma once

#include "models/nn/model.h"
#include "models/progress.h"
#include "table/result_table.h"

#include <torch/types.h>

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace aw {

// The scores, in the order of every array and table here.
enum class HeadType { PreviousToken, DuplicateToken, Induction, Sink, Entropy, Self, LearnedSink };
constexpr int kHeadTypes = 7;
// "previous_token", "duplicate_token", "induction", "sink", "entropy", "self", "learned_sink": column
// and setting names.
const std::array<const char*, kHeadTypes>& head_type_names();
// The index of a name in head_type_names(), or −1.
int head_type_index(const std::string& name);

// Per-head sums and row counts of every score, fed one tile of a layer's probabilities at a time —
// apart from the forward, so hand-built matrices can be checked against worked answers.
class HeadTypeAccumulator {
 public:
  // heads_per_layer: each layer's head count; the sums live on `device` in float64. causal: row i
  // holds 0 beyond key i (a decoder's), so those weights are not read.
  // learned_sinks: the rows' probabilities sum to 1 − the sink's share (DecoderPart::attention_sinks),
  // read as the learned_sink score; without, that score has no rows.
  HeadTypeAccumulator(std::vector<int64_t> heads_per_layer, const torch::Device& device, bool causal = false,
                      bool learned_sinks = false);
  ~HeadTypeAccumulator();
  // probabilities [B, H, rows, n] of `layer` (0-based), query rows first_row … first_row + rows − 1;
  // ids [B, n] int64 and valid [B, n] bool (false = padding) of the batch, on the probabilities'
  // device. A key a row may not see holds 0 (as a softmax leaves it); padded rows are skipped. What
  // each score reads depends on the tokens only: it is kept while the same ids and valid tensors
  // come back (the layers of one batch).
  void add(int64_t layer, const torch::Tensor& probabilities, const torch::Tensor& ids, const torch::Tensor& valid,
           int64_t first_row = 0);
  // [2, kHeadTypes, L, H_max]: the sums, then the row counts (the same for every head of a layer).
  const torch::Tensor& sums() const { return sums_; }
  void add_sums(const torch::Tensor& sums) { sums_ += sums; }

 private:
  struct TileEntries;
  TileEntries entries(const torch::Tensor& ids, const torch::Tensor& valid, int64_t first_row, int64_t rows) const;

  std::vector<int64_t> heads_per_layer_;
  bool causal_ = false;
  bool learned_sinks_ = false;
  torch::Tensor sums_;
  torch::Tensor cached_ids_, cached_valid_;                                // the batch the cache is for
  std::map<std::pair<int64_t, int64_t>, std::unique_ptr<TileEntries>> cache_;  // by (first row, rows)
  int64_t cached_bytes_ = 0;
};

// One head's scores (NaN where no row had the score's pattern) and the rows behind each.
struct HeadTypeScores {
  int64_t layer = 0, head = 0;  // 1-based
  std::array<double, kHeadTypes> score{};
  std::array<int64_t, kHeadTypes> rows{};
  // The induction score read on the corpus too, when there is one (NaN otherwise): on text that
  // repeats itself (code, lists, a copy task) it says whether the head copies there as well.
  double corpus_induction = std::numeric_limits<double>::quiet_NaN();
};

// Which sums each score is read from: the corpus's or the generated sequences' (induction is
// read on repeated random tokens; the others on the corpus when there is one).
struct HeadTypeSources {
  torch::Tensor corpus;     // [2, kHeadTypes, L, H_max] or undefined
  torch::Tensor generated;  // the same for the repeated random sequences, or undefined
};

struct HeadTypesResult {
  std::string model;
  std::vector<HeadTypeScores> heads;  // layer-major
  double sink_epsilon = 0.3;
  bool learned_sinks = false;  // the model has them: the table gains learned_sink
  int64_t corpus_sequences = 0, generated_sequences = 0;
  bool cancelled = false;

  // The share of heads whose sink score (or learned sink's share) exceeds sink_epsilon (heads without
  // a score not counted).
  double sink_rate() const;
  // [layer][head] of one score, for the heads panel.
  std::vector<std::vector<double>> values(HeadType type) const;
};

// Runs every batch through `model` (inference mode, capture without keeping the matrices, the layers
// alone: no logits) under `forward`'s gates and returns the summed accumulator ([2, kHeadTypes, L, H_max]
// on the CPU); undefined when `progress` cancelled.
torch::Tensor head_type_sums(AttentionModel& model, const std::vector<ModelInput>& batches,
                             const ForwardOptions& forward, const ProgressCallback& progress = {});

// The scores from the sums: induction from `generated` when defined, every other score from
// `corpus` when defined, else from `generated`.
std::vector<HeadTypeScores> head_type_scores(const HeadTypeSources& sources, const std::vector<int64_t>& heads_per_layer);

// The CSV: metadata (model, sink_epsilon, sink_rate, what each score was read on), then
// `layer,head,previous_token,duplicate_token,induction,sink,entropy,self`, `learned_sink` for a model
// with learned sinks, then `induction_text` when
// the scores were read on a corpus; the rows behind each score in the JSON only (`<score>_rows`).
ResultTable head_types_table(const HeadTypesResult& result);

}  // namespace aw

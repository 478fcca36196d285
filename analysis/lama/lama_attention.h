// analysis/lama/lama_attention.h — LAMA's attention over the words of labelled documents, as plain data
// (no tensors) for the word-weight analyses, the CLI and the GUI's document view. A document's
// attention is A [m × n]: per head, a distribution over its n words (rows sum to 1).
#pragma once

#include "models/text/corpus.h"
#include "models/nn/model.h"
#include "models/progress.h"
#include "models/text/tokenizer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct DocumentAttention {
  int64_t index = 0;                // 0-based position among the examples given
  int64_t label = 0;                // class index (config.labels[label] is its name)
  std::vector<std::string> tokens;  // the words as the model saw them ("<unk>" for unknown words)
  int64_t heads = 0;                // m
  std::vector<float> weights;       // [heads × tokens], row-major: weights[h · n + t]

  int64_t length() const { return static_cast<int64_t>(tokens.size()); }
  float weight(int64_t head, int64_t position) const { return weights[head * length() + position]; }
};

// Which number stands for a word's attention: the mean over heads (head 0) or head K (1-based),
// optionally times the document's length n, so 1.0 means "as much as a uniform distribution".
enum class WeightScale { None, Length };
struct WeightSelection {
  int64_t head = 0;  // 0 = mean over the m heads; K = head K (1-based, like the rest of the CLI)
  WeightScale scale = WeightScale::None;
};
double selected_weight(const DocumentAttention& document, int64_t position, const WeightSelection& selection);
// "mean" → 0, "K" → K; throws aw::Error("--head …") for anything else or K outside 1..heads.
int64_t parse_head_choice(const std::string& text, int64_t heads);
// "none" | "length"; throws aw::Error("--scale …") otherwise.
WeightScale parse_weight_scale(const std::string& text);

struct DocumentAttentionResult {
  std::vector<DocumentAttention> documents;
  int64_t truncated = 0;  // documents cut to the model's max_positions words
  bool cancelled = false;
};

// Throws aw::Error unless `config` is a LAMA model (word weights need its per-word attention).
void require_lama(const ModelConfig& config, const std::string& model_name);

// Runs `model` (LAMA) over the examples in batches of `batch_size` under inference mode and keeps each
// document's attention. `progress` sees (batches done, batches); when it cancels, the documents so
// far come back with `cancelled` set.
DocumentAttentionResult lama_document_attention(AttentionModel& model, const Tokenizer& tokenizer,
                                                const std::vector<LabelledExample>& examples, int64_t batch_size = 32,
                                                const ProgressCallback& progress = {});

}  // namespace aw

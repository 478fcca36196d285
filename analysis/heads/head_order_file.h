// analysis/heads/head_order_file.h — a pruning order computed elsewhere, for the held-out protocol (rank the
// heads on one data set, draw the pruning curve on another): an `importance` CSV, pruned in
// ascending importance, or a single-head `ablate` CSV, pruned in ascending damage (the delta itself
// for perplexity, minus it for accuracy and BLEU, from the file's "# metric=" line). Either CSV may
// come from this workbench or any tool that writes the same columns (`layer,head,importance`;
// `layer,head,…,delta` after a "# …, metric=perplexity" line; translation models with `kind` first).
#pragma once

#include "analysis/heads/head_pruning.h"
#include "models/nn/model_config.h"

#include <string>
#include <vector>

namespace aw {

struct HeadOrderFile {
  std::string kind;            // "importance" or "oracle"
  std::vector<HeadRef> order;  // the heads of the chosen blocks, the first to prune first
};

// Reads `path` for `model_name` (config `config`); rows of heads outside `blocks` (empty = all) are
// ignored, and every head of `blocks` needs exactly one row. Ties go to the lower block, then the
// lower head (order_heads). Throws aw::Error naming the file (and line) for anything else: no such
// file, no importance or delta column, an all-but-one ablation, a kind column missing or unexpected,
// a layer or head the model lacks, a head listed twice or missing, a value that is not a finite number.
HeadOrderFile read_head_order_file(const std::string& path, const ModelConfig& config, const std::string& model_name,
                                   const std::vector<int64_t>& blocks);

}  // namespace aw

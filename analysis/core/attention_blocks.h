// analysis/core/attention_blocks.h — heads addressed by (kind, layer, head) in what analyses print. The
// analyses work on attention blocks (models/nn/model_config.h numbers them); a translation model's
// CSV rows say which attention a block is (kind enc, dec or cross) and its layer within that kind,
// while a one-kind model's rows keep their plain `layer` column, unchanged. --attention chooses the
// blocks of one kind.
#pragma once

#include "analysis/core/descriptor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct BlockNames {
  bool with_kind = false;          // translation models: a `kind` column, layers counted within a kind
  std::vector<std::string> kind;   // per block: "enc", "dec" or "cross"
  std::vector<int64_t> layer;      // per block: 1-based layer within its kind

  // The columns that name a block: kind (translation models) and layer.
  void add_columns(ResultTable& table) const;
  // Block `block`'s cells for those columns: {"cross", 2} or {3}.
  std::vector<Cell> cells(int64_t block) const;
};
BlockNames block_names(const ModelConfig& config);

// --attention all|enc|dec|cross: the blocks of that kind, in order (all: every block). Throws
// SettingError naming --attention when `config` (model `model_name`) has no attention of that kind.
std::vector<int64_t> selected_blocks(const ModelConfig& config, const std::string& attention,
                                     const std::string& model_name);

// The --attention field (default all).
SettingField attention_field();

}  // namespace aw

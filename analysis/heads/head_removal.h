// analysis/heads/head_removal.h — real pruning (Michel et al. §5, Table 4): a copy of a model with heads
// physically removed — the rows of Q, K and V and the columns of O that belong to them (and their
// BET(SF) bird-eye weights) are dropped and config.heads_per_block says how many heads each layer
// keeps. The copy computes exactly what the original computes with those heads' gates at 0.
#pragma once

#include "analysis/heads/head_pruning.h"
#include "models/nn/model.h"

#include <memory>
#include <vector>

namespace aw {

// Native architectures (transformer_lm, bet_sf, bet_sg, transformer_mt, whose heads are addressed by
// attention block: HeadRef::layer is the block) and the llama, mistral, qwen2 and gpt_neox families;
// throws aw::Error for others or for a head that does not exist. `heads` may list a head once at
// most. Under grouped-query attention the heads are query heads: a key/value head is removed only
// when none of its query heads remain (DecoderPart::query_groups records who is left).
std::shared_ptr<AttentionModel> remove_heads(AttentionModel& model, const std::vector<HeadRef>& heads);

}  // namespace aw

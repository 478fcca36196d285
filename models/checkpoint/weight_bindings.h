// models/checkpoint/weight_bindings.h — one table per foreign layout (Hugging Face GPT-2, BERT, Marian,
// BART, the Llama family and its kin, GPT-NeoX): which tensor of the checkpoint file fills which parameter of the
// transformer, and how (GPT-2 stores Conv1D weights as (in, out) and fuses Q, K, V into one c_attn
// matrix; GPT-NeoX fuses them head by head). Native files need no table:
// they hold the module's named_parameters() under their own names (save_native_checkpoint).
#pragma once

#include "models/nn/model_config.h"

#include <optional>
#include <string>
#include <vector>

namespace aw {

struct WeightBinding {
  std::string parameter;             // our parameter, e.g. "layers.0.attn.q.weight"
  std::vector<std::string> sources;  // tensor names in the file, first found wins (aliases: gamma/beta)
  bool transpose = false;            // the file holds the (in, out) transpose (GPT-2 Conv1D)
  int64_t part = 0;                  // take slice `part` of `parts` equal slices along the file's last dim
  int64_t parts = 1;
  // With groups > 0 the slices lie along the file's first dim instead, `parts` of them inside each
  // of `groups` blocks (GPT-NeoX's query_key_value: per head, its query, key and value rows).
  int64_t groups = 0;
  // With rows > 0, rows first_row … first_row + rows − 1 of a file tensor of source_rows rows
  // (Phi-3's qkv_proj and gate_up_proj: q, k and v, or gate and up, one after the other).
  int64_t first_row = 0, rows = 0, source_rows = 0;
  // The file may hold the tensor in MXFP4 instead (gpt-oss's experts as the Hub ships them):
  // <source>_blocks [E, R, G, 16] and <source>_scales [E, R, G], dequantised to [E, G·32, R].
  bool mxfp4 = false;
};

struct WeightTable {
  std::vector<WeightBinding> bindings;     // one per parameter of the model
  std::vector<std::string> name_prefixes;  // prefixes a file may put before every name ("transformer.")
  std::vector<std::string> ignored;        // file tensors that are known and unused (substring match)
  bool allow_unknown = false;              // Hugging Face files carry heads we do not use
};

// The table of a Hugging Face family's layout (CheckpointFormat::HuggingFace); nothing for the native
// families.
std::optional<WeightTable> foreign_weight_table(const ModelConfig& config);

}  // namespace aw

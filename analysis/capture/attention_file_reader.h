// analysis/capture/attention_file_reader.h — an attention file (attention_file_writer.h's
// safetensors) read back, its layers memory-mapped.
#pragma once

#include "models/attention_kind.h"

#include <torch/types.h>

#include <string>
#include <vector>

namespace aw {

// A saved attention file (export_attention's safetensors) as read back: the layers stay in the file,
// memory-mapped (each tensor a view: a page is read when used).
struct AttentionFileContents {
  std::string model;                      // the model it was captured from
  std::string heads;                      // "all", or the model's heads it holds: "[1,3]"
  std::vector<std::string> tokens;        // a translation's source tokens
  std::vector<std::string> target_tokens; // a translation's decoder tokens (start, then the translation)
  std::string translation;
  std::vector<AttentionKind> kinds;       // per block its kind (translation files); empty for a one-kind file
  std::vector<int> layer_numbers;         // each block's layer (within its kind), from 1, in model order
  std::vector<torch::Tensor> layers;      // [H, rows, n] in the stored dtype (F32 or F16)
  std::vector<torch::Tensor> thumbnails;  // [H, ≤64, ≤64] F32 (made here for a file without them)
  // A region or pooled file (attend --rows/--cols/--pool): what its rows and columns stand for —
  // the region's tokens, or per block "12–27" (1-based, inclusive); empty = the tokens themselves.
  std::vector<std::string> row_labels, col_labels;
  std::string pool;                       // "8 mean", "8 max", or empty
};
// Throws aw::Error naming the file: not a safetensors file, not an attention file, no layers, a layer
// whose shape does not fit its tokens.
AttentionFileContents read_attention_file(const std::string& path);

}  // namespace aw

// analysis/capture/attention_file_writer.h — captured attention written to disk as the forward
// computes it: a .safetensors file of every chosen layer, or a .npy file of one; a translation's blocks.
#pragma once

#include "analysis/capture/pooled_attention.h"
#include "analysis/capture/translation_capture.h"
#include "models/nn/model.h"
#include "models/text/tokenizer.h"

#include <torch/types.h>

#include <string>
#include <vector>

namespace aw {

// Where and how export_attention writes: a .safetensors file (tensor "layer.<l>" [H, rows, n] per
// layer, numbered from 1 as in the CSVs; tokens, ids and model in the metadata) or a .npy file (one
// layer, [H, rows, n]).
struct AttentionExportSettings {
  std::string path;
  torch::ScalarType dtype = torch::kFloat32;  // or torch::kFloat16
  std::vector<int64_t> layers;                // 0-based, ascending; empty = every layer (a .npy: exactly one)
  std::vector<int64_t> heads;                 // 0-based, ascending, of each chosen layer; empty = all
  // A region of each layer: query rows [row_begin, row_end) × keys [col_begin, col_end), 0-based; an
  // end of −1 = to the last. The file's metadata then names it ("rows": "5-9", "cols": "1-9", 1-based).
  int64_t row_begin = 0, row_end = -1, col_begin = 0, col_end = -1;
  // > 0: each layer (or region) written as blocks of pool × pool cells (float32, the last ones
  // smaller where pool does not divide), each the mean or the maximum of its weights; "pool": "8 mean".
  int64_t pool = 0;
  PoolKind pool_kind = PoolKind::Mean;
  // A .safetensors file also holds "logits" [n, V] (F32): the next-token logits of every position
  // (a language model's; every layer is then run, and the output head).
  bool logits = false;
};

// A translation's captured attention (translate_and_capture) as a safetensors file: each block of the
// chosen kinds (empty = all) as "<kind>.<layer within its kind>" ("cross.2") [H, rows,
// cols] with its thumbnail; the source and target (decoder) tokens and the translation in the
// metadata. Throws aw::Error for a path that is not .safetensors or cannot be written, or a kind the
// model does not have.
void export_translation_attention(const TranslationCapture& capture, const ModelConfig& config,
                                  const std::string& model_name, const std::string& path, torch::ScalarType dtype,
                                  const std::vector<AttentionKind>& kinds);

// Whether `path` names a binary attention file (.safetensors or .npy) rather than JSON.
bool is_binary_attention_path(const std::string& path);

// The attention of one encoded text written tile by tile as the forward computes it (models/nn/
// attention.h): memory holds the model and a tile or two, never a layer's whole matrix, and the
// output head is not run. `also` sees each tile of the written layers [1, H, rows, n] first. Throws
// aw::Error naming the file for a path that cannot be written (nothing is left behind), a layer or
// head out of range, a region outside the text ("--rows 5-900 is outside the text's 120 tokens
// (1-120)") or a pool larger than the region.
void export_attention(AttentionModel& model, const std::string& model_name, const Encoding& encoding,
                      const AttentionExportSettings& settings, const AttentionTileObserver& also = {});

}  // namespace aw

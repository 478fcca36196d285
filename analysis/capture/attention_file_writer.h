// analysis/capture/attention_file_writer.h — captured attention written to disk as the forward
// computes it: a .safetensors file of every chosen layer, or a .npy file of one; a translation's blocks.
#pragma once

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

// The attention of one encoded text written layer by layer as the forward computes it: memory holds
// the model and one layer's attention, never all of them, and the output head is not run. `also`
// sees each written layer's probabilities [1, H, rows, n] first. Throws aw::Error naming the file
// for a path that cannot be written (nothing is left behind) or a layer out of range.
void export_attention(AttentionModel& model, const std::string& model_name, const Encoding& encoding,
                      const AttentionExportSettings& settings, const AttentionObserver& also = {});

}  // namespace aw

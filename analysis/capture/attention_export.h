// analysis/capture/attention_export.h — captured attention as data people read: the `attend` JSON
// ({"tokens", "ids", "attention": [layer][head][row][col]}) and the top attended keys of a row.
#pragma once

#include "analysis/capture/translation_capture.h"
#include "models/nn/model.h"
#include "models/text/tokenizer.h"

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <string>
#include <vector>

namespace aw {

// One encoded text as a model input: a batch of one, token types included.
ModelInput encoding_input(const Encoding& encoding);

// Runs one encoded text (a batch of one, token types included) in inference mode with every
// layer's attention captured: result.attention[l] is [1, H, n, n].
ForwardResult capture_attention(AttentionModel& model, const Encoding& encoding, ForwardOptions options = {});

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
};
// Throws aw::Error naming the file: not a safetensors file, not an attention file, no layers, a layer
// whose shape does not fit its tokens.
AttentionFileContents read_attention_file(const std::string& path);

// Thumbnails of attention blocks [H, rows, cols]: at most kThumbnailSide per side, each cell the
// mean of the weights it covers (adaptive average pooling); a block that small already is returned.
constexpr int64_t kThumbnailSide = 64;
torch::Tensor attention_thumbnail(const torch::Tensor& block);

// "1,3-5" → {0, 2, 3, 4}: numbers from 1 to `count`, single or as ranges, in any order, repeats
// merged. Throws aw::Error "<what>s 0: … numbered 1 to <count>" (what = "layer", "head") for a
// number out of range, a reversed range or anything else.
std::vector<int64_t> parse_numbered_list(const std::string& spec, int64_t count, const std::string& what);

// Whether `path` names a binary attention file (.safetensors or .npy) rather than JSON.
bool is_binary_attention_path(const std::string& path);

// The attention of one encoded text written layer by layer as the forward computes it: memory holds
// the model and one layer's attention, never all of them, and the output head is not run. `also`
// sees each written layer's probabilities [1, H, rows, n] first. Throws aw::Error naming the file
// for a path that cannot be written (nothing is left behind) or a layer out of range.
void export_attention(AttentionModel& model, const std::string& model_name, const Encoding& encoding,
                      const AttentionExportSettings& settings, const AttentionObserver& also = {});

// attention_by_layer: per layer [1, H, n, n] (batch of one) or [H, n, n].
nlohmann::json attention_json(const Encoding& encoding, const std::vector<torch::Tensor>& attention_by_layer);

struct AttendedToken {
  int64_t position = 0;
  double weight = 0.0;
};

// The k keys with the largest weight in `row` (a 1-d tensor), ties broken by the lower position.
std::vector<AttendedToken> top_attended(const torch::Tensor& row, int64_t k);

}  // namespace aw

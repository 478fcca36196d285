// models/checkpoint/checkpoint.h — loading and saving checkpoint folders: config.json, model.safetensors and
// the tokenizer files (native: vocab.txt or spm.model; GPT-2: vocab.json + merges.txt; BERT: vocab.txt;
// Marian: source.spm, target.spm + vocab.json; the rotary decoders: tokenizer.json).
#pragma once

#include "models/nn/model.h"
#include "models/text/tokenizer.h"

#include <torch/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aw {

class SafetensorsFile;
class TensorSource;  // safetensors.h: one file or a sharded checkpoint's files

struct LoadedModel {
  std::string dir;                           // the checkpoint folder (or GGUF file)
  std::string name;                          // its last path component, for tables and legends
  ModelConfig config;
  std::shared_ptr<AttentionModel> model;     // in eval() mode, on `device`
  std::shared_ptr<const Tokenizer> tokenizer;         // the input's (a translation model's source side)
  std::shared_ptr<const Tokenizer> target_tokenizer;  // translation models: the target side (may equal tokenizer)
  std::string stored_dtype;                  // "F32", "F16", "BF16" or e.g. "F16+F32" (GGUF: "F32+Q4_K+Q6_K")
  std::string quantisation;                  // a GGUF file's, for info: "Q4_K_M (Q4_K 112 tensors, …)"; "" otherwise
  torch::ScalarType dtype = torch::kFloat32; // the dtype the model computes in (--dtype)
  int64_t mapped_bytes = 0;                  // weights used in place from the mapped file, not copied
  int64_t parameter_count = 0;
  torch::Device device{torch::kCPU};
};

// The dtype a model computes in: F32, BF16 or F16, or nothing for the default (BF16 on CUDA where the
// family allows it, else F32). Transformer families compute in any (F16 on CUDA only: the CPU has no
// half-precision matrix product); recurrent (LAMA, BiGRU) and translation models in F32 only.
using ComputeDtype = std::optional<torch::ScalarType>;
// "f32", "bf16", "f16" or "auto" (nothing); throws aw::Error("--dtype …: expected …") otherwise.
ComputeDtype parse_compute_dtype(const std::string& name);
// The dtype a model of `config` computes in on `device` when `requested`; throws aw::Error for a
// family that cannot compute in the requested one.
torch::ScalarType resolve_compute_dtype(const ComputeDtype& requested, const torch::Device& device,
                                        const ModelConfig& config);
// "f32", "bf16" or "f16".
std::string dtype_name(torch::ScalarType dtype);

// Loads and validates a whole folder; throws aw::Error naming the file and what is wrong. On the CPU
// a weight stored in the compute dtype is used in place from the mapped file (no copy: mapped_bytes).
// A path to a .gguf file opens that file instead (gguf_model.h).
LoadedModel load_checkpoint(const std::string& dir, const torch::Device& device = torch::kCPU,
                            const ComputeDtype& dtype = std::nullopt);

// A new model of the config's family: randomly initialised, or with `initialise` false possibly
// uninitialised (for a checkpoint to fill).
std::shared_ptr<AttentionModel> create_model(const ModelConfig& config, bool initialise = true);
// Gives every floating parameter and buffer of a freshly created (uninitialised) model `dtype`:
// parameters get new empty storage (converting their uninitialised values would touch every page
// for nothing); buffers, which are computed (sinusoids), are converted. Safetensors and GGUF loading.
void use_dtype(torch::nn::Module& module, torch::ScalarType dtype);

// What load_weights found: the stored dtypes ("F16" or "F16+F32") and the bytes it mapped.
struct LoadedWeights {
  std::string stored_dtypes;
  int64_t mapped_bytes = 0;
};
// Fills every parameter of `model` from `file`: native files by the parameter's own name, foreign
// layouts through their weight table; checks names, shapes and dtypes, and refuses unknown tensors
// (foreign files may carry heads we do not use). Values are converted to each parameter's dtype.
// With `map_in_place` (CPU models only) a tensor stored in the parameter's dtype that needs no
// transform becomes the parameter itself, a read-only view of the file's mapping; the others are
// copied into one pre-faulted block.
LoadedWeights load_weights(AttentionModel& model, const TensorSource& file, bool map_in_place = false);

std::shared_ptr<const Tokenizer> load_tokenizer(const std::string& dir, const ModelConfig& config);
// A translation model's target-side tokenizer: Marian's target.spm (with the shared vocab.json), or
// the source's own when both sides share it (transformer_mt's spm.model, BART).
std::shared_ptr<const Tokenizer> load_target_tokenizer(const std::string& dir, const ModelConfig& config,
                                                       std::shared_ptr<const Tokenizer> source);

// Writes a native folder (config.json, model.safetensors, vocab.txt) of any native family
// (transformer_lm, bet_sf, bet_sg, encoder_classifier, lama, bigru_mean): `vocabulary[i]` is token i.
// `storage` is kFloat32 or kFloat16 (half the size; loads back as float32). A transformer_mt folder
// holds its SentencePiece model instead of vocab.txt: `sentencepiece_model` is copied to spm.model
// (and required for that family; `vocabulary` then lists its pieces, for the size check).
void save_native_checkpoint(const std::string& dir, AttentionModel& model, const std::vector<std::string>& vocabulary,
                            torch::ScalarType storage = torch::kFloat32, const std::string& sentencepiece_model = "");

// Writes a pruned model of a Hugging Face family that real pruning saves (FamilyTraits: llama,
// mistral, qwen2, gpt_neox) into `dir` the way this tool reads that family: `source_dir`'s
// config.json with heads_per_layer (and query_groups) added, the weights under the family's own
// tensor names in `storage` (kFloat32, kFloat16 or kBFloat16), and the tokenizer files copied (from a
// GGUF file: the config.json and tokenizer.json its metadata implies, gguf_model.h).
// Hugging Face's classes cannot load it: its layers differ in width.
void save_hugging_face_checkpoint(const std::string& dir, AttentionModel& model, const std::string& source_dir,
                                  torch::ScalarType storage);

int64_t count_parameters(AttentionModel& model);

}  // namespace aw

// models/checkpoint/gguf_model.h — a GGUF file (llama.cpp's single-file format) opened as a model: its
// metadata read as the Hugging Face config.json it implies (gguf_config.cpp) and parsed by the same
// parse_model_config as a folder's, its tokenizer rebuilt from the metadata as the tokenizer.json that
// transformers builds from it (gguf_tokenizer.cpp), and its tensors dequantised into the parameters
// under llama.cpp's names (gguf_model.cpp), undoing what llama.cpp's converter changed.
//
// Architectures, as general.architecture names them: llama (Llama 1–3, and the Mistral and other dense
// models converted as llama), qwen2, qwen3, gemma2 and gemma3. Every problem is one aw::Error line
// naming the file and the key, tensor or token.
#pragma once

#include "models/checkpoint/checkpoint.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>

namespace aw {

class GgufFile;

// Whether `path` names a GGUF file to open as a model (a regular file ending in ".gguf").
bool is_gguf_model_path(const std::string& path);

// The whole model (load_checkpoint calls it for a .gguf path): the file's quantisation goes to
// LoadedModel::quantisation, its tensor types to stored_dtype ("F32+Q4_K+Q6_K").
LoadedModel load_gguf_model(const std::string& path, const torch::Device& device = torch::kCPU,
                            const ComputeDtype& dtype = std::nullopt);

// "llama, qwen2, qwen3, gemma2, gemma3": what load_gguf_model opens.
const char* gguf_supported_architectures();
// Throws "<path>: architecture 'falcon' is not supported (supported: …)".
void require_supported_architecture(const GgufFile& file);

// The config.json the metadata implies (model_type, sizes, rope settings, tied output, biases, special
// token ids), for parse_model_config. Throws aw::Error naming the file and the key for a missing or
// inconsistent one.
nlohmann::json gguf_config_json(const GgufFile& file);

// The tokenizer.json transformers makes of the metadata (tokenizer.ggml.*), with its ids; and the
// tokenizer read from it. Throws one line naming the file and the missing or bad piece.
nlohmann::json gguf_tokenizer_json(const GgufFile& file);
std::shared_ptr<const Tokenizer> load_gguf_tokenizer(const GgufFile& file);

// The GGUF tensor that fills parameter `parameter` ("layers.3.attn.q.weight" → "blk.3.attn_q.weight"),
// or "" for a parameter no GGUF architecture here stores.
std::string gguf_tensor_name(const std::string& parameter);

}  // namespace aw

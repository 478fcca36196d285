// models/checkpoint/gguf_model.cpp — a GGUF file opened as a model (see gguf_model.h): the config and the
// tokenizer from its metadata, then each parameter dequantised from its tensor, straight into the
// parameter's float32 storage (or through one scratch buffer for another compute dtype), and put back the
// way Hugging Face lays it out where llama.cpp's converter changed it:
//   llama   attn_q / attn_k rows (weights and biases): each head's rotary halves were interleaved
//           (convert_hf_to_gguf.py's LlamaModel.permute); qwen2, qwen3 and gemma are stored as they are;
//   gemma   every *norm.weight was stored plus 1 (our RmsNormPlusOne multiplies by 1 + w).
#include "models/checkpoint/gguf_model.h"

#include "models/checkpoint/gguf_file.h"
#include "models/errors.h"
#include "models/runtime.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <filesystem>
#include <map>
#include <set>

namespace aw {
namespace {

namespace fs = std::filesystem;

// Our parameter names (models/nn) → llama.cpp's, for the parts every architecture here shares; a
// layer's parameters as "layers.N.<ours>" → "blk.N.<theirs>".
const std::map<std::string, std::string> kTopLevel = {
    {"tok_emb.weight", "token_embd.weight"}, {"ln_f.weight", "output_norm.weight"}, {"lm_head.weight", "output.weight"}};
const std::map<std::string, std::string> kLayer = {
    {"ln_1", "attn_norm"},           {"ln_2", "ffn_norm"},          {"ln_attn_out", "post_attention_norm"},
    {"ln_mlp_out", "post_ffw_norm"}, {"attn.q", "attn_q"},          {"attn.k", "attn_k"},
    {"attn.v", "attn_v"},            {"attn.o", "attn_output"},     {"attn.q_norm", "attn_q_norm"},
    {"attn.k_norm", "attn_k_norm"},  {"mlp.gate", "ffn_gate"},      {"mlp.fc1", "ffn_up"},
    {"mlp.fc2", "ffn_down"}};

// Tensors a file may hold that no parameter takes: llama's rope scaling, read into the config.
const std::set<std::string> kReadIntoTheConfig = {"rope_freqs.weight"};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// llama.cpp's rows of one q or k projection (per head: the rotary halves interleaved, (dh/2, 2)) back to
// Hugging Face's (per head: (2, dh/2)). `values` is [heads·dh, in] or a bias [heads·dh], changed in place.
void undo_rotary_permutation(torch::Tensor& values, int64_t heads) {
  const auto rows = values.size(0);
  const auto columns = values.numel() / rows;
  auto restored = values.reshape({heads, rows / heads / 2, 2, columns}).transpose(1, 2).contiguous();  // (H, 2, dh/2, in)
  values.copy_(restored.view(values.sizes()));
}

// The metadata's sizes against the tensors the file holds, before a model is allocated from them.
void require_weights_fit(const GgufFile& file, const ModelConfig& config) {
  double stored = 0;
  for (const auto& tensor : file.tensors()) stored += static_cast<double>(tensor.element_count);
  const double needed = minimum_weight_count(config);
  if (needed > stored)
    fail_in_file(file.path(), "its metadata describes a model of at least " +
                                  std::to_string(static_cast<long long>(std::min(needed, 9e18))) + " weights, but its tensors hold only " +
                                  std::to_string(static_cast<long long>(stored)) + " values; they do not belong together");
}

// Fills every parameter from the file; returns the tensor types used ("F32+Q4_K").
std::string fill_parameters(AttentionModel& model, const GgufFile& file) {
  const auto& config = model.config();
  const auto arch = file.architecture();
  const bool permuted = arch == "llama", plus_one = arch == "gemma2" || arch == "gemma3";
  std::set<std::string> used, types;
  std::vector<float> scratch;  // for a parameter that is not float32
  torch::NoGradGuard no_grad;
  for (auto& item : model.module().named_parameters()) {
    const auto name = gguf_tensor_name(item.key());
    TORCH_INTERNAL_ASSERT(!name.empty(), "no GGUF tensor name for parameter ", item.key());
    if (!file.contains(name))
      fail_in_file(file.path(), "missing tensor '" + name + "' (a " + arch + " model with this metadata needs it)");
    const auto& tensor = file.tensor(name);
    auto parameter = item.value();
    if (tensor.shape != parameter.sizes().vec())
      fail_in_file(file.path(), "tensor '" + name + "' has shape " + shape_string(tensor.shape) + " but the metadata needs " +
                                    shape_string(parameter.sizes()));
    const bool direct = parameter.scalar_type() == torch::kFloat32 && parameter.is_contiguous();
    if (!direct) scratch.resize(static_cast<size_t>(parameter.numel()));
    float* out = direct ? parameter.data_ptr<float>() : scratch.data();
    file.dequantise(name, out);
    auto values = direct ? parameter : torch::from_blob(out, parameter.sizes(), torch::kFloat32);
    if (permuted && (name.find(".attn_q.") != std::string::npos || name.find(".attn_k.") != std::string::npos)) {
      const auto layer = std::stoll(name.substr(4, name.find('.', 4) - 4));  // "blk.N.…"
      undo_rotary_permutation(values, name.find(".attn_q.") != std::string::npos ? config.heads_per_block.at(layer)
                                                                                  : config.kv_heads_in(layer));
    }
    if (plus_one && ends_with(name, "norm.weight")) values.sub_(1.0);
    if (!direct) parameter.copy_(values);
    used.insert(name);
    types.insert(tensor.type_name());
  }
  for (const auto& tensor : file.tensors())
    if (!used.count(tensor.name) && !kReadIntoTheConfig.count(tensor.name))
      fail_in_file(file.path(), "unexpected tensor " + quoted_excerpt(tensor.name) + " (not part of a " + arch +
                                    " model with this metadata)");
  std::string joined;
  for (const auto& type : types) joined += (joined.empty() ? "" : "+") + type;
  return joined;
}

}  // namespace

bool is_gguf_model_path(const std::string& path) {
  std::error_code error;
  return ends_with(path, ".gguf") && fs::is_regular_file(path, error);
}

std::string gguf_tensor_name(const std::string& parameter) {
  const auto top = kTopLevel.find(parameter);
  if (top != kTopLevel.end()) return top->second;
  if (parameter.rfind("layers.", 0) != 0) return "";
  const auto dot = parameter.find('.', 7);
  const auto last = parameter.rfind('.');
  if (dot == std::string::npos || last <= dot) return "";
  const auto part = kLayer.find(parameter.substr(dot + 1, last - dot - 1));  // "attn.q" of "layers.3.attn.q.weight"
  if (part == kLayer.end()) return "";
  return "blk." + parameter.substr(7, dot - 7) + "." + part->second + parameter.substr(last);
}

LoadedModel load_gguf_model(const std::string& path, const torch::Device& device, const ComputeDtype& dtype) {
  const auto file = GgufFile::open(path);
  require_supported_architecture(*file);
  file->require_all_dequantisable();  // before anything is read
  LoadedModel loaded;
  loaded.dir = path;
  loaded.name = fs::path(path).stem().string();
  loaded.config = parse_model_config(gguf_config_json(*file), path);
  loaded.tokenizer = load_gguf_tokenizer(*file);
  require_weights_fit(*file, loaded.config);
  loaded.dtype = resolve_compute_dtype(dtype, device, loaded.config);
  loaded.model = create_model(loaded.config, /*initialise=*/false);  // fill_parameters fills every parameter
  if (loaded.dtype != torch::kFloat32) use_dtype(loaded.model->module(), loaded.dtype);
  loaded.stored_dtype = fill_parameters(*loaded.model, *file);
  loaded.quantisation = gguf_quantisation_summary(*file);
  loaded.model->module().eval();
  loaded.model->module().to(device);
  loaded.device = device;
  loaded.parameter_count = count_parameters(*loaded.model);
  const auto& c = loaded.config;
  logger("models")->info("loaded {} ({} from GGUF, {} layers × {} heads, d={}, {:.1f}M parameters, {}, computing in {}) on {}",
                         loaded.name, c.family_name(), c.n_blocks, c.n_heads, c.d_model, loaded.parameter_count / 1e6,
                         loaded.quantisation, dtype_name(loaded.dtype), describe_device(device));
  return loaded;
}

}  // namespace aw

// models/checkpoint/checkpoint.cpp — checkpoint folders in and out (see checkpoint.h).
#include "models/checkpoint/checkpoint.h"

#include "models/nn/bigru_classifier.h"
#include "models/errors.h"
#include "models/json_input.h"
#include "models/nn/lama.h"
#include "models/runtime.h"
#include "models/checkpoint/gguf_file.h"
#include "models/checkpoint/gguf_model.h"
#include "models/checkpoint/mxfp4.h"
#include "models/checkpoint/safetensors.h"
#include "models/checkpoint/sharded_weights.h"
#include "models/nn/transformer.h"
#include "models/nn/translation.h"
#include "models/checkpoint/weight_bindings.h"
#include "models/text/hf_tokenizer.h"

#include <torch/torch.h>

#include <sys/mman.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace aw {
namespace fs = std::filesystem;
namespace {

bool is_float_dtype(const std::string& dtype) {
  return dtype == "F32" || dtype == "F16" || dtype == "BF16" || dtype == "F64";
}

// The shape the file must hold for a parameter of shape `shape` under `binding`.
std::vector<int64_t> source_shape(const WeightBinding& binding, std::vector<int64_t> shape) {
  if (binding.transpose) std::reverse(shape.begin(), shape.end());
  if (binding.parts > 1) (binding.groups > 0 ? shape.front() : shape.back()) *= binding.parts;
  if (binding.rows > 0) shape.front() = binding.source_rows;
  return shape;
}

std::string require_file(const std::string& dir, const std::string& name) {
  const auto path = (fs::path(dir) / name).string();
  if (!fs::exists(path)) fail_in_file(dir, "no " + name + " in this folder");
  return path;
}

bool read_lowercase_flag(const std::string& dir) {
  const auto path = fs::path(dir) / "tokenizer_config.json";
  if (!fs::exists(path)) return true;  // bert-base-uncased and most BERT folders
  const auto json = read_untrusted_json(path.string());
  if (json.is_object() && json.contains("do_lower_case") && json.at("do_lower_case").is_boolean())
    return json.at("do_lower_case").get<bool>();
  return true;
}

// config.json's sizes against the tensors model.safetensors holds, before a model is allocated from
// them: a config that claims more weights than the file stores does not belong to it (and, from a
// hostile file, would allocate terabytes).
void require_weights_fit(const std::string& dir, const ModelConfig& config, const TensorSource& file) {
  double stored = 0;
  for (const auto& name : file.names()) {
    double values = 1;
    for (auto size : file.record(name).shape) values *= static_cast<double>(size);
    stored += values;
  }
  const double needed = minimum_weight_count(config);
  if (needed > stored)
    fail_in_file((fs::path(dir) / "config.json").string(),
                 "describes a model of at least " + std::to_string(static_cast<long long>(std::min(needed, 9e18))) +
                     " weights, but " + fs::path(file.description()).filename().string() + " holds only " + std::to_string(static_cast<long long>(stored)) +
                     " values; they do not belong together");
}

// Moves the given (uninitialised) parameters into one anonymous mapping that the kernel fills with pages
// in a single call (MAP_POPULATE). Faulting 500 MB of fresh heap page by page took 1.3 s of a
// GPT-2-small load on our VMs; populated up front it takes ~0.1 s. Falls back to the heap silently.
void place_in_populated_memory(std::vector<torch::Tensor>& parameters) {
  constexpr int64_t kAlignment = 64;
  int64_t total = 0;
  for (const auto& parameter : parameters)
    total += (parameter.numel() * static_cast<int64_t>(parameter.element_size()) + kAlignment - 1) / kAlignment * kAlignment;
  if (total == 0) return;
  void* block = ::mmap(nullptr, static_cast<size_t>(total), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (block == MAP_FAILED) return;
  std::shared_ptr<void> arena(block, [total](void* p) { ::munmap(p, static_cast<size_t>(total)); });
  auto* cursor = static_cast<uint8_t*>(block);
  torch::NoGradGuard no_grad;
  for (auto& parameter : parameters) {
    const auto bytes = parameter.numel() * static_cast<int64_t>(parameter.element_size());
    parameter.set_data(torch::from_blob(cursor, parameter.sizes(), [arena](void*) {}, parameter.options()));
    cursor += (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }
}

}  // namespace

void use_dtype(torch::nn::Module& module, torch::ScalarType dtype) {
  torch::NoGradGuard no_grad;
  for (auto& parameter : module.parameters())
    parameter.set_data(torch::empty(parameter.sizes(), parameter.options().dtype(dtype)));
  for (auto& buffer : module.buffers())
    if (buffer.is_floating_point()) buffer.set_data(buffer.to(dtype));
}

std::shared_ptr<AttentionModel> create_model(const ModelConfig& config, bool initialise) {
  switch (config.network) {
    case Network::Recurrent:
      if (config.has_lama_attention()) return std::make_shared<LamaImpl>(config);
      return std::make_shared<BiGruImpl>(config);
    case Network::EncoderDecoder: return make_translation_transformer(config, initialise);
    case Network::Transformer: break;
  }
  return make_transformer(config, initialise);
}

int64_t count_parameters(AttentionModel& model) {
  int64_t count = 0;
  for (const auto& parameter : model.module().parameters()) count += parameter.numel();
  return count;
}

LoadedWeights load_weights(AttentionModel& model, const TensorSource& file, bool map_in_place) {
  // Native files hold every parameter under its own name (the module's named_parameters(), as
  // saved), untransformed; only foreign layouts need a table. Either way every parameter must be
  // found and nothing else may be in the file, unless the table allows it.
  const auto foreign = foreign_weight_table(model.config());
  const auto table = foreign ? *foreign : WeightTable{};
  std::map<std::string, const WeightBinding*> binding_of;
  for (const auto& binding : table.bindings) binding_of[binding.parameter] = &binding;

  std::set<std::string> used, dtypes;
  torch::NoGradGuard no_grad;
  // Checked first, then mapped, then copied: the copies go into one block made for them alone.
  struct Fill {
    torch::Tensor parameter;
    torch::Tensor value;  // the file's tensor, transformed as the binding says
  };
  std::vector<Fill> copies;
  int64_t mapped_bytes = 0;
  for (auto& item : model.module().named_parameters()) {
    WeightBinding binding{item.key(), {item.key()}};
    if (foreign) {
      const auto found = binding_of.find(item.key());
      TORCH_INTERNAL_ASSERT(found != binding_of.end(), "no weight binding for parameter ", item.key());
      binding = *found->second;
    }

    std::string source, quantised;
    for (const auto& prefix : table.name_prefixes.empty() ? std::vector<std::string>{""} : table.name_prefixes)
      for (const auto& candidate : binding.sources) {
        if (source.empty() && file.contains(prefix + candidate)) source = prefix + candidate;
        if (quantised.empty() && binding.mxfp4 && holds_mxfp4(file, prefix + candidate)) quantised = prefix + candidate;
      }
    if (source.empty() && !quantised.empty()) {  // gpt-oss's experts in MXFP4: dequantised here
      copies.push_back({item.value(), read_mxfp4(file, quantised, item.value().sizes().vec())});
      used.insert({quantised + "_blocks", quantised + "_scales"});
      dtypes.insert("MXFP4");
      continue;
    }
    if (source.empty())
      fail_in_file(file.description(), "missing tensor '" + binding.sources.front() + "' (a " + model.config().family_name() +
                                    " model with this config needs it)");

    const auto& record = file.record(source);
    const auto expected = source_shape(binding, item.value().sizes().vec());
    if (record.shape != expected)
      fail_in_file(file.path_of(source), "tensor '" + source + "' has shape " + shape_string(record.shape) +
                                    " but the config needs " + shape_string(expected));
    if (!is_float_dtype(record.dtype))
      fail_in_file(file.path_of(source), "tensor '" + source + "' has dtype " + record.dtype + "; weights must be F32, F16, BF16 or F64");

    auto value = file.tensor(source);
    used.insert(source);
    dtypes.insert(record.dtype);
    const bool as_stored = binding.parts == 1 && !binding.transpose && binding.rows == 0;
    if (map_in_place && as_stored && value.scalar_type() == item.value().scalar_type()) {
      item.value().set_data(value);
      mapped_bytes += value.numel() * static_cast<int64_t>(value.element_size());
      continue;
    }
    if (binding.parts > 1 && binding.groups > 0) {  // [groups · parts · rows, …] -> part's rows of each group
      auto grouped = value.sizes().vec();
      grouped.front() = -1;
      grouped.insert(grouped.begin(), {binding.groups, binding.parts});
      value = value.view(grouped).select(1, binding.part).reshape(item.value().sizes());
    } else if (binding.parts > 1) {
      value = value.chunk(binding.parts, -1)[binding.part];
    } else if (binding.rows > 0) {
      value = value.narrow(0, binding.first_row, binding.rows);
    }
    if (binding.transpose) value = value.t();
    copies.push_back({item.value(), value});
  }
  if (map_in_place) {
    std::vector<torch::Tensor> copied;
    for (const auto& fill : copies) copied.push_back(fill.parameter);
    place_in_populated_memory(copied);
  }
  for (auto& fill : copies) fill.parameter.copy_(fill.value);

  std::vector<std::string> unknown;
  for (const auto& name : file.names()) {
    if (used.count(name)) continue;
    bool ignored = false;
    for (const auto& pattern : table.ignored) ignored = ignored || name.find(pattern) != std::string::npos;
    if (!ignored) unknown.push_back(name);
  }
  if (!unknown.empty()) {
    if (!table.allow_unknown)
      fail_in_file(file.path_of(unknown.front()), "unexpected tensor " + quoted_excerpt(unknown.front()) + " (not part of a " +
                                    model.config().family_name() + " model with this config)");
    logger("models")->debug("{}: {} tensors not used (first: {})", file.description(), unknown.size(), unknown.front());
  }
  std::string joined;
  for (const auto& dtype : dtypes) joined += (joined.empty() ? "" : "+") + dtype;
  return {joined, mapped_bytes};
}

std::shared_ptr<const Tokenizer> load_tokenizer(const std::string& dir, const ModelConfig& config) {
  std::shared_ptr<const Tokenizer> tokenizer;
  std::string vocab_file;
  switch (config.tokenizer) {
    case TokenizerKind::Gpt2Bpe:
      // A GPT-2 folder's tokenizer.json wins over its vocab.json and merges.txt, as in transformers 5
      // (and matches its added tokens in the text). BART reads its own files: the translation codec
      // adds <s> and </s>, where its tokenizer.json's RobertaProcessing would.
      if (config.family == ModelFamily::Gpt2 && fs::exists(fs::path(dir) / "tokenizer.json")) {
        vocab_file = (fs::path(dir) / "tokenizer.json").string();
        tokenizer = load_hf_tokenizer(vocab_file);
        break;
      }
      vocab_file = require_file(dir, "vocab.json");
      tokenizer = load_gpt2_tokenizer(vocab_file, require_file(dir, "merges.txt"));
      break;
    case TokenizerKind::HfJson:
      vocab_file = require_file(dir, "tokenizer.json");
      tokenizer = load_hf_tokenizer(vocab_file);
      break;
    case TokenizerKind::WordPiece:
      // tokenizer.json wins over vocab.txt, as in transformers 5 (all-MiniLM-L6-v2 ships no vocab.txt).
      if (fs::exists(fs::path(dir) / "tokenizer.json")) {
        vocab_file = (fs::path(dir) / "tokenizer.json").string();
        tokenizer = load_hf_tokenizer(vocab_file);
        if (tokenizer->kind() != "wordpiece")
          fail_in_file(vocab_file, "is a " + tokenizer->kind() + " tokenizer; a bert model reads WordPiece");
        break;
      }
      if (!fs::exists(fs::path(dir) / "vocab.txt"))
        fail_in_file(dir, "no tokenizer.json or vocab.txt in this folder");
      vocab_file = (fs::path(dir) / "vocab.txt").string();
      tokenizer = load_wordpiece_tokenizer(vocab_file, read_lowercase_flag(dir));
      break;
    case TokenizerKind::Word:
      vocab_file = require_file(dir, "vocab.txt");
      tokenizer = load_word_tokenizer(vocab_file, config.normalize_words);
      break;
    // The translation codec (models/translation) adds EOS, so these tokenizers do not.
    case TokenizerKind::SentencePiece:  // transformer_mt: its own spm.model
      vocab_file = require_file(dir, "spm.model");
      tokenizer = load_sentencepiece_tokenizer(vocab_file, "", false);
      break;
    case TokenizerKind::SentencePiecePair:  // Marian: source.spm with the ids of the shared vocab.json
      vocab_file = require_file(dir, "vocab.json");
      tokenizer = load_sentencepiece_tokenizer(require_file(dir, "source.spm"), vocab_file, false);
      break;
  }
  // Native vocabularies are built with the model and must match its embedding exactly; Hugging Face
  // models may pad the embedding beyond the vocabulary, but never the reverse.
  const bool native = config.format == CheckpointFormat::Native;
  const auto tokens = tokenizer->vocab_size();
  if (tokens > config.vocab_size || (native && tokens != config.vocab_size))
    fail_in_file(vocab_file, "has " + std::to_string(tokens) + " tokens but the model's embedding has " +
                                 std::to_string(config.vocab_size) + " rows");
  return tokenizer;
}

std::shared_ptr<const Tokenizer> load_target_tokenizer(const std::string& dir, const ModelConfig& config,
                                                       std::shared_ptr<const Tokenizer> source) {
  if (config.tokenizer != TokenizerKind::SentencePiecePair) return source;
  return load_sentencepiece_tokenizer(require_file(dir, "target.spm"), require_file(dir, "vocab.json"), false);
}

ComputeDtype parse_compute_dtype(const std::string& name) {
  if (name == "auto") return std::nullopt;
  if (name == "f32") return torch::kFloat32;
  if (name == "bf16") return torch::kBFloat16;
  if (name == "f16") return torch::kFloat16;
  throw Error("--dtype " + quoted_excerpt(name) + ": expected f32, bf16, f16 or auto");
}

std::string dtype_name(torch::ScalarType dtype) {
  switch (dtype) {
    case torch::kBFloat16: return "bf16";
    case torch::kFloat16: return "f16";
    default: return "f32";
  }
}

torch::ScalarType resolve_compute_dtype(const ComputeDtype& requested, const torch::Device& device,
                                        const ModelConfig& config) {
  // The GRUs of the recurrent classifiers and the translation models' decoding are kept in float32.
  const bool reduced_ok = !config.is_recurrent() && !config.is_translation();
  if (!requested) return device.is_cuda() && reduced_ok ? torch::kBFloat16 : torch::kFloat32;
  if (*requested != torch::kFloat32 && !reduced_ok)
    throw Error("--dtype " + dtype_name(*requested) + ": " + config.family_name() +
                " models compute in f32 only (recurrent and translation models)");
  if (*requested == torch::kFloat16 && !device.is_cuda())
    throw Error("--dtype f16 needs CUDA: LibTorch's CPU kernels have no half-precision matrix product (use bf16 or f32)");
  return *requested;
}

LoadedModel load_checkpoint(const std::string& dir, const torch::Device& device, const ComputeDtype& dtype) {
  if (is_gguf_model_path(dir)) return load_gguf_model(dir, device, dtype);
  LoadedModel loaded;
  loaded.dir = dir;
  // The folder's name; a training run's "best" (or "bet_sf/") folder is named after its run.
  auto folder = fs::path(dir).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();
  loaded.name = folder.filename().string();
  if (loaded.name == "best" && !folder.parent_path().filename().empty())
    loaded.name = folder.parent_path().filename().string() + "/best";
  // A Hub cache's snapshot (models--Qwen--Qwen3-0.6B/snapshots/<commit>) is named after its model.
  const auto repository = folder.parent_path().parent_path().filename().string();
  if (folder.parent_path().filename() == "snapshots" && repository.rfind("models--", 0) == 0)
    loaded.name = repository.substr(repository.rfind("--") + 2);
  loaded.config = read_model_config(dir);
  loaded.tokenizer = load_tokenizer(dir, loaded.config);
  if (loaded.config.is_translation())
    loaded.target_tokenizer = load_target_tokenizer(dir, loaded.config, loaded.tokenizer);

  const auto file = open_checkpoint_weights(dir);  // one file, or shards and their index
  require_weights_fit(dir, loaded.config, *file);
  loaded.dtype = resolve_compute_dtype(dtype, device, loaded.config);
  loaded.model = create_model(loaded.config, /*initialise=*/false);  // load_weights fills every parameter
  if (loaded.dtype != torch::kFloat32) use_dtype(loaded.model->module(), loaded.dtype);
  const auto weights = load_weights(*loaded.model, *file, /*map_in_place=*/device.is_cpu());
  loaded.stored_dtype = weights.stored_dtypes;
  loaded.mapped_bytes = weights.mapped_bytes;
  loaded.model->module().eval();
  loaded.model->module().to(device);
  loaded.device = device;
  loaded.parameter_count = count_parameters(*loaded.model);
  const auto& t = loaded.config.translation;
  const auto heads = loaded.config.total_heads() == loaded.config.n_blocks * loaded.config.n_heads
                         ? std::to_string(loaded.config.n_heads) + " heads"
                         : std::to_string(loaded.config.n_heads) + " heads, " +
                               std::to_string(loaded.config.total_heads()) + " left after pruning";
  const auto layers = loaded.config.is_translation()
                          ? std::to_string(t.encoder_layers) + "+" + std::to_string(t.decoder_layers) +
                                " encoder+decoder layers, " + std::to_string(loaded.config.total_heads()) +
                                " heads in enc, dec and cross attention"
                          : std::to_string(loaded.config.n_blocks) + (loaded.config.n_blocks == 1 ? " layer × " : " layers × ") + heads;
  logger("models")->info("loaded {} ({}, {}, d={}, {:.1f}M parameters, {}) on {}", loaded.name,
                         loaded.config.family_name(), layers, loaded.config.d_model,
                         loaded.parameter_count / 1e6,
                         loaded.dtype == torch::kFloat32 ? loaded.stored_dtype
                                                         : loaded.stored_dtype + ", computing in " + dtype_name(loaded.dtype),
                         describe_device(device));
  return loaded;
}

void save_hugging_face_checkpoint(const std::string& dir, AttentionModel& model, const std::string& source_dir,
                                  torch::ScalarType storage) {
  const auto& config = model.config();
  TORCH_CHECK(config.format == CheckpointFormat::HuggingFace && config.real_pruning,
              "save_hugging_face_checkpoint writes the Hugging Face families real pruning saves, not ",
              config.family_name());
  const auto table = *foreign_weight_table(config);
  const auto parameters = model.module().named_parameters();
  // Each file tensor from the parameters bound to it: one, or the `parts` slices a fused tensor was
  // split into (GPT-NeoX's query_key_value), put back head by head.
  std::map<std::string, std::vector<const WeightBinding*>> bindings_of;
  std::vector<std::string> order;
  for (const auto& binding : table.bindings) {
    auto& list = bindings_of[binding.sources.front()];
    if (list.empty()) order.push_back(binding.sources.front());
    list.push_back(&binding);
  }
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& name : order) {
    const auto& list = bindings_of[name];
    std::vector<torch::Tensor> parts;
    for (const auto* binding : list) parts.push_back(parameters[binding->parameter].detach().to(torch::kCPU, storage));
    auto value = parts.front();
    if (list.size() > 1 && list.front()->rows > 0) {
      value = torch::cat(parts, 0);  // row ranges in binding order (Phi-3's q, k, v)
    } else if (list.size() > 1) {
      TORCH_INTERNAL_ASSERT(list.front()->groups > 0, "only per-group fused tensors are written back");
      for (auto& part : parts) {
        auto grouped = part.sizes().vec();
        grouped.front() = -1;
        grouped.insert(grouped.begin(), list.front()->groups);
        part = part.reshape(grouped);  // (groups, rows per group, …)
      }
      auto fused = torch::stack(parts, 1);  // (groups, parts, rows per group, …)
      auto shape = value.sizes().vec();
      shape.front() *= static_cast<int64_t>(parts.size());
      value = fused.reshape(shape);
    }
    tensors.emplace_back(name, value.contiguous());
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) fail_in_file(dir, "cannot create folder: " + error.message());
  write_safetensors((fs::path(dir) / "model.safetensors").string(), tensors, {{"format", "pt"}});

  // A model opened from a GGUF file is saved with the config.json and tokenizer.json its metadata implies.
  const bool from_gguf = is_gguf_model_path(source_dir);
  const auto gguf = from_gguf ? GgufFile::open(source_dir) : nullptr;
  const auto source_config = (fs::path(source_dir) / "config.json").string();
  nlohmann::json json;
  if (from_gguf) {
    json = gguf_config_json(*gguf);
  } else {
    std::ifstream in(source_config);
    json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) fail_in_file(source_config, "cannot be read back as JSON");
  }
  json["heads_per_layer"] = config.heads_per_block;
  if (!config.decoder.query_groups.empty()) json["query_groups"] = config.decoder.query_groups;
  const auto config_path = (fs::path(dir) / "config.json").string();
  std::ofstream config_out(config_path);
  config_out << json.dump(2) << "\n";
  if (!config_out) fail_in_file(config_path, "cannot be written");
  if (from_gguf) {
    const auto tokenizer_path = (fs::path(dir) / "tokenizer.json").string();
    std::ofstream tokenizer_out(tokenizer_path);
    tokenizer_out << gguf_tokenizer_json(*gguf).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!tokenizer_out) fail_in_file(tokenizer_path, "cannot be written");
    return;
  }
  for (const char* file : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"}) {
    const auto from = fs::path(source_dir) / file, to = fs::path(dir) / file;
    if (!fs::exists(from) || fs::equivalent(from, to, error)) continue;
    fs::copy_file(from, to, fs::copy_options::overwrite_existing, error);
    if (error) fail_in_file(to.string(), "cannot be written: " + error.message());
  }
}

void save_native_checkpoint(const std::string& dir, AttentionModel& model, const std::vector<std::string>& vocabulary,
                            torch::ScalarType storage, const std::string& sentencepiece_model) {
  const auto& config = model.config();
  if (config.format != CheckpointFormat::Native)
    throw Error(dir + ": only native models (transformer_lm, bet_sf, bet_sg, encoder_classifier, lama, bigru_mean, bigru_max, "
                      "transformer_mt) are saved in the native format");
  const bool subword = config.tokenizer == TokenizerKind::SentencePiece;
  if (subword && sentencepiece_model.empty())
    throw Error(dir + ": a " + config.family_name() + " folder needs its SentencePiece model (spm.model)");
  if (subword && !fs::exists(sentencepiece_model)) fail_in_file(sentencepiece_model, "does not exist");
  if (static_cast<int64_t>(vocabulary.size()) != config.vocab_size)
    throw Error(dir + ": vocabulary has " + std::to_string(vocabulary.size()) + " tokens for an embedding of " +
                std::to_string(config.vocab_size) + " rows");
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) fail_in_file(dir, "cannot create folder: " + error.message());

  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& item : model.module().named_parameters())
    tensors.emplace_back(item.key(), item.value().detach().to(torch::kCPU, storage));
  write_safetensors((fs::path(dir) / "model.safetensors").string(), tensors, {{"format", "pt"}});

  const auto config_path = (fs::path(dir) / "config.json").string();
  std::ofstream config_out(config_path);
  config_out << native_config_json(config).dump(2) << "\n";
  if (!config_out) fail_in_file(config_path, "cannot be written");

  if (subword) {
    const auto spm_path = fs::path(dir) / "spm.model";
    if (!fs::equivalent(sentencepiece_model, spm_path, error)) {  // false (or an error) when spm.model is absent
      fs::copy_file(sentencepiece_model, spm_path, fs::copy_options::overwrite_existing, error);
      if (error) fail_in_file(spm_path.string(), "cannot be written: " + error.message());
    }
    return;
  }
  const auto vocab_path = (fs::path(dir) / "vocab.txt").string();
  std::ofstream vocab_out(vocab_path);
  for (const auto& token : vocabulary) vocab_out << token << "\n";
  if (!vocab_out) fail_in_file(vocab_path, "cannot be written");
}

}  // namespace aw

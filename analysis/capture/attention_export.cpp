// analysis/capture/attention_export.cpp — see attention_export.h.
#include "analysis/capture/attention_export.h"

#include "analysis/core/attention_blocks.h"
#include "models/atomic_file.h"
#include "models/checkpoint/safetensors.h"
#include "models/errors.h"
#include "models/parse_number.h"

#include <torch/torch.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

namespace aw {

nlohmann::json attention_json(const Encoding& encoding, const std::vector<torch::Tensor>& attention_by_layer) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& captured : attention_by_layer) {
    auto probabilities = (captured.dim() == 4 ? captured.select(0, 0) : captured)
                             .to(torch::kCPU, torch::kFloat32)
                             .contiguous();                                               // (H, n, n)
    const int64_t heads = probabilities.size(0), rows = probabilities.size(1), cols = probabilities.size(2);
    const float* values = probabilities.data_ptr<float>();
    nlohmann::json layer = nlohmann::json::array();
    for (int64_t head = 0; head < heads; ++head) {
      nlohmann::json matrix = nlohmann::json::array();
      for (int64_t row = 0; row < rows; ++row) {
        const float* begin = values + (head * rows + row) * cols;
        matrix.push_back(std::vector<float>(begin, begin + cols));
      }
      layer.push_back(std::move(matrix));
    }
    layers.push_back(std::move(layer));
  }
  return {{"tokens", encoding.tokens}, {"ids", encoding.ids}, {"attention", std::move(layers)}};
}

ModelInput encoding_input(const Encoding& encoding) {
  ModelInput input;
  input.input_ids = torch::tensor(encoding.ids, torch::kLong).unsqueeze(0);
  if (!encoding.type_ids.empty()) input.token_type_ids = torch::tensor(encoding.type_ids, torch::kLong).unsqueeze(0);
  return input;
}

ForwardResult capture_attention(AttentionModel& model, const Encoding& encoding, ForwardOptions options) {
  c10::InferenceMode inference;
  model.module().eval();
  options.capture = CaptureMode::Full;
  return model.forward(encoding_input(encoding), options);
}

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The rows of a layer's attention: n, or 1 for a global-context model (LAMA).
int64_t query_rows(const ModelConfig& config, int64_t length) { return config.has_lama_attention() ? 1 : length; }

// A .npy file (format 1.0) of one little-endian float tensor, written whole or not at all.
void write_npy(const std::string& path, const torch::Tensor& values) {
  std::string shape;  // "12, 7, 7"; a 1-d shape is "7," in Python's tuple syntax
  for (auto extent : values.sizes()) shape += (shape.empty() ? "" : ", ") + std::to_string(extent);
  if (values.dim() == 1) shape += ",";
  std::string header = "{'descr': '" + std::string(values.scalar_type() == torch::kFloat16 ? "<f2" : "<f4") +
                       "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Magic (6) + version (2) + length (2) + header, padded with spaces and a newline to 64 bytes.
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  const auto bytes = values.contiguous();
  const uint16_t length = static_cast<uint16_t>(header.size());
  const char magic[] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  AtomicFile file(path);
  file.write(magic, sizeof(magic));
  file.write(&length, sizeof(length));
  file.write(header.data(), header.size());
  file.write(bytes.data_ptr(), bytes.nbytes());
  file.commit();
}

// Writes layers on a thread of its own while the forward computes the next one: copying 48 MB per
// layer into the page cache (1,024 tokens, 12 heads) otherwise added about the forward's own time
// (bench_foundation BM_Attention1024). At most one layer waits, so memory holds two layers.
class BackgroundWrites {
 public:
  explicit BackgroundWrites(std::function<void(const torch::Tensor&)> write)
      : write_(std::move(write)), thread_([this] { work(); }) {}
  ~BackgroundWrites() { stop(); }

  // Hands over a layer; waits while the previous one is still being written. Rethrows a write's error.
  void push(torch::Tensor values) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !pending_.defined() || error_; });
    if (error_) std::rethrow_exception(error_);
    pending_ = std::move(values);
    changed_.notify_all();
  }
  // Waits for the last write; rethrows its error.
  void finish() {
    stop();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  void work() {
    c10::InferenceMode inference;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] { return pending_.defined() || stopping_; });
      if (!pending_.defined()) return;  // stopping, nothing left
      auto values = pending_;
      lock.unlock();
      try {
        if (!error_) write_(values);
      } catch (...) {
        error_ = std::current_exception();  // read by the caller once it sees pending_ cleared
      }
      values = torch::Tensor();
      lock.lock();
      pending_ = torch::Tensor();
      changed_.notify_all();
    }
  }

  std::function<void(const torch::Tensor&)> write_;
  std::mutex mutex_;
  std::condition_variable changed_;
  torch::Tensor pending_;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace

bool is_binary_attention_path(const std::string& path) {
  return ends_with(path, ".safetensors") || ends_with(path, ".npy");
}

torch::Tensor attention_thumbnail(const torch::Tensor& block) {
  if (block.size(1) <= kThumbnailSide && block.size(2) <= kThumbnailSide) return block;
  return torch::adaptive_avg_pool2d(block.to(torch::kFloat32), {std::min(kThumbnailSide, block.size(1)),
                                                                std::min(kThumbnailSide, block.size(2))});
}

void export_translation_attention(const TranslationCapture& capture, const ModelConfig& config,
                                  const std::string& model_name, const std::string& path, torch::ScalarType dtype,
                                  const std::vector<AttentionKind>& kinds) {
  if (!ends_with(path, ".safetensors"))
    fail_in_file(path, "a translation's attention is exported as a .safetensors file (or JSON with translate --out FILE.json)");
  const auto names = block_names(config);
  std::vector<AttentionKind> block_kinds;
  for (int64_t block = 0; block < config.n_blocks; ++block) block_kinds.push_back(config.attention_block(block).kind);
  for (const auto kind : kinds)
    if (std::find(block_kinds.begin(), block_kinds.end(), kind) == block_kinds.end())
      throw Error("kind " + to_string(kind) + ": " + model_name + " has no " + to_string(kind) +
                  " attention (enc, dec or cross)");
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (size_t block = 0; block < capture.attention.size(); ++block) {
    if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), block_kinds.at(block)) == kinds.end()) continue;
    const auto name = names.kind[block] + "." + std::to_string(names.layer[block]);
    tensors.emplace_back(name, capture.attention[block].to(torch::kCPU, dtype));
    tensors.emplace_back("thumbnail." + name, attention_thumbnail(capture.attention[block]).to(torch::kCPU, torch::kFloat32));
  }
  write_safetensors(path, tensors,
                    {{"format", "attention-workbench-attention"},
                     {"model", model_name},
                     {"tokens", nlohmann::json(capture.source_tokens).dump()},
                     {"target_tokens", nlohmann::json(capture.decoder_tokens).dump()},
                     {"translation", capture.translation},
                     {"heads", "all"},
                     {"layout", "<kind>.<l>: [heads, query, key] (enc: source × source, dec: target × target, "
                                "cross: target × source); layers numbered from 1 within their kind"}});
}

AttentionFileContents read_attention_file(const std::string& path) {
  const auto file = SafetensorsFile::open(path);
  const auto& metadata = file->metadata();
  const auto format = metadata.find("format");
  if (format == metadata.end() || format->second != "attention-workbench-attention")
    fail_in_file(path, "is not an attention file (attention-cli attend --out FILE.safetensors writes one)");
  AttentionFileContents contents;
  try {
    contents.tokens = nlohmann::json::parse(metadata.at("tokens")).get<std::vector<std::string>>();
    contents.model = metadata.at("model");
    if (metadata.count("target_tokens"))
      contents.target_tokens = nlohmann::json::parse(metadata.at("target_tokens")).get<std::vector<std::string>>();
  } catch (const std::exception&) {
    fail_in_file(path, "its metadata has no readable \"tokens\" list or \"model\"");
  }
  contents.heads = metadata.count("heads") ? metadata.at("heads") : "all";
  contents.translation = metadata.count("translation") ? metadata.at("translation") : "";
  // The blocks in model order: a one-kind model's layers; a translation model's encoder layers, then
  // each decoder layer's self- and cross-attention.
  struct Found {
    std::string prefix;                  // "layer", or a translation block's kind name
    std::optional<AttentionKind> kind;   // a translation block's kind (nothing for "layer")
    int64_t layer;
    std::tuple<bool, int64_t, bool> order;  // (decoder side?, layer, cross after self)
  };
  std::vector<Found> found;
  const bool translation = !contents.target_tokens.empty();
  for (const auto& name : file->names()) {
    const auto dot = name.find('.');
    int64_t number = 0;
    if (dot == std::string::npos || !parse_integer(name.substr(dot + 1), number) || number < 1) continue;
    const auto prefix = name.substr(0, dot);
    const auto kind = parse_attention_kind(prefix);
    if (translation ? kind.has_value() : prefix == "layer")
      found.push_back({prefix, kind, number,
                       {kind && queries_are_target(*kind), number, kind == AttentionKind::Cross}});
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.order < b.order; });
  if (found.empty()) fail_in_file(path, translation ? "holds no enc.<l>, dec.<l> or cross.<l> tensors" : "holds no layer.<l> tensors");
  const auto source = static_cast<int64_t>(contents.tokens.size()), target = static_cast<int64_t>(contents.target_tokens.size());
  for (const auto& block_found : found) {
    const auto name = block_found.prefix + "." + std::to_string(block_found.layer);
    auto block = file->tensor(name);  // a view of the mapping: nothing read yet
    const auto& kind = block_found.kind;
    const int64_t cols = kind && keys_are_target(*kind) ? target : source;
    const int64_t rows = kind && queries_are_target(*kind) ? target : source;
    if (block.dim() != 3 || block.size(2) != cols || (block.size(1) != rows && block.size(1) != 1))
      fail_in_file(path, name + " has shape " + shape_string(block.sizes()) + "; expected [heads, " + std::to_string(rows) +
                             (translation ? "" : " or 1") + ", " + std::to_string(cols) + "] for its tokens");
    contents.thumbnails.push_back(file->contains("thumbnail." + name)
                                      ? file->tensor("thumbnail." + name).to(torch::kFloat32)
                                      : attention_thumbnail(block.to(torch::kFloat32)));
    contents.layers.push_back(std::move(block));
    contents.layer_numbers.push_back(static_cast<int>(block_found.layer));
    if (kind) contents.kinds.push_back(*kind);
  }
  return contents;
}

std::vector<int64_t> parse_numbered_list(const std::string& spec, int64_t count, const std::string& what) {
  const auto refuse = [&](const std::string& part) -> Error {
    return Error(what + "s " + spec + ": '" + part + "' is not a " + what + " from 1 to " + std::to_string(count) +
                 " or a range of them (\"1,3-5\")");
  };
  std::set<int64_t> chosen;
  std::stringstream parts(spec);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto dash = part.find('-', 1);
    int64_t low = 0, high = 0;
    if (!parse_integer(part.substr(0, dash), low) ||
        (dash != std::string::npos && !parse_integer(part.substr(dash + 1), high)))
      throw refuse(part);
    if (dash == std::string::npos) high = low;
    if (low < 1 || high > count || low > high) throw refuse(part);
    for (int64_t number = low; number <= high; ++number) chosen.insert(number - 1);
  }
  if (chosen.empty()) throw refuse(spec);
  return {chosen.begin(), chosen.end()};
}

void export_attention(AttentionModel& model, const std::string& model_name, const Encoding& encoding,
                      const AttentionExportSettings& settings, const AttentionObserver& also) {
  const auto& config = model.config();
  const bool npy = ends_with(settings.path, ".npy");
  if (!npy && !ends_with(settings.path, ".safetensors"))
    fail_in_file(settings.path, "an attention export is a .safetensors file (every layer) or a .npy file (one layer)");
  if (npy && settings.layers.size() != 1)
    fail_in_file(settings.path, "a .npy file holds one layer: choose it (--layers N)");
  std::vector<int64_t> layers = settings.layers;
  if (layers.empty())
    for (int64_t layer = 0; layer < config.n_blocks; ++layer) layers.push_back(layer);
  for (const auto layer : layers) {
    if (layer < 0 || layer >= config.n_blocks)
      throw Error("layer " + std::to_string(layer + 1) + " is out of range: " + model_name + " has " +
                  std::to_string(config.n_blocks) + " layer" + (config.n_blocks == 1 ? "" : "s"));
    for (const auto head : settings.heads)
      if (head < 0 || head >= config.heads_per_block[layer])
        throw Error("head " + std::to_string(head + 1) + " is out of range: layer " + std::to_string(layer + 1) +
                    " of " + model_name + " has " + std::to_string(config.heads_per_block[layer]) + " heads");
  }
  if (settings.dtype != torch::kFloat32 && settings.dtype != torch::kFloat16)
    throw Error("attention is exported as float32 or float16");

  c10::InferenceMode inference;
  if (model.module().is_training()) model.module().eval();
  const auto input = encoding_input(encoding);
  const int64_t length = static_cast<int64_t>(encoding.ids.size());
  const std::set<int64_t> wanted(layers.begin(), layers.end());
  const auto heads = settings.heads.empty() ? torch::Tensor() : torch::tensor(settings.heads, torch::kLong);

  std::unique_ptr<SafetensorsWriter> writer;
  if (!npy) {
    std::vector<SafetensorsWriter::Declared> declared;
    for (const auto layer : layers) {
      const int64_t layer_heads = heads.defined() ? heads.numel() : config.heads_per_block[layer];
      const int64_t rows = query_rows(config, length);
      declared.push_back({"layer." + std::to_string(layer + 1), settings.dtype, {layer_heads, rows, length}});
      // The overview's thumbnails ride along, so a viewer never reads a whole file to draw them.
      declared.push_back({"thumbnail." + std::to_string(layer + 1), torch::kFloat32,
                          {layer_heads, std::min(rows, kThumbnailSide), std::min(length, kThumbnailSide)}});
    }
    const std::map<std::string, std::string> metadata = {
        {"format", "attention-workbench-attention"},
        {"model", model_name},
        {"tokens", nlohmann::json(encoding.tokens).dump()},
        {"ids", nlohmann::json(encoding.ids).dump()},
        {"layout", "layer.<l>: [heads, query, key]; thumbnail.<l>: the same as block means, at most 64 × 64 (F32); "
                   "layers and heads numbered from 1, as in the CSVs"},
        {"heads", settings.heads.empty() ? std::string("all") : [&] {
           std::vector<int64_t> numbers;
           for (const auto head : settings.heads) numbers.push_back(head + 1);
           return nlohmann::json(numbers).dump();
         }()}};
    writer = std::make_unique<SafetensorsWriter>(settings.path, declared, metadata);
  }
  // Declared after the writer it uses, so it stops first on the way out.
  BackgroundWrites writes([&](const torch::Tensor& probabilities) {
    auto values = probabilities.select(0, 0);                                            // (H, rows, n)
    if (heads.defined()) values = values.index_select(0, heads.to(values.device()));
    if (writer) {
      writer->write(values.to(torch::kCPU, settings.dtype));
      writer->write(attention_thumbnail(values).to(torch::kCPU, torch::kFloat32));
    } else {
      write_npy(settings.path, values.to(torch::kCPU, settings.dtype));
    }
  });
  ForwardOptions options;
  options.capture = CaptureMode::Stats;  // each layer to the observer, nothing kept
  options.observer = [&](int64_t layer, const torch::Tensor& probabilities) {
    if (!wanted.count(layer)) return;
    if (also) also(layer, probabilities);
    writes.push(probabilities);
  };
  // The layers up to the last one written; the output head is not needed.
  model.run_layers(model.embed(input), input, 0, layers.back() + 1, options);
  writes.finish();
  if (writer) writer->finish();
}

std::vector<AttendedToken> top_attended(const torch::Tensor& row, int64_t k) {
  // A stable descending sort keeps equal weights in position order, so ties go to the lower position.
  auto [sorted, order] = torch::sort(row.to(torch::kCPU, torch::kFloat64), /*stable=*/true, /*dim=*/0,
                                     /*descending=*/true);
  const int64_t count = std::min<int64_t>(k, row.numel());
  std::vector<AttendedToken> top;
  for (int64_t i = 0; i < count; ++i)
    top.push_back({order[i].item<int64_t>(), sorted[i].item<double>()});
  return top;
}

}  // namespace aw

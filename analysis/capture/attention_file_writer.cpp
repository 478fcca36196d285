// analysis/capture/attention_file_writer.cpp — see attention_file_writer.h.
#include "analysis/capture/attention_file_writer.h"

#include "analysis/capture/attention_capture.h"
#include "analysis/capture/attention_thumbnail.h"
#include "analysis/core/attention_blocks.h"
#include "models/atomic_file.h"
#include "models/checkpoint/safetensors.h"
#include "models/errors.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace aw {

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

}  // namespace aw

// analysis/capture/attention_file_writer.cpp — see attention_file_writer.h.
#include "analysis/capture/attention_file_writer.h"

#include "analysis/capture/attention_capture.h"
#include "analysis/capture/attention_thumbnail.h"
#include "analysis/capture/pooled_attention.h"
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

// A .npy file (format 1.0) of one little-endian float tensor [A, R, C], written whole or not at all,
// given whole or in rows (SafetensorsWriter::write_rows's order and layout).
class NpyWriter {
 public:
  NpyWriter(const std::string& path, torch::ScalarType dtype, std::vector<int64_t> shape)
      : file_(path), shape_(std::move(shape)) {
    std::string dims;  // "12, 7, 7"
    for (auto extent : shape_) dims += (dims.empty() ? "" : ", ") + std::to_string(extent);
    std::string header = "{'descr': '" + std::string(dtype == torch::kFloat16 ? "<f2" : "<f4") +
                         "', 'fortran_order': False, 'shape': (" + dims + "), }";
    // Magic (6) + version (2) + length (2) + header, padded with spaces and a newline to 64 bytes.
    header.append(63 - (10 + header.size()) % 64, ' ');
    header += '\n';
    const uint16_t length = static_cast<uint16_t>(header.size());
    const char magic[] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
    file_.write(magic, sizeof(magic));
    file_.write(&length, sizeof(length));
    file_.write(header.data(), header.size());
    data_start_ = sizeof(magic) + sizeof(length) + header.size();
  }
  void write_rows(const torch::Tensor& rows, int64_t first_row) {
    const auto bytes = rows.contiguous();
    const uint64_t row_bytes = static_cast<uint64_t>(shape_[2]) * bytes.element_size();
    const auto* data = static_cast<const char*>(bytes.data_ptr());
    for (int64_t slice = 0; slice < shape_[0]; ++slice)
      file_.write_at(data_start_ + static_cast<uint64_t>(slice * shape_[1] + first_row) * row_bytes,
                     data + static_cast<uint64_t>(slice * rows.size(1)) * row_bytes,
                     static_cast<size_t>(rows.size(1)) * row_bytes);
  }
  void finish() { file_.commit(); }

 private:
  AtomicFile file_;
  std::vector<int64_t> shape_;
  uint64_t data_start_ = 0;
};

// Writes on a thread of its own while the forward computes the next tile: copying 48 MB per layer
// into the page cache (1,024 tokens, 12 heads) otherwise added about the forward's own time
// (bench_foundation BM_Attention1024). At most one job waits, so memory holds two tiles.
class BackgroundWrites {
 public:
  BackgroundWrites() : thread_([this] { work(); }) {}
  ~BackgroundWrites() { stop(); }

  // Hands over a job; waits while the previous one is still running. Rethrows a job's error.
  void push(std::function<void()> job) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !pending_ || error_; });
    if (error_) std::rethrow_exception(error_);
    pending_ = std::move(job);
    changed_.notify_all();
  }
  // Waits for the last job; rethrows its error.
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
      changed_.wait(lock, [this] { return pending_ || stopping_; });
      if (!pending_) return;  // stopping, nothing left
      auto job = pending_;  // a copy: pending_ stays set, so the next push waits for this job
      lock.unlock();
      try {
        if (!error_) job();
      } catch (...) {
        error_ = std::current_exception();  // read by the caller once it sees pending_ cleared
      }
      job = nullptr;  // the tile it held goes now, not when the next job comes
      lock.lock();
      pending_ = nullptr;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> pending_;
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

namespace {

// "5-9" for rows [4, 9) (1-based, inclusive, as --rows and --cols take them).
std::string span_text(int64_t begin, int64_t end) { return std::to_string(begin + 1) + "-" + std::to_string(end); }

// [begin, end) checked against `length` tokens; end −1 = to the last. `flag` names the option.
std::pair<int64_t, int64_t> checked_span(int64_t begin, int64_t end, int64_t length, const char* flag) {
  if (end < 0) end = length;
  if (begin < 0 || begin >= end || end > length)
    throw Error(std::string(flag) + " " + span_text(begin, end) + " is outside the text's " + std::to_string(length) +
                " tokens (1-" + std::to_string(length) + ")");
  return {begin, end};
}

}  // namespace

void export_attention(AttentionModel& model, const std::string& model_name, const Encoding& encoding,
                      const AttentionExportSettings& settings, const AttentionTileObserver& also) {
  const auto& config = model.config();
  const bool npy = ends_with(settings.path, ".npy");
  if (!npy && !ends_with(settings.path, ".safetensors"))
    fail_in_file(settings.path, "an attention export is a .safetensors file (every layer) or a .npy file (one layer)");
  if (settings.logits && (npy || !config.is_language_model()))
    fail_in_file(settings.path, npy ? "logits go into a .safetensors file, beside the attention (a .npy file holds one layer)"
                                    : "a " + config.family_name() + " model has no next-token logits to write");
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
  const int64_t length = static_cast<int64_t>(encoding.ids.size());
  const int64_t all_rows = query_rows(config, length);
  const auto [row_begin, row_end] = checked_span(settings.row_begin, settings.row_end, all_rows, "--rows");
  const auto [col_begin, col_end] = checked_span(settings.col_begin, settings.col_end, length, "--cols");
  const int64_t rows = row_end - row_begin, cols = col_end - col_begin;
  if (settings.pool < 0 || settings.pool > std::max(rows, cols))
    throw Error("--pool " + std::to_string(settings.pool) + " must be between 1 and the " +
                std::to_string(std::max(rows, cols)) + " tokens pooled");
  const bool pooled = settings.pool > 0;
  // What each layer's tensor holds: the region cell by cell, or its blocks of pool × pool.
  const int64_t stored_rows = pooled ? (rows + settings.pool - 1) / settings.pool : rows;
  const int64_t stored_cols = pooled ? (cols + settings.pool - 1) / settings.pool : cols;
  const auto stored_dtype = pooled ? torch::kFloat32 : settings.dtype;

  c10::InferenceMode inference;
  if (model.module().is_training()) model.module().eval();
  const auto input = encoding_input(encoding);
  const std::set<int64_t> wanted(layers.begin(), layers.end());
  const auto heads = settings.heads.empty() ? torch::Tensor() : torch::tensor(settings.heads, torch::kLong);
  auto layer_heads = [&](int64_t layer) { return heads.defined() ? heads.numel() : config.heads_per_block[layer]; };

  std::unique_ptr<SafetensorsWriter> writer;
  std::unique_ptr<NpyWriter> npy_writer;
  if (npy) {
    npy_writer = std::make_unique<NpyWriter>(settings.path, stored_dtype,
                                             std::vector<int64_t>{layer_heads(layers.front()), stored_rows, stored_cols});
  } else {
    std::vector<SafetensorsWriter::Declared> declared;
    for (const auto layer : layers) {
      declared.push_back({"layer." + std::to_string(layer + 1), stored_dtype, {layer_heads(layer), stored_rows, stored_cols}});
      // The overview's thumbnails ride along, so a viewer never reads a whole file to draw them.
      declared.push_back({"thumbnail." + std::to_string(layer + 1), torch::kFloat32,
                          {layer_heads(layer), std::min(stored_rows, kThumbnailSide), std::min(stored_cols, kThumbnailSide)}});
    }
    if (settings.logits) declared.push_back({"logits", torch::kFloat32, {length, config.vocab_size}});
    std::map<std::string, std::string> metadata = {
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
    // A region or a pooled map says which rows and keys it holds, so a viewer labels them.
    if (rows != all_rows || cols != length) {
      metadata["rows"] = span_text(row_begin, row_end);
      metadata["cols"] = span_text(col_begin, col_end);
    }
    if (pooled) metadata["pool"] = std::to_string(settings.pool) + (settings.pool_kind == PoolKind::Max ? " max" : " mean");
    writer = std::make_unique<SafetensorsWriter>(settings.path, declared, metadata);
  }
  // Per layer being written: the pooled map and the thumbnail, fed tile by tile.
  std::unique_ptr<PooledAttention> pool, thumbnail;
  auto start_layer = [&](int64_t layer) {
    const int64_t count = layer_heads(layer);
    if (pooled)
      pool = std::make_unique<PooledAttention>(count, PoolBins::blocks(rows, settings.pool),
                                               PoolBins::blocks(cols, settings.pool), settings.pool_kind);
    else if (writer)
      thumbnail = std::make_unique<PooledAttention>(thumbnail_pool(count, rows, cols));
  };
  // Declared after the writers it uses, so it stops first on the way out.
  BackgroundWrites writes;
  int64_t current = -1;
  ForwardOptions options;
  options.capture = CaptureMode::Stats;  // tiles to the observer, nothing kept
  options.capture_layers.assign(static_cast<size_t>(config.n_blocks), false);  // the others mix without probabilities
  for (const auto layer : layers) options.capture_layers[static_cast<size_t>(layer)] = true;
  options.tile_observer = [&](int64_t layer, int64_t first_row, const torch::Tensor& tile) {
    if (!wanted.count(layer)) return;
    if (also) also(layer, first_row, tile);
    // The tile's part of the region: its rows inside [row_begin, row_end), the region's keys.
    const int64_t from = std::max(first_row, row_begin), to = std::min(first_row + tile.size(2), row_end);
    if (from >= to) return;
    auto values = tile.select(0, 0).narrow(1, from - first_row, to - from).narrow(2, col_begin, cols);  // (H, r, c)
    if (heads.defined()) values = values.index_select(0, heads.to(values.device()));
    const bool layer_done = to == row_end;
    if (layer != current) {
      current = layer;
      writes.push([&, layer] { start_layer(layer); });
    }
    auto host = values.to(torch::kCPU, torch::kFloat32);  // F16 files: converted below, thumbnails from F32
    writes.push([&, host, from, layer_done] {
      const int64_t region_row = from - row_begin;
      if (pooled) pool->add(region_row, host);
      else if (writer) writer->write_rows(host.to(settings.dtype), region_row);
      else npy_writer->write_rows(host.to(settings.dtype), region_row);
      if (thumbnail) thumbnail->add(region_row, host);
      if (!layer_done) return;
      if (pooled) {
        const auto map = pool->result();
        if (writer) {
          writer->write(map);
          writer->write(attention_thumbnail(map).contiguous());
        } else {
          npy_writer->write_rows(map, 0);
        }
      } else if (writer) {
        writer->write(thumbnail->result());
      }
    });
  };
  // The layers up to the last one written; the output head only when the logits are asked for.
  const int64_t end_layer = settings.logits ? config.n_blocks : layers.back() + 1;
  const auto hidden = model.run_layers(model.embed(input), input, 0, end_layer, options).hidden;
  writes.finish();
  if (writer && settings.logits) writer->write(model.output(hidden, input).select(0, 0).to(torch::kCPU, torch::kFloat32).contiguous());
  if (writer) writer->finish();
  if (npy_writer) npy_writer->finish();
}

}  // namespace aw

// bench/bench_long_context.cpp — attention at length (docs/long-context.md), each run against the
// plain forward (the layers, no capture) at the same length in the same run:
//   - on the Llama-3.2-1B layout (bench_support.h, random BF16 weights computed in F32, the CPU's
//     default as in attention-cli: a 4.9-GB copy) at 8,192 tokens: `stats` (Bird-Eye Table 1 over every layer's tiles), `attend --out
//     --pool 64` and one layer exported whole, with each one's peak resident memory over the weights;
//   - on a small llama layout (4 layers, 8/2 heads of 64, d 512) at 2k, 4k, 8k and 16k tokens under a
//     64-MiB budget: the peak memory of `stats`, and its slope (a budget-bound tile plus O(n) states:
//     linear in n).
// Peak memory is the kernel's high-water mark (VmHWM), reset before each measured call
// (/proc/self/clear_refs), minus the resident memory before it.
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/capture/attention_file_writer.h"
#include "bench/bench_support.h"
#include "models/memory_budget.h"
#include "models/runtime.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>

namespace {

namespace fs = std::filesystem;

int64_t status_bytes(const std::string& field) {  // a "VmHWM:" / "VmRSS:" line of /proc/self/status
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(field.size())) * 1024;
  return 0;
}

struct Measured {
  double seconds = 0;
  double peak_over_start_gb = 0;  // the high-water mark during the call, over the resident memory before it
};

Measured measure(const std::function<void()>& call) {
  std::ofstream("/proc/self/clear_refs") << "5";  // the high-water mark back to the current RSS
  const auto before = status_bytes("VmRSS:");
  const auto start = std::chrono::steady_clock::now();
  call();
  Measured measured;
  measured.seconds = aw::bench::seconds_since(start);
  measured.peak_over_start_gb = static_cast<double>(status_bytes("VmHWM:") - before) / 1e9;
  return measured;
}

aw::ModelInput random_tokens(int64_t length, int64_t vocabulary) {
  torch::manual_seed(5);
  aw::ModelInput input;
  input.input_ids = torch::randint(0, vocabulary, {1, length}, torch::kLong);
  return input;
}

aw::LoadedModel& loaded(const std::string& name, const aw::bench::LlamaLayout& layout) {
  static std::map<std::string, aw::LoadedModel> models;
  auto found = models.find(name);
  if (found == models.end()) {
    // LibTorch's threads on every core (the figures in docs/long-context.md were measured so).
    aw::configure_threads(0);
    found = models.emplace(name, aw::load_checkpoint(aw::bench::llama_layout_dir(name, layout))).first;  // F32 copy
  }
  return found->second;
}

void run_plain(aw::AttentionModel& model, const aw::ModelInput& input) {
  c10::InferenceMode inference;
  model.run_layers(model.embed(input), input, 0, model.config().n_blocks, {});
}

void run_stats(aw::AttentionModel& model, const aw::ModelInput& input) {
  aw::attention_stats(model, "llama", {input}, {});
}

// range(0): 0 = stats, 1 = attend --out --pool 64, 2 = one layer (8 of 16) exported whole, F16.
void BM_Llama1bAt8k(benchmark::State& state) {
  constexpr int64_t kTokens = 8192;
  auto& model = loaded("aw-bench-llama-1b", aw::bench::kLlama1b);
  const auto input = random_tokens(kTokens, 128000);
  aw::Encoding encoding;
  encoding.ids.assign(input.input_ids.data_ptr<int64_t>(), input.input_ids.data_ptr<int64_t>() + kTokens);
  encoding.tokens.assign(kTokens, "t");
  const auto out = (fs::temp_directory_path() / "aw-bench-long-context.safetensors").string();
  std::function<void()> call;
  switch (state.range(0)) {
    case 0: call = [&] { run_stats(*model.model, input); }; break;
    case 1: call = [&] {
        aw::AttentionExportSettings settings;
        settings.path = out;
        settings.pool = 64;
        aw::export_attention(*model.model, "llama", encoding, settings);
      };
      break;
    default: call = [&] {
        aw::AttentionExportSettings settings;
        settings.path = out;
        settings.layers = {7};
        settings.dtype = torch::kFloat16;
        aw::export_attention(*model.model, "llama", encoding, settings);
      };
  }
  // The plain forward once per run, before the first case: the baseline of every case in this run.
  static const Measured plain = measure([&] { run_plain(*model.model, input); });
  Measured measured;
  for (auto _ : state) measured = measure(call);
  fs::remove(out);
  state.counters["plain_s"] = plain.seconds;
  state.counters["s"] = measured.seconds;
  state.counters["x_plain"] = measured.seconds / plain.seconds;
  state.counters["peak_GB_over_weights"] = measured.peak_over_start_gb;
  state.counters["plain_peak_GB"] = plain.peak_over_start_gb;
  state.counters["budget_MB"] = static_cast<double>(aw::attention_memory_budget()) / (1 << 20);
  static const char* names[] = {"stats", "attend --out --pool 64", "one layer exported whole (F16)"};
  state.SetLabel(names[state.range(0)]);
}
BENCHMARK(BM_Llama1bAt8k)->DenseRange(0, 2)->Unit(benchmark::kSecond)->Iterations(1);

// The memory of stats from 2k to 16k tokens on a small llama layout, and its slope (least squares).
void BM_StatsMemoryByLength(benchmark::State& state) {
  auto& model = loaded("aw-bench-llama-small", {4, 8, 2, 64, 512, 1536, 32000});
  // A 64-MiB budget binds at every length here (one row is 80 KB at 1k tokens), so what grows with n
  // is the rest: the states entering each layer, the MLP, the row sums.
  aw::set_attention_memory_budget(64ll << 20);
  const std::vector<int64_t> lengths = {2048, 4096, 8192, 16384};
  std::vector<double> peaks;
  for (auto _ : state) {
    peaks.clear();
    for (const auto length : lengths) {
      const auto input = random_tokens(length, 32000);
      const auto stats = measure([&] { run_stats(*model.model, input); });
      const auto plain = measure([&] { run_plain(*model.model, input); });
      peaks.push_back(stats.peak_over_start_gb);
      state.counters["peak_MB_" + std::to_string(length / 1024) + "k"] = stats.peak_over_start_gb * 1e3;
      state.counters["x_plain_" + std::to_string(length / 1024) + "k"] = stats.seconds / plain.seconds;
    }
  }
  double mean_n = 0, mean_peak = 0;
  for (size_t i = 0; i < lengths.size(); ++i) mean_n += lengths[i] / 4.0, mean_peak += peaks[i] / 4.0;
  double covariance = 0, variance = 0, residual = 0, total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    covariance += (lengths[i] - mean_n) * (peaks[i] - mean_peak);
    variance += (lengths[i] - mean_n) * (lengths[i] - mean_n);
  }
  const double slope = covariance / variance;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const double fitted = mean_peak + slope * (lengths[i] - mean_n);
    residual += (peaks[i] - fitted) * (peaks[i] - fitted);
    total += (peaks[i] - mean_peak) * (peaks[i] - mean_peak);
  }
  aw::set_attention_memory_budget(0);
  state.counters["slope_MB_per_1k_tokens"] = slope * 1e3 * 1024;
  state.counters["linear_fit_R2"] = 1 - residual / total;
  std::printf("stats peak memory over the model (MB): 2k %.0f, 4k %.0f, 8k %.0f, 16k %.0f; slope %.1f MB per 1k tokens, R² %.4f\n",
              peaks[0] * 1e3, peaks[1] * 1e3, peaks[2] * 1e3, peaks[3] * 1e3, slope * 1e3 * 1024, 1 - residual / total);
}
BENCHMARK(BM_StatsMemoryByLength)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();

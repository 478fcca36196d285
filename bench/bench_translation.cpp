// bench/bench_translation.cpp — the translation sweeps against their baselines, on the bundled
// English→French model (sample_data/mt_vanilla: 2+2 layers × 4 heads, d 128) and 128 Tatoeba pairs
// (every 1000th line of ../shared/data/tatoeba-eng-fra/eng-fra.tsv), one thread:
//  - the single-head ablation of the decoder's self- and cross-attention heads (16 settings) with the
//    loss metric: the sweep (the encoder's output computed once per batch and reused, the settings
//    batched through the decoder) vs one whole forward per head;
//  - the same heads with the BLEU metric (beam 4): every setting of a chunk of sources in one batched
//    beam search vs decoding each setting by itself;
// and, on a random transformer_mt of working size (3+3 layers × 8 heads, d 512, d_ff 2048, vocabulary
// 8000; 8 pairs of 64 source and 64 target tokens), the decoder's single-head loss sweep (48 settings)
// against its FLOP floor (counters as in bench_analysis: "floor_ms", "x_floor"; "x_strict" against
// the floor without what the gated layer's settings share) and against one whole forward per head;
// and that model's teacher-forced forward after really removing half the heads of every kind vs the
// full model (Michel Table 4).
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_removal.h"
#include "analysis/data/translation_scores.h"
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"
#include "models/training/evaluation.h"
#include "models/translation/translation_data.h"

#include "bench/bench_support.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <memory>

namespace {

const std::string kModel = AW_SOURCE_DIR "/sample_data/mt_vanilla";
const std::string kPairs = AW_SOURCE_DIR "/../shared/data/tatoeba-eng-fra/eng-fra.tsv";
constexpr int64_t kPairStride = 1000, kPairCount = 128, kBatch = 32;

struct Bench {
  aw::LoadedModel loaded;
  std::vector<aw::TranslationPair> pairs;
  aw::EvaluationData data;          // the pairs teacher-forced, for the loss
  std::shared_ptr<const aw::BleuTask> bleu;
  std::vector<int64_t> decoder_blocks;  // dec and cross
};

const Bench* bench() {
  static const std::unique_ptr<Bench> shared = []() -> std::unique_ptr<Bench> {
    if (!std::filesystem::exists(kModel) || !std::filesystem::exists(kPairs)) return nullptr;
    aw::configure_allocator();
    // LibTorch's threads, which also run its BLAS: what these figures measured
    torch::set_num_threads(1);
    auto made = std::make_unique<Bench>();
    made->loaded = aw::load_checkpoint(kModel, torch::kCPU);
    const auto all = aw::read_translation_pairs(kPairs);
    for (size_t i = 0; i < all.size() && made->pairs.size() < kPairCount; i += kPairStride) made->pairs.push_back(all[i]);
    const auto codec = std::make_shared<const aw::TranslationCodec>(made->loaded.config, made->loaded.tokenizer,
                                                                    made->loaded.target_tokenizer);
    const auto& config = made->loaded.config;
    made->data = aw::language_model_data(
        aw::pair_batches(aw::encode_pairs(made->pairs, *codec, config.max_positions, config.translation.pad_id), kBatch));
    aw::SearchSettings search;
    search.beam = 4;
    made->bleu = std::make_shared<const aw::BleuTask>(aw::make_bleu_task(config, codec, made->pairs, search));
    for (int64_t block = config.translation.encoder_layers; block < config.n_blocks; ++block)
      made->decoder_blocks.push_back(block);
    return made;
  }();
  return shared.get();
}

// Single-head settings of `blocks`: [S, L, H], one head off each.
torch::Tensor single_head_settings(const aw::ModelConfig& config, const std::vector<int64_t>& blocks) {
  std::vector<torch::Tensor> settings;
  for (const auto block : blocks)
    for (int64_t head = 0; head < config.heads_per_block[block]; ++head) {
      auto gates = aw::all_heads_on(config);
      gates[block][head] = 0.0;
      settings.push_back(gates);
    }
  return torch::stack(settings);
}

torch::Tensor decoder_settings(const Bench& b) { return single_head_settings(b.loaded.config, b.decoder_blocks); }

// The naive sweep the batched one is compared with: one whole forward for the baseline and for
// each setting.
void forward_per_setting(aw::AttentionModel& model, const std::vector<aw::ModelInput>& inputs,
                         const torch::Tensor& settings) {
  aw::ForwardOptions options;
  benchmark::DoNotOptimize(aw::evaluate_perplexity(model, inputs, options));
  for (int64_t s = 0; s < settings.size(0); ++s) {
    options.head_gates = settings[s];
    benchmark::DoNotOptimize(aw::evaluate_perplexity(model, inputs, options));
  }
}

bool ready(benchmark::State& state) {
  if (bench()) return true;
  state.SkipWithError("needs sample_data/mt_vanilla and ../shared/data/tatoeba-eng-fra");
  return false;
}

void BM_DecoderSweepLoss(benchmark::State& state) {
  if (!ready(state)) return;
  auto& model = *bench()->loaded.model;
  for (auto _ : state)
    benchmark::DoNotOptimize(aw::ablate_heads(model, "mt", bench()->data, aw::AblationMode::Single, {}, {},
                                              bench()->decoder_blocks));
  state.counters["settings"] = static_cast<double>(decoder_settings(*bench()).size(0));
}
BENCHMARK(BM_DecoderSweepLoss)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_DecoderSweepLossOneForwardPerHead(benchmark::State& state) {
  if (!ready(state)) return;
  auto& model = *bench()->loaded.model;
  const auto settings = decoder_settings(*bench());
  for (auto _ : state) forward_per_setting(model, bench()->data.inputs, settings);
}
BENCHMARK(BM_DecoderSweepLossOneForwardPerHead)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_DecoderSweepBleuBatched(benchmark::State& state) {
  if (!ready(state)) return;
  auto& model = *bench()->loaded.model->sequence_to_sequence();
  const auto settings = decoder_settings(*bench());
  for (auto _ : state) benchmark::DoNotOptimize(aw::score_gate_settings(model, *bench()->bleu, settings));
  state.counters["sentences/s"] = benchmark::Counter(static_cast<double>(settings.size(0) * bench()->pairs.size()),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DecoderSweepBleuBatched)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_DecoderSweepBleuOneSettingAtATime(benchmark::State& state) {
  if (!ready(state)) return;
  auto& model = *bench()->loaded.model->sequence_to_sequence();
  const auto settings = decoder_settings(*bench());
  for (auto _ : state)
    for (int64_t s = 0; s < settings.size(0); ++s)
      benchmark::DoNotOptimize(aw::score_gate_settings(model, *bench()->bleu, settings.narrow(0, s, 1)));
  state.counters["sentences/s"] = benchmark::Counter(static_cast<double>(settings.size(0) * bench()->pairs.size()),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DecoderSweepBleuOneSettingAtATime)->Unit(benchmark::kMillisecond)->Iterations(1);

// ---------------------------------------------------------------------------------------------
// The random model of working size and its FLOP floor.
constexpr int64_t kEncoderLayers = 3, kDecoderLayers = 3, kHeads = 8, kWidth = 512, kFeedForward = 2048;
constexpr int64_t kVocabulary = 8000, kFloorPairs = 8, kSource = 64, kTarget = 64;

aw::AttentionModel& floor_model() {
  static const auto model = [] {
    aw::configure_allocator();
    torch::set_num_threads(1);
    nlohmann::json json = {{"model_type", "transformer_mt"}, {"vocab_size", kVocabulary}, {"d_model", kWidth},
                           {"encoder_layers", kEncoderLayers}, {"decoder_layers", kDecoderLayers},
                           {"encoder_heads", kHeads}, {"decoder_heads", kHeads}, {"encoder_ffn", kFeedForward},
                           {"decoder_ffn", kFeedForward}, {"max_positions", kSource}, {"dropout", 0.0},
                           {"pad_id", 0}, {"bos_id", 2}, {"eos_id", 3}, {"decoder_start_id", 2}};
    torch::manual_seed(1);
    auto created = aw::create_model(aw::parse_model_config(json, "bench config"));
    created->module().eval();
    return created;
  }();
  return *model;
}

aw::EvaluationData floor_data() {
  aw::ModelInput input;
  input.input_ids = torch::arange(kFloorPairs * kSource).view({kFloorPairs, kSource}).mul(7919).remainder(kVocabulary - 4) + 4;
  input.decoder_input_ids = torch::arange(kFloorPairs * kTarget).view({kFloorPairs, kTarget}).mul(104729).remainder(kVocabulary - 4) + 4;
  return aw::language_model_data({input});
}

std::vector<int64_t> floor_decoder_blocks() {
  std::vector<int64_t> blocks;
  for (int64_t block = kEncoderLayers; block < kEncoderLayers + 2 * kDecoderLayers; ++block) blocks.push_back(block);
  return blocks;
}

// FLOPs (multiply-adds count 2) for the bench batch. Per target token, a decoder layer: the
// self-attention's Q, K, V, O and the cross-attention's Q, O projections, the feed-forward, and the
// two attention products of each; the cross-attention's K and V of the encoder output depend on no
// decoder gate, so the floor counts them once per layer, not once per setting.
constexpr double kTargetTokens = kFloorPairs * kTarget, kSourceTokens = kFloorPairs * kSource;
double square_flops(double tokens) { return tokens * 2.0 * kWidth * kWidth; }
double feed_forward_flops(double tokens) { return tokens * 2.0 * 2 * kWidth * kFeedForward; }
double encoder_layer_flops() { return 4 * square_flops(kSourceTokens) + feed_forward_flops(kSourceTokens) + 2.0 * 2 * kSourceTokens * kSource * kWidth; }
double memory_projection_flops() { return 2 * square_flops(kSourceTokens); }  // cross K and V, per layer
double decoder_layer_flops() {
  return 6 * square_flops(kTargetTokens) + feed_forward_flops(kTargetTokens) +
         2.0 * 2 * kTargetTokens * (kTarget + kSource) * kWidth;
}
double output_flops() { return 2.0 * kFloorPairs * (kTarget - 1) * kWidth * kVocabulary; }  // positions with a next token

// The sweep's floor: one plain forward (the baseline), then per setting of decoder layer j the
// layers j..end and the output layer, every other result (the encoder, the layers below j, the
// cross K/V) reused. Like bench_analysis's floor it counts layer j whole.
double decoder_sweep_flops() {
  double flops = kEncoderLayers * encoder_layer_flops() + kDecoderLayers * (memory_projection_flops() + decoder_layer_flops()) +
                 output_flops();
  for (int64_t layer = 0; layer < kDecoderLayers; ++layer)
    flops += 2 * kHeads * ((kDecoderLayers - layer) * decoder_layer_flops() + output_flops());
  return flops;
}

// What layer j's settings need not compute each, since a gate scales a head's context and not its
// attention: a self-attention setting shares that block's Q, K, V and attention products; a
// cross-attention setting shares the whole self-attention sublayer and its own block's Q and
// attention products. The strict floor is the floor without these ("x_strict").
double shared_in_gated_layer_flops() {
  const double self_products = 2.0 * 2 * kTargetTokens * kTarget * kWidth, cross_products = 2.0 * 2 * kTargetTokens * kSource * kWidth;
  const double per_self_setting = 3 * square_flops(kTargetTokens) + self_products;
  const double per_cross_setting = 4 * square_flops(kTargetTokens) + self_products + square_flops(kTargetTokens) + cross_products;
  return kDecoderLayers * kHeads * (per_self_setting + per_cross_setting);
}

using aw::bench::matmul_rate;
using aw::bench::seconds_since;

void BM_DecoderSweepLossFloor(benchmark::State& state) {
  auto& model = floor_model();
  const auto data = floor_data();
  const double flops = decoder_sweep_flops(), strict_flops = flops - shared_in_gated_layer_flops();
  // Untimed first run: a process's first pass faults its memory in.
  aw::ablate_heads(model, "bench", data, aw::AblationMode::Single, {}, {}, floor_decoder_blocks());
  double floor_seconds = 0.0, over_floor = 0.0, over_strict = 0.0;
  for (auto _ : state) {
    state.PauseTiming();
    const double rate = matmul_rate();
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(aw::ablate_heads(model, "bench", data, aw::AblationMode::Single, {}, {}, floor_decoder_blocks()));
    const double seconds = seconds_since(start);
    over_floor += seconds / (flops / rate);
    over_strict += seconds / (strict_flops / rate);
    floor_seconds += flops / rate;
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["GFLOP"] = flops / 1e9;
  state.counters["strict_GFLOP"] = strict_flops / 1e9;
  state.counters["floor_ms"] = floor_seconds / iterations * 1e3;
  state.counters["x_floor"] = over_floor / iterations;
  state.counters["x_strict"] = over_strict / iterations;
}
BENCHMARK(BM_DecoderSweepLossFloor)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_DecoderSweepLossFloorModelOneForwardPerHead(benchmark::State& state) {
  auto& model = floor_model();
  const auto data = floor_data();
  const auto settings = single_head_settings(model.config(), floor_decoder_blocks());
  for (auto _ : state) forward_per_setting(model, data.inputs, settings);
}
BENCHMARK(BM_DecoderSweepLossFloorModelOneForwardPerHead)->Unit(benchmark::kMillisecond)->Iterations(1);

// Arg: percent of every attention block's heads physically removed (0 = the full model).
void BM_PrunedTranslationForward(benchmark::State& state) {
  auto& model = floor_model();
  const auto data = floor_data();
  std::vector<aw::HeadRef> removed;
  for (int64_t block = 0; block < model.config().n_blocks; ++block)
    for (int64_t head = 0; head < kHeads * state.range(0) / 100; ++head) removed.push_back({block, head});
  auto pruned = removed.empty() ? std::shared_ptr<aw::AttentionModel>() : aw::remove_heads(model, removed);
  auto& measured = pruned ? *pruned : model;
  for (auto _ : state) benchmark::DoNotOptimize(aw::evaluate_perplexity(measured, data.inputs).metric);
  state.counters["heads"] = static_cast<double>(measured.config().total_heads());
}
BENCHMARK(BM_PrunedTranslationForward)->Arg(0)->Arg(50)->ArgName("percent_pruned")->Unit(benchmark::kMillisecond)->Iterations(10);

}  // namespace

BENCHMARK_MAIN();

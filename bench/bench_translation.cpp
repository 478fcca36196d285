// bench/bench_translation.cpp — the translation sweeps against their baselines, on the bundled
// English→French model (sample_data/mt_vanilla: 2+2 layers × 4 heads, d 128) and 128 Tatoeba pairs
// (every 1000th line of ../shared/data/tatoeba-eng-fra/eng-fra.tsv), one thread:
//  - the single-head ablation of the decoder's self- and cross-attention heads (16 settings) with the
//    loss metric: the sweep (the encoder's output computed once per batch and reused, the settings
//    batched through the decoder) vs one whole forward per head;
//  - the same heads with the BLEU metric (beam 4): every setting of a chunk of sources in one batched
//    beam search vs decoding each setting by itself.
#include "analysis/head_ablation.h"
#include "analysis/translation_scores.h"
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"
#include "models/training/evaluation.h"
#include "models/translation/translation_data.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

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
    aw::configure_threads(1);
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
    for (int64_t block = config.translation.encoder_layers; block < config.n_layers; ++block)
      made->decoder_blocks.push_back(block);
    return made;
  }();
  return shared.get();
}

// Single-head settings of the decoder's blocks: [S, L, H], one head off each.
torch::Tensor decoder_settings(const Bench& b) {
  std::vector<torch::Tensor> settings;
  for (const auto block : b.decoder_blocks)
    for (int64_t head = 0; head < b.loaded.config.heads_per_layer[block]; ++head) {
      auto gates = aw::all_heads_on(b.loaded.config);
      gates[block][head] = 0.0;
      settings.push_back(gates);
    }
  return torch::stack(settings);
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
  for (auto _ : state) {
    aw::ForwardOptions options;
    benchmark::DoNotOptimize(aw::evaluate_perplexity(model, bench()->data.inputs, options));  // the baseline
    for (int64_t s = 0; s < settings.size(0); ++s) {
      options.head_gates = settings[s];
      benchmark::DoNotOptimize(aw::evaluate_perplexity(model, bench()->data.inputs, options));
    }
  }
}
BENCHMARK(BM_DecoderSweepLossOneForwardPerHead)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_DecoderSweepBleuBatched(benchmark::State& state) {
  if (!ready(state)) return;
  auto& model = dynamic_cast<aw::TranslationTransformerImpl&>(*bench()->loaded.model);
  const auto settings = decoder_settings(*bench());
  for (auto _ : state) benchmark::DoNotOptimize(aw::score_gate_settings(model, *bench()->bleu, settings));
  state.counters["sentences/s"] = benchmark::Counter(static_cast<double>(settings.size(0) * bench()->pairs.size()),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DecoderSweepBleuBatched)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_DecoderSweepBleuOneSettingAtATime(benchmark::State& state) {
  if (!ready(state)) return;
  auto& model = dynamic_cast<aw::TranslationTransformerImpl&>(*bench()->loaded.model);
  const auto settings = decoder_settings(*bench());
  for (auto _ : state)
    for (int64_t s = 0; s < settings.size(0); ++s)
      benchmark::DoNotOptimize(aw::score_gate_settings(model, *bench()->bleu, settings.narrow(0, s, 1)));
  state.counters["sentences/s"] = benchmark::Counter(static_cast<double>(settings.size(0) * bench()->pairs.size()),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DecoderSweepBleuOneSettingAtATime)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();

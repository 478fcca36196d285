// analysis/data/translation_scores.cpp — see translation_scores.h.
#include "analysis/data/translation_scores.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>

namespace aw {
namespace {

constexpr int64_t kCpuSearchRows = 64;
constexpr int64_t kGpuSearchRows = 256;

// The padded encoder input of sources[first, first + count) on `device`.
ModelInput source_input(const BleuTask& task, int64_t first, int64_t count, int64_t pad_id,
                        const torch::Device& device) {
  const auto padded = pad_id_rows({task.sources.begin() + first, task.sources.begin() + first + count}, pad_id);
  ModelInput input;
  input.input_ids = padded.ids.to(device);
  input.attention_mask = padded.mask.to(device);
  return input;
}

}  // namespace

BleuTask make_bleu_task(const ModelConfig& config, std::shared_ptr<const TranslationCodec> codec,
                        const std::vector<TranslationPair>& pairs, const SearchSettings& search) {
  BleuTask task;
  for (const auto& pair : pairs) {
    auto ids = codec->source_ids(pair.source);
    if (static_cast<int64_t>(ids.size()) > config.max_positions) {
      ++task.skipped;
      continue;
    }
    task.sources.push_back(std::move(ids));
    task.references.push_back(pair.target);
  }
  if (task.sources.empty())
    throw Error("no source fits the model's " + std::to_string(config.max_positions) + " positions");
  task.codec = std::move(codec);
  task.search = search;
  return task;
}

std::vector<TranslationScores> score_gate_settings(SequenceToSequenceModel& model, const BleuTask& task,
                                                   const torch::Tensor& gates, const ForwardOptions& options,
                                                   const ProgressCallback& progress, int64_t max_rows) {
  const auto& config = model.config();
  TORCH_CHECK(gates.dim() == 3 && gates.size(1) == config.n_blocks && gates.size(2) == config.max_heads(),
              "gate settings must be [S, blocks, H_max]");
  c10::InferenceMode inference;
  model.module().eval();
  const auto device = model.module().parameters().front().device();
  const auto settings = gates.size(0);
  const auto all_gates = gates.to(device, torch::kFloat32);
  const auto row_limit = max_rows > 0 ? max_rows : device.is_cuda() ? kGpuSearchRows : kCpuSearchRows;
  const auto count = static_cast<int64_t>(task.sources.size());
  std::vector<TranslationScores> scores(settings);

  for (int64_t chunk = 0; chunk < task.chunks(); ++chunk) {
    const auto first = chunk * task.chunk_sources;
    const auto rows = std::min(task.chunk_sources, count - first);
    const auto input = source_input(task, first, rows, config.translation.pad_id, device);
    // Settings side by side, as many as fit in one search: setting-major rows, each row its gates.
    const auto group = std::max<int64_t>(1, row_limit / rows);
    for (int64_t setting = 0; setting < settings; setting += group) {
      const auto size = std::min(group, settings - setting);
      ForwardOptions search_options = options;
      search_options.head_gates = all_gates.narrow(0, setting, size).repeat_interleave(rows, 0);
      const auto repeated = input.map([&](const torch::Tensor& t) { return t.repeat({size, 1}); });
      const auto hypotheses = translate_rows(model, repeated, task.search, search_options);
      for (int64_t s = 0; s < size; ++s)
        for (int64_t row = 0; row < rows; ++row)
          scores[setting + s].hypotheses.push_back(task.codec->text(hypotheses[s * rows + row].ids));
    }
    if (!report_progress(progress, chunk + 1, task.chunks())) return {};
  }
  for (auto& score : scores) {
    score.bleu = corpus_bleu(score.hypotheses, task.references);
    score.chrf = corpus_chrf(score.hypotheses, task.references);
    score.skipped = task.skipped;
  }
  return scores;
}

TranslationScores score_translations(SequenceToSequenceModel& model, const TranslationCodec& codec,
                                     const std::vector<TranslationPair>& pairs, const SearchSettings& search,
                                     int64_t batch, const ForwardOptions& options, const ProgressCallback& progress) {
  // The codec outlives this call; the task borrows it.
  auto task = make_bleu_task(model.config(), std::shared_ptr<const TranslationCodec>(&codec, [](const auto*) {}),
                             pairs, search);
  task.chunk_sources = std::max<int64_t>(1, batch);
  const auto& config = model.config();
  const auto gates = options.head_gates.defined() ? options.head_gates : torch::ones({config.n_blocks, config.max_heads()});
  const auto sources = static_cast<int64_t>(task.sources.size());
  auto scores = score_gate_settings(model, task, gates.unsqueeze(0), options,
                                    [&](int64_t done, int64_t) {
                                      return report_progress(progress, std::min(sources, done * task.chunk_sources),
                                                             sources);
                                    },
                                    task.chunk_sources);
  if (scores.empty()) {
    TranslationScores cancelled;
    cancelled.cancelled = true;
    return cancelled;
  }
  return std::move(scores.front());
}

}  // namespace aw

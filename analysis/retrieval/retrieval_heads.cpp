// analysis/retrieval/retrieval_heads.cpp — see retrieval_heads.h.
#include "analysis/retrieval/retrieval_heads.h"

#include <torch/torch.h>

#include <algorithm>
#include <map>

namespace aw {
namespace {

// The scored query rows of a batch of cases: row r predicts token r + 1, which is needle token
// j = r + 1 − copy_start; rows with cue ≤ j < m are scored, their target key needle_start + j.
struct ScoredRows {
  int64_t first = 0, count = 0;  // rows [first, first + count) cover every case's scored rows
  torch::Tensor target;          // [B, count] long: the needle position of the token, −1 = not scored
};

ScoredRows scored_rows(const std::vector<const NeedleCase*>& cases, int64_t cue) {
  ScoredRows rows;
  int64_t first = INT64_MAX, end = 0;
  for (const auto* c : cases) {
    first = std::min(first, c->copy_start + cue - 1);
    end = std::max(end, c->copy_start + c->needle_length - 1);
  }
  rows.first = first;
  rows.count = end - first;
  rows.target = torch::full({static_cast<int64_t>(cases.size()), rows.count}, -1, torch::kLong);
  auto target = rows.target.accessor<int64_t, 2>();
  for (size_t b = 0; b < cases.size(); ++b)
    for (int64_t j = cue; j < cases[b]->needle_length; ++j)
      target[static_cast<int64_t>(b)][cases[b]->copy_start + j - 1 - first] = cases[b]->needle_start + j;
  return rows;
}

}  // namespace

RetrievalResult retrieval_heads(AttentionModel& model, const std::vector<NeedleCase>& cases,
                                const NeedleSettings& settings, int64_t batch, const ForwardOptions& forward,
                                const ProgressCallback& progress) {
  c10::InferenceMode inference;
  model.module().eval();
  const auto& config = model.config();
  const auto device = model.module().parameters().front().device();
  RetrievalResult result;
  result.heads_per_layer = config.heads_per_block;
  std::map<std::pair<int64_t, double>, int64_t> group_of;
  for (const auto length : settings.lengths)
    for (const auto depth : settings.depths) {
      group_of[{length, depth}] = static_cast<int64_t>(result.lengths.size());
      result.lengths.push_back(length);
      result.depths.push_back(depth);
    }
  const auto groups = static_cast<int64_t>(result.lengths.size());
  const auto f64 = torch::dtype(torch::kFloat64).device(device);
  auto hits = torch::zeros({groups, config.n_blocks, config.max_heads()}, f64), looked = torch::zeros_like(hits);
  auto copied = torch::zeros({groups}, f64), asked = torch::zeros({groups}, f64);

  // Batches of cases of one length (the cases come length-major).
  std::vector<std::vector<const NeedleCase*>> batches;
  for (const auto& c : cases) {
    if (batches.empty() || static_cast<int64_t>(batches.back().size()) == batch || batches.back().front()->length != c.length)
      batches.emplace_back();
    batches.back().push_back(&c);
  }
  for (size_t index = 0; index < batches.size(); ++index) {
    const auto& members = batches[index];
    const auto count = static_cast<int64_t>(members.size());
    auto ids = torch::empty({count, members.front()->length}, torch::kLong);
    for (int64_t b = 0; b < count; ++b) ids[b].copy_(torch::tensor(members[b]->ids, torch::kLong));
    ModelInput input;
    input.input_ids = ids.to(device);
    const auto rows = scored_rows(members, settings.cue);
    const auto target = rows.target.to(device).unsqueeze(1);                                  // (B, 1, k)
    // Per layer: whether each head's top key at each scored row is the needle's token.
    std::vector<torch::Tensor> on_needle(config.n_blocks);
    ForwardOptions options = forward;
    options.capture = CaptureMode::Stats;
    options.tile_observer = [&](int64_t layer, int64_t first_row, const torch::Tensor& tile) {
      const int64_t from = std::max(first_row, rows.first), to = std::min(first_row + tile.size(2), rows.first + rows.count);
      if (from >= to) return;
      auto& layer_hits = on_needle[layer];
      if (!layer_hits.defined())
        layer_hits = torch::zeros({count, tile.size(1), rows.count}, torch::dtype(torch::kBool).device(device));
      const auto top = tile.narrow(2, from - first_row, to - from).argmax(-1);                 // (B, H, rows)
      layer_hits.narrow(2, from - rows.first, to - from).copy_(top.eq(target.narrow(2, from - rows.first, to - from)));
    };
    const auto hidden = model.run_layers(model.embed(input), input, 0, config.n_blocks, options).hidden;
    // The model's greedy predictions at the scored rows, and the tokens it should predict there.
    const auto logits = model.output(hidden.narrow(1, rows.first, rows.count), ModelInput{});  // (B, k, V)
    const auto predicted = logits.argmax(-1);
    const auto expected = input.input_ids.narrow(1, rows.first + 1, rows.count);
    const auto scored = rows.target.to(device).ge(0);
    // Copied while every scored prediction so far was right (greedy decoding's prefix).
    const auto right = predicted.eq(expected) | scored.logical_not();
    const auto copied_rows = (right.to(torch::kLong).cumprod(1).eq(1) & scored).to(torch::kFloat64);  // (B, k)
    std::vector<int64_t> group_index;
    for (const auto* c : members) group_index.push_back(group_of.at({c->length, c->depth}));
    const auto groups_of_rows = torch::tensor(group_index, torch::kLong).to(device);
    copied.index_add_(0, groups_of_rows, copied_rows.sum(1));
    asked.index_add_(0, groups_of_rows, scored.to(torch::kFloat64).sum(1));
    for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
      const auto& layer_hits = on_needle[layer];
      const auto on = layer_hits.to(torch::kFloat64);                                          // (B, H, k)
      const auto per_case = (on * copied_rows.unsqueeze(1)).sum(2);                             // (B, H)
      hits.select(1, layer).narrow(1, 0, per_case.size(1)).index_add_(0, groups_of_rows, per_case);
      looked.select(1, layer).narrow(1, 0, per_case.size(1)).index_add_(0, groups_of_rows, on.sum(2));
    }
    if (!report_progress(progress, static_cast<int64_t>(index) + 1, static_cast<int64_t>(batches.size())))
      return result.cancelled = true, result;
  }
  result.hits = hits.cpu();
  result.looked = looked.cpu();
  result.copied = copied.cpu();
  result.asked = asked.cpu();
  return result;
}

}  // namespace aw

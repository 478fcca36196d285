// analysis/circuits/translation_path_patching.cpp — see translation_path_patching.h. Per batch of
// pairs of one source and one target length, with the model's encode() and decode() stages and hooks:
//   1. the clean run, reading every block's z; the corrupted run's encoder output (the memory), the
//      decoder's last state and m;
//   2. each sender's write: the corrupted run (the encoder alone for an encoder block, else the decoder
//      on the corrupted memory) with the sets' settings of z as groups of B rows, attn_out read, less
//      the all-corrupted group;
//   3. the logits: the decoder's corrupted last state plus a decoder or cross sender's write;
//   4. a receiver block: its q, k and v computed with a sender's write added where the receiver reads
//      the stream (table in the header), then the corrupted run with one receiver's q, k or v replaced.
#include "analysis/circuits/translation_path_patching.h"

#include "analysis/circuits/pair_batches.h"

#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <map>

namespace aw {
// A named namespace: in a unity build this file shares a unit with path_patching.cpp, whose anonymous
// namespace has helpers of the same names.
namespace translation_paths {

bool in_encoder(const ModelConfig& config, int64_t block) {
  return config.attention_block(block).kind == AttentionKind::Encoder;
}

// Where a receiver's input is computed from: the state at `point` of `block`.
struct ReadPoint {
  HookPoint point = HookPoint::ResidPre;
  int64_t block = 0;
};
ReadPoint read_point(const ModelConfig& config, const PathReceiver& receiver) {
  const auto r = receiver.layer;
  if (config.attention_block(r).kind != AttentionKind::Cross) return {HookPoint::ResidPre, r};
  if (receiver.kind == PathKind::Query) return {HookPoint::ResidMid, r - 1};  // after its layer's self-attention
  return {HookPoint::ResidPost, config.translation.encoder_layers - 1};        // the encoder's last state
}

// The corrupted run `times` over: the encoder alone (its output), the decoder on the corrupted memory
// (logits), or the whole model (logits).
enum class Stage { Encoder, Decoder, Whole };
struct Runs {
  torch::Tensor clean, corrupted;       // [B] m
  std::vector<torch::Tensor> clean_z;   // per block [B, H, rows, dh]
  torch::Tensor memory, last_state;     // corrupted: [B, n, d] the encoder's output, [B, m, d] the decoder's
};
torch::Tensor run_corrupted(SequenceToSequenceModel& model, const PairBatch& batch, const Runs& runs, int64_t times,
                            const ForwardOptions& options, Stage stage) {
  const auto input = repeated(batch.corrupted, times);
  if (stage == Stage::Encoder) return model.encode(input, options).hidden;
  if (stage == Stage::Decoder) return model.decode(runs.memory.repeat({times, 1, 1}), input, options).logits;
  return model.forward(input, options).logits;
}

torch::Tensor last_metric(const torch::Tensor& logits, const PairBatch& batch) {
  return pair_metric(logits.select(1, batch.length - 1), batch);
}

Runs clean_and_corrupted(SequenceToSequenceModel& model, const PairBatch& batch, const torch::Tensor& gates) {
  Runs runs;
  runs.clean_z.resize(static_cast<size_t>(model.config().n_blocks));
  ForwardOptions clean;
  clean.head_gates = gates;
  clean.hooks.add(HookPoint::Z, -1, [&](const HookSite& site, const torch::Tensor& z) {
    runs.clean_z[site.layer] = z.clone();
    return torch::Tensor();
  });
  runs.clean = last_metric(model.forward(batch.clean, clean).logits, batch);
  ForwardOptions corrupted;
  corrupted.head_gates = gates;
  runs.memory = model.encode(batch.corrupted, corrupted).hidden;
  const auto result = model.decode(runs.memory, batch.corrupted, corrupted);
  runs.corrupted = last_metric(result.logits, batch);
  runs.last_state = result.hidden;
  return runs;
}

// Each set's write, its heads' z clean and the others' corrupted, less the all-corrupted one: [K, B, ·, d].
torch::Tensor sender_writes(SequenceToSequenceModel& model, const PairBatch& batch, const Runs& runs, int64_t block,
                            const std::vector<std::vector<int64_t>>& sets, const torch::Tensor& gates) {
  const auto count = static_cast<int64_t>(sets.size());
  const auto b = batch.answer.size(0);
  torch::Tensor attn_out;
  ForwardOptions options;
  options.head_gates = gates;
  options.hooks.add(HookPoint::Z, block, [&](const HookSite&, const torch::Tensor& z) {
    auto settings = z.clone();  // group 0 all corrupted, group k + 1 set k's heads clean
    for (int64_t k = 0; k < count; ++k)
      for (const auto h : sets[k]) settings.narrow(0, (k + 1) * b, b).select(1, h).copy_(runs.clean_z[block].select(1, h));
    return settings;
  });
  options.hooks.add(HookPoint::AttnOut, block, [&](const HookSite&, const torch::Tensor& value) {
    attn_out = value.clone();
    return torch::Tensor();
  });
  const auto stage = in_encoder(model.config(), block) ? Stage::Encoder : Stage::Decoder;
  run_corrupted(model, batch, runs, count + 1, options, stage);
  const auto settings = attn_out.view({count + 1, b, attn_out.size(1), attn_out.size(2)});
  return settings.narrow(0, 1, count) - settings.narrow(0, 0, 1);
}

// q, k and v of block r [B, H, rows, dh] with each sender's write added where `receiver` reads: per
// sender, in `senders` order (at most `rows` rows a forward).
struct Received {
  std::vector<torch::Tensor> q, k, v;
};
Received received_inputs(SequenceToSequenceModel& model, const PairBatch& batch, const Runs& runs,
                         const PathReceiver& receiver, const std::vector<torch::Tensor>& writes, int64_t rows,
                         const torch::Tensor& gates) {
  const auto& config = model.config();
  const auto b = batch.answer.size(0);
  const auto read = read_point(config, receiver);
  const auto r = receiver.layer;
  // An encoder receiver needs the encoder only; cross k/v read the memory, so the whole model runs.
  const auto stage = in_encoder(config, r) ? Stage::Encoder : in_encoder(config, read.block) ? Stage::Whole : Stage::Decoder;
  const auto per_forward = std::max<int64_t>(1, rows / b);
  Received received;
  for (size_t first = 0; first < writes.size(); first += static_cast<size_t>(per_forward)) {
    const auto end = std::min(writes.size(), first + static_cast<size_t>(per_forward));
    const auto count = static_cast<int64_t>(end - first);
    ForwardOptions options;
    options.head_gates = gates;
    options.hooks.add(read.point, read.block, [&](const HookSite&, const torch::Tensor& state) {
      std::vector<torch::Tensor> added(writes.begin() + static_cast<std::ptrdiff_t>(first),
                                       writes.begin() + static_cast<std::ptrdiff_t>(end));
      return state + torch::cat(added, 0);
    });
    torch::Tensor q, k, v;
    options.hooks.add(HookPoint::Q, r, [&](const HookSite&, const torch::Tensor& x) { return q = x.clone(), torch::Tensor(); });
    options.hooks.add(HookPoint::K, r, [&](const HookSite&, const torch::Tensor& x) { return k = x.clone(), torch::Tensor(); });
    options.hooks.add(HookPoint::V, r, [&](const HookSite&, const torch::Tensor& x) { return v = x.clone(), torch::Tensor(); });
    run_corrupted(model, batch, runs, count, options, stage);
    for (int64_t i = 0; i < count; ++i) {
      received.q.push_back(q.narrow(0, i * b, b));
      received.k.push_back(k.narrow(0, i * b, b));
      received.v.push_back(v.narrow(0, i * b, b));
    }
  }
  return received;
}

bool exists(const ModelConfig& config, const PathSender& sender, const PathReceiver& receiver) {
  if (!config.is_translation()) return receiver.kind == PathKind::Logits || sender.layer < receiver.layer;
  const bool encoder_sender = in_encoder(config, sender.layer);
  if (receiver.kind == PathKind::Logits) return !encoder_sender;
  const auto kind = config.attention_block(receiver.layer).kind;
  if (kind == AttentionKind::Cross && receiver.kind != PathKind::Query) return encoder_sender;
  return encoder_sender == (kind == AttentionKind::Encoder) && sender.layer < receiver.layer;
}

PathPatchResult patch(SequenceToSequenceModel& model, const std::vector<PatchPair>& pairs,
                      const PathPatchSettings& settings, const ProgressCallback& progress) {
  const auto& config = model.config();
  PathPatchResult result;
  result.senders = settings.senders.empty() ? every_head(config) : settings.senders;
  result.receivers = settings.receivers.empty() ? std::vector<PathReceiver>{PathReceiver{}} : settings.receivers;
  c10::InferenceMode inference;
  model.module().eval();
  const auto p = static_cast<int64_t>(pairs.size());
  const auto s_count = static_cast<int64_t>(result.senders.size()), r_count = static_cast<int64_t>(result.receivers.size());
  result.clean = torch::zeros({p}, torch::kFloat64);
  result.corrupted = torch::zeros({p}, torch::kFloat64);
  result.patched = torch::full({s_count, r_count, p}, std::numeric_limits<double>::quiet_NaN(), torch::kFloat64);
  std::map<int64_t, std::vector<int64_t>> senders_of;  // by block
  for (int64_t s = 0; s < s_count; ++s) senders_of[result.senders[s].layer].push_back(s);
  const auto device = model.module().parameters().front().device();
  const auto gates = settings.gates.defined() ? settings.gates.to(device) : torch::Tensor();

  const auto batches = batches_by_length(pairs, settings.batch);
  for (size_t index = 0; index < batches.size(); ++index) {
    const auto batch = make_batch(pairs, batches[index], device);
    const auto b = static_cast<int64_t>(batch.pairs.size());
    const auto m = batch.length;
    const auto runs = clean_and_corrupted(model, batch, gates);
    const auto pair_index = torch::tensor(batch.pairs, torch::kLong);
    result.clean.index_put_({pair_index}, runs.clean);
    result.corrupted.index_put_({pair_index}, runs.corrupted);
    std::vector<torch::Tensor> writes(static_cast<size_t>(s_count));
    for (const auto& [block, members] : senders_of) {
      bool read = false;  // by any receiver (encoder senders have no path to the logits)
      for (const auto& receiver : result.receivers) read = read || exists(config, result.senders[members.front()], receiver);
      if (!read) continue;
      std::vector<std::vector<int64_t>> sets;
      for (const auto s : members) sets.push_back(result.senders[s].heads);
      const auto block_writes = sender_writes(model, batch, runs, block, sets, gates);
      for (size_t i = 0; i < members.size(); ++i) writes[members[i]] = block_writes[static_cast<int64_t>(i)];
    }
    auto record = [&](int64_t sender, int64_t receiver, const torch::Tensor& value) {
      result.patched[sender][receiver].index_put_({pair_index}, value);
    };
    for (int64_t r = 0; r < r_count; ++r) {
      const auto& receiver = result.receivers[r];
      std::vector<int64_t> reaching;
      std::vector<torch::Tensor> reaching_writes;
      for (int64_t s = 0; s < s_count; ++s)
        if (exists(config, result.senders[s], receiver)) reaching.push_back(s), reaching_writes.push_back(writes[s]);
      if (reaching.empty()) continue;
      const auto per_forward = std::max<int64_t>(1, settings.rows / b);
      if (receiver.kind == PathKind::Logits) {  // the decoder's corrupted last state plus the write
        const auto last = runs.last_state.narrow(1, m - 1, 1);
        for (size_t first = 0; first < reaching.size(); first += static_cast<size_t>(per_forward)) {
          const auto end = std::min(reaching.size(), first + static_cast<size_t>(per_forward));
          std::vector<torch::Tensor> states;
          for (size_t i = first; i < end; ++i) states.push_back(last + reaching_writes[i].narrow(1, m - 1, 1));
          const auto metric = pair_metric(last_logits(model, torch::cat(states, 0), batch), batch)
                                  .view({static_cast<int64_t>(end - first), b});
          for (size_t i = first; i < end; ++i) record(reaching[i], r, metric[static_cast<int64_t>(i - first)]);
        }
        continue;
      }
      const auto received = received_inputs(model, batch, runs, receiver, reaching_writes, settings.rows, gates);
      const auto& inputs = receiver.kind == PathKind::Query ? received.q
                           : receiver.kind == PathKind::Key ? received.k
                                                            : received.v;
      const auto point = receiver.kind == PathKind::Query ? HookPoint::Q
                         : receiver.kind == PathKind::Key ? HookPoint::K
                                                          : HookPoint::V;
      const auto stage = in_encoder(config, receiver.layer) ? Stage::Whole : Stage::Decoder;
      for (size_t first = 0; first < reaching.size(); first += static_cast<size_t>(per_forward)) {
        const auto end = std::min(reaching.size(), first + static_cast<size_t>(per_forward));
        ForwardOptions options;
        options.head_gates = gates;
        options.hooks.add(point, receiver.layer, [&](const HookSite&, const torch::Tensor& value) {
          auto patched = value.clone();
          for (size_t i = first; i < end; ++i)
            for (const auto h : receiver.heads)
              patched.narrow(0, static_cast<int64_t>(i - first) * b, b).select(1, h).copy_(inputs[i].select(1, h));
          return patched;
        });
        const auto logits = run_corrupted(model, batch, runs, static_cast<int64_t>(end - first), options, stage);
        const auto metric = last_metric(logits, batch).view({static_cast<int64_t>(end - first), b});
        for (size_t i = first; i < end; ++i) record(reaching[i], r, metric[static_cast<int64_t>(i - first)]);
      }
    }
    if (!report_progress(progress, static_cast<int64_t>(index + 1), static_cast<int64_t>(batches.size()))) {
      result.cancelled = true;
      return result;
    }
  }
  return result;
}

}  // namespace translation_paths

bool path_exists(const ModelConfig& config, const PathSender& sender, const PathReceiver& receiver) {
  return translation_paths::exists(config, sender, receiver);
}

PathPatchResult translation_path_patch(SequenceToSequenceModel& model, const std::vector<PatchPair>& pairs,
                                       const PathPatchSettings& settings, const ProgressCallback& progress) {
  return translation_paths::patch(model, pairs, settings, progress);
}

}  // namespace aw

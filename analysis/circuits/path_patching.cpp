// analysis/circuits/path_patching.cpp — see path_patching.h. Per batch of pairs of one length:
//   1. the clean run, reading every layer's z; the corrupted run, reading every layer's resid_pre and
//      the last layer's output;
//   2. each sender's write: its layer re-run from the corrupted resid_pre with the H heads' settings of
//      z (one head clean, the others corrupted) as k·B rows at z, attn_out read — the difference from
//      the all-corrupted attn_out is what the sender alone changes in the residual stream, after any
//      norm on the attention's output (Gemma 2, OLMo 2);
//   3. logits: the corrupted last state plus a sender's write, through the final norm and unembedding,
//      at the last position;
//   4. a receiver layer: its queries, keys and values computed from the corrupted resid_pre plus each
//      sender's write, then the corrupted run from that layer with one receiver's q, k or v replaced,
//      as many settings per forward as `rows` allows.
#include "analysis/circuits/path_patching.h"

#include "analysis/circuits/pair_batches.h"
#include "analysis/circuits/translation_path_patching.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <map>

namespace aw {
namespace {

// What one batch's runs leave for the patched ones.
struct Runs {
  torch::Tensor clean, corrupted;           // [B] m
  std::vector<torch::Tensor> clean_z;       // per layer [B, H, n, dh]
  std::vector<torch::Tensor> resid_pre;     // per layer [B, n, d], corrupted
  torch::Tensor last_state;                 // [B, n, d]: the corrupted run's last layer output
};

Runs clean_and_corrupted(AttentionModel& model, const PairBatch& batch, const torch::Tensor& gates) {
  const auto layers = model.config().n_blocks;
  Runs runs;
  runs.clean_z.resize(static_cast<size_t>(layers));
  runs.resid_pre.resize(static_cast<size_t>(layers));
  ForwardOptions clean;
  clean.head_gates = gates;
  clean.hooks.add(HookPoint::Z, -1, [&](const HookSite& site, const torch::Tensor& z) {
    runs.clean_z[site.layer] = z.clone();
    return torch::Tensor();
  });
  const auto n = batch.length;
  runs.clean = pair_metric(model.forward(batch.clean, clean).logits.select(1, n - 1), batch);
  ForwardOptions corrupted;
  corrupted.head_gates = gates;
  corrupted.hooks.add(HookPoint::ResidPre, -1, [&](const HookSite& site, const torch::Tensor& x) {
    runs.resid_pre[site.layer] = x.clone();
    return torch::Tensor();
  });
  const auto result = model.forward(batch.corrupted, corrupted);
  runs.corrupted = pair_metric(result.logits.select(1, n - 1), batch);
  runs.last_state = result.hidden;
  return runs;
}

// Each set's write into the residual stream, its heads' z clean and the others' corrupted, minus the
// all-corrupted one: [K, B, n, d] for K sets of heads of layer `layer`.
torch::Tensor sender_writes(AttentionModel& model, const PairBatch& batch, const Runs& runs, int64_t layer,
                            const std::vector<std::vector<int64_t>>& sets, const torch::Tensor& gates) {
  const auto count = static_cast<int64_t>(sets.size());
  torch::Tensor attn_out;
  ForwardOptions options;
  options.head_gates = gates;
  options.hooks.add(HookPoint::Z, layer, [&](const HookSite&, const torch::Tensor& z) {
    std::vector<torch::Tensor> settings{z};
    for (const auto& heads : sets) {
      auto some = z.clone();
      for (const auto h : heads) some.select(1, h).copy_(runs.clean_z[layer].select(1, h));
      settings.push_back(some);
    }
    return torch::cat(settings, 0);  // (K + 1)·B rows, setting-major: all corrupted first
  });
  options.hooks.add(HookPoint::AttnOut, layer, [&](const HookSite&, const torch::Tensor& value) {
    attn_out = value.clone();
    return torch::Tensor();
  });
  model.run_layers(runs.resid_pre[layer], batch.corrupted, layer, layer + 1, options);
  const auto b = batch.answer.size(0);
  const auto settings = attn_out.view({count + 1, b, attn_out.size(1), attn_out.size(2)});
  return settings.narrow(0, 1, count) - settings.narrow(0, 0, 1);
}

// One receiver layer's q, k and v for the corrupted resid_pre plus each sender's write ([S2, B, ·]
// each, S2 = the senders in `writes` order).
struct ReceivedInputs {
  torch::Tensor q, k, v;  // [S2, B, H|Hkv, n, dh]
};
ReceivedInputs received_inputs(AttentionModel& model, const PairBatch& batch, const Runs& runs, int64_t layer,
                               const std::vector<torch::Tensor>& writes, int64_t rows, const torch::Tensor& gates) {
  const auto b = batch.answer.size(0);
  const auto per_forward = std::max<int64_t>(1, rows / b);
  std::vector<torch::Tensor> qs, ks, vs;
  for (size_t first = 0; first < writes.size(); first += static_cast<size_t>(per_forward)) {
    const auto end = std::min(writes.size(), first + static_cast<size_t>(per_forward));
    std::vector<torch::Tensor> states;
    for (size_t s = first; s < end; ++s) states.push_back(runs.resid_pre[layer] + writes[s]);
    const auto count = static_cast<int64_t>(end - first);
    ForwardOptions options;
    options.head_gates = gates;
    torch::Tensor q, k, v;
    options.hooks.add(HookPoint::Q, layer, [&](const HookSite&, const torch::Tensor& x) { return q = x.clone(), torch::Tensor(); });
    options.hooks.add(HookPoint::K, layer, [&](const HookSite&, const torch::Tensor& x) { return k = x.clone(), torch::Tensor(); });
    options.hooks.add(HookPoint::V, layer, [&](const HookSite&, const torch::Tensor& x) { return v = x.clone(), torch::Tensor(); });
    model.run_layers(torch::cat(states, 0), repeated(batch.corrupted, count), layer, layer + 1, options);
    qs.push_back(q.view({count, b, q.size(1), q.size(2), q.size(3)}));
    ks.push_back(k.view({count, b, k.size(1), k.size(2), k.size(3)}));
    vs.push_back(v.view({count, b, v.size(1), v.size(2), v.size(3)}));
  }
  return {torch::cat(qs, 0), torch::cat(ks, 0), torch::cat(vs, 0)};
}

}  // namespace

std::string path_kind_name(PathKind kind) {
  switch (kind) {
    case PathKind::Logits: return "logits";
    case PathKind::Query: return "q";
    case PathKind::Key: return "k";
    case PathKind::Value: return "v";
  }
  return "";
}

std::vector<PathSender> every_head(const ModelConfig& config) {
  std::vector<PathSender> senders;
  for (int64_t l = 0; l < config.n_blocks; ++l)
    for (int64_t h = 0; h < config.heads_per_block[l]; ++h) senders.push_back({l, {h}});
  return senders;
}

std::vector<PathReceiver> layer_receivers(const ModelConfig& config, int64_t layer) {
  std::vector<PathReceiver> receivers;
  for (int64_t h = 0; h < config.heads_per_block.at(layer); ++h) receivers.push_back({PathKind::Query, layer, {h}});
  for (const auto kind : {PathKind::Key, PathKind::Value})
    for (int64_t g = 0; g < config.kv_heads_in(layer); ++g) receivers.push_back({kind, layer, {g}});
  return receivers;
}

bool has_senders(const ModelConfig& config, const PathReceiver& receiver) {
  for (int64_t block = 0; block < config.n_blocks; ++block)
    if (path_exists(config, PathSender{block, {0}}, receiver)) return true;
  return false;
}

std::string block_name(const ModelConfig& config, int64_t block) {
  if (!config.is_translation()) return std::to_string(block + 1);
  const auto where = config.attention_block(block);
  return to_string(where.kind) + std::to_string(where.layer + 1);
}

namespace {
std::string heads_name(const ModelConfig* config, int64_t layer, const std::vector<int64_t>& heads) {
  const auto block = config ? block_name(*config, layer) : std::to_string(layer + 1);
  std::string name;
  for (const auto h : heads) name += (name.empty() ? "" : "+") + block + "." + std::to_string(h + 1);
  return name;
}
}  // namespace

std::string sender_name(const PathSender& sender) { return heads_name(nullptr, sender.layer, sender.heads); }
std::string receiver_heads_name(const PathReceiver& receiver) {
  return receiver.kind == PathKind::Logits ? "logits" : heads_name(nullptr, receiver.layer, receiver.heads);
}
std::string sender_name(const PathSender& sender, const ModelConfig& config) {
  return heads_name(&config, sender.layer, sender.heads);
}
std::string receiver_heads_name(const PathReceiver& receiver, const ModelConfig& config) {
  return receiver.kind == PathKind::Logits ? "logits" : heads_name(&config, receiver.layer, receiver.heads);
}

namespace {

// Throws for a set the model lacks a head of: `count` heads in the block, `what` names them.
void check_heads(const ModelConfig& config, const std::vector<int64_t>& heads, int64_t layer, int64_t count,
                 const std::string& what, const std::string& name) {
  if (heads.empty()) throw Error(what + " " + name + " names no head");
  const auto block = config.is_translation() ? block_name(config, layer) : "layer " + block_name(config, layer);
  for (const auto h : heads)
    if (h < 0 || h >= count)
      throw Error(what + " " + name + ": " + block + " has " + std::to_string(count) + " " +
                  (what == "k receiver" || what == "v receiver" ? "key/value heads" : "heads"));
}

void check_paths(const ModelConfig& config, const std::vector<PathSender>& senders,
                 const std::vector<PathReceiver>& receivers) {
  const auto blocks = config.is_translation() ? "blocks" : "layers";
  for (const auto& sender : senders) {
    if (sender.layer < 0 || sender.layer >= config.n_blocks)
      throw Error("sender " + sender_name(sender) + ": the model has " + blocks + " 1 to " + std::to_string(config.n_blocks));
    check_heads(config, sender.heads, sender.layer, config.heads_per_block[sender.layer], "sender", sender_name(sender, config));
  }
  for (const auto& receiver : receivers) {
    if (receiver.kind == PathKind::Logits) continue;
    const auto what = path_kind_name(receiver.kind) + " receiver";
    if (receiver.layer < 0 || receiver.layer >= config.n_blocks)
      throw Error("receiver layer " + std::to_string(receiver.layer + 1) + ": the model has " + blocks + " 1 to " +
                  std::to_string(config.n_blocks));
    if (!has_senders(config, receiver))
      throw Error("receiver " + (config.is_translation() ? path_kind_name(receiver.kind) + " " : std::string("layer ")) +
                  block_name(config, receiver.layer) + " has no earlier heads to send to it");
    const auto count = receiver.kind == PathKind::Query ? config.heads_per_block[receiver.layer] : config.kv_heads_in(receiver.layer);
    check_heads(config, receiver.heads, receiver.layer, count, what, receiver_heads_name(receiver, config));
  }
}

}  // namespace

void check_path_patch(const ModelConfig& config, const PathPatchSettings& settings) {
  if (!config.is_translation() && (!config.is_language_model() || config.is_recurrent()))
    throw Error("path patching needs a language model of transformer blocks or a pre-norm translation model");
  if (config.norm == NormPlacement::Post)  // Marian, BART, a post-norm transformer_lm
    throw Error("path patching needs pre-norm blocks; " + config.family_name() + " normalises after the add, so a head's "
                "write reaches the later blocks only through the norm after it, not added to their input");
  check_paths(config, settings.senders, settings.receivers);
}

PathPatchResult path_patch(AttentionModel& model, const std::vector<PatchPair>& pairs, const PathPatchSettings& settings,
                           const ProgressCallback& progress) {
  const auto& config = model.config();
  check_path_patch(config, settings);
  if (auto* translation = model.sequence_to_sequence()) return translation_path_patch(*translation, pairs, settings, progress);
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
  // The senders of each layer, and the receivers of each receiving layer (the logits' under −1).
  std::map<int64_t, std::vector<int64_t>> senders_of, receivers_of;
  for (int64_t s = 0; s < s_count; ++s) senders_of[result.senders[s].layer].push_back(s);
  for (int64_t r = 0; r < r_count; ++r) receivers_of[result.receivers[r].layer].push_back(r);
  // The senders' writes are needed below the last receiving layer (every layer for the logits).
  const auto reach = receivers_of.count(-1) ? config.n_blocks : receivers_of.rbegin()->first;
  const auto device = model.module().parameters().front().device();
  const auto gates = settings.gates.defined() ? settings.gates.to(device) : torch::Tensor();

  const auto batches = batches_by_length(pairs, settings.batch);
  for (size_t index = 0; index < batches.size(); ++index) {
    const auto batch = make_batch(pairs, batches[index], device);
    const auto b = static_cast<int64_t>(batch.pairs.size());
    const auto runs = clean_and_corrupted(model, batch, gates);
    const auto pair_index = torch::tensor(batch.pairs, torch::kLong);
    result.clean.index_put_({pair_index}, runs.clean);
    result.corrupted.index_put_({pair_index}, runs.corrupted);
    std::vector<torch::Tensor> writes(static_cast<size_t>(s_count));  // per sender [B, n, d]
    for (const auto& [layer, members] : senders_of) {
      if (layer >= reach) break;  // no receiver after these senders
      std::vector<std::vector<int64_t>> sets;
      for (const auto s : members) sets.push_back(result.senders[s].heads);
      const auto layer_writes = sender_writes(model, batch, runs, layer, sets, gates);
      for (size_t i = 0; i < members.size(); ++i) writes[members[i]] = layer_writes[static_cast<int64_t>(i)];
    }
    auto record = [&](int64_t sender, int64_t receiver, const torch::Tensor& m) {
      result.patched[sender][receiver].index_put_({pair_index}, m);
    };
    const auto n = batch.length;
    for (const auto& [layer, members] : receivers_of) {
      if (layer < 0) {  // the logits: the corrupted last state plus the write, at the last position
        // `rows` rows per output call: each sender's B rows of the last position.
        const auto last = runs.last_state.narrow(1, n - 1, 1);
        const auto per_call = std::max<int64_t>(1, settings.rows / b);
        for (int64_t first = 0; first < s_count; first += per_call) {
          const auto count = std::min(per_call, s_count - first);
          std::vector<torch::Tensor> states;
          for (int64_t s = first; s < first + count; ++s) states.push_back(last + writes[s].narrow(1, n - 1, 1));
          const auto m = pair_metric(last_logits(model, torch::cat(states, 0), batch), batch).view({count, b});
          for (int64_t s = first; s < first + count; ++s)
            for (const auto r : members) record(s, r, m[s - first]);
        }
        continue;
      }
      std::vector<int64_t> earlier;  // the senders before this layer
      for (int64_t s = 0; s < s_count; ++s)
        if (result.senders[s].layer < layer) earlier.push_back(s);
      if (earlier.empty()) continue;
      std::vector<torch::Tensor> earlier_writes;
      for (const auto s : earlier) earlier_writes.push_back(writes[s]);
      const auto received = received_inputs(model, batch, runs, layer, earlier_writes, settings.rows, gates);
      // Settings (sender, receiver), each B rows of the corrupted run from `layer`.
      std::vector<std::pair<int64_t, int64_t>> all;  // (index into earlier, receiver index)
      for (size_t e = 0; e < earlier.size(); ++e)
        for (const auto r : members) all.emplace_back(static_cast<int64_t>(e), r);
      const auto per_forward = std::max<int64_t>(1, settings.rows / b);
      for (size_t first = 0; first < all.size(); first += static_cast<size_t>(per_forward)) {
        const auto end = std::min(all.size(), first + static_cast<size_t>(per_forward));
        const auto count = static_cast<int64_t>(end - first);
        ForwardOptions options;
        options.head_gates = gates;
        auto writer = [&](PathKind kind, const torch::Tensor& source) {
          return [&, kind, source](const HookSite&, const torch::Tensor& value) {
            auto patched = value.clone();
            for (size_t i = first; i < end; ++i) {
              const auto& receiver = result.receivers[all[i].second];
              if (receiver.kind != kind) continue;
              const auto rows = patched.narrow(0, static_cast<int64_t>(i - first) * b, b);
              for (const auto h : receiver.heads) rows.select(1, h).copy_(source[all[i].first].select(1, h));
            }
            return patched;
          };
        };
        options.hooks.add(HookPoint::Q, layer, writer(PathKind::Query, received.q));
        options.hooks.add(HookPoint::K, layer, writer(PathKind::Key, received.k));
        options.hooks.add(HookPoint::V, layer, writer(PathKind::Value, received.v));
        const auto states = model.run_layers(runs.resid_pre[layer].repeat({count, 1, 1}), repeated(batch.corrupted, count),
                                             layer, config.n_blocks, options).hidden;
        const auto m = pair_metric(last_logits(model, states, batch), batch).view({count, b});
        for (size_t i = first; i < end; ++i)
          record(earlier[all[i].first], all[i].second, m[static_cast<int64_t>(i - first)]);
      }
    }
    if (!report_progress(progress, static_cast<int64_t>(index + 1), static_cast<int64_t>(batches.size()))) {
      result.cancelled = true;
      return result;
    }
  }
  return result;
}

}  // namespace aw

// tests/analysis/circuits/test_edge_attribution_translation.cpp — edge attribution and circuit
// faithfulness on a translation model, by attention kind, on a random pre-norm transformer_mt in float64:
// the graph's two streams (which sender reaches which receiver); every score of a set of receivers — an
// encoder head's query, a decoder head's key, a cross-attention head's query and value, both kinds of MLP,
// the logits — against autograd on a clean run whose receiver input is recomputed by hand from its state
// plus a zero leaf, times the senders' writes computed by hand (a head's W_O slice on its z's change);
// circuits of every and of no edge give the clean and the corrupted run, and one of every edge but one
// the clean run with that edge's receiver reading its sender's corrupted write; post-norm models are refused.
#include "analysis/circuits/circuit_faithfulness.h"
#include "analysis/circuits/edge_attribution.h"
#include "models/nn/model_config.h"
#include "models/nn/translation.h"
#include "tests/support/random_translation.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace aw {
namespace {

using torch::indexing::Slice;

std::shared_ptr<TranslationTransformerImpl> random_translation(const std::string& norm = "pre") {
  return test::random_translation(7, norm);
}

std::vector<PatchPair> pairs() {
  return {test::translation_pair({5, 9, 13, 7, 2}, {5, 21, 13, 7, 2}, {1, 11, 17}),
          test::translation_pair({6, 8, 10, 12, 2}, {6, 8, 30, 12, 2}, {1, 15, 19})};
}

ModelInput input_of(const std::vector<int64_t>& source, const std::vector<int64_t>& target) {
  return test::translation_input(source, target);
}

torch::Tensor read_at(AttentionModel& model, const ModelInput& input, HookPoint point, int64_t block) {
  return test::value_at(model, input, point, block);
}

int64_t index_of(const EdgeGraph& graph, SenderKind kind, int64_t layer, int64_t head) {
  for (size_t u = 0; u < graph.senders.size(); ++u)
    if (graph.senders[u].kind == kind && graph.senders[u].layer == layer && graph.senders[u].head == head)
      return static_cast<int64_t>(u);
  return -1;
}
int64_t index_of(const EdgeGraph& graph, ReceiverKind kind, int64_t layer, int64_t head) {
  for (size_t v = 0; v < graph.receivers.size(); ++v)
    if (graph.receivers[v].kind == kind && graph.receivers[v].layer == layer && graph.receivers[v].head == head)
      return static_cast<int64_t>(v);
  return -1;
}

TEST(EdgeAttributionTranslation, EachReceiverReadsOneStream) {
  const auto model = random_translation();
  const auto graph = edge_graph(model->config());
  ASSERT_EQ(graph.senders.size(), 18u);    // source; enc 2 × (2 heads, MLP); target; dec 2 × (2 self, 2 cross, MLP)
  ASSERT_EQ(graph.receivers.size(), 41u);  // enc 2 × (6 + MLP); dec self 2 × 6; cross 2 × (6 + MLP); logits
  EXPECT_EQ(graph.decoder_senders, 7);
  auto edge = [&](int64_t u, int64_t v) { return graph.edges[u][v].item<bool>(); };
  const auto source = 0, target = 7;
  const auto enc2_q = index_of(graph, ReceiverKind::Query, 1, 0), dec1_k = index_of(graph, ReceiverKind::Key, 2, 0);
  const auto cross1_q = index_of(graph, ReceiverKind::Query, 3, 1), cross1_k = index_of(graph, ReceiverKind::Key, 3, 0);
  const auto mlp_dec2 = index_of(graph, ReceiverKind::Mlp, 5, -1), logits = graph.logits_receiver();
  EXPECT_TRUE(edge(source, enc2_q) && edge(source, cross1_k) && !edge(source, cross1_q) && !edge(source, logits));
  EXPECT_TRUE(edge(target, dec1_k) && edge(target, cross1_q) && !edge(target, cross1_k) && edge(target, logits));
  EXPECT_TRUE(edge(index_of(graph, SenderKind::Head, 0, 1), enc2_q));
  EXPECT_FALSE(edge(index_of(graph, SenderKind::Head, 1, 0), enc2_q));  // its own block
  EXPECT_TRUE(edge(index_of(graph, SenderKind::Mlp, 1, -1), cross1_k));   // the encoder's last MLP into every cross k
  EXPECT_FALSE(edge(index_of(graph, SenderKind::Mlp, 1, -1), logits));
  EXPECT_TRUE(edge(index_of(graph, SenderKind::Head, 2, 0), cross1_q));   // dec 1 into its layer's cross queries
  EXPECT_FALSE(edge(index_of(graph, SenderKind::Head, 4, 0), cross1_q));
  EXPECT_TRUE(edge(index_of(graph, SenderKind::Head, 5, 1), mlp_dec2) && edge(index_of(graph, SenderKind::Mlp, 5, -1), logits));
  EXPECT_EQ(sender_label(graph.senders[index_of(graph, SenderKind::Mlp, 5, -1)], model->config()), "mlp dec2");
  EXPECT_EQ(receiver_label(graph.receivers[cross1_q], model->config()), "q cross1.2");
  EXPECT_EQ(sender_label(graph.senders[target], model->config()), "target");
}

// m of the clean run in which one receiver's input is its state plus `extra` [1, len, d] (a zero leaf, or
// a sender's change), that input recomputed by hand from the model's modules.
torch::Tensor m_with(TranslationTransformerImpl& model, const PatchPair& pair, const EdgeReceiver& receiver,
                     const std::function<torch::Tensor(const torch::Tensor&)>& extra) {
  const auto clean = input_of(pair.clean, pair.target);
  const auto block = receiver.layer;
  const auto kind = block >= 0 ? model.config().attention_block(block).kind : AttentionKind::Decoder;
  // The state the receiver reads, and where it is read.
  torch::Tensor state;
  if (receiver.kind == ReceiverKind::Logits) state = read_at(model, clean, HookPoint::ResidPost, 5);
  else if (receiver.kind == ReceiverKind::Mlp) state = read_at(model, clean, HookPoint::ResidMid, block);
  else if (kind == AttentionKind::Cross && receiver.kind == ReceiverKind::Query) state = read_at(model, clean, HookPoint::ResidMid, block - 1);
  else if (kind == AttentionKind::Cross) state = read_at(model, clean, HookPoint::ResidPost, 1);
  else state = read_at(model, clean, HookPoint::ResidPre, block);
  state = state.clone();
  const auto leaf = extra(state);
  const auto read = state + leaf;
  ForwardOptions options;
  const int64_t dh = 4, h = receiver.head;
  auto slice = [&](const torch::Tensor& projected) { return projected.index({Slice(), Slice(), Slice(h * dh, (h + 1) * dh)}); };
  auto replace_head = [&](HookPoint point, torch::Tensor value) {
    options.hooks.add(point, block, [value, h](const HookSite&, const torch::Tensor& x) {
      auto patched = x.clone();
      patched.select(1, h).copy_(value);
      return patched;
    });
  };
  if (receiver.kind == ReceiverKind::Logits) {
    options.hooks.add(HookPoint::ResidPost, 5, [&](const HookSite&, const torch::Tensor& x) { return x + leaf; });
  } else if (receiver.kind == ReceiverKind::Mlp) {
    const auto layer = model.config().attention_block(block).layer;
    const auto normed = kind == AttentionKind::Encoder ? model.encoder[layer]->as<TransformerBlockImpl>()->ln_2(read)
                                                       : model.decoder[layer]->as<DecoderBlockImpl>()->ln_3(read);
    options.hooks.add(HookPoint::MlpIn, block, [normed](const HookSite&, const torch::Tensor&) { return normed; });
  } else if (kind == AttentionKind::Encoder) {
    auto& attention = *model.encoder[block]->as<TransformerBlockImpl>()->attn;
    const auto normed = model.encoder[block]->as<TransformerBlockImpl>()->ln_1(read);
    replace_head(receiver.kind == ReceiverKind::Query ? HookPoint::Q : receiver.kind == ReceiverKind::Key ? HookPoint::K : HookPoint::V,
                 slice(receiver.kind == ReceiverKind::Query ? attention.q(normed) : receiver.kind == ReceiverKind::Key ? attention.k(normed) : attention.v(normed)));
  } else {
    auto& layer = *model.decoder[(block - 2) / 2]->as<DecoderBlockImpl>();
    if (kind == AttentionKind::Decoder) {
      const auto normed = layer.ln_1(read);
      const auto point = receiver.kind == ReceiverKind::Query ? HookPoint::Q : receiver.kind == ReceiverKind::Key ? HookPoint::K : HookPoint::V;
      auto& attention = *layer.self_attn;
      replace_head(point, slice(point == HookPoint::Q ? attention.q(normed) : point == HookPoint::K ? attention.k(normed) : attention.v(normed)));
    } else if (receiver.kind == ReceiverKind::Query) {
      replace_head(HookPoint::Q, slice(layer.cross_attn->q(layer.ln_2(read))));
    } else {
      const auto memory = model.enc_ln_f(read);
      replace_head(receiver.kind == ReceiverKind::Key ? HookPoint::K : HookPoint::V,
                   slice(receiver.kind == ReceiverKind::Key ? layer.cross_attn->k(memory) : layer.cross_attn->v(memory)));
    }
  }
  const auto logits = model.forward(clean, options).logits;
  return logits[0][logits.size(1) - 1][pair.answer] - logits[0][logits.size(1) - 1][pair.foil];
}

// The gradient of m (clean run) with respect to a zero leaf added to one receiver's input: [1, len, d].
torch::Tensor leaf_gradient(TranslationTransformerImpl& model, const PatchPair& pair, const EdgeReceiver& receiver) {
  torch::AutoGradMode on(true);
  torch::Tensor leaf;
  const auto m = m_with(model, pair, receiver, [&](const torch::Tensor& state) {
    return leaf = torch::zeros_like(state).requires_grad_(true);
  });
  return torch::autograd::grad({m}, {leaf})[0];
}

// What sender `sender` writes in the run of `input`, by hand: [1, len, d].
torch::Tensor write_of(TranslationTransformerImpl& model, const ModelInput& input, const EdgeSender& sender) {
  if (sender.kind == SenderKind::Input) return read_at(model, input, HookPoint::ResidPre, sender.layer < 0 ? 0 : 2);
  if (sender.kind == SenderKind::Mlp) return read_at(model, input, HookPoint::MlpOut, sender.layer);
  const auto kind = model.config().attention_block(sender.layer).kind;
  auto& attention = kind == AttentionKind::Encoder ? *model.encoder[sender.layer]->as<TransformerBlockImpl>()->attn
                    : kind == AttentionKind::Decoder ? *model.decoder[(sender.layer - 2) / 2]->as<DecoderBlockImpl>()->self_attn
                                                     : *model.decoder[(sender.layer - 2) / 2]->as<DecoderBlockImpl>()->cross_attn;
  const auto z = read_at(model, input, HookPoint::Z, sender.layer).select(1, sender.head);  // [1, len, dh]
  return torch::matmul(z, attention.o->weight.index({Slice(), Slice(sender.head * 4, (sender.head + 1) * 4)}).t());
}

TEST(EdgeAttributionTranslation, ScoresEqualLeafGradientsTimesWritesByHand) {
  auto model = random_translation();
  const auto all = pairs();
  const auto result = edge_attribution(*model, all, {});
  const auto& graph = result.graph;
  const std::vector<EdgeReceiver> receivers{{ReceiverKind::Query, 1, 0}, {ReceiverKind::Key, 4, 1}, {ReceiverKind::Query, 5, 1},
                                            {ReceiverKind::Value, 3, 0}, {ReceiverKind::Mlp, 1, -1}, {ReceiverKind::Mlp, 5, -1},
                                            {ReceiverKind::Logits, -1, -1}};
  int64_t compared = 0;
  for (const auto& receiver : receivers) {
    const auto v = index_of(graph, receiver.kind, receiver.layer, receiver.head);
    ASSERT_GE(v, 0);
    std::vector<torch::Tensor> gradients;
    for (const auto& pair : all) gradients.push_back(leaf_gradient(*model, pair, receiver));
    for (size_t u = 0; u < graph.senders.size(); ++u) {
      if (!graph.edges[static_cast<int64_t>(u)][v].item<bool>()) {
        EXPECT_TRUE(std::isnan(result.scores[static_cast<int64_t>(u)][v].item<double>()));
        continue;
      }
      double expected = 0;
      for (size_t p = 0; p < all.size(); ++p) {
        const auto change = write_of(*model, input_of(all[p].corrupted, all[p].target), graph.senders[u]) -
                            write_of(*model, input_of(all[p].clean, all[p].target), graph.senders[u]);
        expected += (change * gradients[p]).sum().item<double>() / static_cast<double>(all.size());
      }
      EXPECT_NEAR(result.scores[static_cast<int64_t>(u)][v].item<double>(), expected, 1e-9 * std::max(1.0, std::abs(expected)))
          << sender_label(graph.senders[u], model->config()) << " → " << receiver_label(receiver, model->config());
      compared += std::abs(expected) > 1e-6 ? 1 : 0;
    }
  }
  EXPECT_GT(compared, 20);  // the scores compared are not all zero
}

TEST(EdgeAttributionTranslation, EveryEdgeGivesTheCleanRunAndNoneTheCorrupted) {
  auto model = random_translation();
  const auto all = pairs();
  const auto scored = edge_attribution(*model, all, {});
  const auto& graph = scored.graph;
  const auto runs = circuit_runs(*model, all, graph, {graph.edges.clone(), torch::zeros_like(graph.edges)}, 8);
  for (size_t p = 0; p < all.size(); ++p) {
    EXPECT_NEAR(runs.patched[0][static_cast<int64_t>(p)].item<double>(), scored.clean[static_cast<int64_t>(p)].item<double>(), 1e-10);
    EXPECT_NEAR(runs.patched[1][static_cast<int64_t>(p)].item<double>(), scored.corrupted[static_cast<int64_t>(p)].item<double>(), 1e-10);
  }
  EXPECT_GT((scored.clean - scored.corrupted).abs().min().item<double>(), 1e-3);
  // EAP-IG's interpolation moves the scores of a model this far from linear.
  EdgeAttributionSettings steps;
  steps.steps = 3;
  const auto integrated = edge_attribution(*model, all, steps);
  EXPECT_FALSE(torch::allclose(integrated.scores.nan_to_num(0), scored.scores.nan_to_num(0), 1e-6, 1e-9));
}

// A circuit of every edge but u → v: the clean run with v reading u's corrupted write instead of its clean one.
TEST(EdgeAttributionTranslation, OneEdgeOutsideTheCircuitFeedsItsSendersCorruptedWrite) {
  auto model = random_translation();
  const auto all = pairs();
  const auto graph = edge_graph(model->config());
  const std::vector<std::pair<EdgeSender, EdgeReceiver>> edges{
      {{SenderKind::Input, -1, -1}, {ReceiverKind::Key, 5, 0}}, {{SenderKind::Head, 0, 1}, {ReceiverKind::Query, 1, 1}},
      {{SenderKind::Mlp, 1, -1}, {ReceiverKind::Value, 3, 1}}, {{SenderKind::Head, 3, 0}, {ReceiverKind::Query, 5, 0}},
      {{SenderKind::Head, 5, 1}, {ReceiverKind::Logits, -1, -1}}, {{SenderKind::Head, 4, 0}, {ReceiverKind::Mlp, 5, -1}}};
  std::vector<torch::Tensor> circuits;
  for (const auto& [sender, receiver] : edges) {
    auto circuit = graph.edges.clone();
    const auto u = index_of(graph, sender.kind, sender.layer, sender.head), v = index_of(graph, receiver.kind, receiver.layer, receiver.head);
    ASSERT_TRUE(u >= 0 && v >= 0 && circuit[u][v].item<bool>());
    circuit[u][v] = false;
    circuits.push_back(circuit);
  }
  const auto runs = circuit_runs(*model, all, graph, circuits, 8);
  const auto clean = edge_attribution(*model, all, {}).clean;
  // Each edge moves m: the comparison below is not the clean run's with itself.
  EXPECT_GT((runs.patched - clean.unsqueeze(0)).abs().amax(1).min().item<double>(), 1e-6);
  torch::NoGradGuard no_gradients;
  for (size_t e = 0; e < edges.size(); ++e)
    for (size_t p = 0; p < all.size(); ++p) {
      const auto& [sender, receiver] = edges[e];
      const auto change = write_of(*model, input_of(all[p].corrupted, all[p].target), sender) -
                          write_of(*model, input_of(all[p].clean, all[p].target), sender);
      const auto expected = m_with(*model, all[p], receiver, [&](const torch::Tensor&) { return change; }).item<double>();
      EXPECT_NEAR(runs.patched[static_cast<int64_t>(e)][static_cast<int64_t>(p)].item<double>(), expected, 1e-10)
          << sender_label(sender, model->config()) << " → " << receiver_label(receiver, model->config());
    }
}

TEST(EdgeAttributionTranslation, RefusesPostNormModels) {
  const auto post = random_translation("post");
  try {
    edge_graph(post->config());
    FAIL() << "a post-norm model has no edge graph";
  } catch (const std::exception& error) {
    EXPECT_EQ(std::string(error.what()), "edge attribution needs a norm before each sublayer; transformer_mt normalises after the add");
  }
}

}  // namespace
}  // namespace aw

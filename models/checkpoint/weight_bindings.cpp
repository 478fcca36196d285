// models/checkpoint/weight_bindings.cpp — the tensor-name tables of the GPT-2, BERT, Marian, BART, Llama
// (llama, mistral, qwen2, and qwen3, gemma2, gemma3_text, phi3, olmo2, and the mixtures of experts
// mixtral, qwen3_moe, olmoe, gpt_oss) and GPT-NeoX layouts.
#include "models/checkpoint/weight_bindings.h"

#include <functional>
#include <utility>

namespace aw {
namespace {

std::string layer_name(const std::string& prefix, int64_t layer, const std::string& rest) {
  return prefix + std::to_string(layer) + "." + rest;
}

void bind(WeightTable& table, std::string parameter, std::vector<std::string> sources, bool transpose = false,
          int64_t part = 0, int64_t parts = 1, int64_t groups = 0) {
  table.bindings.push_back({std::move(parameter), std::move(sources), transpose, part, parts, groups});
}

// LayerNorm weights: BERT checkpoints written by old code call them gamma/beta.
void bind_norm(WeightTable& table, const std::string& ours, const std::string& theirs) {
  bind(table, ours + ".weight", {theirs + ".weight", theirs + ".gamma"});
  bind(table, ours + ".bias", {theirs + ".bias", theirs + ".beta"});
}

// Q, K and V of attention `ours` ("layers.3.attn") from one fused tensor `theirs` (its ".weight" and,
// `with_bias`, ".bias"): three equal slices along the last dim of a transposed weight (GPT-2's
// Conv1D c_attn), or with `groups` > 0 the three slices inside each head's block of rows (GPT-NeoX).
void bind_fused_qkv(WeightTable& table, const std::string& ours, const std::string& theirs, bool with_bias,
                    bool transpose, int64_t groups) {
  const char* projections[] = {"q", "k", "v"};
  for (int64_t part = 0; part < 3; ++part) {
    const auto projection = ours + "." + projections[part];
    bind(table, projection + ".weight", {theirs + ".weight"}, transpose, part, 3, groups);
    if (with_bias) bind(table, projection + ".bias", {theirs + ".bias"}, false, part, 3, groups);
  }
}

void bind_linear(WeightTable& table, const std::string& ours, const std::string& theirs) {
  bind(table, ours + ".weight", {theirs + ".weight"});
  bind(table, ours + ".bias", {theirs + ".bias"});
}

WeightTable gpt2_table(const ModelConfig& config) {
  WeightTable table;
  table.name_prefixes = {"", "transformer."};
  table.ignored = {".attn.bias", ".attn.masked_bias", "lm_head.weight"};  // causal-mask buffers; tied head
  table.allow_unknown = true;
  bind(table, "tok_emb.weight", {"wte.weight"});
  bind(table, "pos_emb.weight", {"wpe.weight"});
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
    auto ours = [&](const std::string& rest) { return layer_name("layers.", layer, rest); };
    auto theirs = [&](const std::string& rest) { return layer_name("h.", layer, rest); };
    bind_norm(table, ours("ln_1"), theirs("ln_1"));
    bind_norm(table, ours("ln_2"), theirs("ln_2"));
    bind_fused_qkv(table, ours("attn"), theirs("attn.c_attn"), /*with_bias=*/true, /*transpose=*/true, /*groups=*/0);
    bind(table, ours("attn.o.weight"), {theirs("attn.c_proj.weight")}, true);
    bind(table, ours("attn.o.bias"), {theirs("attn.c_proj.bias")});
    bind(table, ours("mlp.fc1.weight"), {theirs("mlp.c_fc.weight")}, true);
    bind(table, ours("mlp.fc1.bias"), {theirs("mlp.c_fc.bias")});
    bind(table, ours("mlp.fc2.weight"), {theirs("mlp.c_proj.weight")}, true);
    bind(table, ours("mlp.fc2.bias"), {theirs("mlp.c_proj.bias")});
  }
  bind_norm(table, "ln_f", "ln_f");
  return table;
}

WeightTable bert_table(const ModelConfig& config) {
  WeightTable table;
  table.name_prefixes = {"", "bert."};
  table.ignored = {"position_ids", "cls.", "pooler."};  // buffers, pre-training heads, unused pooler
  table.allow_unknown = true;
  bind(table, "tok_emb.weight", {"embeddings.word_embeddings.weight"});
  bind(table, "pos_emb.weight", {"embeddings.position_embeddings.weight"});
  if (config.bert.type_vocab_size > 0) bind(table, "type_emb.weight", {"embeddings.token_type_embeddings.weight"});
  bind_norm(table, "emb_ln", "embeddings.LayerNorm");
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
    auto ours = [&](const std::string& rest) { return layer_name("layers.", layer, rest); };
    auto theirs = [&](const std::string& rest) { return layer_name("encoder.layer.", layer, rest); };
    bind_linear(table, ours("attn.q"), theirs("attention.self.query"));
    bind_linear(table, ours("attn.k"), theirs("attention.self.key"));
    bind_linear(table, ours("attn.v"), theirs("attention.self.value"));
    bind_linear(table, ours("attn.o"), theirs("attention.output.dense"));
    bind_norm(table, ours("ln_1"), theirs("attention.output.LayerNorm"));
    bind_linear(table, ours("mlp.fc1"), theirs("intermediate.dense"));
    bind_linear(table, ours("mlp.fc2"), theirs("output.dense"));
    bind_norm(table, ours("ln_2"), theirs("output.LayerNorm"));
  }
  if (config.bert.pooler) {
    bind_linear(table, "pooler", "pooler.dense");
    table.ignored.pop_back();  // the pooler is used
  }
  if (config.is_classifier()) bind_linear(table, "classifier", "classifier");
  return table;
}

void bind_attention(WeightTable& table, const std::string& ours, const std::string& theirs) {
  bind_linear(table, ours + ".q", theirs + ".q_proj");
  bind_linear(table, ours + ".k", theirs + ".k_proj");
  bind_linear(table, ours + ".v", theirs + ".v_proj");
  bind_linear(table, ours + ".o", theirs + ".out_proj");
}

// Marian and BART (modeling_marian.py, modeling_bart.py): post-LN encoder and decoder layers with
// q/k/v/out projections, fc1/fc2 and three LayerNorms per decoder layer. Marian's sinusoidal
// positions are computed (a stored table is ignored); BART's are learned, with 2 extra rows.
WeightTable hf_translation_table(const ModelConfig& config) {
  const auto& t = config.translation;
  WeightTable table;
  table.name_prefixes = {"", "model."};
  // Tied copies of the shared embedding (and the tied output), Marian's fixed sinusoids.
  table.ignored = {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight"};
  if (config.tie_embeddings) table.ignored.push_back("lm_head.weight");
  if (config.positions == PositionKind::Sinusoidal) table.ignored.push_back("embed_positions.weight");
  table.allow_unknown = true;
  bind(table, "tok_emb.weight", {"shared.weight", "encoder.embed_tokens.weight"});
  if (config.positions == PositionKind::Learned) {
    bind(table, "enc_pos.weight", {"encoder.embed_positions.weight"});
    bind(table, "dec_pos.weight", {"decoder.embed_positions.weight"});
  }
  if (t.embedding_norm) {
    bind_linear(table, "enc_emb_ln", "encoder.layernorm_embedding");
    bind_linear(table, "dec_emb_ln", "decoder.layernorm_embedding");
  }
  for (int64_t layer = 0; layer < t.encoder_layers; ++layer) {
    auto ours = [&](const std::string& rest) { return layer_name("encoder.", layer, rest); };
    auto theirs = [&](const std::string& rest) { return layer_name("encoder.layers.", layer, rest); };
    bind_attention(table, ours("attn"), theirs("self_attn"));
    bind_linear(table, ours("ln_1"), theirs("self_attn_layer_norm"));
    bind_linear(table, ours("mlp.fc1"), theirs("fc1"));
    bind_linear(table, ours("mlp.fc2"), theirs("fc2"));
    bind_linear(table, ours("ln_2"), theirs("final_layer_norm"));
  }
  for (int64_t layer = 0; layer < t.decoder_layers; ++layer) {
    auto ours = [&](const std::string& rest) { return layer_name("decoder.", layer, rest); };
    auto theirs = [&](const std::string& rest) { return layer_name("decoder.layers.", layer, rest); };
    bind_attention(table, ours("self_attn"), theirs("self_attn"));
    bind_linear(table, ours("ln_1"), theirs("self_attn_layer_norm"));
    bind_attention(table, ours("cross_attn"), theirs("encoder_attn"));
    bind_linear(table, ours("ln_2"), theirs("encoder_attn_layer_norm"));
    bind_linear(table, ours("mlp.fc1"), theirs("fc1"));
    bind_linear(table, ours("mlp.fc2"), theirs("fc2"));
    bind_linear(table, ours("ln_3"), theirs("final_layer_norm"));
  }
  bind(table, "final_logits_bias", {"final_logits_bias"});
  if (!config.tie_embeddings) bind(table, "lm_head.weight", {"lm_head.weight"});
  return table;
}

// A linear map's weight, and its bias when the config gives it one.
void bind_dense(WeightTable& table, const std::string& ours, const std::string& theirs, bool with_bias) {
  bind(table, ours + ".weight", {theirs + ".weight"});
  if (with_bias) bind(table, ours + ".bias", {theirs + ".bias"});
}

// Rows of one fused file tensor, one after the other, each for one parameter (Phi-3).
void bind_rows(WeightTable& table, const std::string& theirs, const std::vector<std::pair<std::string, int64_t>>& rows) {
  int64_t total = 0;
  for (const auto& [ours, count] : rows) total += count;
  int64_t first = 0;
  for (const auto& [ours, count] : rows) {
    WeightBinding binding{ours, {theirs}};
    binding.first_row = first, binding.rows = count, binding.source_rows = total;
    table.bindings.push_back(std::move(binding));
    first += count;
  }
}

// The norms of one decoder layer by their Hugging Face names: before attention and the MLP (Llama:
// input_layernorm, post_attention_layernorm), after them (OLMo 2: post_attention_layernorm,
// post_feedforward_layernorm), or all four (Gemma: input_, post_attention_, pre_feedforward_,
// post_feedforward_layernorm).
void bind_layer_norms(WeightTable& table, const ModelConfig& config, const std::function<std::string(const std::string&)>& ours,
                      const std::function<std::string(const std::string&)>& theirs) {
  const auto& d = config.decoder;
  if (d.pre_norms && d.post_norms) {
    bind(table, ours("ln_1.weight"), {theirs("input_layernorm.weight")});
    bind(table, ours("ln_attn_out.weight"), {theirs("post_attention_layernorm.weight")});
    bind(table, ours("ln_2.weight"), {theirs("pre_feedforward_layernorm.weight")});
    bind(table, ours("ln_mlp_out.weight"), {theirs("post_feedforward_layernorm.weight")});
  } else if (d.post_norms) {
    bind(table, ours("ln_attn_out.weight"), {theirs("post_attention_layernorm.weight")});
    bind(table, ours("ln_mlp_out.weight"), {theirs("post_feedforward_layernorm.weight")});
  } else {
    bind(table, ours("ln_1.weight"), {theirs("input_layernorm.weight")});
    bind(table, ours("ln_2.weight"), {theirs("post_attention_layernorm.weight")});
  }
  if (d.qk_norm != QkNorm::None) {
    bind(table, ours("attn.q_norm.weight"), {theirs("self_attn.q_norm.weight")});
    bind(table, ours("attn.k_norm.weight"), {theirs("self_attn.k_norm.weight")});
  }
}

// A sparse layer's router and experts as the Hub stores them: one tensor per expert and projection
// (mixtral's block_sparse_moe.experts.E.w1/w3/w2 = gate/up/down; qwen3_moe's and olmoe's
// mlp.experts.E.gate_proj/up_proj/down_proj), or gpt-oss's experts packed in [E, …] tensors, in
// MXFP4 where its config says so.
void bind_experts(WeightTable& table, const ModelConfig& config, const std::function<std::string(const std::string&)>& ours,
                  const std::function<std::string(const std::string&)>& theirs) {
  const auto& moe = config.moe;
  if (moe.packed_experts) {
    bind_dense(table, ours("mlp.router"), theirs("mlp.router"), moe.router_bias);
    for (const char* part : {"gate_up", "down"}) {
      WeightBinding packed{ours(std::string("mlp.") + part), {theirs(std::string("mlp.experts.") + part + "_proj")}};
      packed.mxfp4 = moe.mxfp4;
      table.bindings.push_back(std::move(packed));
      bind(table, ours(std::string("mlp.") + part + "_bias"), {theirs(std::string("mlp.experts.") + part + "_proj_bias")});
    }
    return;
  }
  const bool mixtral = config.family == ModelFamily::Mixtral;
  const std::string block = mixtral ? "block_sparse_moe." : "mlp.";
  bind(table, ours("mlp.router.weight"), {theirs(block + "gate.weight")});
  for (int64_t expert = 0; expert < moe.experts; ++expert) {
    const auto mine = "mlp.experts." + std::to_string(expert) + ".";
    const auto stored = block + "experts." + std::to_string(expert) + ".";
    bind(table, ours(mine + "gate.weight"), {theirs(stored + (mixtral ? "w1" : "gate_proj") + ".weight")});
    bind(table, ours(mine + "fc1.weight"), {theirs(stored + (mixtral ? "w3" : "up_proj") + ".weight")});
    bind(table, ours(mine + "fc2.weight"), {theirs(stored + (mixtral ? "w2" : "down_proj") + ".weight")});
  }
}

// llama, mistral and qwen2 (modeling_llama.py's names; mistral and qwen2 copy them), and qwen3,
// gemma2, gemma3_text, phi3 and olmo2, which add norms or fuse projections. A pruned model this tool
// saved (prune --apply --save) uses the same names.
WeightTable llama_table(const ModelConfig& config) {
  const auto& d = config.decoder;
  const bool phi3 = config.family == ModelFamily::Phi3;
  WeightTable table;
  table.name_prefixes = {"model.", ""};
  table.ignored = {"rotary_emb.inv_freq"};  // old checkpoints store the frequencies, computed here
  if (config.tie_embeddings) table.ignored.push_back("lm_head.weight");
  bind(table, "tok_emb.weight", {"embed_tokens.weight"});
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
    auto ours = [&](const std::string& rest) { return layer_name("layers.", layer, rest); };
    auto theirs = [&](const std::string& rest) { return layer_name("layers.", layer, rest); };
    bind_layer_norms(table, config, ours, theirs);
    if (phi3) {  // q, k, v in one matrix; gate and up in another (no biases)
      bind_rows(table, theirs("self_attn.qkv_proj.weight"),
                {{ours("attn.q.weight"), config.attention_width(layer)},
                 {ours("attn.k.weight"), config.kv_width(layer)},
                 {ours("attn.v.weight"), config.kv_width(layer)}});
      bind_rows(table, theirs("mlp.gate_up_proj.weight"), {{ours("mlp.gate.weight"), config.d_ff}, {ours("mlp.fc1.weight"), config.d_ff}});
    } else {
      bind_dense(table, ours("attn.q"), theirs("self_attn.q_proj"), d.qkv_bias);
      bind_dense(table, ours("attn.k"), theirs("self_attn.k_proj"), d.qkv_bias);
      bind_dense(table, ours("attn.v"), theirs("self_attn.v_proj"), d.qkv_bias);
    }
    bind_dense(table, ours("attn.o"), theirs("self_attn.o_proj"), d.out_bias);
    if (d.attention_sinks) bind(table, ours("attn.sinks"), {theirs("self_attn.sinks")});
    if (config.moe.sparse_layer(layer)) {
      bind_experts(table, config, ours, theirs);
    } else {
      if (!phi3) {
        bind_dense(table, ours("mlp.gate"), theirs("mlp.gate_proj"), d.mlp_bias);
        bind_dense(table, ours("mlp.fc1"), theirs("mlp.up_proj"), d.mlp_bias);
      }
      bind_dense(table, ours("mlp.fc2"), theirs("mlp.down_proj"), d.mlp_bias);
    }
  }
  bind(table, "ln_f.weight", {"norm.weight"});
  if (!config.tie_embeddings) bind(table, "lm_head.weight", {"lm_head.weight"});
  return table;
}

// gpt_neox (Pythia; modeling_gpt_neox.py): query_key_value holds, head by head, the head's query,
// key and value rows; embed_out is the untied output.
WeightTable gpt_neox_table(const ModelConfig& config) {
  WeightTable table;
  table.name_prefixes = {"gpt_neox.", ""};
  // Old checkpoints store the causal mask and the rotary frequencies as buffers.
  table.ignored = {".attention.bias", ".attention.masked_bias", "rotary_emb.inv_freq"};
  if (config.tie_embeddings) table.ignored.push_back("embed_out.weight");
  bind(table, "tok_emb.weight", {"embed_in.weight"});
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
    auto ours = [&](const std::string& rest) { return layer_name("layers.", layer, rest); };
    auto theirs = [&](const std::string& rest) { return layer_name("layers.", layer, rest); };
    bind_norm(table, ours("ln_1"), theirs("input_layernorm"));
    bind_norm(table, ours("ln_2"), theirs("post_attention_layernorm"));
    bind_fused_qkv(table, ours("attn"), theirs("attention.query_key_value"), config.decoder.qkv_bias,
                   /*transpose=*/false, /*groups=*/config.heads_per_block[layer]);
    bind_dense(table, ours("attn.o"), theirs("attention.dense"), config.decoder.out_bias);
    bind_linear(table, ours("mlp.fc1"), theirs("mlp.dense_h_to_4h"));
    bind_linear(table, ours("mlp.fc2"), theirs("mlp.dense_4h_to_h"));
  }
  bind_norm(table, "ln_f", "final_layer_norm");
  if (!config.tie_embeddings) bind(table, "lm_head.weight", {"embed_out.weight"});
  return table;
}

}  // namespace

std::optional<WeightTable> foreign_weight_table(const ModelConfig& config) {
  switch (config.family) {
    case ModelFamily::Gpt2: return gpt2_table(config);
    case ModelFamily::Bert: return bert_table(config);
    case ModelFamily::Marian:
    case ModelFamily::Bart: return hf_translation_table(config);
    case ModelFamily::Llama:
    case ModelFamily::Mistral:
    case ModelFamily::Qwen2:
    case ModelFamily::Qwen3:
    case ModelFamily::Gemma2:
    case ModelFamily::Gemma3Text:
    case ModelFamily::Phi3:
    case ModelFamily::Olmo2:
    case ModelFamily::Mixtral:
    case ModelFamily::Qwen3Moe:
    case ModelFamily::Olmoe:
    case ModelFamily::GptOss: return llama_table(config);
    case ModelFamily::GptNeox: return gpt_neox_table(config);
    case ModelFamily::TransformerLm:
    case ModelFamily::BetSf:
    case ModelFamily::BetSg:
    case ModelFamily::EncoderClassifier:
    case ModelFamily::Lama:
    case ModelFamily::BiGruMean:
    case ModelFamily::BiGruMax:
    case ModelFamily::TransformerMt: break;  // native: every tensor under its parameter's name
  }
  return std::nullopt;
}

}  // namespace aw

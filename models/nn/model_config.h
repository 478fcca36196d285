// models/nn/model_config.h — one normalised description of a model, parsed from config.json.
// Every family — native (transformer_lm, bet_sf, bet_sg, encoder_classifier, the recurrent
// classifiers, transformer_mt) or Hugging Face (gpt2, bert, marian, bart, and the decoders from llama
// to the mixtures of experts) — maps to this struct: what differs between families is in its fields and parts, set
// where config.json is parsed (model_config_parse.cpp and the family parsers beside it), and the
// modules are built from it alone. Only the parsers and the weight tables
// (models/checkpoint/weight_bindings.cpp) ask which family a config is.
#pragma once

#include "models/attention_kind.h"
#include "models/nn/config_enums.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

enum class NormPlacement { Pre, Post };          // LayerNorm before (GPT-2) or after (BERT) each sublayer
enum class PositionKind { Learned, Sinusoidal, Rotary };  // Rotary: RoPE on queries and keys, no table added
// RmsNorm: x / √(mean(x²) + ε) · w, no centring, no bias; RmsNormPlusOne: the same times (1 + w), in
// float32 before the cast back (Gemma's).
enum class NormKind { LayerNorm, RmsNorm, RmsNormPlusOne };
// Norms on each head's query and key (Qwen3, Gemma 3: over the head's width), or on the whole query
// and key projections before they are split into heads (OLMo 2).
enum class QkNorm { None, PerHead, Whole };
enum class Activation { Relu, Gelu, GeluTanh, Silu };  // GeluTanh = GPT-2's "gelu_new"; Silu = "swish" (Marian)

// The network create_model builds: the shared transformer (a decoder language model or an encoder,
// transformer.h), the encoder–decoder transformer of the translation models (translation.h), or a
// bi-GRU classifier (lama.h, bigru_classifier.h).
enum class Network { Transformer, EncoderDecoder, Recurrent };
// How a family's checkpoint folder is written: natively (config.json as native_config_json writes it,
// every tensor under its parameter's own name, vocab.txt or spm.model), or as Hugging Face writes the
// family (its config.json keys, its tensor names through a weight table, its tokenizer files).
enum class CheckpointFormat { Native, HuggingFace };
// What `attention-cli train` trains a family as (models/training/trainer.h); None for the families
// this tool loads but does not train.
enum class TrainedAs { None, LanguageModel, Classifier, Translation };
// How a recurrent classifier turns its bi-GRU states into one vector: LAMA's m attention heads from a
// global context (docs/lama.md), or the mean or the maximum over the words.
enum class RecurrentPooling { Attention, Mean, Max };

// What a family is whatever its config.json says. parse_model_config copies it into every config;
// `attention-cli train` asks for it before a config exists (--arch names a family).
struct FamilyTraits {
  Network network = Network::Transformer;
  CheckpointFormat format = CheckpointFormat::Native;
  TrainedAs trained_as = TrainedAs::None;
  bool real_pruning = false;  // remove_heads cuts its heads out and the smaller model is saved in its format
};
FamilyTraits family_traits(ModelFamily family);

// BERT only: the parts of a Hugging Face BERT that no native family has.
struct BertPart {
  int64_t type_vocab_size = 0;   // 0 = no token-type embedding
  bool embedding_norm = false;   // LayerNorm right after the embeddings
  bool pooler = false;           // tanh(W h_0 + b) before the classifier (BertForSequenceClassification)
};

// Recurrent classifiers only (lama, bigru_mean, bigru_max; docs/lama.md). LAMA is one attention
// "layer" of n_heads = m heads whose attention is [B, m, 1, n]; d_model = d_head = 2h, the width of a
// row of S.
struct RecurrentPart {
  RecurrentPooling pooling = RecurrentPooling::Attention;
  int64_t embedding_dim = 0;                    // E: word-embedding width
  int64_t rnn_hidden = 0;                       // h: bi-GRU hidden size per direction
  int64_t classifier_hidden = 0;                // hidden width of the classifier MLP (512 in the paper)
  LamaContext context = LamaContext::Learned;   // LAMA: learned vector (LAMA) or word-embedding mean (LAMA+ctx)
  Regularizer regularizer = Regularizer::None;  // LAMA training only
  double regularizer_weight = 0.2;              // λ
};

// Translation models only (transformer_mt, marian, bart; docs/translation.md). The attention blocks of
// an encoder–decoder model are numbered in the order the forward runs them, and gates, captures and
// the layer × head tables of every analysis use that one numbering: Le encoder self-attention blocks,
// then for each decoder layer j its self-attention (Le + 2j) and its cross-attention (Le + 2j + 1).
// ModelConfig::n_blocks counts blocks (Le + 2·Ld) and heads_per_block has one entry per block.
struct TranslationPart {
  int64_t encoder_layers = 0;     // Le
  int64_t decoder_layers = 0;     // Ld
  int64_t encoder_heads = 0;      // heads of an encoder self-attention block before pruning
  int64_t decoder_heads = 0;      // heads of a decoder self- or cross-attention block before pruning
  int64_t encoder_ffn = 0;        // feed-forward widths (encoder, decoder)
  int64_t decoder_ffn = 0;
  int64_t target_vocab_size = 0;  // rows of the decoder's embedding and output (= vocab_size when shared)
  bool share_embeddings = true;   // one table for source, target and output
  bool scale_embedding = false;   // embeddings × √d (Marian, Vaswani et al.)
  bool embedding_norm = false;    // LayerNorm right after the embeddings (BART's layernorm_embedding)
  bool final_norm = false;        // LayerNorm after the last encoder and decoder layer (pre-LN models)
  bool final_logits_bias = false; // a bias added to the output logits (Marian, BART)
  int64_t position_offset = 0;    // learned position p is row p + offset (BART: 2)
  bool split_sinusoid = false;    // sinusoids as Marian lays them out: all sines, then all cosines
  int64_t decoder_d_head = 0;     // width of one decoder head (config.d_head is the encoder's)
  int64_t pad_id = 0, bos_id = -1, eos_id = 0, decoder_start_id = 0;
  bool decoder_bird_eye = false;  // BET(SF) reweighting in the decoder's self-attention
  bool decoder_diag_free_mask = false;
};

// Rotary positions (llama, mistral, qwen2, gpt_neox): the first `dims` of every query and key head
// are turned by position-dependent angles, in Hugging Face's "rotate_half" layout (pairs i, i + dims/2).
struct RotaryPart {
  int64_t dims = 0;             // rotated width of a head (d_head, or d_head × rotary_pct); 0 = no rotary
  double theta = 10000.0;       // base of the frequencies θ^(−2i/dims)
  RopeScaling scaling = RopeScaling::Default;
  double factor = 1.0;                   // linear and llama3
  double low_freq_factor = 1.0;          // llama3
  double high_freq_factor = 4.0;         // llama3
  int64_t original_max_positions = 8192; // llama3, yarn: the context the frequencies were trained for
  double beta_fast = 32.0, beta_slow = 1.0;  // yarn: the rotations bounding the ramp
  bool truncate = true;                  // yarn: the ramp's bounds rounded outwards to whole dimensions
  double attention_factor = 1.0;         // yarn: cos and sin × this (0.1 ln factor + 1 unless stated)
};

// Mixtures of experts (mixtral, qwen3_moe, olmoe, gpt_oss; docs/checkpoint-format.md): in a sparse
// layer a router scores every token against `experts` feed-forward experts, the token goes to its
// `top_k` best, and their outputs are summed with the router's weights.
struct MoePart {
  int64_t experts = 0;            // E; 0 = every layer has one dense feed-forward
  int64_t top_k = 0;              // experts per token
  int64_t expert_ffn = 0;         // hidden width of one expert (d_ff stays the dense layers')
  // The weights: softmax over all E logits, the best k kept (and divided by their sum when
  // normalise_top_k), or, with top_k_softmax (gpt-oss), a softmax over the k best logits alone.
  bool normalise_top_k = false;
  bool top_k_softmax = false;
  bool router_bias = false;       // gpt-oss: the router's linear map has a bias
  // gpt-oss: the experts stored together as Hugging Face does, gate and up interleaved in one
  // [E, d, 2·ff] matrix (with biases), and gated by its clamped SwiGLU: (clamp(up) + 1) ·
  // g·σ(α g), g = min(gate, limit).
  bool packed_experts = false;
  double swiglu_alpha = 1.702, swiglu_limit = 7.0;
  bool mxfp4 = false;             // the file stores the packed experts in MXFP4 (quantization_config)
  // Per layer, whether it is sparse (qwen3_moe's mlp_only_layers and decoder_sparse_step keep some
  // dense); empty = every layer, when experts > 0.
  std::vector<bool> sparse_layers;

  bool sparse_layer(int64_t layer) const {
    return experts > 0 && (sparse_layers.empty() || sparse_layers.at(static_cast<size_t>(layer)));
  }
};

// The decoder features of today's Hugging Face LMs (llama, mistral, qwen2, gpt_neox); the defaults
// are what every older family has.
struct DecoderPart {
  NormKind norm = NormKind::LayerNorm;
  bool gated_mlp = false;          // SwiGLU: down(act(gate(x)) ⊙ up(x)) instead of fc2(act(fc1(x)))
  bool qkv_bias = true;            // biases on the query, key and value projections
  bool out_bias = true;            // on the output projection
  bool mlp_bias = true;            // on the feed-forward's linear maps
  bool parallel_residual = false;  // GPT-NeoX: x + attn(ln_1(x)) + mlp(ln_2(x))
  int64_t sliding_window = 0;      // mistral: a query sees its last `sliding_window` positions; 0 = all
  // Key/value heads per layer before pruning, as the config states them (GPT-NeoX: one per query
  // head); 0 where the config does not state them.
  int64_t kv_heads = 0;
  // Grouped-query attention: key/value heads of their own, each serving a group of query heads
  // (query_groups). Without it every query head has its own key and value, pruned with it.
  bool grouped_query = false;
  // Per layer, the query heads of each key/value head, in order (query heads are numbered group by
  // group): n_heads / kv_heads each before pruning. Empty without grouped-query attention.
  std::vector<std::vector<int64_t>> query_groups;
  QkNorm qk_norm = QkNorm::None;
  bool pre_norms = true;            // a norm before each sublayer (OLMo 2: none)
  bool post_norms = false;          // Gemma 2/3, OLMo 2: a norm on each sublayer's output before the residual
  double attention_softcap = 0;     // Gemma 2: scores → c · tanh(scores / c) before the masks; 0 = none
  double final_softcap = 0;         // Gemma 2: the logits likewise
  double embedding_scale = 1;       // Gemma: the embeddings × √d (in the model's dtype)
  double query_scale = 0;           // Gemma: scores × query_pre_attn_scalar^(−1/2); 0 = d_head^(−1/2)
  // Per layer, whether sliding_window applies to it (Gemma 2/3 alternate sliding and global layers);
  // empty = every layer, as in Mistral.
  std::vector<bool> sliding_layers;
  // Gemma 3: the sliding layers' own rotary positions (another base, no scaling); dims 0 = the same
  // as every other layer's.
  RotaryPart sliding_rotary;
  // gpt-oss: a learned logit per head that joins every row's softmax and takes no value: the row's
  // probabilities over the tokens sum to 1 − its sink's share (docs/checkpoint-format.md).
  bool attention_sinks = false;
  double qkv_clip = 0;              // OLMoE: queries, keys and values clamped to ±clip_qkv; 0 = none

  // Whether `layer` is a sliding layer (its window sliding_window, its positions sliding_rotary when set).
  bool sliding_layer(int64_t layer) const {
    return sliding_layers.empty() ? sliding_window > 0 : static_cast<bool>(sliding_layers.at(static_cast<size_t>(layer)));
  }
};

// One attention block of a model: its kind and its layer within that kind (0-based).
struct AttentionBlock {
  AttentionKind kind = AttentionKind::Decoder;
  int64_t layer = 0;
};

struct ModelConfig {
  ModelFamily family = ModelFamily::TransformerLm;  // config.json "model_type": for messages and parsing
  // What the family is (FamilyTraits, copied by parse_model_config).
  Network network = Network::Transformer;
  CheckpointFormat format = CheckpointFormat::Native;
  TrainedAs trained_as = TrainedAs::None;
  bool real_pruning = false;
  int64_t vocab_size = 0;
  // Attention blocks, each with its own heads: the layers of a one-kind model (config.json's
  // n_layers or num_hidden_layers); Le + 2·Ld for an encoder–decoder model (TranslationPart).
  int64_t n_blocks = 0;
  int64_t n_heads = 0;           // heads per block before any pruning (translation: the larger side's)
  std::vector<int64_t> heads_per_block;  // size n_blocks; fewer than n_heads after real pruning
  int64_t d_model = 0;
  int64_t d_head = 0;            // width of one head (d_model / n_heads unless stated)
  int64_t d_ff = 0;
  int64_t max_positions = 0;
  bool causal = true;            // decoder LM (mask above the diagonal) vs bidirectional encoder
  NormPlacement norm = NormPlacement::Pre;
  PositionKind positions = PositionKind::Learned;
  bool tie_embeddings = true;    // LM head shares the token embedding matrix
  Activation activation = Activation::Gelu;
  double layer_norm_eps = 1e-5;
  double dropout = 0.1;
  // Bird-eye reweighting (bet_sf): R = sigmoid(wᵀ[H, K]) scales the score columns.
  bool bird_eye = false;
  bool diag_free_mask = false;   // −∞ on the score diagonal except row 0 (bet_sf default)
  // Applied whenever a forward asks for no other diagonal intervention.
  DiagMode diag_mode = DiagMode::Normal;
  int64_t num_labels = 0;        // 0 = no classification head
  std::vector<std::string> labels;  // names of the classes, size num_labels
  TokenizerKind tokenizer = TokenizerKind::Word;
  bool lowercase = true;         // wordpiece only
  // Word tokenizer: lowercase ASCII letters and split ASCII punctuation (except ' and -) into tokens
  // of their own, so raw review text ("Great!") meets the vocabulary ("great", "!").
  bool normalize_words = false;
  Pooling pooling = Pooling::First;  // transformer classifiers
  BertPart bert;
  RecurrentPart recurrent;
  TranslationPart translation;
  RotaryPart rotary;
  DecoderPart decoder;
  MoePart moe;

  // "bet_sf": the family as config.json names it, for messages ("a bet_sf language model").
  std::string family_name() const { return to_string(family); }
  // An encoder–decoder model (the translation families): its n_blocks counts attention blocks.
  bool is_translation() const { return network == Network::EncoderDecoder; }
  // The kind and layer of attention block `block` (0 ≤ block < n_blocks). A decoder LM's blocks are
  // Dec-Dec, an encoder's (BERT, encoder classifiers, LAMA) Enc-Enc, each with its own layer number.
  AttentionBlock attention_block(int64_t block) const;
  // The block of `kind`'s layer `layer`, or -1 when the model has no such block.
  int64_t block_index(AttentionKind kind, int64_t layer) const;
  // The attention kinds this model has, in block order.
  std::vector<AttentionKind> attention_kinds() const;
  bool is_classifier() const { return num_labels > 0; }
  bool is_language_model() const { return causal && !is_classifier() && !is_translation(); }
  bool is_recurrent() const { return network == Network::Recurrent; }
  // LAMA's attention: m heads from one global context to the words, [B, m, 1, n] (RecurrentPart).
  bool has_lama_attention() const { return is_recurrent() && recurrent.pooling == RecurrentPooling::Attention; }
  // Attention is token-to-token, [B, H, n, n] (every transformer family); LAMA's is [B, m, 1, n]
  // (one query: the global context) and bigru_mean has none.
  bool has_token_attention() const { return !is_recurrent(); }
  int64_t total_heads() const;
  int64_t max_heads() const;     // largest head count of any block (gate tensors use this width)
  int64_t attention_width(int64_t block) const { return heads_per_block.at(block) * head_width(block); }
  // Key/value heads of a block: its own count under grouped-query attention, else one per query head.
  int64_t kv_heads_in(int64_t block) const {
    return decoder.query_groups.empty() ? heads_per_block.at(block)
                                        : static_cast<int64_t>(decoder.query_groups.at(block).size());
  }
  int64_t kv_width(int64_t block) const { return kv_heads_in(block) * head_width(block); }
  // The width of one head of attention block `block`.
  int64_t head_width(int64_t block) const {
    return is_translation() && attention_block(block).kind != AttentionKind::Encoder ? translation.decoder_d_head
                                                                                      : d_head;
  }
};

// A lower bound on the weights a model of `config` holds: its embedding tables and the matrices of
// every layer, summed in double so that hostile sizes cannot overflow (checked against the file's
// tensors before a model is allocated).
double minimum_weight_count(const ModelConfig& config);

// Parses and validates a config.json already read into `json`; errors name `path` and the key.
ModelConfig parse_model_config(const nlohmann::json& json, const std::string& path);
// Reads <dir>/config.json.
ModelConfig read_model_config(const std::string& dir);
// The native config.json for a native family (transformer_lm, bet_sf, bet_sg, encoder_classifier,
// lama, bigru_mean).
nlohmann::json native_config_json(const ModelConfig& config);

// For analyses that read token-to-token attention [B, H, n, n] (stats, top-tokens, diag-sweep):
// throws aw::Error "<model_name> is a lama model; <analysis> needs …" for LAMA and bigru_mean.
void require_token_attention(const ModelConfig& config, const std::string& model_name, const std::string& analysis);
// For head gating (ablation, importance, pruning): throws aw::Error for a model without heads (bigru_mean).
void require_attention_heads(const ModelConfig& config, const std::string& model_name, const std::string& analysis);

std::string to_string(NormPlacement norm);
std::string to_string(PositionKind positions);
std::string to_string(NormKind norm);
std::string to_string(Activation activation);

}  // namespace aw

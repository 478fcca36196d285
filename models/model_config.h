// models/model_config.h — one normalised description of a model, parsed from config.json.
// Native families (transformer_lm, bet_sf, bet_sg) and Hugging Face families (gpt2, bert) all map
// to this struct; the transformer module and the weight tables are built from it alone.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

enum class NormPlacement { Pre, Post };          // LayerNorm before (GPT-2) or after (BERT) each sublayer
enum class PositionKind { Learned, Sinusoidal };
enum class Activation { Relu, Gelu, GeluTanh };  // GeluTanh = GPT-2's "gelu_new"

struct ModelConfig {
  std::string model_type;        // transformer_lm | bet_sf | bet_sg | gpt2 | bert
  int64_t vocab_size = 0;
  int64_t n_layers = 0;
  int64_t n_heads = 0;           // heads per layer before any pruning
  std::vector<int64_t> heads_per_layer;  // size n_layers; fewer than n_heads after real pruning
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
  // Diagonal treatment the model was trained with (Bird-Eye Table 2): "normal", "reduced" (×0.2),
  // "magnified" (×2.0) or "mask"; applied whenever a forward asks for no other intervention.
  std::string diag_mode = "normal";
  // BERT only.
  int64_t type_vocab_size = 0;   // 0 = no token-type embedding
  bool embedding_norm = false;   // LayerNorm right after the embeddings
  bool pooler = false;
  int64_t num_labels = 0;        // 0 = no classification head
  std::vector<std::string> labels;  // names of the classes, size num_labels
  // Tokenizer family: word | gpt2_bpe | wordpiece.
  std::string tokenizer = "word";
  bool lowercase = true;         // wordpiece only

  bool is_classifier() const { return num_labels > 0; }
  bool is_language_model() const { return causal && !is_classifier(); }
  int64_t total_heads() const;
  int64_t max_heads() const;     // largest head count of any layer (gate tensors use this width)
  int64_t attention_width(int64_t layer) const { return heads_per_layer.at(layer) * d_head; }
};

// Parses and validates a config.json already read into `json`; errors name `path` and the key.
ModelConfig parse_model_config(const nlohmann::json& json, const std::string& path);
// Reads <dir>/config.json.
ModelConfig read_model_config(const std::string& dir);
// The native config.json for a native family (transformer_lm, bet_sf, bet_sg).
nlohmann::json native_config_json(const ModelConfig& config);

std::string to_string(NormPlacement norm);
std::string to_string(PositionKind positions);
std::string to_string(Activation activation);

}  // namespace aw

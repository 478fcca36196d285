// models/nn/config_enums.h — the named modes of a ModelConfig, as enums. Each has one table pairing
// its values with the names config.json spells them with: to_string and the parse read that table,
// so what is written is exactly what is read back.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

namespace aw {

// config.json "model_type".
enum class ModelFamily {
  TransformerLm, BetSf, BetSg, EncoderClassifier, Lama, BiGruMean, Gpt2, Bert,
  TransformerMt,  // native encoder–decoder translation Transformer (optionally BET(SF) in the decoder)
  Marian,         // Hugging Face MarianMT (opus-mt)
  Bart,           // Hugging Face BART
  BiGruMax,       // LAMA's BiGRU baseline as the paper pools it: max over the words (bigru_mean: mean)
  // Hugging Face decoder LMs of today (docs/checkpoint-format.md "Llama-family models"): rotary
  // positions, grouped-query attention, RMSNorm and SwiGLU (llama, mistral, qwen2); GPT-NeoX/Pythia
  // with its fused per-head q|k|v, partial rotary and parallel residual. Qwen3 (per-head query and
  // key norms), Gemma 2 and 3 (text; norms around each sublayer, soft-capping, sliding and global
  // layers), Phi-3 (fused q|k|v and gate|up) and OLMo 2 (norms after each sublayer, whole-width query
  // and key norms): docs/checkpoint-format.md.
  Llama, Mistral, Qwen2, GptNeox, Qwen3, Gemma2, Gemma3Text, Phi3, Olmo2,
  // Mixtures of experts (docs/checkpoint-format.md "Mixtures of experts"): a router sends each token to
  // k of E feed-forward experts. gpt-oss adds learned attention sinks, attention biases, alternating
  // sliding and full layers, YaRN positions and MXFP4 experts.
  Mixtral, Qwen3Moe, Olmoe, GptOss,
};
// How a transformer classifier pools its final states: the first token through the pooler (BERT) or
// the mean of the unpadded states straight into the classifier (encoder_classifier).
enum class Pooling { First, Mean };
// LAMA's global context c: a learned vector (LAMA) or the mean of the word embeddings (LAMA+ctx).
enum class LamaContext { Learned, Mean };
// LAMA's training regularizer: none, penal (‖AAᵀ − I‖²_F) or emb (cosine of the rows of S).
enum class Regularizer { None, Penal, Emb };
// SentencePiece: one model (spm.model) whose pieces are the ids, for both sides of a translation.
// HfJson: a Hugging Face tokenizer.json (models/text/hf_tokenizer.h). SentencePiecePair: Marian's
// source.spm and target.spm, their pieces numbered by one shared vocab.json.
enum class TokenizerKind { Word, Gpt2Bpe, WordPiece, SentencePiece, HfJson, SentencePiecePair };
// How rotary positions stretch beyond the trained context: not at all, every frequency ÷ factor
// ("linear"), Llama 3.1's per-wavelength blend ("llama3"), or YaRN's ramp between interpolated and
// original frequencies with its attention factor on cos and sin ("yarn": gpt-oss).
enum class RopeScaling { Default, Linear, Llama3, Yarn };
// The diagonal treatment a native LM was trained with (Bird-Eye Table 2).
enum class DiagMode { Normal, Reduced, Magnified, Mask };

// One value and the name config.json spells it with.
template <typename Enum>
struct NamedValue {
  Enum value;
  const char* name;
};

// True when entry i of `table` names the enum's value i. The tables are written as pairs, so a name
// sits beside its value, and a table out of the enum's order fails to compile instead of shifting
// every name after the change (to_string indexes by the value).
template <typename Enum, std::size_t N>
constexpr bool in_declaration_order(const std::array<NamedValue<Enum>, N>& table) {
  for (std::size_t index = 0; index < N; ++index)
    if (static_cast<std::size_t>(table[index].value) != index) return false;
  return true;
}

// Each enum's values with their names, in declaration order (checked below).
template <typename Enum>
struct EnumNames;
template <>
struct EnumNames<ModelFamily> {
  using E = ModelFamily;
  static constexpr std::array<NamedValue<E>, 25> table = {{
      {E::TransformerLm, "transformer_lm"},
      {E::BetSf, "bet_sf"},
      {E::BetSg, "bet_sg"},
      {E::EncoderClassifier, "encoder_classifier"},
      {E::Lama, "lama"},
      {E::BiGruMean, "bigru_mean"},
      {E::Gpt2, "gpt2"},
      {E::Bert, "bert"},
      {E::TransformerMt, "transformer_mt"},
      {E::Marian, "marian"},
      {E::Bart, "bart"},
      {E::BiGruMax, "bigru_max"},
      {E::Llama, "llama"},
      {E::Mistral, "mistral"},
      {E::Qwen2, "qwen2"},
      {E::GptNeox, "gpt_neox"},
      {E::Qwen3, "qwen3"},
      {E::Gemma2, "gemma2"},
      {E::Gemma3Text, "gemma3_text"},
      {E::Phi3, "phi3"},
      {E::Olmo2, "olmo2"},
      {E::Mixtral, "mixtral"},
      {E::Qwen3Moe, "qwen3_moe"},
      {E::Olmoe, "olmoe"},
      {E::GptOss, "gpt_oss"},
  }};
  static_assert(in_declaration_order(table));
};
template <>
struct EnumNames<Pooling> {
  using E = Pooling;
  static constexpr std::array<NamedValue<E>, 2> table = {{
      {E::First, "first"},
      {E::Mean, "mean"},
  }};
  static_assert(in_declaration_order(table));
};
template <>
struct EnumNames<LamaContext> {
  using E = LamaContext;
  static constexpr std::array<NamedValue<E>, 2> table = {{
      {E::Learned, "learned"},
      {E::Mean, "mean"},
  }};
  static_assert(in_declaration_order(table));
};
template <>
struct EnumNames<Regularizer> {
  using E = Regularizer;
  static constexpr std::array<NamedValue<E>, 3> table = {{
      {E::None, "none"},
      {E::Penal, "penal"},
      {E::Emb, "emb"},
  }};
  static_assert(in_declaration_order(table));
};
template <>
struct EnumNames<TokenizerKind> {
  using E = TokenizerKind;
  static constexpr std::array<NamedValue<E>, 6> table = {{
      {E::Word, "word"},
      {E::Gpt2Bpe, "gpt2_bpe"},
      {E::WordPiece, "wordpiece"},
      {E::SentencePiece, "sentencepiece"},
      {E::HfJson, "tokenizer_json"},
      {E::SentencePiecePair, "sentencepiece_pair"},
  }};
  static_assert(in_declaration_order(table));
};
template <>
struct EnumNames<RopeScaling> {
  using E = RopeScaling;
  static constexpr std::array<NamedValue<E>, 4> table = {{
      {E::Default, "default"},
      {E::Linear, "linear"},
      {E::Llama3, "llama3"},
      {E::Yarn, "yarn"},
  }};
  static_assert(in_declaration_order(table));
};
template <>
struct EnumNames<DiagMode> {
  using E = DiagMode;
  static constexpr std::array<NamedValue<E>, 4> table = {{
      {E::Normal, "normal"},
      {E::Reduced, "reduced"},
      {E::Magnified, "magnified"},
      {E::Mask, "mask"},
  }};
  static_assert(in_declaration_order(table));
};

// The value named `name`, or nothing when no value has that name.
template <typename Enum>
std::optional<Enum> parse_enum(const std::string& name) {
  for (const auto& entry : EnumNames<Enum>::table)
    if (name == entry.name) return entry.value;
  return std::nullopt;
}

// Every value of an enum, in declaration order.
template <typename Enum>
std::array<Enum, EnumNames<Enum>::table.size()> all_values() {
  std::array<Enum, EnumNames<Enum>::table.size()> values{};
  for (std::size_t index = 0; index < values.size(); ++index) values[index] = EnumNames<Enum>::table[index].value;
  return values;
}

template <typename Enum>
std::string enum_name(Enum value) {
  return EnumNames<Enum>::table.at(static_cast<std::size_t>(value)).name;
}

inline std::string to_string(ModelFamily value) { return enum_name(value); }
inline std::string to_string(Pooling value) { return enum_name(value); }
inline std::string to_string(LamaContext value) { return enum_name(value); }
inline std::string to_string(Regularizer value) { return enum_name(value); }
inline std::string to_string(TokenizerKind value) { return enum_name(value); }
inline std::string to_string(DiagMode value) { return enum_name(value); }
inline std::string to_string(RopeScaling value) { return enum_name(value); }

}  // namespace aw

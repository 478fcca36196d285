// models/nn/config_enums.h — the named modes of a ModelConfig, as enums. Each has one table of the
// names config.json spells it with (in declaration order): to_string and the parse read that table,
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
// ("linear"), or Llama 3.1's per-wavelength blend ("llama3").
enum class RopeScaling { Default, Linear, Llama3 };
// The diagonal treatment a native LM was trained with (Bird-Eye Table 2).
enum class DiagMode { Normal, Reduced, Magnified, Mask };

// The names of an enum's values, indexed by the value.
template <typename Enum>
struct EnumNames;
template <>
struct EnumNames<ModelFamily> {
  static constexpr std::array<const char*, 21> names = {"transformer_lm", "bet_sf", "bet_sg", "encoder_classifier",
                                                         "lama",           "bigru_mean", "gpt2", "bert",
                                                         "transformer_mt", "marian", "bart", "bigru_max",
                                                         "llama",          "mistral",  "qwen2", "gpt_neox",
                                                         "qwen3",          "gemma2",   "gemma3_text", "phi3",
                                                         "olmo2"};
};
template <>
struct EnumNames<Pooling> {
  static constexpr std::array<const char*, 2> names = {"first", "mean"};
};
template <>
struct EnumNames<LamaContext> {
  static constexpr std::array<const char*, 2> names = {"learned", "mean"};
};
template <>
struct EnumNames<Regularizer> {
  static constexpr std::array<const char*, 3> names = {"none", "penal", "emb"};
};
template <>
struct EnumNames<TokenizerKind> {
  static constexpr std::array<const char*, 6> names = {"word",          "gpt2_bpe",       "wordpiece",
                                                        "sentencepiece", "tokenizer_json", "sentencepiece_pair"};
};
template <>
struct EnumNames<RopeScaling> {
  static constexpr std::array<const char*, 3> names = {"default", "linear", "llama3"};
};
template <>
struct EnumNames<DiagMode> {
  static constexpr std::array<const char*, 4> names = {"normal", "reduced", "magnified", "mask"};
};

// The value named `name`, or nothing when no value has that name.
template <typename Enum>
std::optional<Enum> parse_enum(const std::string& name) {
  const auto& names = EnumNames<Enum>::names;
  for (std::size_t index = 0; index < names.size(); ++index)
    if (name == names[index]) return static_cast<Enum>(index);
  return std::nullopt;
}

// Every value of an enum, in declaration order.
template <typename Enum>
std::array<Enum, EnumNames<Enum>::names.size()> all_values() {
  std::array<Enum, EnumNames<Enum>::names.size()> values{};
  for (std::size_t index = 0; index < values.size(); ++index) values[index] = static_cast<Enum>(index);
  return values;
}

template <typename Enum>
std::string enum_name(Enum value) {
  return EnumNames<Enum>::names.at(static_cast<std::size_t>(value));
}

inline std::string to_string(ModelFamily value) { return enum_name(value); }
inline std::string to_string(Pooling value) { return enum_name(value); }
inline std::string to_string(LamaContext value) { return enum_name(value); }
inline std::string to_string(Regularizer value) { return enum_name(value); }
inline std::string to_string(TokenizerKind value) { return enum_name(value); }
inline std::string to_string(DiagMode value) { return enum_name(value); }
inline std::string to_string(RopeScaling value) { return enum_name(value); }

}  // namespace aw

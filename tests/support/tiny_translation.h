// tests/support/tiny_translation.h — a tiny transformer_mt over a SentencePiece model trained on the
// fixture pairs (tests/fixtures/pairs_en_fr.tsv), for the tests of translation training, the
// translation model and the analyses per attention kind.
#pragma once

#include "analysis/heads/gate_evaluation.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/tokenizer.h"
#include "models/translation/translation_codec.h"
#include "models/translation/translation_data.h"
#include "tests/support/test_support.h"

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw::test {

inline std::string pairs_path() { return std::string(AW_SOURCE_DIR) + "/tests/fixtures/pairs_en_fr.tsv"; }

// A SentencePiece model of the fixture pairs (both sides) and a tiny transformer_mt config over it:
// 2 encoder layers, 1 decoder layer (blocks enc 0, 1, dec 2, cross 3), 2 heads, d 8, BET(SF) in the
// decoder, dropout 0.
struct TinyTranslation {
  TempDir dir;
  std::string spm;
  ModelConfig config;

  explicit TinyTranslation(bool bird_eye = true, double dropout = 0.0) {
    std::vector<std::string> sentences;
    for (const auto& pair : read_translation_pairs(pairs_path())) {
      sentences.push_back(pair.source);
      sentences.push_back(pair.target);
    }
    train_sentencepiece(sentences, dir.file("spm"), 60, "bpe", 1);
    spm = dir.file("spm.model");
    const auto pieces = load_sentencepiece_tokenizer(spm, "", false)->vocab_size();
    config = parse_model_config({{"model_type", "transformer_mt"}, {"vocab_size", pieces}, {"encoder_layers", 2},
                                 {"decoder_layers", 1}, {"n_heads", 2}, {"d_model", 8}, {"d_ff", 16},
                                 {"max_positions", 32}, {"norm", "pre"}, {"dropout", dropout},
                                 {"decoder_bird_eye", bird_eye}},
                                "tiny transformer_mt");
  }

  std::vector<std::string> pieces() const {
    const auto tokenizer = load_sentencepiece_tokenizer(spm, "", false);
    std::vector<std::string> list;
    for (int64_t id = 0; id < tokenizer->vocab_size(); ++id) list.push_back(tokenizer->token_text(id));
    return list;
  }

  // A randomly initialised (seeded) checkpoint folder, loaded.
  LoadedModel checkpoint(const std::string& name, uint64_t seed = 5) const {
    torch::manual_seed(seed);
    auto model = create_model(config);
    {
      // Lively weights: the default initialisation leaves a tiny model's attention near uniform.
      torch::NoGradGuard no_grad;
      for (auto& parameter : model->module().parameters())
        if (parameter.dim() == 2) parameter.normal_(0.0, 0.4);
    }
    save_native_checkpoint(dir.file(name), *model, pieces(), torch::kFloat32, spm);
    return load_checkpoint(dir.file(name), torch::kCPU);
  }

  // The fixture pairs as `loaded` reads them, teacher-forced, in batches of `batch`.
  EvaluationData data(const LoadedModel& loaded, int64_t batch = 8) const {
    const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
    return language_model_data(pair_batches(
        encode_pairs(read_translation_pairs(pairs_path()), codec, loaded.config.max_positions, 0), batch));
  }
};

}  // namespace aw::test

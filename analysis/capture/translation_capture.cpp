// analysis/capture/translation_capture.cpp — see translation_capture.h.
#include "analysis/capture/translation_capture.h"

#include "models/errors.h"

#include <torch/torch.h>

namespace aw {

namespace {

// The source's ids and labels; throws for an empty source or one longer than the positions.
TranslationCapture source_capture(const ModelConfig& config, const TranslationCodec& codec, const std::string& source) {
  TranslationCapture capture;
  capture.source = source;
  capture.source_ids = codec.source_ids(source);
  capture.source_tokens = codec.source_tokens(source);
  if (static_cast<int64_t>(capture.source_ids.size()) > config.max_positions)
    throw Error("the source has " + std::to_string(capture.source_ids.size()) + " tokens; the model has " +
                std::to_string(config.max_positions) + " positions");
  return capture;
}

// One teacher-forced forward over capture.decoder_ids: every attention block and the logits.
void capture_decoder(SequenceToSequenceModel& model, const TranslationCodec& codec, TranslationCapture& capture,
                     ForwardOptions options) {
  capture.decoder_tokens = codec.target_tokens(capture.decoder_ids);
  ModelInput input;
  input.input_ids = torch::tensor(capture.source_ids, torch::kLong).unsqueeze(0);
  input.decoder_input_ids = torch::tensor(capture.decoder_ids, torch::kLong).unsqueeze(0);
  c10::InferenceMode inference;
  options.capture = CaptureMode::Full;
  const auto result = model.forward(input.to(model.module().parameters().front().device()), options);
  for (const auto& block : result.attention)
    capture.attention.push_back(block.select(0, 0).to(torch::kCPU, torch::kFloat32).contiguous());
  capture.logits = result.logits.select(0, 0).to(torch::kCPU, torch::kFloat32);
}

}  // namespace

TranslationCapture translate_and_capture(SequenceToSequenceModel& model, const TranslationCodec& codec,
                                         const std::string& source, const SearchSettings& settings,
                                         const torch::Tensor& head_gates) {
  auto capture = source_capture(model.config(), codec, source);
  ModelInput input;
  input.input_ids = torch::tensor(capture.source_ids, torch::kLong).unsqueeze(0);
  ForwardOptions options;
  options.head_gates = head_gates;
  capture.hypothesis = translate_rows(model, input, settings, options).front();
  capture.translation = codec.text(capture.hypothesis.ids);

  capture.decoder_ids.push_back(model.config().translation.decoder_start_id);
  capture.decoder_ids.insert(capture.decoder_ids.end(), capture.hypothesis.ids.begin(), capture.hypothesis.ids.end());
  capture_decoder(model, codec, capture, options);
  return capture;
}

TranslationCapture capture_translation_of(SequenceToSequenceModel& model, const TranslationCodec& codec,
                                          const std::string& source, const std::string& target,
                                          const torch::Tensor& head_gates) {
  TranslationCapture capture = source_capture(model.config(), codec, source);
  // The reference as training reads it: start, tokens, EOS; the decoder reads all but the EOS, and
  // its last row predicts the EOS.
  const auto reference = codec.decoder_ids(target);
  if (reference.size() < 3) throw Error("the target is empty");
  if (static_cast<int64_t>(reference.size()) - 1 > model.config().max_positions)
    throw Error("the target has " + std::to_string(reference.size() - 2) + " tokens; the model has " +
                std::to_string(model.config().max_positions) + " positions");
  capture.teacher_forced = true;
  capture.translation = target;
  capture.decoder_ids.assign(reference.begin(), reference.end() - 1);
  capture.hypothesis.ids.assign(reference.begin() + 1, reference.end() - 1);
  capture.hypothesis.finished = true;
  ForwardOptions options;
  options.head_gates = head_gates;
  capture_decoder(model, codec, capture, options);
  // Its log-probability under the model: every next token, the EOS included.
  const auto next = torch::tensor(std::vector<int64_t>(reference.begin() + 1, reference.end()), torch::kLong);
  capture.hypothesis.score =
      torch::log_softmax(capture.logits.to(torch::kFloat64), -1).gather(1, next.unsqueeze(1)).sum().item<double>();
  return capture;
}

nlohmann::json translation_json(const TranslationCapture& capture, const ModelConfig& config) {
  nlohmann::json blocks = nlohmann::json::array();
  for (size_t index = 0; index < capture.attention.size(); ++index) {
    const auto& probabilities = capture.attention[index];                                 // (H, rows, cols)
    const int64_t heads = probabilities.size(0), rows = probabilities.size(1), cols = probabilities.size(2);
    const float* values = probabilities.data_ptr<float>();
    nlohmann::json matrices = nlohmann::json::array();
    for (int64_t head = 0; head < heads; ++head) {
      nlohmann::json matrix = nlohmann::json::array();
      for (int64_t row = 0; row < rows; ++row) {
        const float* begin = values + (head * rows + row) * cols;
        matrix.push_back(std::vector<float>(begin, begin + cols));
      }
      matrices.push_back(std::move(matrix));
    }
    const auto where = config.attention_block(static_cast<int64_t>(index));
    blocks.push_back({{"kind", to_string(where.kind)}, {"layer", where.layer}, {"attention", std::move(matrices)}});
  }
  return {{"source", capture.source},
          {"translation", capture.translation},
          {"score", capture.hypothesis.score},
          {"finished", capture.hypothesis.finished},
          {"teacher_forced", capture.teacher_forced},
          {"source_tokens", capture.source_tokens},
          {"source_ids", capture.source_ids},
          {"target_tokens", capture.decoder_tokens},
          {"target_ids", capture.decoder_ids},
          {"blocks", std::move(blocks)}};
}

}  // namespace aw

// analysis/capture/translation_capture.cpp — see translation_capture.h.
#include "analysis/capture/translation_capture.h"

#include "models/errors.h"

#include <torch/torch.h>

namespace aw {

TranslationCapture translate_and_capture(SequenceToSequenceModel& model, const TranslationCodec& codec,
                                         const std::string& source, const SearchSettings& settings,
                                         const torch::Tensor& head_gates) {
  const auto& config = model.config();
  TranslationCapture capture;
  capture.source = source;
  capture.source_ids = codec.source_ids(source);
  capture.source_tokens = codec.source_tokens(source);
  if (static_cast<int64_t>(capture.source_ids.size()) > config.max_positions)
    throw Error("the source has " + std::to_string(capture.source_ids.size()) + " tokens; the model has " +
                std::to_string(config.max_positions) + " positions");
  ModelInput input;
  input.input_ids = torch::tensor(capture.source_ids, torch::kLong).unsqueeze(0);
  ForwardOptions options;
  options.head_gates = head_gates;
  capture.hypothesis = translate_rows(model, input, settings, options).front();
  capture.translation = codec.text(capture.hypothesis.ids);

  capture.decoder_ids.push_back(config.translation.decoder_start_id);
  capture.decoder_ids.insert(capture.decoder_ids.end(), capture.hypothesis.ids.begin(), capture.hypothesis.ids.end());
  capture.decoder_tokens = codec.target_tokens(capture.decoder_ids);
  input.decoder_input_ids = torch::tensor(capture.decoder_ids, torch::kLong).unsqueeze(0);
  c10::InferenceMode inference;
  options.capture = CaptureMode::Full;
  const auto result = model.forward(input.to(model.module().parameters().front().device()), options);
  for (const auto& block : result.attention)
    capture.attention.push_back(block.select(0, 0).to(torch::kCPU, torch::kFloat32).contiguous());
  capture.logits = result.logits.select(0, 0).to(torch::kCPU, torch::kFloat32);
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
          {"source_tokens", capture.source_tokens},
          {"source_ids", capture.source_ids},
          {"target_tokens", capture.decoder_tokens},
          {"target_ids", capture.decoder_ids},
          {"blocks", std::move(blocks)}};
}

}  // namespace aw

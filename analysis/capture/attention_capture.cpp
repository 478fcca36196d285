// analysis/capture/attention_capture.cpp — see attention_capture.h.
#include "analysis/capture/attention_capture.h"

#include <torch/torch.h>

namespace aw {

nlohmann::json attention_json(const Encoding& encoding, const std::vector<torch::Tensor>& attention_by_layer) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& captured : attention_by_layer) {
    auto probabilities = (captured.dim() == 4 ? captured.select(0, 0) : captured)
                             .to(torch::kCPU, torch::kFloat32)
                             .contiguous();                                               // (H, n, n)
    const int64_t heads = probabilities.size(0), rows = probabilities.size(1), cols = probabilities.size(2);
    const float* values = probabilities.data_ptr<float>();
    nlohmann::json layer = nlohmann::json::array();
    for (int64_t head = 0; head < heads; ++head) {
      nlohmann::json matrix = nlohmann::json::array();
      for (int64_t row = 0; row < rows; ++row) {
        const float* begin = values + (head * rows + row) * cols;
        matrix.push_back(std::vector<float>(begin, begin + cols));
      }
      layer.push_back(std::move(matrix));
    }
    layers.push_back(std::move(layer));
  }
  return {{"tokens", encoding.tokens}, {"ids", encoding.ids}, {"attention", std::move(layers)}};
}

ModelInput encoding_input(const Encoding& encoding) {
  ModelInput input;
  input.input_ids = torch::tensor(encoding.ids, torch::kLong).unsqueeze(0);
  if (!encoding.type_ids.empty()) input.token_type_ids = torch::tensor(encoding.type_ids, torch::kLong).unsqueeze(0);
  return input;
}

ForwardResult capture_attention(AttentionModel& model, const Encoding& encoding, ForwardOptions options) {
  c10::InferenceMode inference;
  model.module().eval();
  options.capture = CaptureMode::Full;
  return model.forward(encoding_input(encoding), options);
}

}  // namespace aw

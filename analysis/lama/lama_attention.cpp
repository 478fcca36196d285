// analysis/lama/lama_attention.cpp — see lama_attention.h.
#include "analysis/lama/lama_attention.h"

#include "models/errors.h"
#include "models/parse_number.h"

#include <torch/torch.h>

namespace aw {

double selected_weight(const DocumentAttention& document, int64_t position, const WeightSelection& selection) {
  double weight = 0.0;
  if (selection.head == 0) {
    for (int64_t head = 0; head < document.heads; ++head) weight += document.weight(head, position);
    weight /= static_cast<double>(document.heads);
  } else {
    weight = document.weight(selection.head - 1, position);
  }
  return selection.scale == WeightScale::Length ? weight * static_cast<double>(document.length()) : weight;
}

int64_t parse_head_choice(const std::string& text, int64_t heads) {
  if (text == "mean") return 0;
  int64_t head = 0;
  if (!parse_integer(text, head) || head < 1 || head > heads)
    throw Error("--head must be mean or a head number 1.." + std::to_string(heads) + ", got '" + text + "'");
  return head;
}

WeightScale parse_weight_scale(const std::string& text) {
  if (text == "none") return WeightScale::None;
  if (text == "length") return WeightScale::Length;
  throw Error("--scale must be none or length, got '" + text + "'");
}

void require_lama(const ModelConfig& config, const std::string& model_name) {
  if (!config.has_lama_attention())
    throw Error(model_name + " is a " + config.family_name() +
                " model; word weights need a LAMA classifier (model_type lama), whose attention is one weight per word "
                "and head");
}

DocumentAttentionResult lama_document_attention(AttentionModel& model, const Tokenizer& tokenizer,
                                                const std::vector<LabelledExample>& examples, int64_t batch_size,
                                                const ProgressCallback& progress) {
  require_lama(model.config(), "the model");
  c10::InferenceMode inference;
  model.module().eval();
  const auto device = model.module().parameters().front().device();
  const auto batches = make_classifier_batches(examples, tokenizer, model.config().max_positions, batch_size);
  DocumentAttentionResult result;
  result.truncated = batches.truncated;
  const auto batch_count = static_cast<int64_t>(batches.inputs.size());
  int64_t next = 0;  // index of the next example
  for (int64_t b = 0; b < batch_count; ++b) {
    const auto input = batches.inputs[b].to(device);
    ForwardOptions options;
    options.capture = CaptureMode::Full;
    const auto attention = model.forward(input, options).attention.at(0).squeeze(2)
                               .to(torch::kCPU, torch::kFloat32).contiguous();              // (b, m, n)
    const auto ids = batches.inputs[b].input_ids;
    const auto lengths = batches.inputs[b].attention_mask.sum(1).contiguous();             // (b) int64, CPU
    const auto* length_of = lengths.data_ptr<int64_t>();
    const int64_t rows = attention.size(0), heads = attention.size(1);
    for (int64_t row = 0; row < rows; ++row, ++next) {
      DocumentAttention document;
      document.index = next;
      document.label = examples[next].label;
      document.heads = heads;
      const auto length = length_of[row];
      const auto row_ids = ids[row].narrow(0, 0, length).contiguous();
      const auto* id = row_ids.data_ptr<int64_t>();
      for (int64_t t = 0; t < length; ++t) document.tokens.push_back(tokenizer.token_text(id[t]));
      const auto weights = attention[row].narrow(1, 0, length).contiguous();               // (m, n)
      document.weights.assign(weights.data_ptr<float>(), weights.data_ptr<float>() + weights.numel());
      result.documents.push_back(std::move(document));
    }
    if (!report_progress(progress, b + 1, batch_count)) {
      result.cancelled = true;
      break;
    }
  }
  return result;
}

}  // namespace aw

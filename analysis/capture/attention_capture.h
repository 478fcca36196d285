// analysis/capture/attention_capture.h — one encoded text run with its attention kept, and that
// attention as the `attend` JSON ({"tokens", "ids", "attention": [layer][head][row][col]}).
#pragma once

#include "models/nn/model.h"
#include "models/text/tokenizer.h"

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <vector>

namespace aw {

// One encoded text as a model input: a batch of one, token types included.
ModelInput encoding_input(const Encoding& encoding);

// Runs one encoded text (a batch of one, token types included) in inference mode with every
// layer's attention captured: result.attention[l] is [1, H, n, n].
ForwardResult capture_attention(AttentionModel& model, const Encoding& encoding, ForwardOptions options = {});

// attention_by_layer: per layer [1, H, n, n] (batch of one) or [H, n, n].
nlohmann::json attention_json(const Encoding& encoding, const std::vector<torch::Tensor>& attention_by_layer);

}  // namespace aw

// app/cli/attend_logits.h — `attend --logits`: the next-token logits of the text, as the K best tokens
// per position (text and JSON output) or whole in the attention file (export_attention's logits).
#pragma once

#include "models/checkpoint/checkpoint.h"
#include "models/text/tokenizer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace aw {

// What --logits asks for: nothing, the K best tokens per position, or the whole [n, V] tensor.
struct LogitsRequest {
  enum class Kind { None, Top, Full } kind = Kind::None;
  int64_t k = 0;
};

// "top-K" (K ≥ 1) or "full"; throws aw::Error("attention-cli attend: --logits …") for anything else,
// and for a model without next-token logits (not a language model).
LogitsRequest parse_logits_request(const std::string& value, const LoadedModel& loaded);

// Per position, the K best next tokens of `encoding` through `loaded` (analysis/capture/next_tokens.h):
// [{"position", "token", "next": [{"id", "token", "logit"} …]} …].
nlohmann::json top_logits_json(const LoadedModel& loaded, const Encoding& encoding, int64_t k);

// The same as lines: "  3 [sat] → on 4.21  the 3.80 …".
void print_top_logits(const nlohmann::json& top);

}  // namespace aw

// app/cli/attend_logits.cpp — see attend_logits.h.
#include "app/cli/attend_logits.h"

#include "analysis/capture/next_tokens.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>

namespace aw {

LogitsRequest parse_logits_request(const std::string& value, const LoadedModel& loaded) {
  if (!loaded.config.is_language_model())
    throw Error("attention-cli attend: --logits needs a language model (next-token logits); " + loaded.name + " is a " +
                loaded.config.family_name() + (loaded.config.is_classifier() ? " classifier" : " model"));
  LogitsRequest request;
  if (value == "full") {
    request.kind = LogitsRequest::Kind::Full;
    return request;
  }
  const std::string prefix = "top-";
  char* end = nullptr;
  const long long k = value.compare(0, prefix.size(), prefix) == 0 ? std::strtoll(value.c_str() + prefix.size(), &end, 10) : 0;
  if (end == nullptr || *end != '\0' || k < 1)
    throw Error("attention-cli attend: --logits " + value + ": expected top-K (K ≥ 1, e.g. top-5) or full");
  if (k > loaded.config.vocab_size)
    throw Error("attention-cli attend: --logits " + value + ": the vocabulary has " +
                std::to_string(loaded.config.vocab_size) + " tokens");
  request.kind = LogitsRequest::Kind::Top;
  request.k = k;
  return request;
}

nlohmann::json top_logits_json(const LoadedModel& loaded, const Encoding& encoding, int64_t k) {
  const auto top = top_next_tokens(next_token_logits(*loaded.model, encoding), k);
  const auto value = top.logits.accessor<float, 2>();
  const auto id = top.ids.accessor<int64_t, 2>();
  auto positions = nlohmann::json::array();
  for (int64_t position = 0; position < top.ids.size(0); ++position) {
    auto next = nlohmann::json::array();
    for (int64_t rank = 0; rank < k; ++rank)
      next.push_back({{"id", id[position][rank]},
                      {"token", loaded.tokenizer->token_text(id[position][rank])},
                      {"logit", value[position][rank]}});
    positions.push_back({{"position", position}, {"token", encoding.tokens[position]}, {"next", next}});
  }
  return positions;
}

void print_top_logits(const nlohmann::json& top) {
  const auto k = top.empty() ? 0 : top.front()["next"].size();
  std::printf("top-%zu next tokens after each position (logits):\n", k);
  for (const auto& position : top) {
    std::printf("  %3lld [%s] →", static_cast<long long>(position["position"].get<int64_t>()),
                position["token"].get<std::string>().c_str());
    for (const auto& next : position["next"])
      std::printf("  %s %.3f", next["token"].get<std::string>().c_str(), next["logit"].get<double>());
    std::printf("\n");
  }
}

}  // namespace aw

// analysis/attention_stats/top_tokens.h — Bird-Eye Table 3: which earlier tokens a model attends to when it predicts
// a target token. For a sentence and a target position t (0-based; the token being predicted, so
// 1 ≤ t < n), the row of token t−1 of each layer's attention, averaged over the heads, gives the
// top-k attended tokens. Several models side by side make the table's "method" column.
// A translation model translates each sentence (its source) itself, and its rows are those of the
// cross-attention: for each generated token t, the row of decoder position t−1 per decoder layer,
// head mean, gives the source tokens attended most while predicting it.
#pragma once

#include "models/nn/model.h"
#include "models/progress.h"
#include "models/text/tokenizer.h"
#include "models/translation/beam_search.h"
#include "models/translation/translation_codec.h"

#include "table/result_table.h"

#include <string>
#include <vector>

namespace aw {

struct TopTokensRow {
  int64_t layer = 0;               // 1-based
  int64_t sentence = 0;            // 1-based, in input order
  int64_t target = 0;              // 0-based token position of the predicted token
  std::string target_token;
  std::string method;              // the model's name
  std::vector<std::string> tokens; // top-k attended tokens, strongest first
  std::vector<int64_t> positions;
  std::vector<double> weights;
};

struct TopTokensRequest {
  std::string text;
  int64_t target = -1;             // −1: the last token
};

// Rows for one model: one per (sentence, layer). Throws aw::Error for a sentence that gives fewer
// than 2 tokens, a target outside 1..n−1, or more tokens than the model's positions. `progress`
// sees (sentences done, sentences); when it cancels, the rows so far come back and *cancelled is set.
std::vector<TopTokensRow> top_attended_tokens(AttentionModel& model, const Tokenizer& tokenizer,
                                              const std::string& model_name,
                                              const std::vector<TopTokensRequest>& sentences, int64_t k,
                                              const ForwardOptions& forward = {},
                                              const ProgressCallback& progress = {}, bool* cancelled = nullptr);

// Rows for one translation model: one per (sentence, decoder layer, target token) of the model's own
// translation under `forward.head_gates`, every generated token unless the request names a target
// (a 0-based position among the decoder's tokens, the start token being 0). Throws aw::Error for an
// empty or over-long source, or a target outside 1..m−1.
std::vector<TopTokensRow> top_source_tokens(SequenceToSequenceModel& model, const TranslationCodec& codec,
                                            const std::string& model_name,
                                            const std::vector<TopTokensRequest>& sentences, int64_t k,
                                            const SearchSettings& search, const ForwardOptions& forward = {},
                                            const ProgressCallback& progress = {}, bool* cancelled = nullptr);

// Reads one sentence per non-empty line, optionally "sentence<TAB>target"; errors name the line.
std::vector<TopTokensRequest> read_top_token_requests(const std::string& path);

// Table `layer,sentence,target,method,top1,top2,top3` (top1..topk for k ≠ 3), rows ordered by
// sentence, layer, method. The target column holds the target token and its position ("mat@6"); each
// top token's position and weight go to JSON only (topN_position, topN_weight).
ResultTable top_tokens_table(std::vector<TopTokensRow> rows, int64_t k);

}  // namespace aw

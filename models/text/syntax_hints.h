// models/text/syntax_hints.h — BET(SG)'s supervision: CoNLL-U dependency trees, the syntax hint of each
// position, and the pointer loss that pulls attention towards it.
//
// Hint (Bird-Eye Transformer, syntax-guided): while position t predicts x_{t+1}, its hint is the
// nearest ancestor of x_{t+1} in the dependency tree that stands to the left of x_{t+1} (so at a
// position ≤ t); when x_{t+1} has no such ancestor, the hint is t itself.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct ConlluSentence {
  std::vector<std::string> forms;  // the syntactic words, in order (whitespace inside a form becomes '_')
  std::vector<int64_t> heads;      // per word: its head's 1-based index, 0 for the root
  std::vector<int64_t> lines;      // per word: its 1-based line in the file, for messages
};

// Reads a CoNLL-U file: comment lines (#) skipped, multi-word token lines (ID "3-4") and empty nodes
// (ID "8.1") skipped as the format prescribes, a blank line ends a sentence. Throws
// aw::Error("<path>:<line>: <what is wrong>") for a malformed line, and names the file when it
// cannot be read or holds no sentence.
std::vector<ConlluSentence> read_conllu(const std::string& path);

// True for a path ending in ".conllu": corpus readers take such files as CoNLL-U.
bool is_conllu_path(const std::string& path);

// The sentence as one line of text: its forms joined by single spaces.
std::string sentence_text(const ConlluSentence& sentence);

// The hint of every position of the sentence as the language model sees it: its words followed by
// "<eos>" (forms.size() + 1 positions). The last word (predicting "<eos>") and "<eos>" itself
// (predicting the next sentence) have no tree relation to their target, so they point at themselves.
std::vector<int64_t> syntax_hints(const ConlluSentence& sentence);

// Hints of a token stream (sentence after sentence, as read_token_corpus lays them out) cut into the
// same consecutive windows of `window` tokens as make_window_batches: [windows, window] int64 with
// positions relative to the window, −1 on padding. A hint that lies before its window's start (the
// window cut the sentence) falls back to the position itself.
torch::Tensor window_hints(const std::vector<int64_t>& stream_hints, int64_t window);

// Pointer loss of one batch: for every layer l, −log Ā_l[b, t, hint(b, t)] where Ā_l is layer l's
// attention averaged over its heads, averaged over the positions that have a hint (hint ≥ 0), and
// summed over the layers. attention: per layer [B, H, n, n]; hints: [B, n] int64. Differentiable.
torch::Tensor pointer_loss(const std::vector<torch::Tensor>& attention, const torch::Tensor& hints);

}  // namespace aw

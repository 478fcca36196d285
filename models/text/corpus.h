// models/text/corpus.h — turning text files into model inputs: a language-model corpus cut into
// consecutive non-overlapping windows (the last, shorter one kept and padding masked), and labelled
// TSV files (label<TAB>text or label<TAB>text_a<TAB>text_b) for classifiers.
#pragma once

#include "models/nn/model.h"
#include "models/text/tokenizer.h"

#include <string>
#include <vector>

namespace aw {

// The bytes of a file; throws aw::Error "<path>: cannot be read (missing or not a file)".
std::string read_whole_file(const std::string& path);

// Reads and tokenises a whole text file. Word-level vocabularies that contain "<eos>" get it at the
// end of every non-empty line (the WikiText convention the sample models are trained with). A
// ".conllu" file is read as CoNLL-U: one line per sentence, its word forms joined by spaces.
// Throws aw::Error naming the file when it cannot be read or holds no tokens.
std::vector<int64_t> read_token_corpus(const std::string& path, const Tokenizer& tokenizer);

// A tokenised text with where its paragraphs begin: a paragraph is a run of lines between blank
// (empty or whitespace-only) lines, or each line of a text that has no blank line (one sentence or
// one review per line). Windows cut from one paragraph share its topic and sentences, so a bootstrap
// resamples them together (analysis/statistics/delta_significance.h).
struct TokenCorpus {
  std::vector<int64_t> ids;
  // The index in `ids` of each paragraph's first token, ascending, the first 0. Empty when the
  // tokenizer keeps no trace of line breaks in its tokens (WordPiece, SentencePiece), so that the
  // paragraphs cannot be found again in the token stream.
  std::vector<int64_t> paragraph_starts;
};

// read_token_corpus with the paragraph starts. Word-level vocabularies encode line by line, so the
// starts are exact; other tokenizers encode the whole text (as Hugging Face does, so that the ids do
// not change) and a paragraph begins at the first token holding text after a blank line in the
// tokens' own text (byte-level BPE keeps every byte).
TokenCorpus read_token_paragraphs(const std::string& path, const Tokenizer& tokenizer);

// For each window make_window_batches cuts from `corpus.ids`, the paragraph its first token lies in,
// numbered 0, 1, … over the paragraphs where some window begins; empty when the paragraphs are unknown.
std::vector<int64_t> window_paragraphs(const TokenCorpus& corpus, int64_t window);

// Cuts `ids` into windows of `window` tokens and groups them into batches of up to `batch_size`
// windows: input_ids [b, n] (padded with 0) and attention_mask [b, n] (0 on padding). A last window
// of a single token is left out (it has no next token to predict) unless it is the only one.
std::vector<ModelInput> make_window_batches(const std::vector<int64_t>& ids, int64_t window, int64_t batch_size);

struct LabelledExample {
  int64_t label = 0;
  std::string text_a;
  std::string text_b;  // empty for single texts
};

// Reads label<TAB>text[<TAB>text_b] lines. A label is a class name from `label_names` or, when the
// names are not themselves integers ("1".."5" are names, not indices), an integer index 0..C-1.
// Errors give the file and the line number.
std::vector<LabelledExample> read_labelled_file(const std::string& path, const std::vector<std::string>& label_names);

// The same for labelled lines already in memory (e.g. one part of a split); `path` names them in errors.
std::vector<LabelledExample> parse_labelled_text(const std::string& text, const std::string& path,
                                                 const std::vector<std::string>& label_names);

// The class names a labelled file uses (its distinct first fields): in numeric order when they are
// all integers ("1" … "5"), else in alphabetical order. Errors as read_labelled_file.
std::vector<std::string> read_label_names(const std::string& path);

struct ClassifierBatches {
  std::vector<ModelInput> inputs;
  std::vector<torch::Tensor> labels;  // [b] int64 per batch
  int64_t truncated = 0;              // examples cut to the model's positions (keeping the last token)
};

// Cuts an encoding longer than `max_positions` to that length, keeping its final token in the last
// place (a classifier's [SEP]); returns whether it was cut.
bool truncate_to_positions(Encoding& encoding, int64_t max_positions);

// Encodes examples into padded batches (token types for pairs).
ClassifierBatches make_classifier_batches(const std::vector<LabelledExample>& examples, const Tokenizer& tokenizer,
                                          int64_t max_positions, int64_t batch_size);

}  // namespace aw

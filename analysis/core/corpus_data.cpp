// analysis/core/corpus_data.cpp — see corpus_data.h.
#include "analysis/core/corpus_data.h"

#include "analysis/core/head_gates.h"

#include "analysis/data/translation_scores.h"
#include "models/text/corpus.h"
#include "models/errors.h"
#include "models/training/evaluation.h"
#include "models/text/syntax_hints.h"
#include "models/translation/translation_data.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>

namespace aw {
namespace {

constexpr int64_t kLinesToSniff = 20;

// Whether `path` reads as a classifier's labelled file: its first non-empty lines (up to
// kLinesToSniff) all start with a one-word label and a tab. Plain corpora have no such tab; a file
// that cannot be read says so later, when it is read for real.
bool looks_labelled(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  int64_t labelled_lines = 0;
  for (std::string line; labelled_lines < kLinesToSniff && std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const auto tab = line.find('\t');
    if (tab == 0 || tab == std::string::npos || line.find(' ') < tab) return false;
    ++labelled_lines;
  }
  return labelled_lines > 0;
}

}  // namespace

void require_text_file(const std::string& path, const std::string& command, const std::string& expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;  // the reader that needs it says why it cannot be read
  char head[8192];
  in.read(head, sizeof head);
  const auto read = static_cast<size_t>(in.gcount());
  const auto* nul = std::find(head, head + read, '\0');
  if (nul != head + read)
    fail_in_file(path, "is a binary file, not text (a zero byte at offset " + std::to_string(nul - head) + "): " +
                           command + " needs " + expected);
}

void require_plain_text(const std::string& path, const std::string& model_name, const std::string& command) {
  require_text_file(path, command, "plain text");
  if (!is_conllu_path(path) && looks_labelled(path))
    fail_in_file(path, "holds label<TAB>text lines (a classifier's examples), but " + model_name +
                           " is a language model: " + command + " needs plain text");
}

int64_t corpus_window(const CorpusSettings& corpus, const LoadedModel& loaded) {
  const auto positions = loaded.config.max_positions;
  const auto window = corpus.window ? *corpus.window : std::min<int64_t>(128, positions);
  if (window > positions)
    throw SettingError("window", std::to_string(window) + " exceeds the model's " + std::to_string(positions) +
                                     " positions");
  return window;
}

namespace {

// A language model's windows of the file, each numbered by the paragraph it begins in (the units the
// bootstrap resamples; none when the tokenizer keeps no line breaks).
EvaluationData language_model_windows(const CorpusSettings& corpus, const LoadedModel& loaded,
                                      const std::string& analysis) {
  const auto window = corpus_window(corpus, loaded);
  require_plain_text(corpus.path, loaded.name, analysis);
  const auto text = read_token_paragraphs(corpus.path, *loaded.tokenizer);
  auto data = language_model_data(make_window_batches(text.ids, window, corpus.batch));
  data.blocks = window_paragraphs(text, window);
  if (!data.blocks.empty()) data.unit = "paragraphs";
  return data;
}

}  // namespace

std::vector<ModelInput> corpus_windows(const CorpusSettings& corpus, const LoadedModel& loaded,
                                       const std::string& analysis) {
  return language_model_windows(corpus, loaded, analysis).inputs;
}

namespace {

EvaluationData translation_data(const CorpusSettings& corpus, const LoadedModel& loaded, const std::string& analysis,
                                const NoteCallback& note) {
  if (corpus.window)
    throw SettingError("window", "applies to language models; " + loaded.name + " is " +
                                     describe_model_kind(loaded.config) + " and reads each pair whole (up to its " +
                                     std::to_string(loaded.config.max_positions) + " positions)");
  require_text_file(corpus.path, analysis, "source<TAB>target lines");
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  const auto encoded = encode_pairs(read_translation_pairs(corpus.path), codec, loaded.config.max_positions,
                                    loaded.config.translation.pad_id);
  if (encoded.kept.empty())
    fail_in_file(corpus.path, "has no pair short enough for " + loaded.name + "'s " +
                                  std::to_string(loaded.config.max_positions) + " positions");
  if (encoded.skipped > 0 && note)
    note(std::to_string(encoded.skipped) + " pairs longer than " + std::to_string(loaded.config.max_positions) +
         " tokens left out");
  auto data = language_model_data(pair_batches(encoded, corpus.batch));
  data.unit = "sentence pairs";
  return data;
}

}  // namespace

EvaluationData corpus_data(const CorpusSettings& corpus, const LoadedModel& loaded, const std::string& analysis,
                           const NoteCallback& note) {
  if (loaded.config.is_translation()) return translation_data(corpus, loaded, analysis, note);
  if (!loaded.config.is_classifier()) return language_model_windows(corpus, loaded, analysis);
  if (corpus.window)
    throw SettingError("window", "applies to language models; " + loaded.name + " is " +
                                     describe_model_kind(loaded.config) + " and reads each example whole (up to its " +
                                     std::to_string(loaded.config.max_positions) + " positions)");
  require_text_file(corpus.path, analysis, "label<TAB>text lines");
  const auto batches = make_classifier_batches(read_labelled_file(corpus.path, loaded.config.labels), *loaded.tokenizer,
                                               loaded.config.max_positions, corpus.batch);
  if (batches.truncated > 0 && note)
    note(std::to_string(batches.truncated) + " examples truncated to " + std::to_string(loaded.config.max_positions) +
         " tokens");
  return classification_data(batches);
}

EvaluationData metric_data(const CorpusSettings& corpus, const MetricSettings& metric, const LoadedModel& loaded,
                           const std::string& analysis, const NoteCallback& note) {
  if (metric.bleu && !loaded.config.is_translation())
    throw SettingError("metric", "bleu applies to translation models; " + loaded.name + " is " +
                                     describe_model_kind(loaded.config));
  if (metric.decoding.beam_given && !metric.bleu)
    throw SettingError("beam", "applies with --metric bleu (translations to score)");
  auto data = corpus_data(corpus, loaded, analysis, note);
  if (!metric.bleu) return data;
  SearchSettings search;
  search.beam = metric.decoding.beam;
  auto codec = std::make_shared<const TranslationCodec>(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  auto task = make_bleu_task(loaded.config, std::move(codec), read_translation_pairs(corpus.path), search);
  data.bleu = std::make_shared<const BleuTask>(std::move(task));
  data.unit = "sentences";
  return data;
}

Evaluator data_evaluator(AttentionModel& model, const EvaluationData& data, bool keep_examples) {
  if (data.bleu) {
    return [&model, &data, keep_examples](const ForwardOptions& options, const ProgressCallback& progress) {
      auto& translation = *model.sequence_to_sequence();
      const auto gates = options.head_gates.defined() ? options.head_gates : all_heads_on(model.config());
      const auto scores = score_gate_settings(translation, *data.bleu, gates.unsqueeze(0), options, progress);
      EvaluationResult result;
      result.metric_name = "bleu";
      result.cancelled = scores.empty();
      result.metric = result.cancelled ? 0.0 : scores.front().bleu.score;
      result.loss = std::nan("");
      result.count = static_cast<int64_t>(data.bleu->sources.size());
      if (keep_examples && !result.cancelled)  // each source's BLEU counts: [N, kBleuStatistics]
        result.example_sums = bleu_example_scores(*data.bleu, scores).sums.select(1, 0);
      return result;
    };
  }
  if (data.is_classification()) {
    auto batches = std::make_shared<ClassifierBatches>();
    batches->inputs = data.inputs;
    batches->labels = data.labels;
    return [&model, batches, keep_examples](const ForwardOptions& options, const ProgressCallback& progress) {
      return evaluate_accuracy(model, *batches, options, progress, keep_examples);
    };
  }
  return [&model, &data, keep_examples](const ForwardOptions& options, const ProgressCallback& progress) {
    return evaluate_perplexity(model, data.inputs, options, progress, keep_examples);
  };
}

}  // namespace aw

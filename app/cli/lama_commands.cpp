// app/cli/lama_commands.cpp — the LAMA commands: word-weights (Figure 4: every occurrence of chosen
// words with its attention weight, by label, plus summary and densities), keywords (Table 6: the
// words with the highest mean weight per label) and split (a seeded train/valid/test split of a
// labelled file). Each runs the analysis from analysis/ with a progress line and writes CSV.
#include "analysis/lama_attention.h"
#include "analysis/word_weights.h"
#include "app/cli/commands.h"
#include "app/cli/model_loading.h"
#include "app/cli/progress.h"
#include "models/text/corpus.h"
#include "models/text/data_split.h"
#include "models/errors.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>

namespace aw {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

// --data read with the model's classes, run through the model with every document's attention kept.
// Returns false (after saying so) when Ctrl-C cancelled it.
bool attend_documents(const CliOptions& options, const std::string& command, const LoadedModel& loaded,
                      DocumentAttentionResult& result) {
  const auto examples = read_labelled_file(options.require("data"), loaded.config.labels);
  install_interrupt_handler();
  ProgressLine progress(command, "batches");
  result = lama_document_attention(*loaded.model, *loaded.tokenizer, examples, options.get_int("batch", 32, 1),
                                   std::ref(progress));
  if (result.truncated > 0)
    std::fprintf(stderr, "%s: %lld documents truncated to %lld words\n", command.c_str(),
                 static_cast<long long>(result.truncated), static_cast<long long>(loaded.config.max_positions));
  if (!result.cancelled) return true;
  std::fprintf(stderr, "%s: interrupted\n", command.c_str());
  return false;
}

WeightSelection selection_from(const CliOptions& options, const std::string& command, const LoadedModel& loaded) {
  try {
    WeightSelection selection;
    selection.head = parse_head_choice(options.get("head", "mean"), loaded.config.n_heads);
    selection.scale = parse_weight_scale(options.get("scale", "none"));
    return selection;
  } catch (const Error& error) {
    throw Error("attention-cli " + command + ": " + error.what());
  }
}

void write_output(const std::string& command, const std::string& path, const std::string& text) {
  write_text_file(path, text);
  std::fprintf(stderr, "%s: written to %s\n", command.c_str(), path.c_str());
}

}  // namespace

int run_word_weights(int argc, char** argv) {
  const CliOptions options("word-weights",
                           model_command_spec({"data", "words", "head", "scale", "out", "summary", "density", "points",
                                               "batch"}),
                           argc, argv, 2);
  options.require("data");
  const auto requested = split_commas(options.require("words"));
  const auto loaded = load_from_options(options);
  require_lama(loaded.config, loaded.name);
  WordWeightSettings settings;
  settings.selection = selection_from(options, "word-weights", loaded);
  settings.density_points = options.get_int("points", 100, 2);
  try {
    settings.words = resolve_words(*loaded.tokenizer, requested);
  } catch (const Error& error) {
    throw Error("attention-cli word-weights: " + std::string(error.what()));
  }

  DocumentAttentionResult documents;
  if (!attend_documents(options, "word-weights", loaded, documents)) return 130;
  const auto report = word_weight_report(documents.documents, loaded.config.labels, settings);

  if (options.has("out")) write_output("word-weights", options.get("out", ""), word_weights_csv(report.occurrences));
  if (options.has("summary")) write_output("word-weights", options.get("summary", ""), word_summary_csv(report.summary));
  if (options.has("density")) write_output("word-weights", options.get("density", ""), word_density_csv(report.densities));
  if (options.flag("json")) std::cout << word_weights_json(report).dump(2) << "\n";
  else if (!options.has("out")) std::cout << word_summary_csv(report.summary);
  return 0;
}

int run_keywords(int argc, char** argv) {
  const CliOptions options("keywords",
                           model_command_spec({"data", "head", "scale", "top", "min-count", "out", "batch"},
                                              {"with-punctuation"}),
                           argc, argv, 2);
  options.require("data");
  const auto loaded = load_from_options(options);
  require_lama(loaded.config, loaded.name);
  KeywordSettings settings;
  settings.selection = selection_from(options, "keywords", loaded);
  settings.top = options.get_int("top", 10, 1);
  settings.min_count = options.get_int("min-count", 5, 1);
  settings.skip_punctuation = !options.flag("with-punctuation");

  DocumentAttentionResult documents;
  if (!attend_documents(options, "keywords", loaded, documents)) return 130;
  const auto keywords = top_keywords(documents.documents, loaded.config.labels, settings);
  const auto csv = keywords_csv(keywords);
  if (options.has("out")) write_output("keywords", options.get("out", ""), csv);
  if (options.flag("json")) std::cout << keywords_json(keywords).dump(2) << "\n";
  else if (!options.has("out")) std::cout << csv;
  return 0;
}

int run_split(int argc, char** argv) {
  const CliOptions options("split", {{"data", "out", "seed", "percent"}, {}}, argc, argv, 2);
  const auto percents = split_commas(options.get("percent", "80,10,10"));
  std::vector<double> values;
  for (const auto& text : percents) {
    size_t parsed = 0;
    double value = -1;
    try {
      value = std::stod(text, &parsed);
    } catch (const std::exception&) {
      parsed = 0;
    }
    if (parsed != text.size() || value < 0)
      throw Error("attention-cli split: --percent expects TRAIN,VALID,TEST percentages, got '" + options.get("percent", "") + "'");
    values.push_back(value);
  }
  if (values.size() != 3 || std::abs(values[0] + values[1] + values[2] - 100.0) > 1e-9)
    throw Error("attention-cli split: --percent needs three numbers that sum to 100, got '" + options.get("percent", "") + "'");
  const auto data = options.require("data");
  const auto out = options.require("out");
  const auto seed = static_cast<uint64_t>(options.get_int("seed", 1, 0));
  const auto split = split_labelled_lines(data, seed, values[0], values[1]);
  write_labelled_split(split, out);
  std::printf("split %s (seed %llu): %zu train, %zu valid, %zu test lines → %s/{train,valid,test}.tsv\n", data.c_str(),
              static_cast<unsigned long long>(seed), split.train.size(), split.valid.size(), split.test.size(),
              out.c_str());
  return 0;
}

}  // namespace aw

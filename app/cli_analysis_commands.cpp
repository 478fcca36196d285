// app/cli_analysis_commands.cpp — the analysis commands: each loads its models and corpus, runs the
// analysis function from analysis/ with a progress line, and writes the paper-style CSV (--out) or
// JSON (--json).
#include "analysis/attention_stats.h"
#include "analysis/diagonal_sweep.h"
#include "analysis/head_ablation.h"
#include "analysis/top_tokens.h"
#include "models/corpus.h"
#include "models/evaluation.h"
#include "app/cli_commands.h"
#include "app/cli_model_loading.h"
#include "app/cli_progress.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <cstdio>
#include <iostream>
#include <memory>

namespace aw {

int run_stats(int argc, char** argv) {
  const CliOptions options("stats", model_command_spec({"text", "window", "batch", "out"}, {"per-head", "no-first-row"}),
                           argc, argv, 2);
  const auto path = options.require("text");
  const auto models = load_all_from_options(options);
  const auto batch_size = options.get_int("batch", 8, 1);
  install_interrupt_handler();

  AttentionStatsSettings settings;
  settings.include_first_row = !options.flag("no-first-row");
  std::vector<AttentionStatsResult> results;
  for (const auto& loaded : models) {
    const auto batches = corpus_windows(options, "stats", loaded, path, batch_size);
    ProgressLine progress("stats " + loaded.name, "batches");
    results.push_back(attention_stats(*loaded.model, loaded.name, batches, settings, std::ref(progress)));
    if (results.back().cancelled) {
      std::fprintf(stderr, "stats: interrupted\n");
      return 130;
    }
  }

  const bool per_head = options.flag("per-head");
  const auto csv = attention_stats_csv(results, per_head);
  if (options.has("out")) {
    write_text_file(options.get("out", ""), csv);
    std::fprintf(stderr, "stats: written to %s\n", options.get("out", "").c_str());
  }
  if (options.flag("json")) {
    auto json = nlohmann::json::array();
    for (const auto& result : results) json.push_back(attention_stats_json(result));
    std::cout << json.dump(2) << "\n";
  } else if (!options.has("out")) {
    std::cout << csv;
  }
  return 0;
}

int run_diag_sweep(int argc, char** argv) {
  const CliOptions options("diag-sweep", model_command_spec({"text", "window", "batch", "out", "factors"}), argc, argv,
                           2);
  const auto path = options.require("text");
  auto points = parse_diagonal_factors(options.get("factors", default_diagonal_factors()));
  const auto loaded = load_from_options(options);
  if (!loaded.config.causal && !loaded.config.is_classifier())
    throw Error("attention-cli diag-sweep: " + loaded.name + " is neither a causal language model nor a classifier");
  const auto batch_size = options.get_int("batch", 8, 1);
  install_interrupt_handler();

  Evaluator evaluate;
  int64_t batch_count = 0;
  if (loaded.config.is_classifier()) {
    auto batches = std::make_shared<ClassifierBatches>(make_classifier_batches(
        read_labelled_file(path, loaded.config.labels), *loaded.tokenizer, loaded.config.max_positions, batch_size));
    batch_count = static_cast<int64_t>(batches->inputs.size());
    evaluate = [&loaded, batches](const ForwardOptions& forward, const ProgressCallback& progress) {
      return evaluate_accuracy(*loaded.model, *batches, forward, progress);
    };
  } else {
    auto batches = std::make_shared<std::vector<ModelInput>>(corpus_windows(options, "diag-sweep", loaded, path, batch_size));
    batch_count = static_cast<int64_t>(batches->size());
    evaluate = [&loaded, batches](const ForwardOptions& forward, const ProgressCallback& progress) {
      return evaluate_perplexity(*loaded.model, *batches, forward, progress);
    };
  }
  ProgressLine progress("diag-sweep", "batches");
  const auto result = diagonal_sweep(loaded.name, std::move(points), evaluate, batch_count, {}, std::ref(progress));
  if (result.cancelled) {
    std::fprintf(stderr, "diag-sweep: interrupted\n");
    return 130;
  }
  const auto csv = diagonal_sweep_csv(result);
  if (options.has("out")) {
    write_text_file(options.get("out", ""), csv);
    std::fprintf(stderr, "diag-sweep: written to %s\n", options.get("out", "").c_str());
  }
  if (options.flag("json")) std::cout << diagonal_sweep_json(result).dump(2) << "\n";
  else if (!options.has("out")) std::cout << csv;
  return 0;
}

int run_top_tokens(int argc, char** argv) {
  const CliOptions options("top-tokens", model_command_spec({"text", "sentences", "target", "k", "out"}), argc, argv, 2);
  if (options.has("text") == options.has("sentences"))
    throw Error("attention-cli top-tokens: give either --text \"sentence\" or --sentences FILE");
  std::vector<TopTokensRequest> requests;
  if (options.has("sentences")) {
    requests = read_top_token_requests(options.get("sentences", ""));
  } else {
    requests.push_back({options.get("text", ""), -1});
  }
  if (options.has("target")) {
    const auto target = options.get_int("target", 1, 1);
    for (auto& request : requests) request.target = target;
  }
  const auto k = options.get_int("k", 3, 1);
  const auto models = load_all_from_options(options);
  std::vector<TopTokensRow> rows;
  for (const auto& loaded : models) {
    auto model_rows = top_attended_tokens(*loaded.model, *loaded.tokenizer, loaded.name, requests, k);
    rows.insert(rows.end(), model_rows.begin(), model_rows.end());
  }
  const auto csv = top_tokens_csv(rows, k);
  if (options.has("out")) {
    write_text_file(options.get("out", ""), csv);
    std::fprintf(stderr, "top-tokens: written to %s\n", options.get("out", "").c_str());
  }
  if (options.flag("json")) std::cout << top_tokens_json(rows).dump(2) << "\n";
  else if (!options.has("out")) std::cout << csv;
  return 0;
}

int run_ablate(int argc, char** argv) {
  const CliOptions options("ablate", model_command_spec({"text", "window", "batch", "out", "mode"}, {"all"}), argc, argv,
                           2);
  const auto path = options.require("text");
  const auto mode_name = options.get("mode", "single");
  if (mode_name != "single" && mode_name != "all-but-one")
    throw Error("attention-cli ablate: --mode must be single or all-but-one, got '" + mode_name + "'");
  const auto loaded = load_from_options(options);
  const auto data = evaluation_data(options, "ablate", loaded, path, options.get_int("batch", 8, 1));
  install_interrupt_handler();
  ProgressLine progress("ablate", "batches");
  const auto result = ablate_heads(*loaded.model, loaded.name, data,
                                   mode_name == "single" ? AblationMode::Single : AblationMode::AllButOne, {},
                                   std::ref(progress));
  if (result.cancelled) {
    std::fprintf(stderr, "ablate: interrupted\n");
    return 130;
  }
  const auto csv = ablation_csv(result, options.flag("all"));
  if (options.has("out")) {
    write_text_file(options.get("out", ""), csv);
    std::fprintf(stderr, "ablate: written to %s\n", options.get("out", "").c_str());
  }
  if (options.flag("json")) std::cout << ablation_json(result).dump(2) << "\n";
  else if (!options.has("out")) std::cout << csv;
  return 0;
}

}  // namespace aw

// app/cli_analysis_commands.cpp — the analysis commands: each loads its models and corpus, runs the
// analysis function from analysis/ with a progress line, and writes the paper-style CSV (--out) or
// JSON (--json).
#include "analysis/attention_stats.h"
#include "app/cli_commands.h"
#include "app/cli_model_loading.h"
#include "app/cli_progress.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <cstdio>
#include <iostream>

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

}  // namespace aw

// app/cli/analysis_commands.cpp — the analysis commands: each loads its models and corpus, runs the
// analysis function from analysis/ with a progress line, and writes the paper-style CSV (--out) or
// JSON (--json).
#include "analysis/analysis_inputs.h"
#include "analysis/attention_stats.h"
#include "analysis/diagonal_sweep.h"
#include "analysis/head_ablation.h"
#include "analysis/head_importance.h"
#include "analysis/head_pruning.h"
#include "analysis/head_removal.h"
#include "models/checkpoint/checkpoint.h"
#include "analysis/top_tokens.h"
#include "models/text/corpus.h"
#include "models/training/evaluation.h"
#include "app/cli/commands.h"
#include "app/cli/model_loading.h"
#include "app/cli/progress.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

namespace aw {

namespace {

// Writes `csv` to --out (and says so) and prints the JSON or, without --out, the CSV.
void emit(const CliOptions& options, const std::string& command, const std::string& csv, const nlohmann::json& json) {
  if (options.has("out")) {
    write_text_file(options.get("out", ""), csv);
    std::fprintf(stderr, "%s: written to %s\n", command.c_str(), options.get("out", "").c_str());
  }
  if (options.flag("json")) std::cout << json.dump(2) << "\n";
  else if (!options.has("out")) std::cout << csv;
}

}  // namespace

int run_stats(int argc, char** argv) {
  const CliOptions options("stats", model_command_spec({"text", "window", "batch", "out"}, {"per-head", "no-first-row"}),
                           argc, argv, 2);
  const auto path = options.require("text");
  const auto models = load_all_from_options(options);
  // CA and HA are defined on causal attention: an encoder's upper triangle would go uncounted.
  for (const auto& loaded : models) require_model(loaded, "stats", ModelRequirement::CausalLanguageModel);
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
  auto json = nlohmann::json::array();
  for (const auto& result : results) json.push_back(attention_stats_json(result));
  emit(options, "stats", csv, json);
  return 0;
}

int run_diag_sweep(int argc, char** argv) {
  const CliOptions options("diag-sweep", model_command_spec({"text", "window", "batch", "out", "factors"}), argc, argv,
                           2);
  const auto path = options.require("text");
  auto points = parse_diagonal_factors(options.get("factors", default_diagonal_factors()));
  const auto loaded = load_from_options(options);
  // The intervention, and DiagFreeMask's exception for row 0 (which sees only itself), are defined
  // on causal attention; an encoder's [CLS] row would silently keep its diagonal.
  require_model(loaded, "diag-sweep", ModelRequirement::CausalLanguageModel);
  const auto batch_size = options.get_int("batch", 8, 1);
  const auto batches = corpus_windows(options, "diag-sweep", loaded, path, batch_size);
  install_interrupt_handler();
  const Evaluator evaluate = [&](const ForwardOptions& forward, const ProgressCallback& progress) {
    return evaluate_perplexity(*loaded.model, batches, forward, progress);
  };
  const auto batch_count = static_cast<int64_t>(batches.size());
  ProgressLine progress("diag-sweep", "batches");
  const auto result = diagonal_sweep(loaded.name, std::move(points), evaluate, batch_count, {}, std::ref(progress));
  if (result.cancelled) {
    std::fprintf(stderr, "diag-sweep: interrupted\n");
    return 130;
  }
  const auto csv = diagonal_sweep_csv(result);
  emit(options, "diag-sweep", csv, diagonal_sweep_json(result));
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
  // The row of token t−1 predicts token t only in a causal language model.
  for (const auto& loaded : models) require_model(loaded, "top-tokens", ModelRequirement::CausalLanguageModel);
  std::vector<TopTokensRow> rows;
  install_interrupt_handler();
  for (const auto& loaded : models) {
    ProgressLine progress("top-tokens " + loaded.name, "sentences");
    bool cancelled = false;
    auto model_rows =
        top_attended_tokens(*loaded.model, *loaded.tokenizer, loaded.name, requests, k, {}, std::ref(progress), &cancelled);
    if (cancelled) {
      std::fprintf(stderr, "top-tokens: interrupted\n");
      return 130;
    }
    rows.insert(rows.end(), model_rows.begin(), model_rows.end());
  }
  const auto csv = top_tokens_csv(rows, k);
  emit(options, "top-tokens", csv, top_tokens_json(rows));
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
  require_model(loaded, "ablate", ModelRequirement::LanguageModelOrClassifier);
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
  emit(options, "ablate", csv, ablation_json(result));
  return 0;
}


int run_importance(int argc, char** argv) {
  const CliOptions options("importance", model_command_spec({"text", "window", "batch", "out"}, {"no-normalize"}), argc,
                           argv, 2);
  const auto path = options.require("text");
  const auto loaded = load_from_options(options);
  require_model(loaded, "importance", ModelRequirement::LanguageModelOrClassifier);
  const auto data = evaluation_data(options, "importance", loaded, path, options.get_int("batch", 8, 1));
  install_interrupt_handler();
  ProgressLine progress("importance", "batches");
  const auto result =
      head_importance(*loaded.model, loaded.name, data, !options.flag("no-normalize"), {}, std::ref(progress));
  if (result.cancelled) {
    std::fprintf(stderr, "importance: interrupted\n");
    return 130;
  }
  emit(options, "importance", importance_csv(result), importance_json(result));
  return 0;
}

int run_prune(int argc, char** argv) {
  const CliOptions options("prune", model_command_spec({"text", "window", "batch", "out", "step", "order", "apply", "save"}),
                           argc, argv, 2);
  const auto path = options.require("text");
  const bool apply = options.has("apply");
  if (apply != options.has("save"))
    throw Error("attention-cli prune: --apply P and --save DIR go together (prune P % of the heads into DIR)");
  const auto apply_percent = options.get_int("apply", 0, 0);
  if (apply_percent > 100) throw Error("attention-cli prune: --apply must be at most 100 (percent)");
  const auto order_name = options.get("order", apply ? "importance" : "both");
  if (apply && order_name == "both") throw Error("attention-cli prune: --apply needs one --order, importance or oracle");
  if (order_name != "importance" && order_name != "oracle" && order_name != "both")
    throw Error("attention-cli prune: --order must be importance, oracle or both, got '" + order_name + "'");
  const auto step = options.get_int("step", 10, 1);
  if (step > 100) throw Error("attention-cli prune: --step must be at most 100 (percent), got " + std::to_string(step));
  const auto loaded = load_from_options(options);
  require_model(loaded, "prune", ModelRequirement::LanguageModelOrClassifier);
  const auto data = evaluation_data(options, "prune", loaded, path, options.get_int("batch", 8, 1));
  install_interrupt_handler();

  // --apply prunes once by one order and draws no curve.
  const std::vector<std::string> orders =
      order_name == "both" ? std::vector<std::string>{"importance", "oracle"} : std::vector<std::string>{order_name};
  std::vector<std::vector<HeadRef>> head_orders;
  ProgressLine progress("prune (" + order_name + ")", "batches");
  const auto result = pruning_study(*loaded.model, loaded.name, data, orders, static_cast<double>(step),
                                    std::ref(progress), &head_orders, !apply);
  const std::vector<HeadRef> chosen_order = head_orders.empty() ? std::vector<HeadRef>{} : head_orders.back();
  if (result.cancelled) {
    std::fprintf(stderr, "prune: interrupted\n");
    return 130;
  }
  if (!apply) {
    emit(options, "prune", pruning_csv(result), pruning_json(result));
    return 0;
  }

  // --apply: remove the first P % of the order for real, save, reload, and compare with the gated model.
  const auto count = static_cast<int64_t>(std::lround(apply_percent / 100.0 * chosen_order.size()));
  const std::vector<HeadRef> removed(chosen_order.begin(), chosen_order.begin() + count);
  auto gates = all_heads_on(loaded.config);
  for (const auto& head : removed) gates[head.layer][head.head] = 0.0;
  const auto gated = evaluate_gate_settings(*loaded.model, data, gates.unsqueeze(0), 0).front();
  const auto pruned = remove_heads(*loaded.model, removed);
  std::vector<std::string> vocabulary;
  for (int64_t id = 0; id < loaded.tokenizer->vocab_size(); ++id) vocabulary.push_back(loaded.tokenizer->token_text(id));
  const auto save_dir = options.get("save", "");
  save_native_checkpoint(save_dir, *pruned, vocabulary, loaded.stored_dtype == "F16" ? torch::kFloat16 : torch::kFloat32);
  const auto reloaded = load_checkpoint(save_dir, loaded.device);
  // The saved vocabulary is the loaded one, so the same windows serve the reloaded model.
  const auto after = evaluate_gate_settings(*reloaded.model, data, all_heads_on(reloaded.config).unsqueeze(0), 0).front();
  const nlohmann::json json = {{"model", loaded.name},           {"order", order_name},
                               {"heads_removed", count},         {"heads_total", chosen_order.size()},
                               {"parameters_before", loaded.parameter_count},
                               {"parameters_after", reloaded.parameter_count},
                               {"metric", data.metric_name()},   {"gated_metric", gated.metric},
                               {"pruned_metric", after.metric},  {"saved", save_dir}};
  if (options.flag("json")) {
    std::cout << json.dump(2) << "\n";
  } else {
    std::printf("pruned %lld of %zu heads (%s order): %lld → %lld parameters; %s %.4f (gated model %.4f); saved to %s\n",
                static_cast<long long>(count), chosen_order.size(), order_name.c_str(),
                static_cast<long long>(loaded.parameter_count), static_cast<long long>(reloaded.parameter_count),
                data.metric_name().c_str(), after.metric, gated.metric, save_dir.c_str());
  }
  return 0;
}

}  // namespace aw

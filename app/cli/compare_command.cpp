// app/cli/compare_command.cpp — `attention-cli compare`: several runs of each variant (one model per
// training seed, `train --seeds`) evaluated on one data file by the eval analysis, then each
// variant's mean ± sd and Welch's t-test between every pair of variants (analysis/variant_comparison.h).
#include "analysis/registry.h"
#include "analysis/variant_comparison.h"
#include "app/cli/commands.h"
#include "app/cli/model_loading.h"
#include "models/errors.h"
#include "models/runtime.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace aw {
namespace {

// "bet=runs/bet/seed-1,runs/bet/seed-2" → {bet, [the folders]}.
VariantScores parse_variant(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == 0 || equals == std::string::npos || equals + 1 == text.size())
    throw Error("attention-cli compare: --variant expects NAME=DIR[,DIR…], got '" + text + "'");
  VariantScores variant;
  variant.name = text.substr(0, equals);
  variant.models = split_list(text.substr(equals + 1));
  return variant;
}

// What `eval` scores a checkpoint by, from its config.json alone.
std::string metric_of(const std::string& dir) {
  return read_model_config(dir).is_classifier() ? "accuracy" : "perplexity";
}

// The model's metric on the data, as `attention-cli eval` computes it.
double evaluate(const LoadedModel& loaded, const CliOptions& options, const std::string& metric) {
  const auto& eval = *find_analysis("eval");
  AnalysisRequest request;
  request.models = {&loaded};
  request.settings = eval.settings();
  for (const char* name : {"text", "window", "batch"})
    if (options.has(name)) request.settings.set(name, options.get(name, ""));
  try {
    request.settings.validate();
  } catch (const SettingError& error) {
    throw Error("attention-cli compare: " + std::string(error.what()));
  }
  return eval(request).json.at(metric).get<double>();
}

}  // namespace

int run_compare(int argc, char** argv) {
  const CliOptions options("compare", {{"variant", "text", "window", "batch", "out", "tests", "device", "threads"}, {"json"}},
                           argc, argv, 2);
  options.require("text");
  std::vector<VariantScores> variants;
  for (const auto& text : options.all("variant")) variants.push_back(parse_variant(text));
  check_variants(variants);
  // Every model scored by one metric, checked before the first is evaluated.
  std::string metric;
  for (const auto& variant : variants)
    for (const auto& dir : variant.models) {
      const auto model_metric = metric_of(dir);
      if (!metric.empty() && model_metric != metric)
        throw Error("attention-cli compare: " + dir + " is scored by " + model_metric + ", the models before it by " +
                    metric + "; compare models of one kind");
      metric = model_metric;
    }
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));
  const auto device = resolve_device(device_option(options));
  for (auto& variant : variants)
    for (size_t run = 0; run < variant.models.size(); ++run) {
      const auto loaded = load_checkpoint(variant.models[run], device);
      variant.values.push_back(evaluate(loaded, options, metric));
      std::fprintf(stderr, "compare: %s run %zu/%zu (%s): %s %.4f\n", variant.name.c_str(), run + 1,
                   variant.models.size(), variant.models[run].c_str(), metric.c_str(), variant.values.back());
    }
  const auto comparison = compare_variants(metric, variants);
  if (options.has("out")) write_text_file(options.get("out", ""), variant_summary_csv(comparison));
  if (options.has("tests")) write_text_file(options.get("tests", ""), variant_tests_csv(comparison));
  if (options.flag("json")) {
    std::cout << variant_comparison_json(comparison).dump(2) << "\n";
    return 0;
  }
  std::printf("%s on %s, mean ± sd over the runs of each variant\n", metric.c_str(), options.get("text", "").c_str());
  for (const auto& row : comparison.variants)
    std::printf("  %-16s %lld runs  %.4f ± %.4f\n", row.name.c_str(), static_cast<long long>(row.runs), row.mean, row.sd);
  std::printf("Welch's t-test between variants\n");
  for (const auto& row : comparison.contrasts)
    std::printf("  %s − %s: %+.4f  t = %.3f, df = %.1f, p = %.4g\n", row.first.c_str(), row.second.c_str(),
                row.difference, row.welch.statistic, row.welch.degrees_of_freedom, row.welch.p_value);
  return 0;
}

}  // namespace aw

// app/cli/compare_command.cpp — `attention-cli compare`: several runs of each variant (one model per
// training seed, `train --seeds`) evaluated on one data file by the eval analysis, then each
// variant's mean ± sd and Welch's t-test between every pair of variants, or with --reference NAME
// between that variant and each other, Holm-adjusted over the tests made (analysis/statistics/variant_comparison.h).
// A run may also be a result recorded earlier (`eval --json` saved to a .json file), so seeds whose
// weights were not kept still count — once the file shows it was measured on the same data.
#include "analysis/core/registry.h"
#include "analysis/statistics/variant_comparison.h"
#include "app/cli/commands.h"
#include "app/cli/model_loading.h"
#include "models/checkpoint/gguf_model.h"
#include "models/errors.h"
#include "models/runtime.h"
#include "table/csv_format.h"

#include "models/json_input.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace aw {
namespace {

// "bet=runs/bet/seed-1,runs/bet/seed-2" → {bet, [the folders]}.
VariantScores parse_variant(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == 0 || equals == std::string::npos || equals + 1 == text.size())
    throw Error("attention-cli compare: --variant expects NAME=RUN[,RUN…] (model folders or eval --json files), got '" +
                text + "'");
  VariantScores variant;
  variant.name = text.substr(0, equals);
  variant.models = split_list(text.substr(equals + 1));
  return variant;
}

// A run given as a saved `eval --json` result rather than a model folder.
bool is_recorded(const std::string& run) {
  return std::filesystem::path(run).extension() == ".json" && !std::filesystem::is_directory(run);
}

// The metric a recorded result holds; "" when it holds none of eval's.
std::string recorded_metric(const nlohmann::json& record) {
  for (const char* metric : {"accuracy", "perplexity"})
    if (record.is_object() && record.contains(metric) && record.at(metric).is_number()) return metric;
  return "";
}

// What `eval` scores a run by: from a checkpoint's config.json alone, or the recorded result's metric.
std::string metric_of(const std::string& run) {
  if (is_gguf_model_path(run)) return "perplexity";  // GGUF files hold language models only
  if (!is_recorded(run)) return read_model_config(run).is_classifier() ? "accuracy" : "perplexity";
  const auto metric = recorded_metric(read_untrusted_json(run));
  if (metric.empty())
    throw Error(run + ": holds no accuracy or perplexity; compare takes `attention-cli eval --json` results");
  return metric;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  return std::filesystem::weakly_canonical(a, error) == std::filesystem::weakly_canonical(b, error) && !error;
}

// A recorded run's metric, once the record shows it was measured as this comparison measures: on the
// same data file, and for a language model with the same windows.
double recorded_value(const std::string& run, const CliOptions& options, const std::string& metric) {
  const auto record = read_untrusted_json(run);
  const auto data = record.value("data", std::string());
  const auto text = options.get("text", "");
  if (data.empty() || !same_file(data, text))
    throw Error(run + ": was evaluated on '" + data + "', this comparison is on '" + text + "'");
  if (record.contains("window")) {
    const auto window = record.at("window").is_number_integer() ? record.at("window").get<int64_t>() : -1;
    if (!options.has("window") || options.get_int("window", 0, 1) != window)
      throw Error(run + ": was evaluated with windows of " + json_excerpt(record.at("window")) +
                  " tokens; compare it with --window " + json_excerpt(record.at("window")));
  }
  return record.at(metric).get<double>();
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
  return eval(request).record.at(metric).get<double>();
}

// The kind of device a run trained on ("cpu", "cuda"), from its record's training summary or its folder's
// training.json; "" where neither says.
std::string trained_device(const std::string& run) {
  nlohmann::json training;
  if (is_recorded(run)) {
    const auto record = read_untrusted_json(run);
    if (record.is_object() && record.contains("training")) training = record.at("training");
  } else {
    for (const auto& file : {std::filesystem::path(run) / "training.json", std::filesystem::path(run).parent_path() / "training.json"})
      if (std::filesystem::exists(file)) {
        training = read_untrusted_json(file.string());
        break;
      }
  }
  if (!training.is_object() || !training.contains("device") || !training.at("device").is_string()) return "";
  const auto device = training.at("device").get<std::string>();
  return device.substr(0, device.find(':'));
}

// The same seed gives other weights on another device, so runs of one comparison trained on several
// kinds add a device difference to the seed-to-seed spread: a warning naming the runs of each kind.
void warn_mixed_devices(const std::vector<VariantScores>& variants) {
  std::map<std::string, std::vector<std::string>> runs_by_device;
  for (const auto& variant : variants)
    for (const auto& run : variant.models) {
      const auto device = trained_device(run);
      if (!device.empty()) runs_by_device[device].push_back(run);
    }
  if (runs_by_device.size() < 2) return;
  std::string listing;
  for (const auto& [device, runs] : runs_by_device) {
    listing += (listing.empty() ? "" : "; ") + device + ": ";
    for (size_t i = 0; i < runs.size(); ++i) listing += (i ? ", " : "") + runs[i];
  }
  std::fprintf(stderr, "compare: warning: these runs trained on different devices, which adds to the seed-to-seed spread (%s)\n",
               listing.c_str());
}

}  // namespace

int run_compare(int argc, char** argv) {
  const CliOptions options("compare", {{"variant", "reference", "text", "window", "batch", "out", "tests", "device", "threads"}, {"json"}},
                           argc, argv, 2);
  options.require("text");
  std::vector<VariantScores> variants;
  for (const auto& text : options.all("variant")) variants.push_back(parse_variant(text));
  const auto reference = options.get("reference", "");
  if (options.has("reference") && reference.empty())
    throw Error("attention-cli compare: --reference expects the NAME of one --variant");
  check_variants(variants, reference);
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
  warn_mixed_devices(variants);
  configure_threads(static_cast<int>(options.get_int("threads", 0, 1)));
  const auto device = resolve_device(device_option(options));
  // Recorded runs first: a mismatched record is refused before any model is evaluated.
  for (auto& variant : variants) {
    variant.values.assign(variant.models.size(), 0.0);
    for (size_t run = 0; run < variant.models.size(); ++run)
      if (is_recorded(variant.models[run])) variant.values[run] = recorded_value(variant.models[run], options, metric);
  }
  for (auto& variant : variants)
    for (size_t run = 0; run < variant.models.size(); ++run) {
      const bool recorded = is_recorded(variant.models[run]);
      if (!recorded) variant.values[run] = evaluate(load_checkpoint(variant.models[run], device), options, metric);
      std::fprintf(stderr, "compare: %s run %zu/%zu (%s%s): %s %.4f\n", variant.name.c_str(), run + 1,
                   variant.models.size(), variant.models[run].c_str(), recorded ? ", recorded" : "", metric.c_str(),
                   variant.values[run]);
    }
  const auto comparison = compare_variants(metric, variants, reference);
  if (options.has("out")) write_text_file(options.get("out", ""), write_csv(variant_summary_table(comparison)));
  if (options.has("tests")) write_text_file(options.get("tests", ""), write_csv(variant_tests_table(comparison)));
  if (options.flag("json")) {
    std::cout << variant_comparison_json(comparison).dump(2) << "\n";
    return 0;
  }
  std::printf("%s on %s, mean ± sd over the runs of each variant\n", metric.c_str(), options.get("text", "").c_str());
  for (const auto& row : comparison.variants)
    std::printf("  %-16s %lld runs  %.4f ± %.4f\n", row.name.c_str(), static_cast<long long>(row.runs), row.mean, row.sd);
  if (reference.empty())
    std::printf("Welch's t-test between variants (Holm over the %zu tests)\n", comparison.contrasts.size());
  else
    std::printf("Welch's t-test of %s against each other variant (Holm over the %zu tests)\n", reference.c_str(),
                comparison.contrasts.size());
  for (const auto& row : comparison.contrasts)
    std::printf("  %s − %s: %+.4f [95 %% %+.4f, %+.4f]  t = %.3f, df = %.1f, p = %.4g, Holm p = %.4g\n",
                row.first.c_str(), row.second.c_str(), row.difference, row.ci_low, row.ci_high, row.welch.statistic,
                row.welch.degrees_of_freedom, row.welch.p_value, row.p_holm);
  return 0;
}

}  // namespace aw

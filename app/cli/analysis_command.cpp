// app/cli/analysis_command.cpp — every analysis of the registry as an attention-cli command: options
// map onto the descriptor's settings by field name, the models load, the descriptor runs with a
// progress line, and its CSVs go to the output options (or stdout) and its JSON to --json.
#include "app/cli/analysis_command.h"

#include "app/cli/model_loading.h"
#include "app/cli/progress.h"
#include "models/errors.h"
#include "models/parse_number.h"
#include "models/process_group.h"
#include "table/csv_format.h"
#include "table/json_format.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

namespace aw {
namespace {

// Options named by the descriptor: its fields, its output files, and what every model command takes.
OptionSpec descriptor_spec(const AnalysisDescriptor& descriptor) {
  std::set<std::string> with_value, switches;
  for (const auto& field : descriptor.fields)
    (field.kind == FieldKind::Flag ? switches : with_value).insert(field.name);
  for (const auto& output : descriptor.outputs) with_value.insert(output.option);
  if (descriptor.distributable) {
    switches.insert("distributed");
    with_value.insert("distributed-timeout");
  }
  return model_command_spec(std::move(with_value), std::move(switches));
}

// An error about an option names the command, as every other usage error does.
Error command_error(const std::string& command, const std::string& message) {
  return Error("attention-cli " + command + ": " + message);
}

Error setting_error(const std::string& command, const SettingError& error) {
  return command_error(command, error.what());
}

// Wraps the usual ProgressLine, one line per phase ("stats: 3/9 vanilla_lm: batches").
class PhaseLines {
 public:
  explicit PhaseLines(std::string command) : command_(std::move(command)) {}
  bool operator()(int64_t done, int64_t total, const std::string& phase) {
    if (!line_ || phase != phase_) {
      line_.reset();
      line_ = std::make_unique<ProgressLine>(command_, phase);
      phase_ = phase;
    }
    return (*line_)(done, total);
  }

 private:
  std::string command_, phase_;
  std::unique_ptr<ProgressLine> line_;
};

// --distributed: this process's place in the group (models/process_group.h), read and checked
// before the models load so that a wrong environment fails at once.
struct DistributedStart {
  ProcessGroupAddress address;
  std::chrono::seconds timeout{300};
  std::string job;  // the command line every rank must share
};

std::optional<DistributedStart> distributed_start(const std::string& command, const CliOptions& options,
                                                  const SettingValues& settings, int argc, char** argv) {
  if (!options.flag("distributed")) {
    if (options.has("distributed-timeout"))
      throw command_error(command, "--distributed-timeout goes with --distributed");
    return std::nullopt;
  }
  if (settings.given("apply"))
    throw command_error(command, "--apply saves one pruned checkpoint: run it without --distributed");
  DistributedStart start;
  const auto timeout_text = options.get("distributed-timeout", "300");
  int64_t seconds = 0;
  if (!parse_integer(timeout_text, seconds) || seconds < 1 || seconds > 86400)
    throw command_error(command, "--distributed-timeout must be 1 to 86400 seconds, got " + quoted_excerpt(timeout_text));
  start.timeout = std::chrono::seconds(seconds);
  start.address = process_group_address_from_environment();
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--distributed-timeout") {  // each rank may wait as long as it likes
      ++i;
      continue;
    }
    start.job += (start.job.empty() ? "" : " ") + word;
  }
  return start;
}

// --heads-off given once per --model: one setting of ';'-separated groups (core/gate_settings.h).
std::string joined_groups(const CliOptions& options) {
  std::string joined;
  for (const auto& group : options.all("heads-off")) joined += (joined.empty() ? "" : ";") + group;
  return joined;
}

}  // namespace

int run_analysis(const AnalysisDescriptor& descriptor, int argc, char** argv) {
  const auto& command = descriptor.name;
  const CliOptions options(command, descriptor_spec(descriptor), argc, argv, 2);
  AnalysisRequest request;
  request.settings = descriptor.settings();
  for (const auto& field : descriptor.fields) {
    if (field.kind == FieldKind::Flag) request.settings.set_flag(field.name, options.flag(field.name));
    else if (field.name == "heads-off" && options.has(field.name)) request.settings.set(field.name, joined_groups(options));
    else if (options.has(field.name)) request.settings.set(field.name, options.get(field.name, ""));
  }
  try {
    request.settings.validate();  // before the models load: a typo should not wait for them
  } catch (const SettingError& error) {
    throw setting_error(command, error);
  }

  const auto distributed = distributed_start(command, options, request.settings, argc, argv);
  const auto models = load_all_from_options(options, distributed ? distributed->address.local_rank : -1);
  for (const auto& loaded : models) request.models.push_back(&loaded);
  std::unique_ptr<Distribution> group;
  std::optional<DistributionScope> in_group;
  if (distributed) {
    group = join_process_group(distributed->address, models.front().device, distributed->timeout, distributed->job);
    in_group.emplace(*group);
  }
  // Rank 0 speaks for the group; the others compute their share quietly (errors still print).
  const bool speaks = !group || group->rank() == 0;
  install_interrupt_handler();
  auto lines = std::make_shared<PhaseLines>(command);
  request.progress = [lines, speaks](int64_t done, int64_t total, const std::string& phase) {
    return speaks ? (*lines)(done, total, phase) : !interrupt_requested();
  };
  request.note = [&command, speaks](const std::string& message) {
    if (speaks) std::fprintf(stderr, "%s: %s\n", command.c_str(), message.c_str());
  };

  AnalysisReport report;
  try {
    report = descriptor(request);
  } catch (const SettingError& error) {
    throw setting_error(command, error);
  } catch (const Error& error) {
    const std::string message = error.what();
    if (message.rfind("--", 0) == 0) throw command_error(command, message);
    throw;
  }
  lines.reset();
  if (report.cancelled) {
    std::fprintf(stderr, "%s: interrupted\n", command.c_str());
    return 130;
  }
  if (group) {
    wait_for_all_ranks(*group);  // rank 0 serves the group's store: it leaves last
    if (!speaks) return 0;
  }

  // A part as its file holds it: a table's CSV, or a text output as it is.
  const auto part_text = [&report](const std::string& part) -> std::optional<std::string> {
    if (const auto table = report.tables.find(part); table != report.tables.end()) return write_csv(table->second);
    if (const auto text = report.texts.find(part); text != report.texts.end()) return text->second;
    return std::nullopt;
  };
  for (const auto& output : descriptor.outputs) {
    if (!options.has(output.option)) continue;
    const auto text = part_text(output.part);
    if (!text)  // e.g. eval --translations for a language model: say so, write nothing
      throw Error(command + ": --" + output.option + " has nothing to write for " + request.models.front()->name +
                  " (" + output.help + ")");
    const auto path = options.get(output.option, "");
    write_text_file(path, *text);
    std::fprintf(stderr, "%s: written to %s\n", command.c_str(), path.c_str());
  }
  if (options.flag("json")) {
    if (report.record.is_null()) std::cout << tables_json(report.tables, descriptor.stdout_part).dump(2) << "\n";
    else std::cout << report.record.dump(2) << "\n";
  } else if (!report.text.empty()) {
    std::cout << report.text;
  } else if (!options.has("out")) {
    std::cout << part_text(descriptor.stdout_part).value_or(report.text);
  }
  return 0;
}

}  // namespace aw

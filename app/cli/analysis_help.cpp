// app/cli/analysis_help.cpp — the usage text of the analysis commands, generated from their
// descriptors so `attention-cli help` can never disagree with what a command accepts.
#include "app/cli/analysis_command.h"

#include <string>
#include <vector>

namespace aw {
namespace {

constexpr size_t kLineWidth = 104;
const std::string kContinuation(10, ' ');

std::string option_text(const SettingField& field) {
  return "--" + field.name + (field.kind == FieldKind::Flag ? "" : " " + field.value_name);
}

std::string models_text(const AnalysisDescriptor& descriptor) {
  return descriptor.several_models ? "--model DIR [--model DIR2 …]" : "--model DIR";
}

// Words joined with spaces, wrapped at kLineWidth, every line after the first indented.
std::string wrap(const std::vector<std::string>& words, size_t first_column) {
  std::string text;
  size_t column = first_column;
  for (const auto& word : words) {
    if (column + word.size() + 1 > kLineWidth && column > kContinuation.size()) {
      text += "\n" + kContinuation;
      column = kContinuation.size();
    } else if (!text.empty()) {
      text += " ";
      ++column;
    }
    text += word;
    column += word.size();
  }
  return text;
}

}  // namespace

std::string analysis_usage_lines(const AnalysisDescriptor& descriptor) {
  auto head = "  " + descriptor.name + " " + models_text(descriptor);
  std::vector<std::string> optional;
  for (const auto& field : descriptor.fields) {
    if (field.required) head += " " + option_text(field);
    else optional.push_back("[" + option_text(field) + "]");
  }
  for (const auto& output : descriptor.outputs) optional.push_back("[--" + output.option + " FILE.csv]");
  return head + "\n" + kContinuation + descriptor.summary + "\n" + kContinuation + wrap(optional, kContinuation.size()) +
         "\n";
}

std::string analysis_help_page(const AnalysisDescriptor& descriptor) {
  auto required = models_text(descriptor);
  for (const auto& field : descriptor.fields)
    if (field.required) required += " " + option_text(field);
  auto page = "usage: attention-cli " + descriptor.name + " " + required + " [options]\n\n" +
              descriptor.summary + ".\nRuns on " + requirement_text(descriptor.models) + ".\n\noptions:\n";
  const auto line = [&page](const std::string& option, const std::string& help) {
    page += "  " + option + std::string(option.size() < 28 ? 28 - option.size() : 1, ' ') + help + "\n";
  };
  for (const auto& field : descriptor.fields) {
    auto help = field.help;
    if (field.required) help += " (required)";
    else if (!field.default_text.empty()) help += " (default " + field.default_text + ")";
    line(option_text(field), help);
  }
  for (const auto& output : descriptor.outputs) line("--" + output.option + " FILE", "write " + output.help);
  if (descriptor.distributable) {
    line("--distributed", "share the batches among processes (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)");
    line("--distributed-timeout S", "seconds to wait for the other ranks (default 300)");
  }
  line("--device auto|cpu|cuda[:N]", "where the model runs (default auto: CUDA when present)");
  line("--threads N", "compute threads (LibTorch's, which run its BLAS too; default every core)");
  line("--json", "the result as JSON on stdout");
  return page;
}

}  // namespace aw

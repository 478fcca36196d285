// app/cli/analysis_command.h — an analysis descriptor (analysis/core/registry.h) run as an attention-cli
// command, and its usage text, both generated from the descriptor.
#pragma once

#include "analysis/core/descriptor.h"

#include <string>

namespace aw {

// attention-cli <descriptor.name> [options]: returns the exit code (130 when interrupted); throws
// aw::Error "attention-cli <name>: …" for bad options.
int run_analysis(const AnalysisDescriptor& descriptor, int argc, char** argv);

// The two usage lines of `attention-cli help`, and the page of `attention-cli help <name>`.
std::string analysis_usage_lines(const AnalysisDescriptor& descriptor);
std::string analysis_help_page(const AnalysisDescriptor& descriptor);

}  // namespace aw

// analysis/registry.h — every analysis the workbench offers, by name. The CLI makes a command of
// each and the GUI a tab; adding an analysis is a descriptor file in analysis/descriptors/, one line
// in registry.cpp and one in analysis/CMakeLists.txt (docs/architecture.md walks through it).
#pragma once

#include "analysis/descriptor.h"

#include <string>
#include <vector>

namespace aw {

// In the order `attention-cli help` lists them.
const std::vector<AnalysisDescriptor>& analysis_registry();
// nullptr when no analysis has that name.
const AnalysisDescriptor* find_analysis(const std::string& name);

// The descriptors (analysis/descriptors/*.cpp).
AnalysisDescriptor eval_descriptor();
AnalysisDescriptor stats_descriptor();
AnalysisDescriptor top_tokens_descriptor();
AnalysisDescriptor diag_sweep_descriptor();
AnalysisDescriptor ablate_descriptor();
AnalysisDescriptor importance_descriptor();
AnalysisDescriptor prune_descriptor();
AnalysisDescriptor word_weights_descriptor();
AnalysisDescriptor keywords_descriptor();

}  // namespace aw

// analysis/core/registry.h — every analysis the workbench offers, by name. The CLI makes a command of
// each and the GUI a tab; adding an analysis is a descriptor file beside its computation and one
// line in registry.cpp (docs/architecture.md walks through it).
#pragma once

#include "analysis/core/descriptor.h"

#include <string>
#include <vector>

namespace aw {

// In the order `attention-cli help` lists them.
const std::vector<AnalysisDescriptor>& analysis_registry();
// nullptr when no analysis has that name.
const AnalysisDescriptor* find_analysis(const std::string& name);

}  // namespace aw

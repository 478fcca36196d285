// analysis/core/registry.cpp — see registry.h.
#include "analysis/core/registry.h"

namespace aw {

// Defined beside their computations (analysis/*/…_descriptor.cpp), one file each.
AnalysisDescriptor eval_descriptor();
AnalysisDescriptor stats_descriptor();
AnalysisDescriptor top_tokens_descriptor();
AnalysisDescriptor diag_sweep_descriptor();
AnalysisDescriptor ablate_descriptor();
AnalysisDescriptor importance_descriptor();
AnalysisDescriptor prune_descriptor();
AnalysisDescriptor word_weights_descriptor();
AnalysisDescriptor keywords_descriptor();
AnalysisDescriptor training_descriptor();

const std::vector<AnalysisDescriptor>& analysis_registry() {
  static const std::vector<AnalysisDescriptor> registry{
      eval_descriptor(),     stats_descriptor(),      top_tokens_descriptor(),
      diag_sweep_descriptor(), ablate_descriptor(),   importance_descriptor(),
      prune_descriptor(),    word_weights_descriptor(), keywords_descriptor(),
      training_descriptor(),
  };
  return registry;
}

const AnalysisDescriptor* find_analysis(const std::string& name) {
  for (const auto& descriptor : analysis_registry())
    if (descriptor.name == name) return &descriptor;
  return nullptr;
}

}  // namespace aw

// analysis/core/registry.cpp — see registry.h.
#include "analysis/core/registry.h"

namespace aw {

// One line per analysis, in the order `attention-cli help` lists them: the name of its descriptor
// function, NAME_descriptor(), defined beside its computation (analysis/*/…_descriptor.cpp).
#define AW_ANALYSES(ANALYSIS) \
  ANALYSIS(eval)              \
  ANALYSIS(stats)             \
  ANALYSIS(top_tokens)        \
  ANALYSIS(diag_sweep)        \
  ANALYSIS(ablate)            \
  ANALYSIS(importance)        \
  ANALYSIS(prune)             \
  ANALYSIS(head_types)        \
  ANALYSIS(patch)             \
  ANALYSIS(path_patch)        \
  ANALYSIS(eap)               \
  ANALYSIS(logit_lens)        \
  ANALYSIS(composition)       \
  ANALYSIS(token_attribution) \
  ANALYSIS(retrieval_heads)   \
  ANALYSIS(word_weights)      \
  ANALYSIS(keywords)          \
  ANALYSIS(training)

#define AW_DECLARE_ANALYSIS(name) AnalysisDescriptor name##_descriptor();
AW_ANALYSES(AW_DECLARE_ANALYSIS)
#undef AW_DECLARE_ANALYSIS

const std::vector<AnalysisDescriptor>& analysis_registry() {
#define AW_LIST_ANALYSIS(name) name##_descriptor(),
  static const std::vector<AnalysisDescriptor> registry{AW_ANALYSES(AW_LIST_ANALYSIS)};
#undef AW_LIST_ANALYSIS
  return registry;
}

const AnalysisDescriptor* find_analysis(const std::string& name) {
  for (const auto& descriptor : analysis_registry())
    if (descriptor.name == name) return &descriptor;
  return nullptr;
}

}  // namespace aw

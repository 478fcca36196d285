// models/attention_path.h — which way a forward that wants no probabilities computes attention,
// process-wide: LibTorch's fused scaled-dot-product kernel (flash / memory-efficient on CUDA), or the
// explicit scores → softmax → mix (`--explicit-attention`: a reference, and the baseline the GPU
// benchmarks time the fused kernel against). Captures always take the explicit path.
#pragma once

namespace aw {

// Whether forwards may use the fused kernel where it is available (default true). false keeps every
// forward on the explicit path, as ForwardOptions::explicit_attention does for one forward.
bool fused_attention_allowed();
void set_fused_attention_allowed(bool allowed);

}  // namespace aw

// models/attention_path.h — which way a forward that wants no probabilities computes attention,
// process-wide: LibTorch's fused scaled-dot-product kernel where this LibTorch has one (2.x), or the
// explicit scores → softmax → mix (`--explicit-attention`: a reference, and the baseline the GPU
// benchmarks time the fused kernel against). Captures always take the explicit path.
#pragma once

namespace aw {

// Whether this LibTorch has fused scaled-dot-product attention (2.x: flash / memory-efficient kernels
// on CUDA, a fused kernel on the CPU). Debian's 1.13 has not: every forward takes the explicit path.
bool fused_attention_available();

// Whether forwards may use the fused kernel where it is available (default true). false keeps every
// forward on the explicit path, as ForwardOptions::explicit_attention does for one forward.
bool fused_attention_allowed();
void set_fused_attention_allowed(bool allowed);

}  // namespace aw

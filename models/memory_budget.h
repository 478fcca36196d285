// models/memory_budget.h — how much memory one tile of attention may take (models/nn/attention.h),
// process-wide: a default from the machine's memory, or what --memory-budget set; and memory sizes
// as people type them ("512M", "2G") and read them ("1.5 GiB").
#pragma once

#include <cstdint>
#include <string>

namespace aw {

// The bytes a forward's attention tile may take when ForwardOptions::memory_budget is 0: the last
// set_attention_memory_budget(), else memory_share(32) (768 MiB on a 24-GB machine). Small inputs fit
// one tile, so only long texts are tiled. The same budget bounds a chunk of the feed-forward's inner
// activations (transformer.h) and the layer states a staged capture keeps in memory
// (analysis/capture/staged_capture.h).
int64_t attention_memory_budget();
// 1/`divisor` of the machine's memory, between 64 MiB and 1 GiB: the window asks memory_share(64)
// for its captures, which hold the shown map, the pooled layers and the scene beside each forward.
int64_t memory_share(int64_t divisor);
// > 0: that many bytes; 0: back to the machine's default.
void set_attention_memory_budget(int64_t bytes);

// "2G", "512M", "64K" (powers of 1,024; a trailing "B" or "iB" allowed) or a byte count; throws
// aw::Error("<what>: ...") for anything else, zero or a negative size.
int64_t parse_memory_size(const std::string& text, const std::string& what = "--memory-budget");
// "1.5 GiB", "768 MiB", "12 KiB", "900 B".
std::string format_bytes(int64_t bytes);
// The smallest whole size at least `bytes`, as parse_memory_size reads it: "3M", "20K".
std::string memory_size_argument(int64_t bytes);

}  // namespace aw

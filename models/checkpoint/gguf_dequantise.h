// models/checkpoint/gguf_dequantise.h — the ggml tensor types a GGUF file may hold (ids, names, block
// sizes) and the dequantisation of the ones this tool reads to float32: F32, F16, BF16, Q8_0, Q4_0, Q4_K,
// Q5_K and Q6_K, with the block layouts ggml defines. Plain C++ (no LibTorch): the GGUF reader and its
// fuzz target use it as it is.
//
// A quantised row is a run of blocks; a block holds `block_elements` values in `block_bytes` bytes and
// decodes on its own, so any whole number of blocks can be dequantised anywhere, in any order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace aw {

// ggml's type ids as GGUF stores them (gguf's GGMLQuantizationType). Ids 4, 5, 31–33 and 36–38 were
// used once and are no longer written to GGUF files.
enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
  IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23,
  I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30,
  TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39, NVFP4 = 40, Q1_0 = 41,
};

struct GgmlTypeTraits {
  GgmlType type;
  const char* name;        // "Q4_K", as ggml and the gguf package spell it
  uint32_t block_elements; // values in one block (1 for the plain types)
  uint32_t block_bytes;    // bytes of one block
};

// The traits of a type id, or nullptr for an id ggml does not (or no longer) define.
const GgmlTypeTraits* ggml_type_traits(uint32_t id);
// "Q4_K"; the old name of a retired id ("Q4_0_4_4" for 31, which has no traits); "" for an unknown one.
std::string ggml_type_name(uint32_t id);

// Whether dequantise_blocks reads this type, and the list for messages: "F32, F16, BF16, Q8_0, …".
bool can_dequantise(GgmlType type);
const char* dequantisable_type_names();

// Dequantises `elements` values (a whole number of the type's blocks) from `blocks` into `out`, in the
// order they are stored (ne[0] fastest). `blocks` need not be aligned. The type must be one that
// can_dequantise accepts (std::invalid_argument otherwise: a caller's bug, not bad input).
// The arithmetic is the gguf package's numpy reference (gguf.quants.dequantize) operation for
// operation, so the results agree bit for bit.
void dequantise_blocks(GgmlType type, const uint8_t* blocks, size_t elements, float* out);

// The same, split into contiguous runs of blocks over `threads` threads (0: the hardware's count);
// small inputs stay on the calling thread.
void dequantise_blocks_parallel(GgmlType type, const uint8_t* blocks, size_t elements, float* out,
                                unsigned threads = 0);

// IEEE half and bfloat16 bit patterns to float (exact: every one is a float).
float half_to_float(uint16_t bits);
float bfloat16_to_float(uint16_t bits);

}  // namespace aw

// models/checkpoint/gguf_dequantise.cpp — ggml's type table and the block decoders (see the header).
//
// Block layouts (ggml-common.h; all multi-byte fields little-endian, blocks packed without padding):
//   Q8_0  34 B / 32:  f16 d, int8 q[32]                        x = q·d
//   Q4_0  18 B / 32:  f16 d, u8 qs[16]                         x[j] = (lo(qs[j]) − 8)·d, x[j+16] = (hi(qs[j]) − 8)·d
//   Q4_K 144 B / 256: f16 d, f16 dmin, u8 scales[12], u8 qs[128]
//        eight sub-blocks of 32, each with a 6-bit scale sc and min m packed in `scales`;
//        64 values per 32 bytes of qs: low nibbles the first sub-block, high nibbles the next.
//        x = (d·sc)·q − (dmin·m)
//   Q5_K 176 B / 256: as Q4_K with u8 qh[32] before qs: bit j of qh[l] is the fifth bit of sub-block j's
//        value l.
//   Q6_K 210 B / 256: u8 ql[128], u8 qh[64], int8 scales[16], f16 d; two halves of 128 values, each
//        from 64 bytes of ql (nibbles) and 32 of qh (2-bit pairs); one scale per 16 values.
//        x = (d·scale)·(q − 32)
// The operations are the numpy reference's, in its order, so the results are the package's to the bit.
// A compiler that fuses (d·sc)·q − dmin·m into an FMA changes nothing: f16 d times a 6-bit scale and a
// 5-bit quant has at most 22 significant bits, so every product before the last operation is exact.
#include "models/checkpoint/gguf_dequantise.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "GGUF blocks are read as they lie: a little-endian host");

namespace aw {
namespace {

constexpr GgmlTypeTraits kTypes[] = {
    {GgmlType::F32, "F32", 1, 4},          {GgmlType::F16, "F16", 1, 2},
    {GgmlType::Q4_0, "Q4_0", 32, 18},      {GgmlType::Q4_1, "Q4_1", 32, 20},
    {GgmlType::Q5_0, "Q5_0", 32, 22},      {GgmlType::Q5_1, "Q5_1", 32, 24},
    {GgmlType::Q8_0, "Q8_0", 32, 34},      {GgmlType::Q8_1, "Q8_1", 32, 40},
    {GgmlType::Q2_K, "Q2_K", 256, 84},     {GgmlType::Q3_K, "Q3_K", 256, 110},
    {GgmlType::Q4_K, "Q4_K", 256, 144},    {GgmlType::Q5_K, "Q5_K", 256, 176},
    {GgmlType::Q6_K, "Q6_K", 256, 210},    {GgmlType::Q8_K, "Q8_K", 256, 292},
    {GgmlType::IQ2_XXS, "IQ2_XXS", 256, 66}, {GgmlType::IQ2_XS, "IQ2_XS", 256, 74},
    {GgmlType::IQ3_XXS, "IQ3_XXS", 256, 98}, {GgmlType::IQ1_S, "IQ1_S", 256, 50},
    {GgmlType::IQ4_NL, "IQ4_NL", 32, 18},  {GgmlType::IQ3_S, "IQ3_S", 256, 110},
    {GgmlType::IQ2_S, "IQ2_S", 256, 82},   {GgmlType::IQ4_XS, "IQ4_XS", 256, 136},
    {GgmlType::I8, "I8", 1, 1},            {GgmlType::I16, "I16", 1, 2},
    {GgmlType::I32, "I32", 1, 4},          {GgmlType::I64, "I64", 1, 8},
    {GgmlType::F64, "F64", 1, 8},          {GgmlType::IQ1_M, "IQ1_M", 256, 56},
    {GgmlType::BF16, "BF16", 1, 2},        {GgmlType::TQ1_0, "TQ1_0", 256, 54},
    {GgmlType::TQ2_0, "TQ2_0", 256, 66},   {GgmlType::MXFP4, "MXFP4", 32, 17},
    {GgmlType::NVFP4, "NVFP4", 64, 36},    {GgmlType::Q1_0, "Q1_0", 128, 18},
};

struct RetiredType {
  uint32_t id;
  const char* name;
};
constexpr RetiredType kRetired[] = {{4, "Q4_2"},      {5, "Q4_3"},      {31, "Q4_0_4_4"}, {32, "Q4_0_4_8"},
                                    {33, "Q4_0_8_8"}, {36, "IQ4_NL_4_4"}, {37, "IQ4_NL_4_8"}, {38, "IQ4_NL_8_8"}};

uint16_t load_u16(const uint8_t* bytes) {
  uint16_t value;
  std::memcpy(&value, bytes, 2);
  return value;
}

// Every half's float, made once (256 KiB): a lookup is faster than converting each element.
const float* half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> values(65536);
    for (uint32_t bits = 0; bits < 65536; ++bits) values[bits] = half_to_float(static_cast<uint16_t>(bits));
    return values;
  }();
  return table.data();
}

void dequantise_f16(const uint8_t* in, size_t n, float* out) {
  const float* table = half_table();
  for (size_t i = 0; i < n; ++i) out[i] = table[load_u16(in + 2 * i)];
}

void dequantise_bf16(const uint8_t* in, size_t n, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = bfloat16_to_float(load_u16(in + 2 * i));
}

void dequantise_q8_0(const uint8_t* block, size_t blocks, float* out) {
  for (size_t b = 0; b < blocks; ++b, block += 34, out += 32) {
    const float d = half_to_float(load_u16(block));
    const auto* q = reinterpret_cast<const int8_t*>(block + 2);
    for (int j = 0; j < 32; ++j) out[j] = static_cast<float>(q[j]) * d;
  }
}

void dequantise_q4_0(const uint8_t* block, size_t blocks, float* out) {
  for (size_t b = 0; b < blocks; ++b, block += 18, out += 32) {
    const float d = half_to_float(load_u16(block));
    const uint8_t* qs = block + 2;
    for (int j = 0; j < 16; ++j) out[j] = d * static_cast<float>((qs[j] & 0x0F) - 8);
    for (int j = 0; j < 16; ++j) out[j + 16] = d * static_cast<float>((qs[j] >> 4) - 8);
  }
}

// The eight 6-bit scales and mins of a Q4_K / Q5_K super-block. Bytes 0–3 hold scales 0–3 in their low
// six bits, bytes 4–7 mins 0–3; scales and mins 4–7 take their low four bits from bytes 8–11 (low and
// high nibble) and their top two from the spare top bits of bytes 0–3 and 4–7.
void unpack_scales_mins(const uint8_t* packed, float d, float dmin, float* scale, float* min) {
  for (int j = 0; j < 4; ++j) {
    scale[j] = d * static_cast<float>(packed[j] & 0x3F);
    min[j] = dmin * static_cast<float>(packed[j + 4] & 0x3F);
    scale[j + 4] = d * static_cast<float>((packed[j + 8] & 0x0F) | ((packed[j] >> 6) << 4));
    min[j + 4] = dmin * static_cast<float>((packed[j + 8] >> 4) | ((packed[j + 4] >> 6) << 4));
  }
}

void dequantise_q4_k(const uint8_t* block, size_t blocks, float* out) {
  float scale[8], min[8];
  for (size_t b = 0; b < blocks; ++b, block += 144, out += 256) {
    unpack_scales_mins(block + 4, half_to_float(load_u16(block)), half_to_float(load_u16(block + 2)), scale, min);
    const uint8_t* qs = block + 16;
    for (int chunk = 0; chunk < 4; ++chunk, qs += 32) {
      float* y = out + 64 * chunk;
      const float d_low = scale[2 * chunk], m_low = min[2 * chunk];
      const float d_high = scale[2 * chunk + 1], m_high = min[2 * chunk + 1];
      for (int l = 0; l < 32; ++l) y[l] = d_low * static_cast<float>(qs[l] & 0x0F) - m_low;
      for (int l = 0; l < 32; ++l) y[l + 32] = d_high * static_cast<float>(qs[l] >> 4) - m_high;
    }
  }
}

void dequantise_q5_k(const uint8_t* block, size_t blocks, float* out) {
  float scale[8], min[8];
  for (size_t b = 0; b < blocks; ++b, block += 176, out += 256) {
    unpack_scales_mins(block + 4, half_to_float(load_u16(block)), half_to_float(load_u16(block + 2)), scale, min);
    const uint8_t* qh = block + 16;
    const uint8_t* qs = block + 48;
    for (int chunk = 0; chunk < 4; ++chunk, qs += 32) {
      float* y = out + 64 * chunk;
      const int low = 2 * chunk, high = 2 * chunk + 1;  // sub-blocks: their fifth bits are bits low, high of qh
      for (int l = 0; l < 32; ++l)
        y[l] = scale[low] * static_cast<float>((qs[l] & 0x0F) | (((qh[l] >> low) & 1) << 4)) - min[low];
      for (int l = 0; l < 32; ++l)
        y[l + 32] = scale[high] * static_cast<float>((qs[l] >> 4) | (((qh[l] >> high) & 1) << 4)) - min[high];
    }
  }
}

void dequantise_q6_k(const uint8_t* block, size_t blocks, float* out) {
  for (size_t b = 0; b < blocks; ++b, block += 210, out += 256) {
    const float d = half_to_float(load_u16(block + 208));
    const auto* scales = reinterpret_cast<const int8_t*>(block + 192);
    float scale[16];
    for (int s = 0; s < 16; ++s) scale[s] = d * static_cast<float>(scales[s]);
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = block + 64 * half;
      const uint8_t* qh = block + 128 + 32 * half;
      const float* sc = scale + 8 * half;
      float* y = out + 128 * half;
      // Values l, l+32, l+64, l+96 of the half share qh[l]'s four bit pairs; 16 values share a scale
      // (one loop per 16, so that the scale is a constant of the loop and the loop vectorises).
      for (int group = 0; group < 2; ++group) {
        const float s0 = sc[group], s1 = sc[group + 2], s2 = sc[group + 4], s3 = sc[group + 6];
        for (int l = 16 * group; l < 16 * group + 16; ++l) {
          y[l] = s0 * static_cast<float>(((ql[l] & 0x0F) | ((qh[l] & 3) << 4)) - 32);
          y[l + 32] = s1 * static_cast<float>(((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32);
          y[l + 64] = s2 * static_cast<float>(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
          y[l + 96] = s3 * static_cast<float>(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
        }
      }
    }
  }
}

}  // namespace

const GgmlTypeTraits* ggml_type_traits(uint32_t id) {
  for (const auto& traits : kTypes)
    if (static_cast<uint32_t>(traits.type) == id) return &traits;
  return nullptr;
}

std::string ggml_type_name(uint32_t id) {
  if (const auto* traits = ggml_type_traits(id)) return traits->name;
  for (const auto& retired : kRetired)
    if (retired.id == id) return retired.name;
  return "";
}

bool can_dequantise(GgmlType type) {
  switch (type) {
    case GgmlType::F32: case GgmlType::F16: case GgmlType::BF16: case GgmlType::Q8_0:
    case GgmlType::Q4_0: case GgmlType::Q4_K: case GgmlType::Q5_K: case GgmlType::Q6_K:
      return true;
    default:
      return false;
  }
}

const char* dequantisable_type_names() { return "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K"; }

float half_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1F;
  const uint32_t mantissa = bits & 0x3FF;
  uint32_t widened;
  if (exponent == 0x1F) {
    widened = sign | 0x7F800000u | (mantissa << 13);  // infinity, or NaN with its payload (as numpy keeps it)
  } else if (exponent != 0) {
    widened = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);
  } else {
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;  // zero or subnormal: exact in float
    return sign ? -magnitude : magnitude;
  }
  float value;
  std::memcpy(&value, &widened, 4);
  return value;
}

float bfloat16_to_float(uint16_t bits) {
  const uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, 4);
  return value;
}

void dequantise_blocks(GgmlType type, const uint8_t* blocks, size_t elements, float* out) {
  const auto* traits = ggml_type_traits(static_cast<uint32_t>(type));
  if (traits == nullptr || !can_dequantise(type) || elements % traits->block_elements != 0)
    throw std::invalid_argument("dequantise_blocks: " + ggml_type_name(static_cast<uint32_t>(type)) + " × " +
                                std::to_string(elements) + " values");
  const size_t count = elements / traits->block_elements;
  switch (type) {
    case GgmlType::F32: if (elements > 0) std::memcpy(out, blocks, 4 * elements); break;
    case GgmlType::F16: dequantise_f16(blocks, count, out); break;
    case GgmlType::BF16: dequantise_bf16(blocks, count, out); break;
    case GgmlType::Q8_0: dequantise_q8_0(blocks, count, out); break;
    case GgmlType::Q4_0: dequantise_q4_0(blocks, count, out); break;
    case GgmlType::Q4_K: dequantise_q4_k(blocks, count, out); break;
    case GgmlType::Q5_K: dequantise_q5_k(blocks, count, out); break;
    case GgmlType::Q6_K: dequantise_q6_k(blocks, count, out); break;
    default: break;
  }
}

void dequantise_blocks_parallel(GgmlType type, const uint8_t* blocks, size_t elements, float* out,
                                unsigned threads) {
  const auto* traits = ggml_type_traits(static_cast<uint32_t>(type));
  // Below this a thread costs more than it saves.
  constexpr size_t kMinElementsPerThread = size_t{1} << 18;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (traits == nullptr || threads == 1 || elements < 2 * kMinElementsPerThread) {
    dequantise_blocks(type, blocks, elements, out);
    return;
  }
  if (!can_dequantise(type) || elements % traits->block_elements != 0) dequantise_blocks(type, blocks, elements, out);  // throws
  const size_t block_count = elements / traits->block_elements;
  const size_t parts = std::min<size_t>(threads, elements / kMinElementsPerThread);
  std::vector<std::thread> workers;
  size_t first = 0;
  for (size_t part = 0; part < parts; ++part) {
    const size_t last = block_count * (part + 1) / parts;
    const auto* in = blocks + first * traits->block_bytes;
    float* to = out + first * traits->block_elements;
    const size_t values = (last - first) * traits->block_elements;
    if (part + 1 == parts) dequantise_blocks(type, in, values, to);  // the calling thread takes the last run
    else {
      try {
        workers.emplace_back([=] { dequantise_blocks(type, in, values, to); });
      } catch (const std::system_error&) {  // no thread to be had: this one does the run
        dequantise_blocks(type, in, values, to);
      }
    }
    first = last;
  }
  for (auto& worker : workers) worker.join();
}

}  // namespace aw

// models/attention_kind.h — the three kinds of attention (docs/architecture.md "The model contract") and the one
// place their names are spelled: "enc" for encoder self-attention (Enc-Enc), "dec" for the decoder's
// causal self-attention (Dec-Dec) and "cross" for cross-attention (Enc-Dec: target queries, source
// keys). CSV columns, attention files, --attention and --kinds all use these names. Free of LibTorch:
// the window code (app/gui/) includes it.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

namespace aw {

// A decoder-only or encoder-only model has one kind; a translation model all three (Michel et al.
// Table 2).
enum class AttentionKind { Encoder, Decoder, Cross };

// Every kind, in the order a translation model's blocks first use them.
inline constexpr std::array<AttentionKind, 3> kAttentionKinds = {AttentionKind::Encoder, AttentionKind::Decoder,
                                                                 AttentionKind::Cross};

// "enc", "dec" or "cross": the one place the names are spelled, each beside its kind.
inline std::string to_string(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::Encoder: return "enc";
    case AttentionKind::Decoder: return "dec";
    case AttentionKind::Cross: return "cross";
  }
  return "?";
}

// The kind named `name`, or nothing when no kind has that name.
inline std::optional<AttentionKind> parse_attention_kind(const std::string& name) {
  for (const auto kind : kAttentionKinds)
    if (name == to_string(kind)) return kind;
  return std::nullopt;
}

// Which of a translation's two token sequences a block of this kind relates: its rows (queries) are
// the target's (the decoder's tokens) for dec and cross, the source's for enc; its columns (keys) the
// target's for dec only.
inline bool queries_are_target(AttentionKind kind) { return kind != AttentionKind::Encoder; }
inline bool keys_are_target(AttentionKind kind) { return kind == AttentionKind::Decoder; }

}  // namespace aw

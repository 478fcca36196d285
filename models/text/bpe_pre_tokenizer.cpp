// models/text/bpe_pre_tokenizer.cpp — added tokens, normalizers and pre-tokenisation of a BPE
// tokenizer (see bpe_pre_tokenizer.h).
#include "models/text/bpe_pre_tokenizer.h"
#include "models/text/special_tokens.h"

#include "models/errors.h"
#include "models/text/tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <algorithm>

namespace aw::tokenizer_detail {
namespace {

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(code, buffer, sizeof buffer) < 0) return "PCRE2 error " + std::to_string(code);
  return reinterpret_cast<const char*>(buffer);
}

struct Pcre2CodeFree {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct Pcre2MatchDataFree {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

using Pattern = std::unique_ptr<pcre2_code, Pcre2CodeFree>;

Pattern compile_piece_pattern(const std::string& pattern, const std::string& source) {
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  Pattern code(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                             &error, &error_offset, nullptr));
  if (!code)
    fail_in_file(source, "pre-tokenisation pattern " + quoted_excerpt(pattern) + " does not compile at offset " +
                             std::to_string(error_offset) + ": " + pcre2_message(error));
  // JIT is only a speed-up: without it (or when it fails) pcre2_match interprets the pattern.
  pcre2_jit_compile(code.get(), PCRE2_JIT_COMPLETE);
  return code;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string nfc(const std::string& text) {
  UErrorCode status = U_ZERO_ERROR;
  const auto* normalizer = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) throw Error(std::string("ICU has no NFC normalizer: ") + u_errorName(status));
  const auto normalized = normalizer->normalize(icu::UnicodeString::fromUTF8(text), status);
  if (U_FAILURE(status)) throw Error(std::string("NFC normalisation failed: ") + u_errorName(status));
  std::string out;
  normalized.toUTF8String(out);
  return out;
}

// Metaspace: spaces → the replacement, put before the text by the prepend scheme; with `split`,
// each piece starts at a replacement (the replacement goes with what follows it).
void metaspace(const ByteLevelBpeSpec::Step& step, const std::string& text, bool first,
               std::vector<std::string>& out) {
  std::string replaced;
  for (const char c : text) {
    if (c == ' ') replaced += step.replacement;
    else replaced += c;
  }
  const bool prepend = step.prepend_scheme == "always" || (step.prepend_scheme == "first" && first);
  if (prepend && replaced.rfind(step.replacement, 0) != 0) replaced.insert(0, step.replacement);
  if (!step.split || step.replacement.empty()) {
    out.push_back(std::move(replaced));
    return;
  }
  size_t start = 0;
  for (size_t pos = replaced.find(step.replacement, 1); pos != std::string::npos;
       pos = replaced.find(step.replacement, pos + step.replacement.size())) {
    out.push_back(replaced.substr(start, pos - start));
    start = pos;
  }
  out.push_back(replaced.substr(start));
}

// Every match of `pattern` in `text`, and every stretch between matches, in order.
void split_isolated(const pcre2_code& pattern, const std::string& text, std::vector<std::string>& out) {
  std::unique_ptr<pcre2_match_data, Pcre2MatchDataFree> match(pcre2_match_data_create_from_pattern(&pattern, nullptr));
  if (!match) throw Error("byte-level BPE tokenizer: out of memory for pattern matching");
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t offset = 0, done = 0;
  while (offset < text.size()) {
    int found = pcre2_match(&pattern, subject, text.size(), offset, PCRE2_NO_UTF_CHECK, match.get(), nullptr);
    if (found == PCRE2_ERROR_JIT_STACKLIMIT)
      found = pcre2_match(&pattern, subject, text.size(), offset, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match.get(), nullptr);
    if (found == PCRE2_ERROR_NOMATCH) break;
    if (found < 0)
      throw Error("pre-tokenisation failed at byte offset " + std::to_string(offset) + ": " + pcre2_message(found));
    const PCRE2_SIZE* bounds = pcre2_get_ovector_pointer(match.get());
    const size_t begin = bounds[0], end = bounds[1];
    if (end == begin) {  // an empty match splits nothing: step over one character
      offset = begin + std::max<size_t>(1, utf8_sequence_length(text, begin));
      continue;
    }
    if (begin > done) out.push_back(text.substr(done, begin - done));
    out.push_back(text.substr(begin, end - begin));
    done = offset = end;
  }
  if (done < text.size()) out.push_back(text.substr(done));
}

}  // namespace

struct BpePreTokenizer::CompiledPatterns {
  std::vector<Pattern> by_step;
};

BpePreTokenizer::BpePreTokenizer() : patterns_(std::make_unique<CompiledPatterns>()) {}

BpePreTokenizer::BpePreTokenizer(const ByteLevelBpeSpec& spec)
    : normalizers_(spec.normalizers), steps_(spec.steps), added_(spec.added),
      patterns_(std::make_unique<CompiledPatterns>()) {
  for (const auto& token : added_)
    if (!token.content.empty()) starts_added_[static_cast<unsigned char>(token.content[0])] = true;
  for (const auto& step : steps_)
    patterns_->by_step.push_back(step.pattern.empty() ? nullptr : compile_piece_pattern(step.pattern, spec.vocab_source));
}

BpePreTokenizer::~BpePreTokenizer() = default;
BpePreTokenizer::BpePreTokenizer(BpePreTokenizer&&) noexcept = default;
BpePreTokenizer& BpePreTokenizer::operator=(BpePreTokenizer&&) noexcept = default;

std::vector<TextPiece> BpePreTokenizer::split_added(const std::string& text, bool normalized) const {
  std::vector<TextPiece> pieces;
  size_t start = 0, pos = 0;
  while (pos < text.size()) {
    if (!starts_added_[static_cast<unsigned char>(text[pos])]) {  // most bytes start no added token
      ++pos;
      continue;
    }
    const ByteLevelBpeSpec::AddedToken* best = nullptr;
    const bool specials = special_tokens_in_text();  // --special-tokens-as-text reads them as text
    for (const auto& token : added_)
      if (token.normalized == normalized && !token.content.empty() && (specials || !token.special) &&
          text.compare(pos, token.content.size(), token.content) == 0 && (!best || token.content.size() > best->content.size()))
        best = &token;
    if (!best) {
      ++pos;
      continue;
    }
    size_t begin = pos, end = pos + best->content.size();
    if (best->lstrip)
      while (begin > start && is_blank(text[begin - 1])) --begin;
    if (best->rstrip)
      while (end < text.size() && is_blank(text[end])) ++end;
    if (begin > start) pieces.push_back({text.substr(start, begin - start)});
    pieces.push_back({{}, best->id});
    start = pos = end;
  }
  if (start < text.size()) pieces.push_back({text.substr(start)});
  return pieces;
}

std::string BpePreTokenizer::normalize(std::string text) const {
  using Kind = ByteLevelBpeSpec::Normalizer::Kind;
  for (const auto& step : normalizers_) {
    if (step.kind == Kind::Nfc) {
      text = nfc(text);
    } else if (step.kind == Kind::Prepend) {
      if (!text.empty()) text.insert(0, step.text);
    } else if (!step.text.empty()) {
      std::string replaced;
      for (size_t pos = 0;;) {
        const size_t found = text.find(step.text, pos);
        replaced.append(text, pos, found == std::string::npos ? std::string::npos : found - pos);
        if (found == std::string::npos) break;
        replaced += step.by;
        pos = found + step.text.size();
      }
      text.swap(replaced);
    }
  }
  return text;
}

std::vector<std::string> BpePreTokenizer::pre_tokenize(const std::string& text, bool first) const {
  using Kind = ByteLevelBpeSpec::Step::Kind;
  std::vector<std::string> pieces{text}, next;
  for (size_t index = 0; index < steps_.size(); ++index) {
    const auto& step = steps_[index];
    next.clear();
    for (size_t p = 0; p < pieces.size(); ++p) {
      auto& piece = pieces[p];
      if (step.kind == Kind::Metaspace) {
        metaspace(step, piece, first && p == 0, next);
        continue;
      }
      if (step.add_prefix_space && piece.rfind(' ', 0) != 0) piece.insert(0, " ");
      if (patterns_->by_step[index]) split_isolated(*patterns_->by_step[index], piece, next);
      else next.push_back(std::move(piece));
    }
    pieces.swap(next);
  }
  return pieces;
}

}  // namespace aw::tokenizer_detail

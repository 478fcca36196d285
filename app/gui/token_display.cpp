// app/gui/token_display.cpp — see token_display.h.
#include "app/gui/token_display.h"

#include "models/text/tokenizer.h"

#include <QRegularExpression>

#include <cstdio>

namespace aw {

namespace {

QString byte_text(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "\\x%02X", static_cast<unsigned>(byte));
  return QString::fromLatin1(text);
}

}  // namespace

QString shown_token(const std::string& token) {
  // SentencePiece's byte piece, "<0xE0>": six characters, so that the other tokens (8,192 of a long
  // text) skip the match.
  static const QRegularExpression byte_piece("^<0x([0-9A-Fa-f]{2})>$");
  if (token.size() == 6 && token.compare(0, 3, "<0x") == 0) {
    const auto piece = byte_piece.match(QString::fromLatin1(token.data(), 6));
    if (piece.hasMatch()) return "\\x" + piece.captured(1).toUpper();
  }
  QString shown;
  for (size_t pos = 0; pos < token.size();) {
    const size_t length = tokenizer_detail::utf8_sequence_length(token, pos);
    const auto byte = static_cast<unsigned char>(token[pos]);
    if (length == 0) {
      shown += byte_text(byte);
      ++pos;
      continue;
    }
    if (byte == '\n') shown += QChar(0x23CE);       // ⏎
    else if (byte == '\r') shown += QChar(0x240D);  // ␍
    else if (byte == '\t') shown += QChar(0x21E5);  // ⇥
    else if (byte < 0x20 || byte == 0x7F) shown += byte_text(byte);
    else shown += QString::fromUtf8(token.data() + pos, static_cast<qsizetype>(length));
    pos += length;
  }
  return shown;
}

}  // namespace aw

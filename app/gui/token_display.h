// app/gui/token_display.h — a token as the window shows it, the same everywhere (map axes, hover,
// Predictions, After token): a line break as ⏎ (a raw one broke a label onto two lines), a carriage
// return as ␍, a tab as ⇥, any other control character and any byte that is not a whole UTF-8
// character as \xNN, as the byte-level tokenizers already write a partial character's bytes, and a
// SentencePiece byte piece (<0xE0>) the same way. Spaces stay spaces ("Ġthe" is read as " the").
#pragma once

#include <QString>

#include <string>

namespace aw {

QString shown_token(const std::string& token);

}  // namespace aw

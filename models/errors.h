// models/errors.h — the one exception type for bad input anywhere in the workbench.
// Its message is the single line a user sees: what file (or option), and what is wrong.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace aw {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "path: message" — the form every file-related error takes.
[[noreturn]] void fail_in_file(const std::string& path, const std::string& message);
// The last system call's error as text (strerror(errno)): "No such file or directory".
std::string system_error();

// Text from a file as a message shows it: in single quotes, control characters escaped (\n, \t,
// \x01), cut after 100 bytes at a character boundary with "..." — so a hostile file can neither
// flood the terminal nor break the message's one line.
std::string quoted_excerpt(std::string_view text);

// The same without the quotes and with room for a sentence (300 bytes): for a library's own message,
// which may quote what the file holds (a SentencePiece piece with a newline in it).
std::string one_line(std::string_view text, size_t max_bytes = 300);

// The longest line a line-based data file may hold (labelled TSV, translation pairs, CoNLL-U,
// vocab.txt, merges.txt, files to split): far beyond any real line, and short enough that nothing
// done per line (tokenising one long "word" is quadratic) can hang. Corpora read as running text
// have no such limit.
constexpr size_t kMaxLineBytes = size_t{1} << 20;
// Throws aw::Error "<path>: line N is B bytes long, more than the 1 MiB one line may hold".
void require_line_length(const std::string& path, size_t line_number, const std::string& line);

// Shapes in messages: "[768, 2304]".
template <typename Container>
std::string shape_string(const Container& dims) {
  std::string text = "[";
  bool first = true;
  for (auto d : dims) {
    if (!first) text += ", ";
    text += std::to_string(d);
    first = false;
  }
  return text + "]";
}

}  // namespace aw

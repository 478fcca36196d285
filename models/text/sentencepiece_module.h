// models/text/sentencepiece_module.h — the few SentencePiece calls the workbench makes, behind an
// interface of standard types only, so that the library lives in a module of its own
// (libaw_sentencepiece.so, built from sentencepiece_module.cpp) and never in the programs.
//
// Why: Debian's libsentencepiece carries its own protobuf-lite (3.14) and exports its symbols,
// while LibTorch loads the system libprotobuf (3.21). Linked into one program, one copy serves
// both through the global symbol scope, and the program aborts at start-up (protobuf's version
// check) or crashes. tokenizer_sentencepiece.cpp loads the module with dlopen(RTLD_LOCAL |
// RTLD_DEEPBIND): sentencepiece binds to its own protobuf first, and nothing else sees it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace aw::sentencepiece_module {

// Raised whenever this interface changes; the loader refuses a module of another version.
constexpr int kVersion = 1;

// One SentencePiece model. Calls return "" on success, else the library's message.
class Processor {
 public:
  virtual ~Processor() = default;
  virtual std::string load(const std::string& model_path) = 0;
  virtual int piece_count() const = 0;
  virtual std::string piece(int id) const = 0;
  virtual std::string encode_pieces(const std::string& text, std::vector<std::string>* pieces) const = 0;
  virtual std::string encode_ids(const std::string& text, std::vector<int>* ids) const = 0;
  virtual std::string decode_pieces(const std::vector<std::string>& pieces, std::string* text) const = 0;
};

struct Functions {
  int version;  // kVersion of the module
  std::unique_ptr<Processor> (*make_processor)();
  // SentencePieceTrainer with `options` (the trainer's flag names and values) on `sentences`,
  // after seeding the library's random generator with `seed`. "" on success, else the message.
  std::string (*train)(const std::vector<std::string>& sentences,
                       const std::vector<std::pair<std::string, std::string>>& options, unsigned int seed);
};

// The name under which the module exports its table of functions.
constexpr const char* kFunctionsSymbol = "aw_sentencepiece_functions";

}  // namespace aw::sentencepiece_module

// models/text/sentencepiece_module.cpp — libaw_sentencepiece.so: sentencepiece_module.h's interface
// over the sentencepiece library. Only this file includes the library's headers; the module exports
// one symbol, aw_sentencepiece_functions (everything else is hidden).
#include "models/text/sentencepiece_module.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <unordered_map>

namespace aw::sentencepiece_module {
namespace {

std::string message_of(const sentencepiece::util::Status& status) {
  if (status.ok()) return "";
  const std::string message = status.message();
  return message.empty() ? status.ToString() : message;
}

// The library reports most failures as a Status, but some parts throw (its bundled darts-clone on a
// model with an empty piece: fuzz/fuzz_sentencepiece.cpp found it); nothing may cross the module
// boundary as an exception, so every call returns the message instead.
template <typename Call>
std::string guarded(Call&& call) {
  try {
    return message_of(call());
  } catch (const std::exception& error) {
    const std::string message = error.what();
    return message.empty() ? "the library failed" : message;
  } catch (...) {
    return "the library failed";
  }
}

class LibraryProcessor final : public Processor {
 public:
  std::string load(const std::string& model_path) override {
    return guarded([&] { return processor_.Load(model_path); });
  }
  int piece_count() const override { return processor_.GetPieceSize(); }
  std::string piece(int id) const override { return processor_.IdToPiece(id); }
  std::string encode_pieces(const std::string& text, std::vector<std::string>* pieces) const override {
    return guarded([&] { return processor_.Encode(text, pieces); });
  }
  std::string encode_ids(const std::string& text, std::vector<int>* ids) const override {
    return guarded([&] { return processor_.Encode(text, ids); });
  }
  std::string decode_pieces(const std::vector<std::string>& pieces, std::string* text) const override {
    return guarded([&] { return processor_.Decode(pieces, text); });
  }

 private:
  sentencepiece::SentencePieceProcessor processor_;
};

// The training sentences, handed to the trainer one by one (no temporary file).
class SentenceList final : public sentencepiece::SentenceIterator {
 public:
  explicit SentenceList(const std::vector<std::string>& sentences) : sentences_(sentences) {}
  bool done() const override { return next_ >= sentences_.size(); }
  void Next() override { ++next_; }
  const std::string& value() const override { return sentences_[next_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& sentences_;
  size_t next_ = 0;
};

std::unique_ptr<Processor> make_processor() { return std::make_unique<LibraryProcessor>(); }

std::string train(const std::vector<std::string>& sentences,
                  const std::vector<std::pair<std::string, std::string>>& options, unsigned int seed) {
  sentencepiece::SetRandomGeneratorSeed(seed);
  const std::unordered_map<std::string, std::string> flags(options.begin(), options.end());
  SentenceList list(sentences);
  return guarded([&] { return sentencepiece::SentencePieceTrainer::Train(flags, &list); });
}

const Functions kFunctions = {kVersion, &make_processor, &train};

}  // namespace
}  // namespace aw::sentencepiece_module

extern "C" __attribute__((visibility("default"))) const aw::sentencepiece_module::Functions*
aw_sentencepiece_functions() {
  return &aw::sentencepiece_module::kFunctions;
}

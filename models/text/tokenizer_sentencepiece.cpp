// models/text/tokenizer_sentencepiece.cpp — SentencePiece tokenizers: loading a .spm model (Marian's
// source.spm / target.spm, or one trained here), and training one. The sentencepiece library itself
// is reached through libaw_sentencepiece.so, loaded here on first use (sentencepiece_module.h says why).
//
// Two id spaces. A native model uses the .spm ids. A Marian folder numbers pieces in vocab.json,
// which source.spm and target.spm share; encoding then follows Hugging Face's MarianTokenizer:
// pieces from the library, each looked up in vocab.json, "<unk>" for pieces it lacks, and a
// leading language code such as ">>fra<<" (multilingual models) kept as one token. Hugging Face's
// optional Moses punctuation normalisation is not applied.
#include "models/text/tokenizer.h"

#include "models/errors.h"
#include "models/text/sentencepiece_module.h"
#include "models/text/special_tokens.h"

#include <dlfcn.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>

namespace aw {
namespace fs = std::filesystem;
namespace {

constexpr const char* kPadPiece = "<pad>";
constexpr const char* kUnkPiece = "<unk>";
constexpr const char* kBosPiece = "<s>";
constexpr const char* kEosPiece = "</s>";
constexpr const char* kWordStart = "\xE2\x96\x81";  // "▁", U+2581

// The pieces decode leaves out (Hugging Face's skip_special_tokens for Marian: pad, eos, unk).
bool is_special_piece(const std::string& piece) {
  return piece == kPadPiece || piece == kUnkPiece || piece == kBosPiece || piece == kEosPiece;
}

// A leading ">>code<<" (Marian's target-language token), or "" when the text does not start with one.
std::string leading_language_code(const std::string& text) {
  if (text.compare(0, 2, ">>") != 0) return "";
  const size_t close = text.find("<<", 3);
  return close == std::string::npos ? "" : text.substr(0, close + 2);
}

std::string trim_spaces(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\n\r\f\v");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\n\r\f\v");
  return text.substr(begin, end - begin + 1);
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

// The module, loaded once: next to the running program first (a copied build), else where the
// build put it. Throws aw::Error when neither loads.
const sentencepiece_module::Functions& module_functions() {
  static std::once_flag once;
  static const sentencepiece_module::Functions* functions = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    const fs::path built = AW_SENTENCEPIECE_MODULE;
    std::error_code error;
    const fs::path program = fs::read_symlink("/proc/self/exe", error);
    std::vector<fs::path> candidates;
    if (!error) candidates.push_back(program.parent_path() / built.filename());
    candidates.push_back(built);
    std::string tried;
#ifdef AW_SANITIZER_BUILD
    // Sanitizer runtimes refuse RTLD_DEEPBIND (their allocator would be bypassed). Without it the
    // module is safe only where no other protobuf is loaded: the fuzz target, not LibTorch programs.
    constexpr int kFlags = RTLD_NOW | RTLD_LOCAL;
    if (dlsym(RTLD_DEFAULT, "_ZN6google8protobuf8internal13VerifyVersionEiiPKc") != nullptr) {
      failure = "SentencePiece cannot be loaded in this sanitizer build of a LibTorch program (its protobuf "
                "would meet LibTorch's; see docs/reliability.md)";
      return;
    }
#else
    // RTLD_DEEPBIND: the module and sentencepiece resolve their own (protobuf) symbols first.
    constexpr int kFlags = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
#endif
    for (const auto& candidate : candidates) {
      if (!fs::exists(candidate, error)) continue;
      void* handle = dlopen(candidate.c_str(), kFlags);
      if (handle == nullptr) {
        tried += std::string(tried.empty() ? "" : "; ") + dlerror();
        continue;
      }
      using Entry = const sentencepiece_module::Functions* (*)();
      const auto entry = reinterpret_cast<Entry>(dlsym(handle, sentencepiece_module::kFunctionsSymbol));
      if (entry == nullptr || entry()->version != sentencepiece_module::kVersion) {
        tried += std::string(tried.empty() ? "" : "; ") + candidate.string() + " is another version of the module";
        continue;
      }
      functions = entry();
      return;
    }
    failure = "SentencePiece support is missing: cannot load " + built.filename().string() + " (" +
              (tried.empty() ? "not next to the program nor at " + built.string() : tried) + ")";
  });
  if (functions == nullptr) throw Error(failure);
  return *functions;
}

// The library's messages open with its source location and the check that failed
// ("./src/trainer_interface.cc(660) [a == b] Vocabulary size too high (30). …"); only the words
// after that are for the user. "" when there are none. Exceptions its bundled parts throw read
// "./third_party/darts_clone/darts.h:1143: exception: failed to insert key: zero-length key".
std::string library_words(const std::string& text) {
  constexpr std::string_view kThrown = ": exception: ";
  if (const size_t thrown = text.find(kThrown); thrown != std::string::npos)
    return trim_spaces(text.substr(thrown + kThrown.size()));
  const size_t check = text.find(") [");
  if (check == std::string::npos) return trim_spaces(text);
  int depth = 0;
  for (size_t pos = check + 2; pos < text.size(); ++pos) {
    if (text[pos] == '[') ++depth;
    if (text[pos] == ']' && --depth == 0) return trim_spaces(text.substr(pos + 1));
  }
  return "";
}

// library_words made one line (errors.h): messages may quote the model's own pieces.
std::string library_message(const std::string& text) { return one_line(library_words(text)); }

class SentencePieceTokenizer final : public tokenizer_detail::TableTokenizer {
 public:
  SentencePieceTokenizer(const std::string& model_path, const std::string& vocab_json_path, bool append_eos)
      : model_path_(model_path),
        marian_(!vocab_json_path.empty()),
        append_eos_(append_eos),
        processor_(module_functions().make_processor()) {
    load_model(model_path);
    if (marian_) read_vocab_json(vocab_json_path);
    else take_model_pieces();
    const std::string& table_path = marian_ ? vocab_json_path : model_path;
    unk_id_ = token_id(kUnkPiece);
    if (unk_id_ < 0) fail_in_file(table_path, "has no '<unk>' piece");
    eos_id_ = token_id(kEosPiece);
    if (append_eos_ && eos_id_ < 0) fail_in_file(table_path, "has no '</s>' piece, which every encoding ends with");
  }

  Encoding encode(const std::string& text) const override {
    tokenizer_detail::require_utf8(text);
    Encoding encoding;
    const auto add = [&](int64_t id) {
      encoding.ids.push_back(id);
      encoding.tokens.push_back(texts_[static_cast<size_t>(id)]);
      encoding.type_ids.push_back(0);
    };
    if (marian_) {
      const std::string code = leading_language_code(text);
      if (!code.empty()) add(lookup(code));
      // MarianTokenizer's special tokens written in the text are one token each; the text between
      // them is encoded piece by piece, each with its own word start (a WikiText "<unk>" stays one).
      const std::string rest = text.substr(code.size());
      size_t from = 0;
      std::vector<std::string> pieces;
      auto encode_span = [&](size_t end) {
        pieces.clear();
        check(processor_->encode_pieces(rest.substr(from, end - from), &pieces));
        for (const auto& piece : pieces) add(lookup(piece));
      };
      const bool specials = special_tokens_in_text();
      for (size_t at = 0; specials && at < rest.size();) {
        const char* special = nullptr;
        for (const char* candidate : {kEosPiece, kUnkPiece, kPadPiece})
          if (rest.compare(at, std::strlen(candidate), candidate) == 0 && token_id(candidate) >= 0) special = candidate;
        if (special == nullptr) {
          ++at;
          continue;
        }
        encode_span(at);
        add(token_id(special));
        at += std::strlen(special);
        from = at;
      }
      encode_span(rest.size());
    } else {
      std::vector<int> ids;
      check(processor_->encode_ids(text, &ids));
      for (const int id : ids) add(id);
    }
    if (append_eos_) add(eos_id_);
    return encoding;
  }

  // As MarianTokenizer.decode(ids, skip_special_tokens=True): special pieces dropped, the rest
  // joined by the library (a piece the .spm model lacks comes back as it is spelled), "▁" as a space,
  // outer white space trimmed.
  std::string decode(const std::vector<int64_t>& ids) const override {
    std::vector<std::string> pieces;
    pieces.reserve(ids.size());
    for (const int64_t id : ids) {
      const std::string piece = token_text(id);
      if (!is_special_piece(piece)) pieces.push_back(piece);
    }
    std::string text;
    check(processor_->decode_pieces(pieces, &text));
    return trim_spaces(replace_all(text, kWordStart, " "));
  }

  std::string kind() const override { return "sentencepiece"; }

 private:
  void load_model(const std::string& path) {
    std::error_code error;
    if (!fs::is_regular_file(path, error)) fail_in_file(path, "cannot be read (missing or not a file)");
    const std::string failure = processor_->load(path);
    if (!failure.empty()) {
      const std::string why = library_message(failure);
      fail_in_file(path, "is not a SentencePiece model (" + (why.empty() ? "it does not parse as one" : why) + ")");
    }
  }

  void take_model_pieces() {
    std::vector<std::string> pieces;
    const int size = processor_->piece_count();
    pieces.reserve(static_cast<size_t>(size));
    for (int id = 0; id < size; ++id) pieces.push_back(processor_->piece(id));
    set_tokens(std::move(pieces));
  }

  // vocab.json: {"piece": id, …} with the ids 0..n-1, each once.
  void read_vocab_json(const std::string& path) {
    texts_ = tokenizer_detail::read_vocab_json(path, "piece");
    for (size_t id = 0; id < texts_.size(); ++id) ids_.emplace(texts_[id], static_cast<int64_t>(id));
  }

  int64_t lookup(const std::string& piece) const {
    const auto found = ids_.find(piece);
    return found == ids_.end() ? unk_id_ : found->second;
  }

  void check(const std::string& failure) const {
    if (failure.empty()) return;
    const std::string why = library_message(failure);
    fail_in_file(model_path_, "SentencePiece failed: " + (why.empty() ? one_line(failure) : why));
  }

  std::string model_path_;
  bool marian_;      // ids from vocab.json rather than the .spm model
  bool append_eos_;
  std::unique_ptr<sentencepiece_module::Processor> processor_;
  int64_t unk_id_ = -1;
  int64_t eos_id_ = -1;
};

}  // namespace

std::unique_ptr<Tokenizer> load_sentencepiece_tokenizer(const std::string& model_path,
                                                        const std::string& vocab_json_path, bool append_eos) {
  return std::make_unique<SentencePieceTokenizer>(model_path, vocab_json_path, append_eos);
}

void train_sentencepiece(const std::vector<std::string>& sentences, const std::string& model_prefix, int vocab_size,
                         const std::string& model_type, uint64_t seed) {
  const std::string model_path = model_prefix + ".model";
  if (model_type != "bpe" && model_type != "unigram")
    throw Error("SentencePiece model type must be bpe or unigram, got '" + model_type + "'");
  // The four special pieces and at least one more.
  if (vocab_size < 5) throw Error("SentencePiece vocabulary size must be at least 5, got " + std::to_string(vocab_size));
  if (sentences.empty()) fail_in_file(model_path, "cannot be trained on no sentences");
  for (size_t i = 0; i < sentences.size(); ++i) {
    try {
      tokenizer_detail::require_utf8(sentences[i]);
    } catch (const Error& error) {
      fail_in_file(model_path, "training sentence " + std::to_string(i + 1) + ": " + error.what());
    }
  }
  const auto folder = fs::path(model_prefix).parent_path();
  if (!folder.empty()) {
    std::error_code error;
    fs::create_directories(folder, error);
    if (error) fail_in_file(folder.string(), "cannot create folder: " + error.message());
  }

  const std::vector<std::pair<std::string, std::string>> options = {
      {"model_prefix", model_prefix},
      {"model_type", model_type},
      {"vocab_size", std::to_string(vocab_size)},
      {"character_coverage", "1.0"},
      {"pad_id", "0"}, {"pad_piece", kPadPiece},
      {"unk_id", "1"}, {"unk_piece", kUnkPiece},
      {"bos_id", "2"}, {"bos_piece", kBosPiece},
      {"eos_id", "3"}, {"eos_piece", kEosPiece},
      {"num_threads", "1"},
      {"input_sentence_size", "0"},         // every sentence, no sampling
      {"shuffle_input_sentence", "false"},
      {"minloglevel", "2"},                 // the library's own log (stderr) quiet: failures come back as status
  };
  // The library's seed is 32 bits, and its largest value means "seed from the clock".
  const auto library_seed = static_cast<unsigned int>(seed % std::numeric_limits<unsigned int>::max());
  const std::string failure = module_functions().train(sentences, options, library_seed);
  if (!failure.empty()) fail_in_file(model_path, "SentencePiece training failed: " + library_message(failure));
}

}  // namespace aw

// fuzz/fuzz_support.h — what every libFuzzer target here shares: the loaders take paths, so each
// input is written to files in a scratch folder of the fuzzing process; inputs holding several files
// separate them with kPartSeparator; and a parser may refuse an input only with aw::Error, whose
// message is one line (anything else — another exception type, a multi-line or empty message — is a
// finding, so the target aborts and libFuzzer saves the reproducer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace aw::fuzz {

// Between the files of one input ("vocab.json", then "merges.txt", then the text to encode).
inline constexpr const char* kPartSeparator = "\n=====\n";

// The input cut at the first count − 1 separators: always `count` parts (missing ones empty).
std::vector<std::string> split_parts(const uint8_t* data, size_t size, size_t count);

// Writes `bytes` to <scratch folder>/<name> (the folder is made once per process) and returns the path.
std::string scratch_file(const std::string& name, const std::string& bytes);
// The scratch folder itself (for loaders that take a checkpoint folder).
const std::string& scratch_dir();

// Runs `parse`; returns true when it accepted the input, false when it refused it with a one-line
// aw::Error. Any other outcome aborts the process.
bool parses_or_refuses(const std::function<void()>& parse);

// The input as one string.
inline std::string bytes(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// fuzz_support.cpp defines LLVMFuzzerInitialize for every target: logging off, so nothing but
// libFuzzer's own lines reach the log.

}  // namespace aw::fuzz

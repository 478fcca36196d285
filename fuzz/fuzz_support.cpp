// fuzz/fuzz_support.cpp — see fuzz_support.h.
#include "fuzz/fuzz_support.h"

#include "models/errors.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <typeinfo>

namespace aw::fuzz {
namespace {
constexpr size_t kMaxMessageBytes = 1000;

// The scratch folder's path for the exit handler: a plain array, which outlives every static object
// (the std::string made with the folder is destroyed before an exit handler registered while it was
// being made runs).
char scratch_path[4096];

void remove_scratch() {
  std::error_code ignored;
  std::filesystem::remove_all(scratch_path, ignored);
}
}  // namespace

std::vector<std::string> split_parts(const uint8_t* data, size_t size, size_t count) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string separator = kPartSeparator;
  std::vector<std::string> parts;
  size_t begin = 0;
  while (parts.size() + 1 < count) {
    const auto end = input.find(separator, begin);
    if (end == std::string::npos) break;
    parts.push_back(input.substr(begin, end - begin));
    begin = end + separator.size();
  }
  parts.push_back(begin <= input.size() ? input.substr(begin) : std::string());
  parts.resize(count);
  return parts;
}

const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/aw-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("aw-fuzz: cannot make a scratch folder");
      std::abort();
    }
    // Gone when the run ends (libFuzzer exits through exit()): each run left a folder in /tmp.
    if (pattern.size() < sizeof(scratch_path)) {
      std::strcpy(scratch_path, pattern.c_str());
      std::atexit(remove_scratch);
    }
    return pattern;
  }();
  return dir;
}

std::string scratch_file(const std::string& name, const std::string& bytes) {
  const auto path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "aw-fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

bool parses_or_refuses(const std::function<void()>& parse) {
  try {
    parse();
    return true;
  } catch (const Error& error) {
    const std::string message = error.what();
    // One short line: a hostile file must not be able to flood the terminal through a message.
    if (message.empty() || message.find('\n') != std::string::npos || message.size() > kMaxMessageBytes) {
      std::fprintf(stderr, "aw-fuzz: FINDING: an error message that is not one short line (%zu bytes): \"%.2000s\"\n",
                   message.size(), message.c_str());
      std::abort();
    }
    return false;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "aw-fuzz: FINDING: %s escaped instead of aw::Error: %s\n", typeid(error).name(), error.what());
    std::abort();
  }
}

}  // namespace aw::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

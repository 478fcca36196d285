// bench/write_llama_layout.cpp — write-llama-layout small|1b: writes the benches' random llama folder
// (bench_support.h: the small layout of bench_long_context, or Llama-3.2-1B's sizes) into the temporary
// folder, once, and prints its path. scripts/dev/gui-walk.sh's long walk opens it in the window.
#include "bench/bench_support.h"

#include <cstring>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "small") != 0 && std::strcmp(argv[1], "1b") != 0)) {
    std::cerr << "usage: write-llama-layout small|1b\n";
    return 2;
  }
  try {
    const bool small = std::strcmp(argv[1], "small") == 0;
    const aw::bench::LlamaLayout small_layout{4, 8, 2, 64, 512, 1536, 32000};
    std::cout << aw::bench::llama_layout_dir(small ? "aw-bench-llama-small" : "aw-bench-llama-1b",
                                             small ? small_layout : aw::bench::kLlama1b)
              << "\n";
  } catch (const std::exception& error) {
    std::cerr << "write-llama-layout: " << error.what() << "\n";
    return 1;
  }
  return 0;
}

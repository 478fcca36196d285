// fuzz/fuzz_checkpoint.cpp — a whole checkpoint folder loaded as `attention-cli info` loads it. The
// input's four parts are config.json, the vocabulary (written as vocab.txt and vocab.json, so native,
// BERT and GPT-2 folders all find theirs), merges.txt and model.safetensors. Sizes in config.json must
// be checked against each other and the file's tensors before a model is allocated.
#include "fuzz/fuzz_support.h"

#include "models/checkpoint/checkpoint.h"

#include <torch/torch.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = aw::fuzz::split_parts(data, size, 4);
  aw::fuzz::scratch_file("config.json", parts[0]);
  aw::fuzz::scratch_file("vocab.txt", parts[1]);
  aw::fuzz::scratch_file("vocab.json", parts[1]);
  aw::fuzz::scratch_file("merges.txt", parts[2]);
  aw::fuzz::scratch_file("model.safetensors", parts[3]);
  aw::fuzz::parses_or_refuses([&] {
    torch::InferenceMode inference;
    const auto loaded = aw::load_checkpoint(aw::fuzz::scratch_dir());
    if (loaded.parameter_count <= 0) std::abort();
  });
  return 0;
}

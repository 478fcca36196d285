// app/gui/session_tensors.h — what ModelSession's translation units share (model_session.cpp and
// model_session_files.cpp): LibTorch's errors made one line, tensors handed to the window as plain
// floats. Includes LibTorch: never included by the window's code (widgets or the rest of app/gui).
#pragma once

#include "app/gui/model_session.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <string>

namespace aw::session {

// LibTorch errors (CUDA out of memory, …) come with a C++ backtrace: keep the first line for people.
template <typename Function>
auto guarded(Function&& function) -> decltype(function()) {
  try {
    return function();
  } catch (const Error&) {
    throw;
  } catch (const c10::Error& error) {
    const std::string message = error.what_without_backtrace();
    throw Error(message.substr(0, message.find('\n')));
  }
}

// A block of weights (H, rows, cols), float on the CPU, as plain floats: the tensor's own, kept
// alive by the block (a copy cost a 48-MB allocation per layer at 1,024 tokens, page faults and all).
WeightBlock weight_block(const torch::Tensor& block);

}  // namespace aw::session

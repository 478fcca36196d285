// models/runtime.h — process-wide runtime settings: compute device, thread count, loggers.
#pragma once

#include <spdlog/logger.h>
#include <torch/types.h>

#include <memory>
#include <string>

namespace aw {

// "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". Throws aw::Error when CUDA is
// asked for but not available, or the name is unknown.
torch::Device resolve_device(const std::string& name);
// "CPU (2 threads)" — LibTorch's threads, which also run its BLAS (MKL) — or "CUDA device 0 of 1".
std::string describe_device(const torch::Device& device);

// Sets the threads LibTorch computes with on the CPU, its BLAS's products and its element-wise work
// alike: `requested` if > 0, else AW_THREADS, else every core (default_threads). Returns the count.
int configure_threads(int requested = 0);
// Every core the machine reports: what LibTorch gets when neither --threads nor AW_THREADS chose.
int default_threads();
// Sets LibTorch's threads on the calling thread to what the last configure_threads chose (else
// AW_THREADS, else every core); returns it. A worker thread keeps the count LibTorch had when it first
// computed there (OpenMP holds it per thread), whatever configure_threads set later on another thread:
// each job on a desktop pool thread calls this first.
int use_configured_threads();

// Makes glibc keep freed memory for reuse instead of handing it back to the kernel: a forward pass
// allocates and frees tens of MB per layer, and re-faulting those pages made an 8×256 GPT-2-small
// forward ~3× slower (bench_foundation). Keeps up to 1 GiB of free heap. Idempotent; no-op off glibc.
void configure_allocator();
// One malloc arena for every thread (glibc). The desktop session makes a capture's large blocks on a
// worker thread and frees them on the UI thread; with an arena per thread each 48-MB block got a
// mapping of its own, unmapped when freed and faulted in again by the next run (the first
// 1,024-token map took 5–7 s instead of 2.6 s). Call before the threads first allocate.
void use_one_allocator_arena();
// Hands the heap's free pages back to the kernel (glibc's malloc_trim), wherever they lie. A long
// text's layer frees hundreds of MB in blocks that the next layer's differently sized ones only partly
// reuse; kept, those holes grow the resident memory layer after layer (Llama-1B at 8,192 tokens: 3.1 GB
// of heap for 1.8 GB in use after 4 layers). Costs a re-fault of what is used again: call it between
// large steps, not per tile. No-op off glibc.
void release_free_memory();

// One named logger per layer ("models", "analysis", "app"), writing to stderr.
std::shared_ptr<spdlog::logger> logger(const std::string& name);

}  // namespace aw

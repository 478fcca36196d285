// models/runtime.h — process-wide runtime settings: compute device, thread count, loggers.
#pragma once

#include <spdlog/logger.h>
#include <torch/types.h>

#include <memory>
#include <string>

namespace aw {

// LibTorch intra-op threads for a model whose matrix products run on OpenBLAS (F32). Measured on the
// 2-core machines: a lone softmax is faster with two threads, but a whole forward pass is ~20 % slower
// (bench_foundation), an eval 1.45× and a training step 2.5–3× slower (bench_training), because
// OpenBLAS threads its own products in a pool of its own and the two pools spin-wait for each other
// (see docs/performance.md).
constexpr int kDefaultThreads = 1;

// "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". Throws aw::Error when CUDA is
// asked for but not available, or the name is unknown.
torch::Device resolve_device(const std::string& name);
// "CPU (2 threads)" — the cores the CPU computes on: the larger of LibTorch's and OpenBLAS's thread
// counts — or "CUDA device 0 of 1".
std::string describe_device(const torch::Device& device);

// Sets the threads a model computing in `dtype` uses on the CPU; N is `requested` if > 0, else
// AW_THREADS, else unset. F32, whose products OpenBLAS threads: OpenBLAS gets N (unset: its own
// default, every core) and LibTorch kDefaultThreads, so `--threads 2` is the fast default and
// `--threads 1` one core. BF16, whose products run on oneDNN with LibTorch's own threads: LibTorch
// gets N (unset: every core), OpenBLAS N too (unset: its default). Returns LibTorch's count.
int configure_threads(int requested = 0, torch::ScalarType dtype = torch::kFloat32);
// LibTorch's thread count for a model computing in `dtype` on the CPU when neither --threads nor
// AW_THREADS chose one: kDefaultThreads for F32, whose products OpenBLAS threads itself; every core
// for BF16, whose products run on oneDNN with LibTorch's own threads (bench_llama: 2.0× faster on 2
// cores).
int default_threads_for(torch::ScalarType dtype);
// Sets LibTorch's threads for a model computing in `dtype` on the calling thread, with the count the
// last configure_threads was asked for (else AW_THREADS, else the default for `dtype`); returns it.
// A worker thread keeps the count LibTorch had when it first computed there (OpenMP holds it per
// thread), whatever configure_threads set later on another thread: a desktop pool thread that first
// ran an F32 model (1 thread) kept 1 for a BF16 model loaded later, and one that ran BF16 kept every
// core for F32 beside OpenBLAS's own pool. Each job on a worker calls this first.
int use_threads_for(torch::ScalarType dtype);

// OpenBLAS's own thread count, which is separate from LibTorch's intra-op threads: −1 when the BLAS
// LibTorch calls is not OpenBLAS (looked up at run time, so other BLAS builds still link).
int blas_threads();
// Sets it; false (and nothing changed) when the BLAS is not OpenBLAS.
bool set_blas_threads(int threads);

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

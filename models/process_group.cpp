// models/process_group.cpp — see process_group.h.
#include "models/process_group.h"

#include "models/errors.h"
#include "models/parse_number.h"

#include <c10/util/Exception.h>

#ifdef AW_WITH_C10D
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef AW_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef AW_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#endif

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <thread>

namespace aw {
namespace {

int64_t integer_variable(const char* name, int64_t minimum, int64_t maximum, const std::string& meaning,
                         const std::string& fallback = "") {
  const char* value = std::getenv(name);
  std::string text = value ? value : fallback;
  if (text.empty()) throw Error("--distributed: " + std::string(name) + " is not set (" + meaning + ")");
  int64_t parsed = 0;
  if (!parse_integer(text, parsed) || parsed < minimum || parsed > maximum)
    throw Error("--distributed: " + std::string(name) + " must be a whole number from " + std::to_string(minimum) +
                " to " + std::to_string(maximum) + ", got " + quoted_excerpt(text));
  return parsed;
}

}  // namespace

ProcessGroupAddress process_group_address_from_environment() {
  ProcessGroupAddress address;
  address.world_size = static_cast<int>(integer_variable("WORLD_SIZE", 1, 65536, "the number of processes"));
  address.rank = static_cast<int>(integer_variable("RANK", 0, 65535, "this process's number, 0 to WORLD_SIZE − 1"));
  if (address.rank >= address.world_size)
    throw Error("--distributed: RANK " + std::to_string(address.rank) + " is not below WORLD_SIZE " +
                std::to_string(address.world_size));
  address.local_rank = static_cast<int>(integer_variable("LOCAL_RANK", 0, 65535, "this process's GPU", "0"));
  const char* host = std::getenv("MASTER_ADDR");
  if (!host || !*host) throw Error("--distributed: MASTER_ADDR is not set (rank 0's host name or address)");
  address.master_addr = host;
  address.master_port = static_cast<int>(integer_variable("MASTER_PORT", 1, 65535, "rank 0's port, e.g. 29500"));
  return address;
}

#ifndef AW_WITH_C10D

bool process_groups_available() { return false; }

std::unique_ptr<Distribution> join_process_group(const ProcessGroupAddress&, const torch::Device&,
                                                 std::chrono::seconds, const std::string&) {
  throw Error("--distributed: this build has no c10d process groups (install libgloo-dev and rebuild)");
}

void wait_for_all_ranks(const Distribution&) {}

#else

bool process_groups_available() { return true; }

namespace {

// c10d logs a failed connection through glog on stderr as well as throwing; the thrown error
// becomes this program's one line, so stderr is closed to the library meanwhile.
class QuietStderr {
 public:
  QuietStderr() : saved_(dup(STDERR_FILENO)) {
    const int null = open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null >= 0) dup2(null, STDERR_FILENO);
    if (null >= 0) close(null);
  }
  ~QuietStderr() {
    if (saved_ < 0) return;
    dup2(saved_, STDERR_FILENO);
    close(saved_);
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_;
};

std::string seconds_text(std::chrono::seconds timeout) { return std::to_string(timeout.count()) + " s"; }

std::string value_of(c10d::Store& store, const std::string& key) {
  const auto bytes = store.get(key);
  return std::string(bytes.begin(), bytes.end());
}

// Where two command lines part: "'--window 8' here, '--bootstrap 100' on rank 0".
std::string first_difference(const std::string& here, const std::string& there) {
  size_t start = 0;
  while (start < here.size() && start < there.size() && here[start] == there[start]) ++start;
  start = here.rfind(' ', start == 0 ? 0 : start - 1);
  start = start == std::string::npos ? 0 : start + 1;  // from the start of the word that differs
  auto excerpt = [start](const std::string& line) {
    return line.size() <= start ? std::string("nothing more") : quoted_excerpt(line.substr(start));
  };
  return excerpt(here) + " here, " + excerpt(there) + " on rank 0";
}

void put(c10d::Store& store, const std::string& key, const std::string& value) {
  store.set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

// The group's two collectives. LibTorch 1.13's backends are ProcessGroups, 2.x's are Backends with the
// same calls: holding the calls rather than a base class builds against both.
struct Collectives {
  std::function<c10::intrusive_ptr<c10d::Work>(std::vector<at::Tensor>&)> allreduce;
  std::function<c10::intrusive_ptr<c10d::Work>()> barrier;
  torch::Device device{torch::kCPU};  // where the backend reduces: the CPU (Gloo) or a GPU (NCCL)
};

template <typename Group>
Collectives collectives_of(const c10::intrusive_ptr<Group>& group, const torch::Device& device) {
  return {[group](std::vector<at::Tensor>& tensors) { return group->allreduce(tensors); },
          [group] { return group->barrier(); }, device};
}

class C10dDistribution : public Distribution {
 public:
  C10dDistribution(int rank, int world_size, c10::intrusive_ptr<c10d::Store> store, Collectives group,
                   std::chrono::seconds timeout)
      : rank_(rank), world_size_(world_size), store_(std::move(store)), group_(std::move(group)), timeout_(timeout) {}

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }

  void sum_over_processes(torch::Tensor& values) const override {
    // Gloo reduces host memory, NCCL the GPU's: a tensor elsewhere travels there and back.
    auto sent = values.to(group_.device).contiguous();
    std::vector<at::Tensor> tensors{sent};
    wait(group_.allreduce(tensors), "adding up the batches' results");
    if (!sent.is_same(values)) values.copy_(tensors.front());
  }

  void barrier() const { wait(group_.barrier(), "the last rank to finish"); }

 private:
  void wait(const c10::intrusive_ptr<c10d::Work>& work, const std::string& what) const {
    try {
      work->wait(timeout_);
    } catch (const std::exception& error) {
      throw Error("--distributed: rank " + std::to_string(rank_) + " stopped waiting for " + what +
                  " (another rank failed or did not answer within " + seconds_text(timeout_) + "): " +
                  one_line(error.what(), 200));
    }
  }

  int rank_, world_size_;
  c10::intrusive_ptr<c10d::Store> store_;  // the group's rendezvous; rank 0 serves it
  Collectives group_;
  std::chrono::seconds timeout_;
};

c10::intrusive_ptr<c10d::Store> connect_store(const ProcessGroupAddress& address, std::chrono::seconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(address.master_port);
  options.isServer = address.rank == 0;
  options.numWorkers = address.world_size;
  options.waitWorkers = false;  // the join below waits, with a message that says for whom
  options.timeout = timeout;
  const std::string where = address.master_addr + ":" + std::to_string(address.master_port);
  try {
    QuietStderr quiet;
    return c10::make_intrusive<c10d::TCPStore>(address.master_addr, options);
  } catch (const std::exception& error) {
    if (address.rank == 0)
      throw Error("--distributed: rank 0 cannot listen on " + where + " (" + one_line(error.what(), 160) +
                  "); is another job using MASTER_PORT?");
    throw Error("--distributed: rank " + std::to_string(address.rank) + " could not reach rank 0 at " + where +
                " within " + seconds_text(timeout) + " (is rank 0 running, with the same MASTER_ADDR and MASTER_PORT?)");
  }
}

// Every rank checks itself against rank 0's WORLD_SIZE and command line, claims its RANK, and waits
// until all have.
void join(c10d::Store& store, const ProcessGroupAddress& address, std::chrono::seconds timeout, const std::string& job) {
  const auto rank = std::to_string(address.rank);
  if (address.rank == 0) {
    put(store, "aw/world_size", std::to_string(address.world_size));
    put(store, "aw/job", job);
  } else {
    try {
      store.wait({"aw/world_size", "aw/job"}, timeout);
    } catch (const std::exception&) {
      throw Error("--distributed: rank " + rank + " reached the store at " + address.master_addr +
                  " but rank 0 did not register within " + seconds_text(timeout));
    }
    const auto world = value_of(store, "aw/world_size");
    if (world != std::to_string(address.world_size))
      throw Error("--distributed: WORLD_SIZE is " + std::to_string(address.world_size) + " on rank " + rank +
                  " but " + world + " on rank 0");
    const auto master_job = value_of(store, "aw/job");
    if (master_job != job)
      throw Error("--distributed: rank " + rank + " was started with other options than rank 0 (" +
                  first_difference(job, master_job) + ")");
  }
  if (store.add("aw/rank/" + rank, 1) != 1)
    throw Error("--distributed: another process already joined as RANK " + rank);
  store.add("aw/joined", 1);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto joined = store.add("aw/joined", 0);
    if (joined >= address.world_size) return;
    if (std::chrono::steady_clock::now() > deadline)
      throw Error("--distributed: " + std::to_string(joined) + " of " + std::to_string(address.world_size) +
                  " ranks joined within " + seconds_text(timeout) + " (rank " + rank +
                  " waited; check that every rank was started with the same WORLD_SIZE)");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

#ifdef AW_C10D_GLOO
Collectives gloo_group(const c10::intrusive_ptr<c10d::Store>& store,
                                                   const ProcessGroupAddress& address, std::chrono::seconds timeout) {
  auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
  // GLOO_SOCKET_IFNAME picks the network interface across machines, as it does for PyTorch.
  const char* interface = std::getenv("GLOO_SOCKET_IFNAME");
  options->devices.push_back(interface && *interface ? c10d::ProcessGroupGloo::createDeviceForInterface(interface)
                                                     : c10d::ProcessGroupGloo::createDefaultDevice());
  return collectives_of(c10::make_intrusive<c10d::ProcessGroupGloo>(
                            c10::make_intrusive<c10d::PrefixStore>("gloo", store), address.rank, address.world_size, options),
                        torch::Device(torch::kCPU));
}
#endif

}  // namespace

std::unique_ptr<Distribution> join_process_group(const ProcessGroupAddress& address, const torch::Device& device,
                                                 std::chrono::seconds timeout, const std::string& job) {
  auto store = connect_store(address, timeout);
  try {
    join(*store, address, timeout, job);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& error) {  // rank 0 went away while this rank was joining
    throw Error("--distributed: rank " + std::to_string(address.rank) + " lost the connection to rank 0 at " +
                address.master_addr + ":" + std::to_string(address.master_port) + " while joining (" +
                one_line(error.what(), 120) + ")");
  }
  (void)device;  // without NCCL every device reduces through Gloo
  Collectives group;
  bool nccl = false;
#ifdef AW_C10D_NCCL
  nccl = device.is_cuda();
#endif
  try {
#ifdef AW_C10D_NCCL
    if (nccl) {
      auto options = c10d::ProcessGroupNCCL::Options::create();
      options->timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
      group = collectives_of(c10::make_intrusive<c10d::ProcessGroupNCCL>(
                                 c10::make_intrusive<c10d::PrefixStore>("nccl", store), address.rank,
                                 address.world_size, options),
                             device);
    }
#endif
#ifdef AW_C10D_GLOO
    if (!nccl) group = gloo_group(store, address, timeout);
#else
    // PyTorch's own LibTorch ships no Gloo headers: such a build shares work over NCCL only.
    if (!nccl) throw Error("this build has NCCL but no Gloo (no gloo/ headers when it was built): use --device cuda");
#endif
  } catch (const Error& error) {
    throw Error("--distributed: " + std::string(error.what()));
  } catch (const std::exception& error) {
    throw Error("--distributed: rank " + std::to_string(address.rank) + " could not set up its " +
                (nccl ? "NCCL" : "Gloo") + " group: " + one_line(error.what(), 200));
  }
  return std::make_unique<C10dDistribution>(address.rank, address.world_size, store, std::move(group), timeout);
}

void wait_for_all_ranks(const Distribution& distribution) {
  if (const auto* group = dynamic_cast<const C10dDistribution*>(&distribution)) group->barrier();
}

#endif

}  // namespace aw

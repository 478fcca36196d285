// models/process_group.cpp — see process_group.h.
#include "models/process_group.h"

#include "models/errors.h"
#include "models/parse_number.h"

#include <c10/util/Exception.h>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef AW_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
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

// The group's two collectives, each with a deadline: the sum of a tensor over the ranks (in place) and
// a barrier.
class Collectives {
 public:
  virtual ~Collectives() = default;
  virtual void sum(at::Tensor& values, std::chrono::seconds timeout) = 0;
  virtual void barrier(std::chrono::seconds timeout) = 0;
};

// The CPU's collectives through the rendezvous store itself: every rank posts its tensor's bytes and
// adds up all ranks' in rank order, so each rank gets the same bits, whatever the arrival order.
// PyTorch's LibTorch ships no Gloo headers; the sums here are an analysis's results (a few MB at
// most), which the store carries well.
class StoreCollectives : public Collectives {
 public:
  StoreCollectives(c10::intrusive_ptr<c10d::Store> store, int rank, int world_size)
      : store_(c10::make_intrusive<c10d::PrefixStore>("aw/sum", std::move(store))), rank_(rank), world_size_(world_size) {}

  void sum(at::Tensor& values, std::chrono::seconds timeout) override {
    const std::string round = std::to_string(rounds_++);
    const auto host = values.to(torch::kCPU).contiguous();
    const auto* bytes = static_cast<const uint8_t*>(host.data_ptr());
    store_->set(round + "/" + std::to_string(rank_), std::vector<uint8_t>(bytes, bytes + host.nbytes()));
    std::vector<std::string> keys;
    for (int rank = 0; rank < world_size_; ++rank) keys.push_back(round + "/" + std::to_string(rank));
    store_->wait(keys, timeout);
    auto total = torch::zeros_like(host);
    for (const auto& key : keys) {
      auto posted = store_->get(key);
      if (posted.size() != host.nbytes())
        throw Error("rank " + key.substr(key.find('/') + 1) + " posted " + std::to_string(posted.size()) +
                    " bytes where this rank has " + std::to_string(host.nbytes()));
      total += torch::from_blob(posted.data(), host.sizes(), host.options());
    }
    values.copy_(total);
    // The last rank to have read this round's values removes them from rank 0's store.
    if (store_->add(round + "/read", 1) == world_size_) {
      for (const auto& key : keys) store_->deleteKey(key);
      store_->deleteKey(round + "/read");
    }
  }

  void barrier(std::chrono::seconds timeout) override {
    const std::string round = "barrier/" + std::to_string(rounds_++);
    if (store_->add(round, 1) == world_size_) store_->set(round + "/done", std::vector<uint8_t>{1});
    store_->wait({round + "/done"}, timeout);
    // Rank 0 serves the store: it leaves only once every rank has had its answer, or a rank still
    // waiting for "done" loses the connection when rank 0 exits.
    if (store_->add(round + "/left", 1) == world_size_) store_->set(round + "/all-left", std::vector<uint8_t>{1});
    if (rank_ == 0) store_->wait({round + "/all-left"}, timeout);
  }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  int rank_, world_size_;
  int64_t rounds_ = 0;  // every rank calls the collectives in the same order
};

#ifdef AW_C10D_NCCL
// GPUs reduce with NCCL, on the device.
class NcclCollectives : public Collectives {
 public:
  NcclCollectives(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size, torch::Device device,
                  std::chrono::seconds timeout)
      : device_(device) {
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
    group_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(c10::make_intrusive<c10d::PrefixStore>("nccl", store), rank,
                                                         world_size, options);
  }

  void sum(at::Tensor& values, std::chrono::seconds timeout) override {
    auto sent = values.to(device_).contiguous();  // a tensor elsewhere travels there and back
    std::vector<at::Tensor> tensors{sent};
    group_->allreduce(tensors)->wait(timeout);
    if (!sent.is_same(values)) values.copy_(tensors.front());
  }

  void barrier(std::chrono::seconds timeout) override { group_->barrier()->wait(timeout); }

 private:
  torch::Device device_;
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> group_;
};
#endif

class C10dDistribution : public Distribution {
 public:
  C10dDistribution(int rank, int world_size, c10::intrusive_ptr<c10d::Store> store,
                   std::unique_ptr<Collectives> group, std::chrono::seconds timeout)
      : rank_(rank), world_size_(world_size), store_(std::move(store)), group_(std::move(group)), timeout_(timeout) {}

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }

  void sum_over_processes(torch::Tensor& values) const override {
    guarded("adding up the batches' results", [&] { group_->sum(values, timeout_); });
  }

  void barrier() const {
    guarded("the last rank to finish", [&] { group_->barrier(timeout_); });
  }

 private:
  template <typename Call>
  void guarded(const std::string& what, Call call) const {
    try {
      call();
    } catch (const std::exception& error) {
      throw Error("--distributed: rank " + std::to_string(rank_) + " stopped waiting for " + what +
                  " (another rank failed or did not answer within " + seconds_text(timeout_) + "): " +
                  one_line(error.what(), 200));
    }
  }

  int rank_, world_size_;
  c10::intrusive_ptr<c10d::Store> store_;  // the group's rendezvous; rank 0 serves it
  std::unique_ptr<Collectives> group_;
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
  std::unique_ptr<Collectives> group;
  const bool nccl = device.is_cuda();
  try {
#ifdef AW_C10D_NCCL
    if (nccl) group = std::make_unique<NcclCollectives>(store, address.rank, address.world_size, device, timeout);
#endif
    if (!group) group = std::make_unique<StoreCollectives>(store, address.rank, address.world_size);
  } catch (const std::exception& error) {
    throw Error("--distributed: rank " + std::to_string(address.rank) + " could not set up its " +
                (nccl ? "NCCL" : "store") + " group: " + one_line(error.what(), 200));
  }
  return std::make_unique<C10dDistribution>(address.rank, address.world_size, store, std::move(group), timeout);
}

void wait_for_all_ranks(const Distribution& distribution) {
  if (const auto* group = dynamic_cast<const C10dDistribution*>(&distribution)) group->barrier();
}

}  // namespace aw

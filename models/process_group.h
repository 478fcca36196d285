// models/process_group.h — joining a LibTorch c10d process group (sums through its TCPStore on the CPU,
// NCCL on CUDA) from the environment torchrun and Slurm scripts set: RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT, LOCAL_RANK. The only file that includes c10d's headers.
#pragma once

#include "models/distribution.h"

#include <torch/types.h>

#include <chrono>
#include <memory>
#include <string>

namespace aw {

struct ProcessGroupAddress {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;        // this machine's GPU index for --device cuda (LOCAL_RANK, default 0)
  std::string master_addr;   // rank 0's host, which listens on master_port
  int master_port = 0;
};

// Reads the five variables. Throws aw::Error naming the variable that is missing or malformed
// ("--distributed: MASTER_PORT is not set (rank 0's port, e.g. 29500)"), or a RANK ≥ WORLD_SIZE.
ProcessGroupAddress process_group_address_from_environment();

// Joins the group: rank 0 listens on MASTER_ADDR:MASTER_PORT, the others connect to it. Every
// rank checks that it agrees with rank 0 on WORLD_SIZE and on `job` (the command line without the
// environment), and that no other process took its RANK. Anything that does not arrive within
// `timeout` throws aw::Error saying what was waited for; so does every later collective.
// `device` picks the backend: NCCL for CUDA, the store's own sums otherwise.
std::unique_ptr<Distribution> join_process_group(const ProcessGroupAddress& address, const torch::Device& device,
                                                 std::chrono::seconds timeout, const std::string& job);

// Waits until every rank has reached this point, so that rank 0 (whose store the others use)
// does not exit first. A no-op for one process.
void wait_for_all_ranks(const Distribution& distribution);

}  // namespace aw

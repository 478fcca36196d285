// bench/bench_distributed.cpp — a Michel single-head sweep (attention-cli ablate, the bundled
// vanilla_lm, WikiText-2 validation text) run as one process and as two c10d ranks (--distributed,
// Gloo over 127.0.0.1) on this machine. Each run is whole processes, start-up and model load included,
// timed from outside. On one 2-core machine two ranks cannot beat one process that already keeps
// both cores busy, so the one-core run is there too: two one-core ranks against it is the scaling a
// second machine would give.
#include <benchmark/benchmark.h>

#include <spawn.h>
#include <fcntl.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace {

const std::string kCli = AW_CLI_PATH;
const std::string kSource = AW_SOURCE_DIR;

// The first 40,000 words of WikiText-2's validation split (about 800 windows of 64 tokens).
std::string sweep_text() {
  static const std::string path = [] {
    std::ifstream in(kSource + "/../shared/data/wikitext-2/valid.txt");
    if (!in) throw std::runtime_error("bench_distributed: ../shared/data/wikitext-2/valid.txt is missing");
    std::ostringstream words;
    std::string word;
    for (int count = 0; count < 40000 && in >> word; ++count) words << word << (count % 20 == 19 ? "\n" : " ");
    const std::string file = "/tmp/aw-bench-distributed.txt";
    std::ofstream(file) << words.str();
    return file;
  }();
  return path;
}

// Starts attention-cli ablate with `extra_args` and `environment` added to this process's.
pid_t start(const std::vector<std::string>& extra_args, const std::vector<std::string>& environment) {
  std::vector<std::string> args{kCli,     "ablate",        "--model",      kSource + "/sample_data/vanilla_lm",
                                "--text", sweep_text(),    "--bootstrap", "0",
                                "--window", "64",           "--out",        "/dev/null"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<std::string> env_text;
  for (char** variable = environ; *variable; ++variable) env_text.emplace_back(*variable);
  env_text.insert(env_text.end(), environment.begin(), environment.end());
  std::vector<char*> argv, envp;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  for (auto& variable : env_text) envp.push_back(variable.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);  // progress lines
  pid_t pid = 0;
  if (posix_spawn(&pid, kCli.c_str(), &actions, nullptr, argv.data(), envp.data()) != 0)
    throw std::runtime_error("bench_distributed: cannot start " + kCli);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

void finish(pid_t pid, benchmark::State& state) {
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) state.SkipWithError("attention-cli ablate failed");
}

// ranks: 1 = a plain process; 2 = two ranks. threads: each process's LibTorch threads (and analysis workers).
void BM_AblateSweep(benchmark::State& state) {
  const int ranks = static_cast<int>(state.range(0));
  const std::string threads = "AW_THREADS=" + std::to_string(state.range(1));
  static int port = 29850;
  for (auto _ : state) {
    const auto begin = std::chrono::steady_clock::now();
    std::vector<pid_t> running;
    for (int rank = 0; rank < ranks; ++rank) {
      std::vector<std::string> environment{threads}, args;
      if (ranks > 1) {
        args.push_back("--distributed");
        environment.insert(environment.end(), {"RANK=" + std::to_string(rank), "WORLD_SIZE=" + std::to_string(ranks),
                                               "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + std::to_string(port)});
      }
      running.push_back(start(args, environment));
    }
    for (const auto pid : running) finish(pid, state);
    ++port;
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  state.SetLabel(ranks == 1 ? "one process" : std::to_string(ranks) + " ranks");
}
BENCHMARK(BM_AblateSweep)
    ->ArgNames({"ranks", "threads"})
    ->Args({1, 2})
    ->Args({1, 1})
    ->Args({2, 1})
    ->UseManualTime()
    ->Unit(benchmark::kSecond)
    ->Iterations(2);

}  // namespace

BENCHMARK_MAIN();

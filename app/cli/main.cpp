// app/cli/main.cpp — attention-cli: the headless workbench. Dispatches to one command; bad input
// becomes one line on stderr and exit code 1 (2 for a usage error), never a crash.
#include "analysis/core/registry.h"
#include "app/cli/analysis_command.h"
#include "app/cli/commands.h"
#include "models/runtime.h"
#include "models/errors.h"

#include <c10/util/Exception.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>

namespace {

// The commands that are not analyses; the analyses' lines come from their descriptors.
constexpr const char* kUsageHead = R"(usage: attention-cli <command> [options]     (attention-cli help <command>: its options)

commands:
  info    --model DIR                      architecture, sizes, parameters, dtype, device
  attend  --model DIR --text "..."         every layer's and head's attention for a text
          [--out FILE.json] [--top K] [--truncate]    (JSON: small texts)
          [--out FILE.safetensors|FILE.npy] [--layers 1,3-5] [--heads 1-4]
          [--out-dtype f32|f16]           binary, written tile by tile (.npy: one layer)
          [--rows A-B] [--cols C-D]        a region of each layer (1-based tokens)
          [--pool K [--pool-max]]          each layer as K × K block means (or maxima)
          [--logits top-K|full]            the K best next tokens per position (text, JSON), or
                                           a "logits" [n, V] tensor in the .safetensors file
          [--experts FILE.csv]             mixtures of experts: each sparse layer's experts and
                                           their weights per token (docs/checkpoint-format.md)
  attend  --from FILE.safetensors [--layers 2] [--top K]   the same summary from a saved file
  activations --model DIR --text "..."|--text-file FILE --hooks resid_post,z,… --out FILE.safetensors
          [--layers 0-3] [--heads 0,5] [--positions 0-9]   numbered from 0, as the names blocks.0.…
          [--out-dtype f32|f16|bf16]       one tensor per point and layer, written as computed
                                           (docs/hooks.md: the points, their shapes, numpy)
          [--target "..."]                 a translation model's decoder text (teacher-forced);
                                           points by kind: enc.resid_post, dec.z, cross.pattern
  translate --model DIR --text "..."      a translation model (transformer_mt, marian, bart): the
          [--beam 4] [--length-penalty 1.0] translation, each target token's most attended source
          [--max-length N] [--out FILE.json] token; --out: every enc/dec/cross attention block
          [--out FILE.safetensors [--kinds enc,dec,cross] [--out-dtype f16]]   binary, blocks <kind>.<l>
          [--target "..."]                 a given translation instead of a search, read teacher-
                                           forced: the attention behind that target, its log-probability
  train   --arch transformer_lm|bet_sf|bet_sg --train FILE --valid FILE --out DIR
          [--layers 2 --heads 4 --d-model 128 --d-ff 512 --window 64] [--epochs 10 --batch 16]
          [--lr 1e-3 --warmup 200 --schedule inverse_sqrt|cosine|constant --dropout 0.1 --clip 1.0]
          [--seed 1 --min-count 1 --log-every 50 --diag-mode normal|reduced|magnified|mask]
          [--no-diag-free-mask] [--norm pre|post] [--positions learned|sinusoidal] [--untied]
          [--f16] [--resume DIR]            Ctrl-C saves and stops; --resume continues
          [--save-every N]                 also save (resumably) every N steps, at a report
          [--keep-epochs]                  also keep every epoch's checkpoint in DIR/epoch-N
          [--optimizer adam|sgd --momentum 0.9 --weight-decay 0]   (any --arch; sgd: LAMA's §3.5)
          [--patience N]                   stop after N epochs without a better validation metric
          [--lambda-p 1.0]                 bet_sg: pointer-loss weight; --train must be .conllu
                                           (a .conllu FILE is read as its word forms everywhere)
  train   --arch lama|bigru_max|bigru_mean|encoder_classifier --train FILE.tsv --valid FILE.tsv --out DIR
          [--embedding-dim 100 --hidden 64 --heads 10 --mlp-hidden 512 --dropout 0.4 --window 256]
          [--context mean|learned --regularizer none|penal|emb --lambda 0.2]   (lama)
          [--layers 1 --heads 4 --d-model 128 --d-ff 512 --d-head N]          (encoder_classifier)
          [--epochs --batch 32 --lr --warmup 100 --seed --min-count --f16 --resume DIR --raw-words]
          [--dry-run]                      label<TAB>text lines; best epoch by validation accuracy
  train   … --seeds 1,2,3 --out DIR        one run per seed into DIR/seed-1, DIR/seed-2, … (any --arch)
  split   --data FILE --out DIR            seeded shuffle of a labelled file into train/valid/test.tsv
          [--seed 1] [--percent 80,10,10]
          [--group-by line|source]         source: source<TAB>translation lines; the distinct
                                           sources are shuffled, so a source's lines stay together
  compare --variant NAME=DIR,DIR,… --variant … --text FILE [--window N --batch B]
          [--reference NAME] [--out summary.csv --tests tests.csv --json]
                                           several runs (seeds) of each variant on one file:
                                           mean ± sd per variant, Welch's t-test and 95 %
                                           interval of the difference between every pair (or
                                           NAME against each other), Holm-adjusted p;
                                           a run is a model folder or a result saved by
                                           `eval --json` on the same file and windows

analyses (docs/analyses.md):
)";
constexpr const char* kHelpLine = "  help [COMMAND]                           this text, or one command's options (also COMMAND --help)\n";
constexpr const char* kCommonOptions = R"(
every command: --device auto|cpu|cuda[:N]  (auto = CUDA when present), --threads N, --json
every model command: --model ORG/NAME [--revision R]   a model from the local Hugging Face cache
                                           (never the network; docs/checkpoint-format.md)
                    --memory-budget 512M   bytes one tile of attention rows may take (default:
                                           1/32 of the machine's memory, 64M–1G; docs/long-context.md)
                    --explicit-attention   scores → softmax → mix even where LibTorch 2.x's fused
                                           attention could serve (a reference; slower)
                    --special-tokens-as-text   "[SEP]", "<|endoftext|>", "<unk>" written in a text
                                           read as text, not as the special token (the default)
)";

std::string usage() {
  std::string text = kUsageHead;
  for (const auto& descriptor : aw::analysis_registry()) text += aw::analysis_usage_lines(descriptor);
  return text + kHelpLine + kCommonOptions;
}

// The lines of kUsageHead that describe `command` (train has several blocks), or "" when none do:
// a block is a line "  <command> …" and the deeper-indented lines after it.
std::string command_lines(const std::string& command) {
  std::istringstream head(kUsageHead);
  std::string line, lines;
  bool inside = false;
  while (std::getline(head, line)) {
    const bool starts_block = line.size() > 2 && line.compare(0, 2, "  ") == 0 && line[2] != ' ';
    if (starts_block) inside = line.compare(2, command.size() + 1, command + " ") == 0;
    else if (line.empty() || line[0] != ' ') inside = false;
    if (inside) lines += line + "\n";
  }
  return lines;
}

// `help COMMAND` or `COMMAND --help`: an analysis's page from its descriptor, another command's lines
// of the general text with the options every command takes; 2 and one line for an unknown command.
int print_command_help(const std::string& command) {
  if (command == "help") {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (const auto* descriptor = aw::find_analysis(command)) {
    std::fputs(aw::analysis_help_page(*descriptor).c_str(), stdout);
    return 0;
  }
  const auto lines = command_lines(command);
  if (lines.empty()) {
    std::fprintf(stderr, "attention-cli help: unknown command '%s' (see attention-cli help)\n", command.c_str());
    return 2;
  }
  std::printf("usage: attention-cli %s [options]\n\n%s%s", command.c_str(), lines.c_str(), kCommonOptions);
  return 0;
}

// `help` and `help COMMAND`.
int print_help(int argc, char** argv) {
  if (argc >= 3) return print_command_help(argv[2]);
  std::fputs(usage().c_str(), stdout);
  return 0;
}

// Whether the command line asks for its command's help (--help or -h anywhere after the command).
bool asks_for_help(int argc, char** argv) {
  for (int i = 2; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(usage().c_str(), stderr);
    return 2;
  }
  if (std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0) return print_help(argc, argv);
  const std::string command = argv[1];
  if (asks_for_help(argc, argv)) return print_command_help(command);
  aw::configure_allocator();
  try {
    if (command == "info") return aw::run_info(argc, argv);
    if (command == "attend") return aw::run_attend(argc, argv);
    if (command == "activations") return aw::run_activations(argc, argv);
    if (command == "train") return aw::run_train(argc, argv);
    if (command == "split") return aw::run_split(argc, argv);
    if (command == "translate") return aw::run_translate(argc, argv);
    if (command == "compare") return aw::run_compare(argc, argv);
    if (const auto* descriptor = aw::find_analysis(command)) return aw::run_analysis(*descriptor, argc, argv);
    std::fprintf(stderr, "attention-cli: unknown command '%s' (see attention-cli help)\n", command.c_str());
    return 2;
  } catch (const aw::Error& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
  } catch (const c10::Error& error) {
    std::fprintf(stderr, "error: %s\n", error.what_without_backtrace());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
  }
  return 1;
}

// app/cli/main.cpp — attention-cli: the headless workbench. Dispatches to one command; bad input
// becomes one line on stderr and exit code 1 (2 for a usage error), never a crash.
#include "app/cli/commands.h"
#include "models/runtime.h"
#include "models/errors.h"

#include <c10/util/Exception.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace {

constexpr const char* kUsage = R"(usage: attention-cli <command> [options]

commands:
  info    --model DIR                      architecture, sizes, parameters, dtype, device
  attend  --model DIR --text "..."         every layer's and head's attention for a text
          [--out FILE.json] [--top K] [--truncate]
  eval    --model DIR --text FILE          perplexity over windows (LM) or accuracy, per-class F1 and
          [--window N] [--batch B]         confusion matrix (classifier, FILE = label<TAB>text lines)
  train   --arch transformer_lm|bet_sf|bet_sg --train FILE --valid FILE --out DIR
          [--layers 2 --heads 4 --d-model 128 --d-ff 512 --window 64] [--epochs 10 --batch 16]
          [--lr 1e-3 --warmup 200 --schedule inverse_sqrt|cosine --dropout 0.1 --clip 1.0]
          [--seed 1 --min-count 1 --log-every 50 --diag-mode normal|reduced|magnified|mask]
          [--no-diag-free-mask] [--norm pre|post] [--positions learned|sinusoidal] [--untied]
          [--f16] [--resume DIR]            Ctrl-C saves and stops; --resume continues
          [--lambda-p 1.0]                 bet_sg: pointer-loss weight; --train must be .conllu
                                           (a .conllu FILE is read as its word forms everywhere)
  train   --arch lama|bigru_mean|encoder_classifier --train FILE.tsv --valid FILE.tsv --out DIR
          [--embedding-dim 100 --hidden 64 --heads 10 --mlp-hidden 512 --dropout 0.4 --window 256]
          [--context mean|learned --regularizer none|penal|emb --lambda 0.2]   (lama)
          [--layers 1 --heads 4 --d-model 128 --d-ff 512 --d-head N]          (encoder_classifier)
          [--epochs --batch 32 --lr --warmup 100 --seed --min-count --f16 --resume DIR --raw-words]
          [--dry-run]                      label<TAB>text lines; best epoch by validation accuracy
  split   --data FILE --out DIR            seeded shuffle of a labelled file into train/valid/test.tsv
          [--seed 1] [--percent 80,10,10]
  stats   --model DIR [--model DIR2 …]     Bird-Eye Table 1: CA, HA(μ), HA(σ), Ratio per layer
          --text FILE [--window N --batch B] (--per-head: per head; --no-first-row: row 0 not in CA)
          [--out FILE.csv]
  diag-sweep --model DIR --text FILE       Bird-Eye Table 2 / Figure 3: the metric with the dot-product
          [--factors 0,0.2,…,2,mask]       diagonal scaled by each factor ("mask" = DiagFreeMask)
          [--window N --batch B --out FILE.csv]
  top-tokens --model DIR [--model DIR2 …]  Bird-Eye Table 3: top-k tokens attended (head mean, row of
          --text "…" | --sentences FILE    token t−1) per layer when predicting the target token t
          [--target T] [--k 3] [--out FILE.csv]   (0-based; default the last token; FILE lines may
                                           end in <TAB>T)
  ablate  --model DIR --text FILE          Michel Tables 1–3: the metric with each head off (single) or
          [--mode single|all-but-one] [--all]  each head alone in its layer (all-but-one; --all: every
          [--window N --batch B --out FILE.csv]  head's row, not only the best per layer)
  importance --model DIR --text FILE       Michel §4.1: I_h = mean |∂L/∂ξ_h| per head, each layer
          [--no-normalize] [--out FILE.csv]  divided by its ℓ2 norm unless --no-normalize
  prune   --model DIR --text FILE          Michel Figure 3: the metric with step % more heads off each
          [--step 10] [--order importance|oracle|both] [--out FILE.csv]   step, in ascending order
          [--apply P --save DIR]           remove P % of the heads for real and save the checkpoint
  word-weights --model DIR --data FILE    LAMA Figure 4: each occurrence's attention weight, by label
          --words a,b,c [--head mean|K]    (CSV word,label,weight); --summary: word,label,count,mean,median;
          [--scale none|length] [--out FILE.csv]   --density: Gaussian KDE (Silverman) per word and label
          [--summary FILE.csv] [--density FILE.csv] [--points 100] [--batch 32]
  keywords --model DIR --data FILE        LAMA Table 6: words with the highest mean weight per label
          [--top 10 --min-count 5] [--head mean|K] [--scale none|length] [--with-punctuation]
          [--out FILE.csv]                 (CSV label,rank,word,mean_weight,count)
  help                                     this text

every command: --device auto|cpu|cuda[:N]  (auto = CUDA when present), --threads N, --json
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  aw::configure_allocator();
  try {
    if (command == "info") return aw::run_info(argc, argv);
    if (command == "attend") return aw::run_attend(argc, argv);
    if (command == "eval") return aw::run_eval(argc, argv);
    if (command == "train") return aw::run_train(argc, argv);
    if (command == "stats") return aw::run_stats(argc, argv);
    if (command == "diag-sweep") return aw::run_diag_sweep(argc, argv);
    if (command == "top-tokens") return aw::run_top_tokens(argc, argv);
    if (command == "ablate") return aw::run_ablate(argc, argv);
    if (command == "importance") return aw::run_importance(argc, argv);
    if (command == "prune") return aw::run_prune(argc, argv);
    if (command == "word-weights") return aw::run_word_weights(argc, argv);
    if (command == "keywords") return aw::run_keywords(argc, argv);
    if (command == "split") return aw::run_split(argc, argv);
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

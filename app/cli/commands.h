// app/cli/commands.h — the attention-cli commands. Each returns the process exit code and throws
// aw::Error for bad input (the caller prints its one line and exits 1).
#pragma once

namespace aw {

int run_info(int argc, char** argv);
int run_attend(int argc, char** argv);
int run_eval(int argc, char** argv);
int run_train(int argc, char** argv);
int run_stats(int argc, char** argv);
int run_diag_sweep(int argc, char** argv);
int run_top_tokens(int argc, char** argv);
int run_ablate(int argc, char** argv);
int run_importance(int argc, char** argv);
int run_prune(int argc, char** argv);
int run_word_weights(int argc, char** argv);
int run_keywords(int argc, char** argv);
int run_split(int argc, char** argv);

}  // namespace aw

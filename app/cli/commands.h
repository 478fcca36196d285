// app/cli/commands.h — the attention-cli commands that are not analyses (those run through
// analysis_command.h). Each returns the process exit code and throws
// aw::Error for bad input (the caller prints its one line and exits 1).
#pragma once

namespace aw {

int run_info(int argc, char** argv);
int run_attend(int argc, char** argv);
int run_activations(int argc, char** argv);
int run_train(int argc, char** argv);
int run_split(int argc, char** argv);
int run_translate(int argc, char** argv);
int run_compare(int argc, char** argv);

}  // namespace aw

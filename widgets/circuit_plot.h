// widgets/circuit_plot.h — edge attribution's figure from its tables (attention-cli eap): each circuit's
// faithfulness against its size in edges, with the 95 % interval as a band where the run had one, and
// the clean run (1) and the corrupted run (0) as reference lines; and token attribution's strips (attention-cli
// token-attribution): one row per method over the sentence's tokens, each token's cell coloured by its
// score as a share of the row's largest but the explained position's own, the token written on it (a
// translation model's: the source's tokens, a white rule, then the target's).
#pragma once

namespace aw {

class ResultPlot;
struct PlotInput;

void plot_circuit_faithfulness(ResultPlot& plot, const PlotInput& input);
void plot_token_strips(ResultPlot& plot, const PlotInput& input);

}  // namespace aw

// widgets/circuit_plot.h — edge attribution's figure from its tables (attention-cli eap): each circuit's
// faithfulness against its size in edges, with the 95 % interval as a band where the run had one, and
// the clean run (1) and the corrupted run (0) as reference lines.
#pragma once

namespace aw {

class ResultPlot;
struct PlotInput;

void plot_circuit_faithfulness(ResultPlot& plot, const PlotInput& input);

}  // namespace aw

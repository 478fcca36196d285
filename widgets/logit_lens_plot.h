// widgets/logit_lens_plot.h — the logit lens's classic figure from its table (attention-cli logit-lens):
// layers down, positions across, each cell the layer's top token at that position, coloured by its
// probability — or, when the run scored a --target, by the target's probability.
#pragma once

namespace aw {

class ResultPlot;
struct PlotInput;

void plot_logit_lens(ResultPlot& plot, const PlotInput& input);

}  // namespace aw

// app/gui/analysis_plots.h — the plot of each analysis tab, drawn from its result table (the CSV the
// CLI writes): Table 1's Ratio per layer as bars, the ablation Δ and importance as layers × heads
// matrices, the pruning and diagonal-sweep curves (and their epoch series), the loss per epoch. The tab table (analysis_tabs.cpp) names them.
#pragma once

namespace aw {

class ResultPlot;
struct CsvTable;

void plot_table_one(ResultPlot& plot, const CsvTable& table);
void plot_ablation(ResultPlot& plot, const CsvTable& table);
void plot_importance(ResultPlot& plot, const CsvTable& table);
void plot_pruning(ResultPlot& plot, const CsvTable& table);
void plot_diagonal_sweep(ResultPlot& plot, const CsvTable& table);
void plot_training(ResultPlot& plot, const CsvTable& table);

}  // namespace aw

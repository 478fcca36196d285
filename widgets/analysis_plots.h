// widgets/analysis_plots.h — the plot of each analysis, drawn from its result table (the CSV the
// CLI writes): Table 1's Ratio per layer as bars, the ablation Δ and importance as layers × heads
// matrices, the pruning and diagonal-sweep curves (and their epoch series), the loss per epoch, LAMA's
// word-weight densities per rating. The window's analysis tabs (app/gui/analysis_tabs.cpp) and
// attention-plot (app/plot/, the figures of docs/results.md) draw with the same functions.
#pragma once

#include <QColor>
#include <QString>

namespace aw {

class ResultPlot;
struct CsvTable;

void plot_table_one(ResultPlot& plot, const CsvTable& table);
void plot_ablation(ResultPlot& plot, const CsvTable& table);
void plot_importance(ResultPlot& plot, const CsvTable& table);
void plot_pruning(ResultPlot& plot, const CsvTable& table);
void plot_diagonal_sweep(ResultPlot& plot, const CsvTable& table);
void plot_training(ResultPlot& plot, const CsvTable& table);
// LAMA Figure 4: one small plot per word, a density curve per rating, from word-weights' --summary and
// --density tables. A (word, rating) seen fewer than kMinPlottedCount times is left out (its density
// is a spike that flattens the other curves). x_label names the weight's scale; an empty title gives
// "Word weights per rating (LAMA Figure 4)".
constexpr int kMinPlottedCount = 3;
void plot_word_weights(ResultPlot& plot, const CsvTable& summary, const CsvTable& density, const QString& x_label,
                       const QString& title = {});
// "4 ★" for a rating 1–5, else the label as it is; and the rating's colour, red (bad) to blue (good),
// invalid for other labels (the plot's palette then colours them).
QString rating_text(const QString& label);
QColor rating_colour(const QString& label);

}  // namespace aw

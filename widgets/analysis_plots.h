// widgets/analysis_plots.h — the plot of each result kind, drawn from its result table
// (table/result_table.h): Table 1's Ratio per layer as bars, the ablation Δ and importance as layers ×
// heads matrices, the pruning and diagonal-sweep curves (and their epoch series), the loss per epoch,
// LAMA's word-weight densities per rating. One table of kinds (plot_kinds) serves the window's
// analysis tabs (a descriptor names its kind) and attention-plot (the figures of docs/results.md).
#pragma once

#include "table/result_table.h"

#include <QColor>
#include <QString>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace aw {

class ResultPlot;

// What a plotter draws from: the result's main table, the report's other tables by name (LAMA
// Figure 4 reads "density" beside the summary), and labels a front end may set.
struct PlotInput {
  const ResultTable& table;
  const ResultTables* parts = nullptr;
  QString x_label;  // word weights: the weights' scale ("attention weight" when empty)
  QString title;    // word weights, pruning: the figure's title (the default when empty)
  // head types: the score mapped (empty: the table's `shown`), or, with both set, a scatter of
  // scatter_y against scatter_x over every head
  std::string score, scatter_x, scatter_y;
  // How a token of the table is shown (the window's one rendering of line breaks and bytes); the
  // token as it is when empty.
  std::function<QString(const std::string&)> token_text;

  // The part `name`, or nullptr.
  const ResultTable* part(const std::string& name) const;
};

using Plotter = std::function<void(ResultPlot&, const PlotInput&)>;

// Columns a table must have to be drawn: each entry lists alternatives, one of which must be there.
using RequiredColumns = std::vector<std::vector<std::string>>;

struct PlotKind {
  std::string name;     // the kind: a descriptor's `plot`, attention-plot's KIND
  std::string command;  // the attention-cli command whose --out CSV it draws
  std::string summary;  // one line for attention-plot --help
  RequiredColumns columns;
  // Further tables it reads: {part name, the option that writes it (for messages), its columns}.
  struct Part {
    std::string name, option;
    RequiredColumns columns;
  };
  std::vector<Part> parts;
  Plotter draw;
};

// Every kind, in the order attention-plot --help lists them.
const std::vector<PlotKind>& plot_kinds();
// nullptr when no kind has that name.
const PlotKind* find_plot_kind(const std::string& name);
// The first required column `table` lacks ("'head' or 'best_head'"), or "" when it has them all.
std::string missing_column(const ResultTable& table, const RequiredColumns& columns);

// A (word, rating) seen fewer than kMinPlottedCount times is left out of LAMA Figure 4 (its density
// is a spike that flattens the other curves).
constexpr int kMinPlottedCount = 3;
// "4 ★" for a rating 1–5, else the label as it is; and the rating's colour, red (bad) to blue (good),
// invalid for other labels (the plot's palette then colours them).
QString rating_text(const QString& label);
QColor rating_colour(const QString& label);

}  // namespace aw

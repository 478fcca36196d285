// widgets/logit_lens_plot.cpp — see logit_lens_plot.h.
#include "widgets/logit_lens_plot.h"

#include "widgets/analysis_plots.h"
#include "widgets/result_plot.h"

#include <QMap>

#include <cmath>

namespace aw {

void plot_logit_lens(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  const int layer_col = table.column("layer"), position_col = table.column("position"),
            token_col = table.column("token"), top_col = table.column("top1"), p_col = table.column("p1"),
            probability_col = table.column("probability");
  const auto shown = [&](const std::string& token) {
    return input.token_text ? input.token_text(token) : QString::fromStdString(token);
  };
  // Coloured by the target's probability when the run scored one token everywhere.
  const auto target = table.meta_text("target");
  const bool by_target = !target.empty() && target != "next" && probability_col >= 0;
  QMap<int, int> column_of;  // position → column, in ascending position order
  int layers = 0;
  for (int row = 0; row < table.row_count(); ++row) {
    column_of.insert(static_cast<int>(table.number(row, position_col)), 0);
    layers = std::max(layers, static_cast<int>(table.number(row, layer_col)) + 1);
  }
  QStringList column_labels;
  int next = 0;
  for (auto it = column_of.begin(); it != column_of.end(); ++it) it.value() = next++;
  column_labels.resize(column_of.size());
  QVector<QVector<double>> values(layers, QVector<double>(column_of.size(), NAN));
  QVector<QStringList> texts(layers, QStringList(column_of.size())), tips = texts;
  int k = 0;  // the top tokens the table lists
  while (table.column("top" + std::to_string(k + 1)) >= 0 && table.column("p" + std::to_string(k + 1)) >= 0) ++k;
  const int scored_col = table.column("scored"), rank_col = table.column("rank");
  for (int row = 0; row < table.row_count(); ++row) {
    const int layer = static_cast<int>(table.number(row, layer_col));
    const int position = static_cast<int>(table.number(row, position_col));
    const int column = column_of.value(position);
    values[layer][column] = table.number(row, by_target ? probability_col : p_col);
    texts[layer][column] = shown(table.text(row, top_col));
    column_labels[column] = QString::number(position) + " " + shown(table.text(row, token_col));
    // The tip: where, the scored token's rank and probability, then the top k.
    QStringList lines{QString("%1, position %2 (%3)")
                          .arg(layer == 0 ? QString("embeddings") : QString("after layer %1").arg(layer))
                          .arg(position)
                          .arg(shown(table.text(row, token_col)))};
    if (scored_col >= 0 && !table.text(row, scored_col).empty())
      lines << QString("%1 %2: rank %3, p = %4")
                   .arg(by_target ? "target" : "next", shown(table.text(row, scored_col)))
                   .arg(table.text(row, rank_col).c_str())
                   .arg(table.number(row, probability_col), 0, 'g', 3);
    for (int rank = 1; rank <= k; ++rank)
      lines << QString("%1. %2  %3")
                   .arg(rank)
                   .arg(shown(table.text(row, table.column("top" + std::to_string(rank)))))
                   .arg(table.number(row, table.column("p" + std::to_string(rank))), 0, 'f', 3);
    tips[layer][column] = lines.join('\n');
  }
  QStringList layer_labels{"emb"};
  for (int layer = 1; layer < layers; ++layer) layer_labels << QString::number(layer);
  const auto title = by_target
                         ? QString("Logit lens: top token per layer, coloured by P(%1)").arg(shown(target))
                         : QString("Logit lens: top token per layer and position");
  plot.showMatrix(title, values, "", "", by_target ? "P(target)" : "P(top token)", false, layer_labels);
  plot.setColumnLabels(column_labels);
  plot.addCellTexts(texts);
  plot.setCellToolTips(tips);
}

}  // namespace aw

// widgets/circuit_plot.cpp — see circuit_plot.h.
#include "widgets/circuit_plot.h"

#include "widgets/analysis_plots.h"
#include "widgets/result_plot.h"

#include <algorithm>
#include <cmath>

namespace aw {

void plot_circuit_faithfulness(ResultPlot& plot, const PlotInput& input) {
  const auto* circuits = input.part("circuits");
  if (!circuits || circuits->row_count() == 0) return plot.clear("No circuit was measured");
  const int edges = circuits->column("edges"), value = circuits->column("faithfulness");
  const int low = circuits->column("low"), high = circuits->column("high");
  PlotSeries curve{"faithfulness", {}, {}};
  for (int row = 0; row < circuits->row_count(); ++row) {
    curve.x << circuits->number(row, edges);
    curve.y << circuits->number(row, value);
    if (low >= 0 && high >= 0) curve.low << circuits->number(row, low), curve.high << circuits->number(row, high);
  }
  if (!curve.low.isEmpty()) curve.band_name = "95 % interval over pairs";
  const auto method = QString::fromStdString(circuits->meta_text("method"));
  const auto select = QString::fromStdString(circuits->meta_text("select"));
  plot.showCurves(QString("Faithfulness of the %1 circuits (%2)").arg(select.startsWith("greedy") ? "greedy" : "top", method),
                  {curve}, "edges in the circuit", "share of clean − corrupted recovered",
                  {ReferenceLine{"clean run", 1.0}, ReferenceLine{"corrupted run", 0.0}});
}

void plot_token_strips(ResultPlot& plot, const PlotInput& input) {
  const auto& table = input.table;
  const int token_col = table.column("token");
  QStringList methods;
  for (const char* name : {"attention", "rollout", "flow", "gradient"})
    if (table.column(name) >= 0) methods << name;
  if (methods.isEmpty() || table.row_count() == 0) return plot.clear("No token scores to draw");
  QStringList tokens;
  for (int row = 0; row < table.row_count(); ++row) {
    const auto token = table.text(row, token_col);
    tokens << (input.token_text ? input.token_text(token) : QString::fromStdString(token));
  }
  // The explained position itself (a language model's: its own token, which attention and the gradient
  // favour) is left out of each row's largest, and its cell capped at it, so the others' colours read.
  bool position_ok = false;
  const int explained = QString::fromStdString(table.meta_text("position")).toInt(&position_ok);
  QVector<QVector<double>> values;
  QVector<QStringList> texts, tips;
  for (const auto& method : methods) {
    const int column = table.column(method.toStdString());
    QVector<double> row_values;
    double largest = 0;
    for (int row = 0; row < table.row_count(); ++row)
      if (!(position_ok && static_cast<int>(table.number(row, table.column("position"))) == explained && table.row_count() > 1))
        largest = std::max(largest, std::abs(table.number(row, column)));
    QStringList row_tips;
    for (int row = 0; row < table.row_count(); ++row) {
      const double score = table.number(row, column);
      row_values << (largest > 0 ? std::min(score / largest, 1.0) : 0.0);
      row_tips << QString("%1 · %2 · position %3: %4").arg(method, tokens[row]).arg(row).arg(score, 0, 'g', 4);
    }
    values << row_values;
    texts << tokens;
    tips << row_tips;
  }
  const auto target = QString::fromStdString(table.meta_text("target"));
  const auto position = QString::fromStdString(table.meta_text("position"));
  plot.showMatrix(QString("What the prediction %1 at position %2 draws on").arg(target, position), values, "", "",
                  "share of the row's largest (the position itself left out)", false, methods);
  plot.setColumnLabels(tokens);
  plot.addCellTexts(texts);
  plot.setCellToolTips(tips);
}

}  // namespace aw

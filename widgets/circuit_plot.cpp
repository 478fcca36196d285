// widgets/circuit_plot.cpp — see circuit_plot.h.
#include "widgets/circuit_plot.h"

#include "widgets/analysis_plots.h"
#include "widgets/result_plot.h"

#include <qcustomplot.h>

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
  // A translation model's table lists the source's tokens, then the target's (its "side" column); the
  // explained position is the target's.
  const int side_col = table.column("side");
  const int position_col = table.column("position");
  bool position_ok = false;
  const int explained = QString::fromStdString(table.meta_text("position")).toInt(&position_ok);
  auto side = [&](int row) { return side_col >= 0 ? QString::fromStdString(table.text(row, side_col)) : QString(); };
  auto is_explained = [&](int row) {
    return position_ok && static_cast<int>(table.number(row, position_col)) == explained &&
           (side_col < 0 || side(row) == "target") && table.row_count() > 1;
  };
  QVector<QVector<double>> values;
  QVector<QStringList> texts, tips;
  for (const auto& method : methods) {
    const int column = table.column(method.toStdString());
    QVector<double> row_values;
    double largest = 0;
    for (int row = 0; row < table.row_count(); ++row)
      if (!is_explained(row)) largest = std::max(largest, std::abs(table.number(row, column)));
    QStringList row_tips;
    for (int row = 0; row < table.row_count(); ++row) {
      const double score = table.number(row, column);
      const auto where = side_col >= 0 ? QString("%1 position %2").arg(side(row)).arg(table.number(row, position_col))
                                       : QString("position %1").arg(row);
      row_values << (largest > 0 ? std::min(score / largest, 1.0) : 0.0);
      row_tips << QString("%1 · %2 · %3: %4").arg(method, tokens[row], where).arg(score, 0, 'g', 4);
    }
    values << row_values;
    texts << tokens;
    tips << row_tips;
  }
  const auto target = QString::fromStdString(table.meta_text("target"));
  const auto position = QString::fromStdString(table.meta_text("position"));
  const auto title = side_col >= 0
                         ? QString("What the prediction %1 at target position %2 draws on: the source, then the target")
                               .arg(target, position)
                         : QString("What the prediction %1 at position %2 draws on").arg(target, position);
  plot.showMatrix(title, values, "", "", "share of the row's largest (the position itself left out)", false, methods);
  plot.setColumnLabels(tokens);
  if (side_col >= 0) {  // a white rule between the source's last token and the target's first
    int sources = 0;
    while (sources < table.row_count() && side(sources) == "source") ++sources;
    auto* rule = new QCPItemStraightLine(plot.plot());
    rule->point1->setCoords(sources + 0.5, 0), rule->point2->setCoords(sources + 0.5, 1);
    rule->setPen(QPen(Qt::white, 3));
  }
  plot.addCellTexts(texts);
  plot.setCellToolTips(tips);
}

}  // namespace aw

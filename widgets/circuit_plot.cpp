// widgets/circuit_plot.cpp — see circuit_plot.h.
#include "widgets/circuit_plot.h"

#include "widgets/analysis_plots.h"
#include "widgets/result_plot.h"

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

}  // namespace aw

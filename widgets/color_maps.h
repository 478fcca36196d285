// widgets/color_maps.h — perceptual colour maps for QCustomPlot, and the coordinate range of a
// colour map's cells.
#pragma once

#include <qcustomplot.h>

namespace aw {

// Viridis (van der Walt & Smith), from its published stop colours: perceptually uniform, readable
// in grey and by colour-blind viewers.
QCPColorGradient viridis_gradient();

// Blue – white – red (ColorBrewer RdBu ends) for signed values centred on 0, e.g. ablation Δ.
QCPColorGradient diverging_gradient();

// The range QCPColorMapData::setRange needs for `count` cells centred on first, first + 1, …:
// QCustomPlot takes the range's ends as the outer cells' centres, so a single cell needs a range one
// cell wide around its centre (a zero-width range draws nothing).
QCPRange cell_centre_range(int count, double first);

}  // namespace aw

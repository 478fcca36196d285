// widgets/color_maps.h — perceptual colour maps for QCustomPlot.
#pragma once

#include <qcustomplot.h>

namespace aw {

// Viridis (van der Walt & Smith), from its published stop colours: perceptually uniform, readable
// in grey and by colour-blind viewers.
QCPColorGradient viridis_gradient();

// Blue – white – red (ColorBrewer RdBu ends) for signed values centred on 0, e.g. ablation Δ.
QCPColorGradient diverging_gradient();

}  // namespace aw

// widgets/color_maps.h — perceptual colour maps for QCustomPlot.
#pragma once

#include <qcustomplot.h>

namespace aw {

// Viridis (van der Walt & Smith), from its published stop colours: perceptually uniform, readable
// in grey and by colour-blind viewers.
QCPColorGradient viridis_gradient();

}  // namespace aw

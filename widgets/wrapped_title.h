// widgets/wrapped_title.h — a plot title's line broken between words to fit a width, for the QCustomPlot
// title elements of the heatmap and the result plots (a title wider than its column was cut at both
// ends, since a layout cell centres what it cannot hold).
#pragma once

#include <QFontMetrics>
#include <QString>
#include <QStringList>

namespace aw {

// `line` as it is where it fits `width` pixels; else broken between words onto a second line, and only
// what two lines cannot hold cut with "…" at the end of the second (one word wider than the width: cut
// in its middle).
QStringList wrapped_line(const QFontMetrics& metrics, const QString& line, int width);

}  // namespace aw

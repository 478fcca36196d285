// widgets/layer_labels.h — what the layer rows of the heads panel and the overview are called: "L1",
// "L2", … or, for a translation model, its attention blocks ("Enc 1", "Dec 1", "Cross 1"), and the
// label column's width those names need.
#pragma once

#include <QFontMetrics>
#include <QString>
#include <QStringList>

#include <algorithm>

namespace aw {

struct LayerLabels {
  QStringList names;  // empty: "L1", "L2", …

  QString name(int layer) const { return layer < names.size() ? names[layer] : QString("L%1").arg(layer + 1); }
  // At least `minimum` pixels; wider when a name needs it.
  int width(const QFontMetrics& metrics, int minimum) const {
    int widest = minimum;
    for (const auto& name : names) widest = std::max(widest, metrics.horizontalAdvance(name) + 8);
    return widest;
  }
};

}  // namespace aw

// widgets/colour_scale.h — how an attention matrix's weights become colours: fixed [0, 1] (heads and
// models compare; a one-row distribution up to its largest weight), auto (0 to the 99th percentile of
// the positive weights, higher ones in the top colour: a causal map's row 0 always holds a 1, so its
// maximum would be the fixed scale again),
// log (from the smallest positive weight, zeros at a floor), or each row divided by its maximum (long
// sequences, whose weights are all near 1/n). The large heatmap and the overview's thumbnails share it.
#pragma once

#include "widgets/attention_matrix.h"

#include <QString>

#include <vector>

namespace aw {

enum class ColourScale { Fixed, Auto, Log, RowNormalised };
// "fixed 0–1", "auto", "log", "per row" (a chooser's items, in enum order) and back; unknown → Fixed.
QString colour_scale_name(ColourScale scale);
ColourScale colour_scale_from_name(const QString& name);

struct ScaledWeights {
  std::vector<float> values;  // row-major, what the colours encode (weights, or weights ÷ row max)
  double low = 0.0, high = 1.0;
  bool logarithmic = false;
  QString value_label;        // for a colour bar: "attention weight", "weight ÷ its row's maximum"
  QString caption;            // for a title: "scale 0–1", "log scale", …
};
ScaledWeights scale_weights(const AttentionMatrix& matrix, ColourScale scale);

}  // namespace aw

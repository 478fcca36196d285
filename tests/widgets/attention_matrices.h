// tests/widgets/attention_matrices.h — the hand-made attention matrix the widget tests draw.
#pragma once

#include "widgets/attention_matrix.h"

#include <QStringList>

namespace aw::test {

// A 3 × 3 causal matrix with known weights.
inline AttentionMatrix three_by_three() {
  AttentionMatrix matrix;
  matrix.rows = matrix.cols = 3;
  matrix.weights = {1.0f, 0.0f, 0.0f, 0.25f, 0.75f, 0.0f, 0.5f, 0.125f, 0.375f};
  matrix.row_labels = matrix.col_labels = QStringList{"the", "cat", "sat"};
  matrix.title = "test";
  return matrix;
}

}  // namespace aw::test

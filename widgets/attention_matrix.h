// widgets/attention_matrix.h — one attention matrix as the widgets take it: plain floats and token
// labels, no LibTorch.
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

namespace aw {

struct AttentionMatrix {
  int rows = 0;                 // queries
  int cols = 0;                 // keys
  std::vector<float> weights;   // row-major, rows × cols, each row sums to 1
  QStringList row_labels;       // query tokens, size rows
  QStringList col_labels;       // key tokens, size cols
  QString title;                // e.g. "bet_sf · layer 2 · head 1"

  float at(int row, int col) const { return weights[static_cast<size_t>(row) * cols + col]; }
};

}  // namespace aw

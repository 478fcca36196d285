// widgets/attention_matrix.h — one attention matrix as the widgets take it: plain floats and token
// labels, no LibTorch.
#pragma once

#include <QString>
#include <QStringList>

#include <algorithm>
#include <vector>

namespace aw {

struct AttentionMatrix {
  int rows = 0;                 // queries
  int cols = 0;                 // keys
  std::vector<float> weights;   // row-major, rows × cols, each row sums to 1 (a learned sink: its column last)
  QStringList row_labels;       // query tokens, size rows
  QStringList col_labels;       // key tokens, size cols
  QString title;                // e.g. "bet_sf · layer 2 · head 1"
  // Axis titles; empty = "query (attending token)" and "key (attended token)".
  QString row_axis, col_axis;
  // A region of a longer text (a pooled map's tokens at full resolution): its first query and key's
  // 0-based position in the text and the text's length, so the axes number tokens as the text does
  // ("2,049–2,560 of 8,192"); text_length 0 = the matrix is the whole text.
  int first_row = 0, first_col = 0, text_length = 0;

  float at(int row, int col) const { return weights[static_cast<size_t>(row) * cols + col]; }
  // The weight the colour scale tops out at: 1 for token-to-token attention (comparable across
  // heads and models); for one distribution over a document's words (LAMA, weights near 1/n) its
  // largest weight, else every word would look alike.
  float colourCeiling() const {
    if (rows != 1 || weights.empty()) return 1.0f;
    const float largest = *std::max_element(weights.begin(), weights.end());
    return largest > 0 ? largest : 1.0f;
  }
};

}  // namespace aw

// app/gui/capture_matrices.cpp — see capture_matrices.h.
#include "app/gui/capture_matrices.h"

#include <QLocale>

#include <algorithm>
#include <vector>

namespace aw {
namespace {

// One head of a block, or (head −1) the mean of its heads, row-major.
std::vector<float> block_weights(const WeightBlock& block, int head) {
  if (head >= 0) return std::vector<float>(block.head(head), block.head(head) + static_cast<size_t>(block.rows) * block.cols);
  return block.meanOfHeads();
}

// The title of `layer`'s `head` with `extent` (what the cells are, when not single tokens) after the head.
QString titled(const AttentionCapture& capture, int layer, int head, const QString& model_name, const HeadGates& gates,
               const QString& extent) {
  if (layer < 0 || layer >= capture.layerCount()) return {};
  const int heads = capture.layers[layer].heads;
  int off = 0;
  if (layer < static_cast<int>(gates.on.size()))
    for (int h = 0; h < heads; ++h) off += gates.isOn(layer, h) ? 0 : 1;
  QString which = head >= 0 ? QString("head %1").arg(head + 1) : QString("mean of %1 heads").arg(heads);
  if (head < 0 && off > 0) which += QString(" (%1 off, still in the mean)").arg(off);
  else if (head >= 0 && layer < static_cast<int>(gates.on.size()) && !gates.isOn(layer, head)) which += " (off)";
  if (capture.isTranslation()) {  // "mt · cross 2 · head 1": the block's kind and its layer within the kind
    int within = 0;  // a saved file may hold some kinds only: it says which layer each block is
    for (int block = 0; block <= layer; ++block) within += capture.layer_kinds[block] == capture.layer_kinds[layer];
    if (layer < static_cast<int>(capture.layer_numbers.size())) within = capture.layer_numbers[layer];
    const auto kind = QString::fromStdString(to_string(capture.layer_kinds[layer]));
    return QString("%1 · %2 %3 · %4").arg(model_name, kind).arg(within).arg(which);
  }
  const int number = layer < static_cast<int>(capture.layer_numbers.size()) ? capture.layer_numbers[layer] : layer + 1;
  if (!extent.isEmpty()) which += " · " + extent;
  return QString("%1 · layer %2 · %3").arg(model_name).arg(number).arg(which);
}

// gpt-oss: one more column, last, holding what each row's weights over the tokens leave of 1 — its
// head's learned sink's share (the mean's, for the mean of the heads).
void with_sink_column(AttentionMatrix& matrix) {
  std::vector<float> widened;
  widened.reserve(static_cast<size_t>(matrix.rows) * (matrix.cols + 1));
  for (int row = 0; row < matrix.rows; ++row) {
    const auto first = matrix.weights.begin() + static_cast<std::ptrdiff_t>(row) * matrix.cols;
    float kept = 0;
    for (auto weight = first; weight != first + matrix.cols; ++weight) kept += *weight;
    widened.insert(widened.end(), first, first + matrix.cols);
    widened.push_back(std::max(0.0f, 1.0f - kept));
  }
  matrix.weights = std::move(widened);
  matrix.cols += 1;
  matrix.col_labels << QString::fromUtf8("⟨sink⟩");
}

}  // namespace

AttentionMatrix capture_matrix(const AttentionCapture& capture, int layer, int head, const QString& model_name,
                               const HeadGates& gates) {
  AttentionMatrix matrix;
  if (layer < 0 || layer >= capture.layerCount()) return matrix;
  const auto block = capture.layer(layer);  // made again here when not held: the view asks off its thread
  const auto& columns = capture.columnTokens(layer);
  matrix.rows = block.rows;
  matrix.cols = block.cols;
  matrix.col_labels = columns;
  // One query row is a global context (LAMA); otherwise query i is the block's row token i.
  matrix.row_labels =
      block.rows == capture.rowTokens(layer).size() ? capture.rowTokens(layer) : QStringList(block.rows, "context");
  matrix.weights = block_weights(block, head);
  matrix.title = matrix_title(capture, layer, head, model_name, gates);
  if (capture.learned_sinks && capture.pool == 0) with_sink_column(matrix);
  if (capture.isTranslation()) {  // which side of the translation each axis holds
    const auto kind = capture.layer_kinds[layer];
    matrix.row_axis = queries_are_target(kind) ? "query (target token)" : "query (source token)";
    matrix.col_axis = keys_are_target(kind) ? "key (target token)" : "key (source token)";
  }
  return matrix;
}

AttentionMatrix thumbnail_matrix(const AttentionCapture& capture, int layer, int head) {
  AttentionMatrix matrix;
  if (layer < 0 || layer >= static_cast<int>(capture.thumbnails.size())) return matrix;
  const auto& block = capture.thumbnails[layer];
  matrix.rows = block.rows;
  matrix.cols = block.cols;
  matrix.weights = block_weights(block, head);
  return matrix;
}

QString matrix_title(const AttentionCapture& capture, int layer, int head, const QString& model_name,
                     const HeadGates& gates) {
  // A long text's map is its block means: the title says so, so a pooled weight is not read as one cell's.
  const auto extent = capture.pool > 1 ? QString("means of %1 × %1-token blocks").arg(capture.pool) : QString();
  return titled(capture, layer, head, model_name, gates, extent);
}

AttentionMatrix region_matrix(const AttentionCapture& capture, const WeightBlock& block, const QRect& tokens, int layer,
                              int head, const QString& model_name, const HeadGates& gates) {
  AttentionMatrix matrix;
  if (block.rows != tokens.height() || block.cols != tokens.width() || block.heads == 0) return matrix;
  matrix.rows = block.rows;
  matrix.cols = block.cols;
  matrix.weights = block_weights(block, head);
  matrix.row_labels = capture.tokens.mid(tokens.y(), tokens.height());
  matrix.col_labels = capture.tokens.mid(tokens.x(), tokens.width());
  matrix.first_row = tokens.y();
  matrix.first_col = tokens.x();
  matrix.text_length = capture.length();
  matrix.title = region_title(capture, tokens, layer, head, model_name, gates);
  return matrix;
}

QString region_title(const AttentionCapture& capture, const QRect& tokens, int layer, int head, const QString& model_name,
                     const HeadGates& gates) {
  const auto extent = QString("tokens %1 × %2 at full resolution")
                          .arg(token_span_text(tokens.y(), tokens.y() + tokens.height()),
                               token_span_text(tokens.x(), tokens.x() + tokens.width()));
  return titled(capture, layer, head, model_name, gates, extent);
}

QString token_span_text(int first, int end) {
  const QLocale english(QLocale::English);  // "2,049" whatever the desktop's locale, as the docs write it
  return english.toString(first + 1) + QChar(0x2013) + english.toString(end);
}

QString marked_changes(const QString& before, const QString& after) {
  // Longest common subsequence of the words; the words of `after` outside it are the changes.
  const auto old_words = before.split(' ', Qt::SkipEmptyParts), new_words = after.split(' ', Qt::SkipEmptyParts);
  const int m = old_words.size(), n = new_words.size();
  std::vector<std::vector<int>> common(m + 1, std::vector<int>(n + 1, 0));
  for (int i = m - 1; i >= 0; --i)
    for (int j = n - 1; j >= 0; --j)
      common[i][j] = old_words[i] == new_words[j] ? common[i + 1][j + 1] + 1 : std::max(common[i + 1][j], common[i][j + 1]);
  QStringList marked;
  for (int i = 0, j = 0; j < n;) {
    if (i < m && old_words[i] == new_words[j]) {
      marked << new_words[j].toHtmlEscaped();
      ++i, ++j;
    } else if (i < m && common[i + 1][j] >= common[i][j + 1]) {
      ++i;
    } else {
      marked << "<b>" + new_words[j].toHtmlEscaped() + "</b>";
      ++j;
    }
  }
  return marked.join(' ');
}

}  // namespace aw

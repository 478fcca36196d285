// app/gui/capture_matrices.h — what the Attention tab draws from a capture, as plain matrices: one
// layer's head or the mean of its heads with its labels and title, a long text's region at full
// resolution, an overview thumbnail, and the words a head change altered in a translation.
#pragma once

#include "app/gui/model_session.h"
#include "widgets/attention_matrix.h"

#include <QRect>
#include <QString>

namespace aw {

// One matrix of a capture: head −1 = the mean of all the layer's heads. A switched-off head still has
// its attention (its gate scales its output), so it stays in the mean; the title says how many are off.
AttentionMatrix capture_matrix(const AttentionCapture& capture, int layer, int head, const QString& model_name,
                               const HeadGates& gates = {});
// A region of a long text's layer at full resolution: `block` is what AttentionCapture::region made for
// `tokens` (0-based, x = keys, y = queries), shown as its head or the mean of its heads, labelled with
// those tokens, numbered as the text does, titled "… · tokens 2,049–2,560 × 1–512 at full resolution".
AttentionMatrix region_matrix(const AttentionCapture& capture, const WeightBlock& block, const QRect& tokens, int layer,
                              int head, const QString& model_name, const HeadGates& gates = {});
// Its title for the `tokens` on view (a zoom within the region shows fewer than it holds).
QString region_title(const AttentionCapture& capture, const QRect& tokens, int layer, int head, const QString& model_name,
                     const HeadGates& gates = {});
// Tokens [first, end) of a text as people count them: "2,049–2,560".
QString token_span_text(int first, int end);
// A thumbnail of the overview: the same from the capture's downsampled blocks, without labels.
AttentionMatrix thumbnail_matrix(const AttentionCapture& capture, int layer, int head);
// Its title alone: "bet_sf · layer 2 · mean of 4 heads (1 off, still in the mean)", or for a
// translation model "mt · cross 2 · head 1".
QString matrix_title(const AttentionCapture& capture, int layer, int head, const QString& model_name,
                     const HeadGates& gates);

// `after` as HTML with the words that are not in `before` (outside their longest common word
// subsequence) in bold: what a head change did to a translation.
QString marked_changes(const QString& before, const QString& after);

}  // namespace aw

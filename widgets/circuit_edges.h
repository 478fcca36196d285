// widgets/circuit_edges.h — the circuit graph's edges (circuit_graph.h) read from the tables of the
// circuit analyses (attention-cli eap, path-patch, composition; docs/circuits.md): each edge's value
// and, for a click, its row.
//   eap          sender ("input", "1.3", "mlp 1") → receiver ("q 2.1", "k 2.1", "v 2.1", "mlp 2",
//                "logits"): the score; a translation model's ("source", "target", "enc1.3", "mlp dec2",
//                "k cross1.2") on its blocks, a decoder layer's MLP in its cross-attention's column
//   path-patch   sender "1.3" → receiver "2.1" with input q/k/v, or "logits": the effect (sets of
//                heads, "1.1+1.3", are left out: a node is one head); a translation model's "enc1.3",
//                "cross2.1" drawn on the blocks its layer_names call "Enc 1", "Cross 2"
//   composition  sender_layer.sender_head → q/k/v of receiver_layer.receiver_head: the composition as a
//                multiple of chance, less 1 (above chance positive); a translation model's rows
//                (sender_kind, receiver_kind) drawn on its attention blocks by their layer_names
//                ("Enc 1", "Cross 2"), kinds a receiver does not read (empty cells) left out
#pragma once

#include "table/result_table.h"
#include "widgets/circuit_graph.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace aw {

// The edges of `table` as its analysis `kind` ("eap", "path-patch", "composition") wrote them, on a model
// of `heads_per_layer` (a translation model: per attention block, named by `layer_names`, the session's
// "Enc 1", "Dec 1", "Cross 1", …); rows naming a node the model lacks are left out. An empty graph for
// another kind.
CircuitGraphData circuit_edges(const QString& kind, const ResultTable& table, const std::vector<int>& heads_per_layer,
                               const QStringList& layer_names = {});

}  // namespace aw

// widgets/circuit_edges.cpp — see circuit_edges.h.
#include "widgets/circuit_edges.h"

#include <QStringList>

#include <algorithm>
#include <cmath>

#include <optional>

namespace aw {
namespace {

// "1.3" → head (0, 2); a translation model's "cross2.1" → head 0 of the column `layer_names` calls
// "Cross 2"; nothing for anything else.
std::optional<CircuitNode> head_named(const QString& text, const QStringList& layer_names = {}) {
  int kind_end = 0;
  while (kind_end < text.size() && text[kind_end].isLetter()) ++kind_end;
  const auto parts = text.mid(kind_end).split('.');
  bool layer_ok = false, head_ok = false;
  if (parts.size() != 2) return std::nullopt;
  int layer = parts[0].toInt(&layer_ok);
  const int head = parts[1].toInt(&head_ok);
  if (!layer_ok || !head_ok || layer < 1 || head < 1) return std::nullopt;
  if (kind_end > 0) {
    auto kind = text.left(kind_end);
    kind[0] = kind[0].toUpper();
    layer = static_cast<int>(layer_names.indexOf(QString("%1 %2").arg(kind).arg(layer))) + 1;
    if (layer < 1) return std::nullopt;
  }
  return CircuitNode{CircuitNode::Head, layer - 1, head - 1};
}

// "input", "logits", "mlp 2", "1.3"; a translation model's (`layer_names` its blocks): "source" and
// "target" (both the input node), "mlp enc1" (in the column "Enc 1"), "mlp dec2" (after its layer's
// cross-attention: "Cross 2"), "cross2.1".
std::optional<CircuitNode> node_named(const QString& text, const QStringList& layer_names = {}) {
  if (text == "input" || (!layer_names.isEmpty() && (text == "source" || text == "target")))
    return CircuitNode{CircuitNode::Input};
  if (text == "logits") return CircuitNode{CircuitNode::Logits};
  if (text.startsWith("mlp ")) {
    auto name = text.mid(4);
    if (!layer_names.isEmpty() && (name.startsWith("enc") || name.startsWith("dec"))) {
      const auto column = QString(name.startsWith("enc") ? "Enc " : "Cross ") + name.mid(3);
      const int layer = static_cast<int>(layer_names.indexOf(column));
      return layer >= 0 ? std::optional<CircuitNode>(CircuitNode{CircuitNode::Mlp, layer}) : std::nullopt;
    }
    bool ok = false;
    const int layer = name.toInt(&ok);
    return ok && layer >= 1 ? std::optional<CircuitNode>(CircuitNode{CircuitNode::Mlp, layer - 1}) : std::nullopt;
  }
  return head_named(text, layer_names);
}

// Whether the session names its blocks by kind (a translation model's "Enc 1", "Cross 2"): then the
// tables name heads by kind too, and the graph's columns are those blocks.
bool named_by_kind(const QStringList& layer_names) {
  return std::any_of(layer_names.begin(), layer_names.end(), [](const QString& name) { return name.startsWith("Enc "); });
}

bool fits(const CircuitNode& node, const std::vector<int>& heads) {
  if (node.kind == CircuitNode::Input || node.kind == CircuitNode::Logits) return true;
  if (node.layer < 0 || node.layer >= static_cast<int>(heads.size())) return false;
  return node.kind == CircuitNode::Mlp || node.head < heads[node.layer];
}

// The row as "column value" pairs, one per line: what a click on its edge shows.
QString row_detail(const ResultTable& table, int row) {
  QStringList lines;
  for (int column = 0; column < static_cast<int>(table.columns().size()); ++column) {
    const auto text = QString::fromStdString(table.text(row, column));
    if (!text.isEmpty()) lines << QString::fromStdString(table.columns()[column].name) + " " + text;
  }
  return lines.join("\n");
}

QString text_of(const ResultTable& table, int row, const char* column) {
  const int index = table.column(column);
  return index < 0 ? QString() : QString::fromStdString(table.text(row, index));
}

}  // namespace

CircuitGraphData circuit_edges(const QString& kind, const ResultTable& table, const std::vector<int>& heads_per_layer,
                               const QStringList& layer_names) {
  CircuitGraphData data;
  data.heads_per_layer = heads_per_layer;
  const auto model = QString::fromStdString(table.meta_text("model"));
  const bool by_kind = named_by_kind(layer_names);
  const auto names = by_kind ? layer_names : QStringList();
  if (by_kind) data.column_names = layer_names;
  auto add = [&](const std::optional<CircuitNode>& sender, const std::optional<CircuitNode>& receiver,
                 const QString& input, double value, int row) {
    if (!sender || !receiver || !fits(*sender, heads_per_layer) || !fits(*receiver, heads_per_layer)) return;
    data.edges.push_back({*sender, *receiver, input, value, row_detail(table, row)});
  };
  if (kind == "eap") {
    data.mlps = true;
    data.title = QString("score (%1), %2").arg(QString::fromStdString(table.meta_text("method")), model);
    if (by_kind)  // a decoder layer's MLP follows its cross-attention: none in a self-attention column
      for (const auto& name : layer_names) data.mlp_columns.push_back(!name.startsWith("Dec"));
    for (int row = 0; row < table.row_count(); ++row) {
      auto receiver = text_of(table, row, "receiver");
      QString input;
      if (receiver.size() > 2 && (receiver[0] == 'q' || receiver[0] == 'k' || receiver[0] == 'v') && receiver[1] == ' ')
        input = receiver.left(1), receiver = receiver.mid(2);
      add(node_named(text_of(table, row, "sender"), names), node_named(receiver, names), input,
          table.number(row, table.column("score")), row);
    }
  } else if (kind == "path-patch") {
    data.title = "path-patching effect, " + model;
    for (int row = 0; row < table.row_count(); ++row) {
      const auto receiver = text_of(table, row, "receiver");
      add(head_named(text_of(table, row, "sender"), names),
          receiver == "logits" ? node_named(receiver) : head_named(receiver, names), text_of(table, row, "input"),
          table.number(row, table.column("effect")), row);
    }
  } else if (kind == "composition") {
    data.title = "composition × chance − 1, " + model;
    // A translation model's rows name a head by kind (enc, dec, cross) and layer within it: drawn on
    // the block the session calls "Enc 1", "Cross 2", … (its layer_names, the columns' headers).
    auto head = [&](int row, const std::string& side) {
      int layer = static_cast<int>(table.number(row, table.column(side + "_layer"))) - 1;
      if (by_kind && table.column(side + "_kind") >= 0) {
        auto name = text_of(table, row, (side + "_kind").c_str());
        if (!name.isEmpty()) name[0] = name[0].toUpper();
        layer = static_cast<int>(layer_names.indexOf(QString("%1 %2").arg(name).arg(layer + 1)));  // −1: left out
      }
      return CircuitNode{CircuitNode::Head, layer, static_cast<int>(table.number(row, table.column(side + "_head"))) - 1};
    };
    for (int row = 0; row < table.row_count(); ++row) {
      const auto sender = head(row, "sender"), receiver = head(row, "receiver");
      for (const char* input : {"q", "k", "v"}) {
        const int column = table.column(std::string(input) + "_chance");
        const double value = column >= 0 ? table.number(row, column) : std::nan("");
        if (!std::isnan(value)) add(sender, receiver, input, value - 1.0, row);  // empty: not read that way
      }
    }
  }
  return data;
}

}  // namespace aw

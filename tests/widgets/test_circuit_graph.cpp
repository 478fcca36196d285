// tests/widgets/test_circuit_graph.cpp — the circuit graph (widgets/circuit_graph.h) and its edges read
// from the circuit analyses' tables (widgets/circuit_edges.h) under QT_QPA_PLATFORM=offscreen: which
// edges a threshold draws, a click on an edge selects it and on empty space none, rows naming nodes the
// model lacks are left out, and the SVG, PNG and PDF exports.
#include "table/csv_format.h"
#include "widgets/circuit_edges.h"
#include "widgets/circuit_graph.h"

#include <QFile>
#include <QImage>
#include <QPainterPath>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace aw;

namespace {

// An eap table on a model of 2 layers × 2 heads: five edges, one into a head the model lacks.
ResultTable eap_table() {
  ResultTable table;
  table.meta("model", "tiny").meta("method", "EAP");
  table.add_column("rank", ColumnType::Integer).add_column("sender", ColumnType::Text);
  table.add_column("receiver", ColumnType::Text).add_column("score", ColumnType::Number);
  table.add_row({cell(int64_t{1}), cell("mlp 2"), cell("logits"), cell(-4.0)});
  table.add_row({cell(int64_t{2}), cell("1.2"), cell("k 2.1"), cell(2.0)});
  table.add_row({cell(int64_t{3}), cell("input"), cell("q 1.1"), cell(-1.0)});
  table.add_row({cell(int64_t{4}), cell("1.1"), cell("mlp 1"), cell(0.4)});
  table.add_row({cell(int64_t{5}), cell("1.1"), cell("v 2.3"), cell(9.0)});  // no head 2.3
  return table;
}

}  // namespace

class CircuitGraphTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void readsTheEdgesOfEachAnalysis() {
    const auto eap = circuit_edges("eap", eap_table(), {2, 2});
    QCOMPARE(static_cast<int>(eap.edges.size()), 4);
    QVERIFY(eap.mlps);
    QCOMPARE(eap.title, QString("score (EAP), tiny"));
    QCOMPARE(eap.edges[1].label(), QString("1.2 → k 2.1"));
    QCOMPARE(eap.edges[1].value, 2.0);
    QCOMPARE(eap.edges[0].receiver.kind, CircuitNode::Logits);
    QCOMPARE(eap.edges[3].receiver.label(), QString("mlp 1"));
    QVERIFY(eap.edges[1].detail.contains("score 2"));

    ResultTable paths;
    paths.meta("model", "tiny");
    paths.add_column("sender", ColumnType::Text).add_column("receiver", ColumnType::Text);
    paths.add_column("input", ColumnType::Text).add_column("effect", ColumnType::Number);
    paths.add_row({cell("1.1"), cell("logits"), Cell{}, cell(0.5)});
    paths.add_row({cell("1.1+1.2"), cell("2.1"), cell("k"), cell(0.3)});  // a set: not one node
    paths.add_row({cell("1.2"), cell("2.2"), cell("v"), cell(-0.1)});
    const auto patched = circuit_edges("path-patch", paths, {2, 2});
    QCOMPARE(static_cast<int>(patched.edges.size()), 2);
    QCOMPARE(patched.edges[1].label(), QString("1.2 → v 2.2"));

    ResultTable composition;
    composition.meta("model", "tiny");
    for (const char* name : {"sender_layer", "sender_head", "receiver_layer", "receiver_head"})
      composition.add_column(name, ColumnType::Integer);
    for (const char* name : {"q_chance", "k_chance", "v_chance"}) composition.add_column(name, ColumnType::Number);
    composition.add_row({cell(int64_t{1}), cell(int64_t{2}), cell(int64_t{2}), cell(int64_t{1}), cell(1.5), cell(0.5), cell(1.0)});
    const auto composed = circuit_edges("composition", composition, {2, 2});
    QCOMPARE(static_cast<int>(composed.edges.size()), 3);
    QCOMPARE(composed.edges[0].value, 0.5);   // q: 1.5 × chance
    QCOMPARE(composed.edges[1].value, -0.5);  // k: half of chance
    QCOMPARE(composed.edges[1].label(), QString("1.2 → k 2.1"));
    QVERIFY(circuit_edges("stats", eap_table(), {2, 2}).edges.empty());
  }

  // A translation model's composition names heads by kind and layer: drawn on its attention blocks
  // (named as the session names them: 2 encoder layers, then Dec 1, Cross 1), a kind the receiver does
  // not read (empty) left out.
  void aTranslationModelsCompositionIsDrawnOnItsBlocks() {
    ResultTable composition;
    composition.meta("model", "marian");
    for (const char* side : {"sender_", "receiver_"}) {
      composition.add_column(std::string(side) + "kind", ColumnType::Text);
      composition.add_column(std::string(side) + "layer", ColumnType::Integer);
      composition.add_column(std::string(side) + "head", ColumnType::Integer);
    }
    for (const char* name : {"q_chance", "k_chance", "v_chance"}) composition.add_column(name, ColumnType::Number);
    composition.add_row({cell("enc"), cell(int64_t{2}), cell(int64_t{1}), cell("cross"), cell(int64_t{1}),
                         cell(int64_t{2}), Cell{}, cell(3.0), cell(2.0)});
    composition.add_row({cell("dec"), cell(int64_t{1}), cell(int64_t{2}), cell("cross"), cell(int64_t{1}),
                         cell(int64_t{1}), cell(1.25), Cell{}, Cell{}});
    const QStringList blocks{"Enc 1", "Enc 2", "Dec 1", "Cross 1"};
    const auto composed = circuit_edges("composition", composition, {4, 4, 2, 2}, blocks);
    QCOMPARE(composed.column_names, blocks);
    QCOMPARE(static_cast<int>(composed.edges.size()), 3);
    QCOMPARE(composed.edges[0].label(), QString("2.1 → k 4.2"));  // enc 2 head 1 → k of cross 1 head 2 (block 4)
    QCOMPARE(composed.edges[0].value, 2.0);
    QCOMPARE(composed.edges[1].input, QString("v"));
    QCOMPARE(composed.edges[2].label(), QString("3.2 → q 4.1"));  // dec 1 (block 3) → q of cross 1
    QCOMPARE(composed.edges[2].value, 0.25);
    CircuitGraph graph;
    graph.resize(640, 420);
    graph.setGraph(composed);
    graph.show();
    QVERIFY(QTest::qWaitForWindowExposed(&graph));
    QVERIFY(graph.grab().save(AW_BUILD_DIR "/circuit_graph_translation.png"));
  }

  // A translation model's path-patching table names heads by kind ("enc2.1", "cross1.2"): its edges are
  // drawn on the blocks the session names, a name it lacks left out.
  void aTranslationModelsPathPatchingIsDrawnOnItsBlocks() {
    const auto table = read_csv("# model=mt\nsender,receiver,input,effect\nenc2.1,cross1.2,k,0.3\ncross1.1,logits,,0.2\n"
                                "dec1.2,cross1.1,q,0.1\nenc3.1,cross1.1,v,0.5\n");
    const QStringList blocks{"Enc 1", "Enc 2", "Dec 1", "Cross 1"};
    const auto paths = circuit_edges("path-patch", table, {4, 4, 2, 2}, blocks);
    QCOMPARE(paths.column_names, blocks);
    QCOMPARE(static_cast<int>(paths.edges.size()), 3);  // enc3.1: no such block
    QCOMPARE(paths.edges[0].label(), QString("2.1 → k 4.2"));
    QCOMPARE(paths.edges[0].value, 0.3);
    QCOMPARE(paths.edges[1].receiver.kind, CircuitNode::Logits);
    QCOMPARE(paths.edges[2].label(), QString("3.2 → q 4.1"));
  }

  // A translation model's edge attribution: the source and the target are the input node, a decoder
  // layer's MLP sits in its cross-attention's column.
  void aTranslationModelsEdgeAttributionIsDrawnOnItsBlocks() {
    const auto table = read_csv("# model=mt, method=EAP\nrank,sender,receiver,score\n1,mlp dec1,logits,-2\n"
                                "2,source,v cross1.1,-1.5\n3,enc2.2,mlp enc2,0.5\n4,target,q dec1.1,0.25\n");
    const QStringList blocks{"Enc 1", "Enc 2", "Dec 1", "Cross 1"};
    const auto edges = circuit_edges("eap", table, {4, 4, 2, 2}, blocks);
    QCOMPARE(edges.column_names, blocks);
    QCOMPARE(edges.mlp_columns, (std::vector<bool>{true, true, false, true}));  // none after a decoder self-attention
    QCOMPARE(static_cast<int>(edges.edges.size()), 4);
    QCOMPARE(edges.edges[0].sender.kind, CircuitNode::Mlp);
    QCOMPARE(edges.edges[0].sender.layer, 3);  // the decoder's MLP 1: after Cross 1
    QCOMPARE(edges.edges[1].sender.kind, CircuitNode::Input);
    QCOMPARE(edges.edges[1].label(), QString("input → v 4.1"));
    QCOMPARE(edges.edges[2].receiver.layer, 1);
    QCOMPARE(edges.edges[3].sender.kind, CircuitNode::Input);
  }

  void theThresholdDrawsTheLargestAndAClickSelects() {
    CircuitGraph graph;
    graph.resize(640, 420);
    graph.setGraph(circuit_edges("eap", eap_table(), {2, 2}));
    graph.show();
    graph.setThreshold(0.0);
    QCOMPARE(static_cast<int>(graph.shownEdges().size()), 4);
    QCOMPARE(graph.shownEdges().back(), 0);  // the largest |value| painted last, on top
    graph.setThreshold(0.4);                 // |value| ≥ 1.6: -4 and 2
    QCOMPARE(graph.shownEdges(), (std::vector<int>{1, 0}));
    // A click on the middle of an edge's curve selects it; one far from every edge selects none.
    QSignalSpy clicked(&graph, &CircuitGraph::edgeClicked);
    const auto from = graph.nodeCentre({CircuitNode::Mlp, 1}), to = graph.nodeCentre({CircuitNode::Logits});
    const QPoint middle(static_cast<int>((from.x() + to.x()) / 2), static_cast<int>((from.y() + to.y()) / 2));
    QCOMPARE(graph.edgeAt(middle), 0);
    QTest::mouseClick(&graph, Qt::LeftButton, {}, middle);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(graph.selectedEdge(), 0);
    QTest::mouseClick(&graph, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(graph.selectedEdge(), -1);
    // A threshold that hides the selected edge drops the selection.
    graph.selectEdge(1);
    graph.setThreshold(0.9);
    QCOMPARE(graph.selectedEdge(), -1);
  }

  void exportsSvgPngAndPdf() {
    CircuitGraph graph;
    graph.resize(500, 300);
    graph.setGraph(circuit_edges("eap", eap_table(), {2, 2}));
    graph.setThreshold(0.0);
    QTemporaryDir dir;
    QString error;
    QVERIFY(graph.saveSvg(dir.filePath("c.svg"), &error));
    QFile svg(dir.filePath("c.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const auto text = svg.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("score (EAP), tiny"));
    QVERIFY(graph.savePng(dir.filePath("c.png"), &error));
    const QImage image(dir.filePath("c.png"));
    QCOMPARE(image.size(), QSize(1000, 600));  // twice the widget: sharp on a paper's page
    QVERIFY(graph.savePdf(dir.filePath("c.pdf"), &error));
    QFile pdf(dir.filePath("c.pdf"));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
    QVERIFY(!graph.savePng("/no/such/dir/c.png", &error));
    QCOMPARE(error, QString("/no/such/dir/c.png: cannot be written"));
  }
};

QTEST_MAIN(CircuitGraphTests)
#include "test_circuit_graph.moc"

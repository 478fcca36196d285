// tests/widgets/test_heatmap_region.cpp — the arithmetic behind the zoomable heatmap
// (widgets/heatmap_region.h): ranges clamped to the matrix, zoom around a point, the visible cells,
// the labelled cells, the token search and a region as tab-separated values.
#include "widgets/heatmap_region.h"

#include <QTest>

using namespace aw;

class HeatmapRegionTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Never wider than the matrix, never narrower than the minimum, moved (not shrunk) back inside.
  void rangesStayInsideTheMatrix() {
    auto range = clamped_range({-10, 30}, 20, 4);
    QCOMPARE(range.lower, -0.5);
    QCOMPARE(range.upper, 19.5);
    range = clamped_range({7, 8}, 20, 4);  // one cell wide: widened around its centre
    QCOMPARE(range.lower, 5.5);
    QCOMPARE(range.upper, 9.5);
    range = clamped_range({15, 25}, 20, 4);  // past the end: moved back, same width
    QCOMPARE(range.lower, 9.5);
    QCOMPARE(range.upper, 19.5);
    range = clamped_range({0, 1}, 2, 4);  // a matrix smaller than the minimum shows whole
    QCOMPARE(range.lower, -0.5);
    QCOMPARE(range.upper, 1.5);
  }

  void zoomKeepsThePointWhereItIs() {
    const auto range = zoomed_range({-0.5, 19.5}, 0.5, 4.5);
    QCOMPARE(range.lower, 2.0);
    QCOMPARE(range.upper, 12.0);
    // The point stays at the same fraction of the span.
    QCOMPARE((4.5 - range.lower) / range.size(), (4.5 - -0.5) / 20.0);
  }

  void visibleCellsAreThoseAtLeastPartlyShown() {
    QCOMPARE(visible_span({-0.5, 19.5}, 20), std::make_pair(0, 20));
    QCOMPARE(visible_span({4.5, 8.5}, 20), std::make_pair(5, 4));  // edge to edge
    QCOMPARE(visible_span({4.2, 8.2}, 20), std::make_pair(4, 5));  // a part of cell 4 and of cell 8
    QCOMPARE(visible_span({4.5 - 1e-9, 8.5 + 1e-9}, 20), std::make_pair(5, 4));  // rounding is no cell
    QCOMPARE(cell_at(6.49, 20), 6);
    QCOMPARE(cell_at(6.51, 20), 7);
    QCOMPARE(cell_at(-3, 20), 0);
    QCOMPARE(cell_at(40, 20), 19);
  }

  void labelsAreThinnedOnMultiplesOfTheirStep() {
    // Room for all: every cell.
    QCOMPARE(labelled_cells(10, 6, 600, 15, 48), (QList<int>{10, 11, 12, 13, 14, 15}));
    // 100 cells on 300 pixels at 15 per line: every 5th, on multiples of 5 whatever the first cell.
    QCOMPARE(labelled_cells(3, 100, 300, 15, 48).first(), 5);
    QCOMPARE(labelled_cells(3, 100, 300, 15, 48).size(), 20);
    QCOMPARE(labelled_cells(0, 990, 0, 15, 48).size(), 48);  // not laid out yet: the cap alone
  }

  void tokenSearchFindsTheNextAndWraps() {
    AttentionMatrix matrix;
    matrix.rows = matrix.cols = 6;
    matrix.row_labels = matrix.col_labels = QStringList{"The", "cat", "sat", "on", "the", "mat"};
    QCOMPARE(next_token_match(matrix, "the", -1), QPoint(0, 0));  // case-insensitive
    QCOMPARE(next_token_match(matrix, "the", 0), QPoint(4, 4));
    QCOMPARE(next_token_match(matrix, "the", 4), QPoint(0, 0));  // wraps
    QCOMPARE(next_token_match(matrix, "at", 1), QPoint(2, 2));   // a part of a token
    QCOMPARE(next_token_match(matrix, "dog", -1), QPoint(-1, -1));
    QCOMPARE(next_token_match(matrix, "", -1), QPoint(-1, -1));
    // Cross attention: a token found among the keys only, or the queries only.
    matrix.rows = 2;
    matrix.row_labels = QStringList{"le", "chat"};
    QCOMPARE(next_token_match(matrix, "mat", -1), QPoint(5, -1));
    QCOMPARE(next_token_match(matrix, "chat", -1), QPoint(-1, 1));
  }

  void regionAsTabSeparatedValues() {
    AttentionMatrix matrix;
    matrix.rows = matrix.cols = 3;
    matrix.weights = {1.0f, 0.0f, 0.0f, 0.25f, 0.75f, 0.0f, 0.5f, 0.125f, 1e-5f};
    matrix.row_labels = matrix.col_labels = QStringList{"a\tb", "cat", "sat"};
    QCOMPARE(region_tsv(matrix, QRect(1, 1, 2, 2)), QString("\tcat\tsat\ncat\t0.75\t0\nsat\t0.125\t1e-05\n"));
    QCOMPARE(region_tsv(matrix, QRect(0, 0, 1, 1)), QString("\ta\\tb\na\\tb\t1\n"));
    QVERIFY(region_tsv(matrix, QRect(5, 5, 2, 2)).isEmpty());  // outside the matrix
  }
};

QTEST_MAIN(HeatmapRegionTests)
#include "test_heatmap_region.moc"

// tests/widgets/test_colour_scale.cpp — the colour scales (widgets/colour_scale.h): auto tops out at the
// nearest-rank 99th percentile of the positive weights.
#include "widgets/attention_matrix.h"
#include "widgets/colour_scale.h"

#include <QTest>

using namespace aw;

class ColourScaleTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Auto tops out at the nearest-rank 99th percentile of the positive weights: one weight of 1 among
  // 199 small ones (a causal map's row 0) does not set the scale.
  void autoScaleIsTheNinetyNinthPercentile() {
    AttentionMatrix matrix;
    matrix.rows = 20;
    matrix.cols = 20;
    matrix.weights.assign(400, 0.0f);
    for (int i = 0; i < 199; ++i) matrix.weights[200 + i] = 0.001f * static_cast<float>(i + 1);  // 0.001 … 0.199
    matrix.weights[0] = 1.0f;
    // 200 positive weights: the ⌈0.99 · 200⌉ = 198th smallest is 0.198.
    const auto scaled = scale_weights(matrix, ColourScale::Auto);
    QVERIFY(qAbs(scaled.high - 0.198) < 1e-6);
    QCOMPARE(scaled.caption, QString("scale 0–0.198 (99th percentile of the map)"));
    matrix.weights.assign(400, 0.0f);  // nothing positive: 0–1
    QCOMPARE(scale_weights(matrix, ColourScale::Auto).high, 1.0);
  }
};

QTEST_MAIN(ColourScaleTests)
#include "test_colour_scale.moc"

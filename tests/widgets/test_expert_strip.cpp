// tests/widgets/test_expert_strip.cpp — a mixture of experts' routing as the window shows it
// (widgets/expert_strip.h), offscreen: each token on its first expert's colour, the tooltip's every
// expert and weight, a dense layer's note, chips that wrap to the width, and a PNG to look at.
#include "widgets/expert_strip.h"

#include <QImage>
#include <QTest>

#include <set>

using namespace aw;

class ExpertStripTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void eachTokenOnItsFirstExpertsColour() {
    ExpertStrip strip;
    const QStringList tokens = {"The", " cat", " sat", " on", " the", " mat"};
    ExpertTokens routing{1, 2, {3, 1, 0, 2, 3, 0, 1, 2, 3, 1, 0, 3}, {0.6f, 0.4f, 0.7f, 0.3f, 0.55f, 0.45f,
                                                                     0.9f, 0.1f, 0.6f, 0.4f, 0.5f, 0.5f}};
    strip.setRouting(tokens, &routing, 4, "Layer 2: each token on the colour of its first expert");
    strip.resize(500, strip.heightForWidth(500));
    QCOMPARE(strip.tokenText(0), QString("The → expert 3 (0.600), expert 1 (0.400)"));
    QCOMPARE(strip.tokenText(5), QString(" mat → expert 0 (0.500), expert 3 (0.500)"));
    QCOMPARE(strip.tokenText(6), QString());
    const QImage image = strip.grab().toImage();
    image.save("expert_strip.png");  // looked at: six chips, three colours, the title above
    // The first chip's centre is on expert 3's colour, the second's on expert 0's.
    const int first = strip.tokenAt(QPoint(2, strip.fontMetrics().height() + 6));
    QCOMPARE(first, 0);
    QCOMPARE(image.pixelColor(2, strip.fontMetrics().height() + 6).rgb(), expert_colour(3).rgb());
    QVERIFY(expert_colour(3) != expert_colour(0));
  }

  void aDenseLayerSaysSoAndChipsWrap() {
    ExpertStrip strip;
    QStringList tokens;
    for (int i = 0; i < 60; ++i) tokens << QString("token%1").arg(i);
    strip.setRouting(tokens, nullptr, 6, "Layer 1", "a dense layer: no router");
    QCOMPARE(strip.tokenText(2), QString("token2 → a dense layer: no router"));
    QVERIFY(strip.accessibleDescription().contains("a dense layer"));
    QVERIFY(strip.heightForWidth(300) > 3 * strip.heightForWidth(3000) / 2);  // narrower: more lines
  }

  void thirtySixExpertsBeforeAColourRepeats() {
    std::set<QRgb> colours;
    for (int expert = 0; expert < 36; ++expert) colours.insert(expert_colour(expert).rgb());
    QCOMPARE(static_cast<int>(colours.size()), 36);
  }
};

QTEST_MAIN(ExpertStripTests)
#include "test_expert_strip.moc"

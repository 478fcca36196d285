// tests/widgets/test_word_weight_view.cpp — the word-weight view (widgets/word_weight_view.h): words
// coloured by weight, hover text and clicks.
#include "widgets/word_weight_view.h"

#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>
#include <QUrl>

using namespace aw;

class WordWeightViewTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void wordWeightViewColoursWordsByWeightAndReportsThem() {
    WordWeightView view;
    // Two heads over three words: the mean is a 0.40, b 0.35, c 0.25.
    view.setDocument("doc", {"a", "b", "c"}, 2, {0.2f, 0.5f, 0.3f, 0.6f, 0.2f, 0.2f});
    QCOMPARE(view.weight(WordWeightView::kMeanOfHeads, 0), (static_cast<double>(0.2f) + static_cast<double>(0.6f)) / 2.0);
    QCOMPARE(view.weight(2, 0), static_cast<double>(0.6f));
    // Mean of heads: a (largest) gets the full colour, c (smallest) white.
    const auto html = view.html();
    QVERIFY2(html.contains("#f46d43"), qPrintable(html));
    QVERIFY(html.contains("#ffffff"));
    QVERIFY(!html.contains("H2"));
    view.setHeadChoice(WordWeightView::kEveryHead);
    QVERIFY(view.html().contains("H1") && view.html().contains("H2"));

    auto* browser = view.findChild<QTextBrowser*>();
    QSignalSpy clicked(&view, &WordWeightView::wordClicked);
    Q_EMIT browser->anchorClicked(QUrl("w:0:2"));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.first().first().toString(), QString("c"));
    Q_EMIT browser->highlighted(QUrl("w:0:1"));
    QCOMPARE(view.infoText(), QString("'b' (word 2 of 3, mean of the heads): weight 0.3500 = 1.05 × uniform (1/3)"));
  }
};

QTEST_MAIN(WordWeightViewTests)
#include "test_word_weight_view.moc"

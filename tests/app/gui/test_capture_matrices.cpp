// tests/app/gui/test_capture_matrices.cpp — what the Attention tab draws from a capture
// (app/gui/capture_matrices.h): the words a changed translation altered, marked (word-level LCS,
// hand-worked cases).
#include "app/gui/capture_matrices.h"

#include <QTest>

using namespace aw;

class CaptureMatricesTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void changedWordsAreMarked() {
    QCOMPARE(marked_changes("le chat dort", "le chien dort"), QString("le <b>chien</b> dort"));
    QCOMPARE(marked_changes("le chat dort", "le chat dort bien"), QString("le chat dort <b>bien</b>"));
    QCOMPARE(marked_changes("a b", "b a"), QString("b <b>a</b>"));  // one common word; the earlier one kept
    QCOMPARE(marked_changes("", "x < y"), QString("<b>x</b> <b>&lt;</b> <b>y</b>"));
  }
};

QTEST_MAIN(CaptureMatricesTests)
#include "test_capture_matrices.moc"

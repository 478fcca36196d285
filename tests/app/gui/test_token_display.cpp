// tests/app/gui/test_token_display.cpp — tokens as the window shows them (app/gui/token_display.h):
// line breaks, tabs and control characters as one readable symbol each, partial UTF-8 bytes and
// SentencePiece byte pieces both as \xNN, whole characters and spaces as they are; and a byte-level
// model's capture of a text with line breaks holds no raw line break (a label broke onto two lines).
#include "app/gui/model_session.h"
#include "app/gui/token_display.h"

#include <QStandardPaths>
#include <QTest>

using namespace aw;

class TokenDisplayTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void eachKindOfTokenReadsOneWay() {
    QCOMPARE(shown_token("\n"), QString("⏎"));
    QCOMPARE(shown_token(" \n\n"), QString(" ⏎⏎"));
    QCOMPARE(shown_token("\r\n"), QString("␍⏎"));
    QCOMPARE(shown_token("a\tb"), QString("a⇥b"));
    QCOMPARE(shown_token(std::string("\x01x\x7F", 3)), QString("\\x01x\\x7F"));
    QCOMPARE(shown_token("\xE0"), QString("\\xE0"));       // a partial character's byte
    QCOMPARE(shown_token("<0xE0>"), QString("\\xE0"));     // SentencePiece's byte piece: the same
    QCOMPARE(shown_token("<0x0A>"), QString("\\x0A"));
    QCOMPARE(shown_token("\xC3\xA9t\xC3\xA9"), QString("été"));
    QCOMPARE(shown_token(" the"), QString(" the"));
    QCOMPARE(shown_token("<0xE0"), QString("<0xE0"));      // not a byte piece
    QCOMPARE(shown_token("\xF0\x9F\x98\x80"), QString("😀"));
    QCOMPARE(shown_token("\xF0\x9F"), QString("\\xF0\\x9F"));
  }

  void aCaptureHoldsNoRawLineBreak() {
    ModelSession session;
    session.load(AW_SOURCE_DIR "/tests/fixtures/hf_models/qwen2");
    const auto capture = session.attend(0, "first line\n\nsecond\tline");
    bool broke = false;
    for (const auto& token : capture.tokens) {
      QVERIFY2(!token.contains('\n') && !token.contains('\t'), qPrintable(token));
      broke = broke || token.contains(QChar(0x23CE));
    }
    QVERIFY2(broke, qPrintable(capture.tokens.join(" | ")));
  }
};

QTEST_MAIN(TokenDisplayTests)
#include "test_token_display.moc"

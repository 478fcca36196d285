// tests/app/gui/test_window_text_file.cpp — a text opened from a file (File → Open text file…): its
// contents run as the sentence, line breaks kept and the last one dropped; a missing, non-UTF-8, empty
// or too large file is refused with one line naming it. And the visible texts the GUI walk reads
// (visible_texts.h): what is on screen as drawn, hidden widgets left out, a cut label marked.
#include "app/gui/attention_view.h"
#include "app/gui/main_window.h"
#include "app/gui/visible_texts.h"
#include "tests/app/gui/sample_models.h"

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>

using namespace aw;
using aw::test::kSampleData;
using aw::test::kTimeoutMs;

namespace {

QString write_file(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
  const auto path = dir.filePath(name);
  QFile file(path);
  file.open(QIODevice::WriteOnly);
  file.write(bytes);
  return path;
}

}  // namespace

class WindowTextFileTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aTextFileRunsAsTheSentence() {
    MainWindow window;
    window.show();
    window.openCheckpoint(kSampleData + "/vanilla_lm");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QTemporaryDir dir;
    QVERIFY(window.openTextFile(write_file(dir, "two_lines.txt", "\xEF\xBB\xBFthe river flows\nthrough the city\n")));
    QCOMPARE(window.attentionView()->sentence(), QString("the river flows\nthrough the city"));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && window.attentionView()->capture(0), kTimeoutMs);
    QVERIFY(window.errorText().isEmpty());

    const auto refused = [&](const QString& path, const QString& expected) {
      const auto before = window.attentionView()->sentence();
      if (window.openTextFile(path)) return QString("accepted %1").arg(path);
      if (window.errorText() != expected) return QString("said \"%1\", not \"%2\"").arg(window.errorText(), expected);
      if (window.attentionView()->sentence() != before) return QString("changed the sentence");
      return QString();
    };
    const auto missing = dir.filePath("missing.txt");
    QCOMPARE(refused(missing, missing + ": cannot be read (No such file or directory)"), QString());
    QCOMPARE(refused(write_file(dir, "latin1.txt", "caf\xE9\n"), "latin1.txt: not UTF-8 text"), QString());
    QCOMPARE(refused(write_file(dir, "blank.txt", " \n\n"), "blank.txt: the file is empty"), QString());
    QFile big(dir.filePath("big.txt"));
    QVERIFY(big.open(QIODevice::WriteOnly) && big.resize(MainWindow::kMostTextBytes + 1));
    big.close();
    QCOMPARE(refused(big.fileName(), "big.txt: 8.0 MB, more than the 8 MB a text may take"), QString());
    // A good file after a refused one clears its line.
    QVERIFY(window.openTextFile(write_file(dir, "one.txt", "the cat")));
    QVERIFY(window.errorText().isEmpty());
  }

  void visibleTextsAreWhatIsDrawn() {
    QWidget window;
    window.setWindowTitle("Walk");
    auto* layout = new QVBoxLayout(&window);
    auto* shown = new QLabel("the run was cancelled");
    shown->setObjectName("shown");
    auto* hidden = new QLabel("not on screen");
    auto* narrow = new QLabel("a message far too long for forty pixels");
    narrow->setObjectName("narrow");
    narrow->setFixedWidth(40);
    auto* button = new QPushButton("Cancel");
    auto* scroll = new QScrollArea;  // a label far down a short scroll area is not on screen
    auto* tall = new QWidget;
    tall->setFixedSize(200, 1000);
    auto* below = new QLabel("scrolled out of view", tall);
    below->move(10, 975);  // in view once scrolled to the end
    scroll->setWidget(tall);
    scroll->setFixedHeight(60);
    for (auto* widget : std::initializer_list<QWidget*>{shown, hidden, narrow, button, scroll}) layout->addWidget(widget);
    window.show();
    hidden->hide();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const auto lines = visible_texts(&window);
    QCOMPARE(lines.first(), QString("Window : Walk"));
    QCOMPARE(lines.filter("the run was cancelled").size(), 1);
    QVERIFY(lines.filter("the run was cancelled").first().startsWith("Label shown @"));
    QVERIFY(!lines.filter("the run was cancelled").first().endsWith("[cut]"));
    QVERIFY(lines.filter("not on screen").isEmpty());
    QVERIFY(lines.filter("scrolled out of view").isEmpty());
    scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->maximum());
    QCOMPARE(visible_texts(&window).filter("scrolled out of view").size(), 1);
    QVERIFY(lines.filter("far too long").first().endsWith("[cut]"));
    QVERIFY(lines.filter(QRegularExpression("^Button - @\\d+,\\d+,\\d+,\\d+: Cancel$")).size() == 1);
    QTemporaryDir dir;
    QVERIFY(write_visible_texts(&window, dir.filePath("texts.txt")));
    QVERIFY(!write_visible_texts(&window, dir.filePath("no/such/folder/texts.txt")));
  }
};

QTEST_MAIN(WindowTextFileTests)
#include "test_window_text_file.moc"

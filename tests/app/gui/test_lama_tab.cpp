// tests/app/gui/test_lama_tab.cpp — the LAMA tab (app/gui/lama_tab.h) end to end (Qt Test, offscreen):
// the bundled session opens it on sample_data/lama_amazon, the Amazon test part and the paper's six
// words; a run draws one small density plot per word and exports the summary, occurrence, density
// and keyword CSVs equal to attention-cli's (split + word-weights + keywords); the document view's
// weights match the run's occurrences; clicking a word adds it; a saved session brings the result
// back; bad input is a message. Writes a screenshot of the tab into the build folder.
#include "app/gui/analysis_tabs.h"
#include "app/gui/lama_tab.h"
#include "app/gui/main_window.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/analysis_panel.h"
#include "table/csv_format.h"
#include "widgets/result_plot.h"
#include "widgets/word_weight_view.h"

#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include <cmath>

using namespace aw;

namespace {

using aw::test::kSampleData;
using aw::test::read_all;

constexpr int kTimeoutMs = 120000;  // this suite's own, twice sample_models.h's kTimeoutMs
const QString kReviews = AW_SHARED_DATA_DIR "/amazon-fine-food/reviews.tsv";

// Runs attention-cli; returns its stdout (fails the test on a non-zero exit).
QByteArray run_cli(const QStringList& arguments) {
  QProcess cli;
  cli.start(AW_CLI_PATH, arguments);
  if (!cli.waitForFinished(kTimeoutMs) || cli.exitCode() != 0) {
    qWarning("attention-cli %s failed: %s", qPrintable(arguments.join(' ')), cli.readAllStandardError().constData());
    return "CLI FAILED";
  }
  return cli.readAllStandardOutput();
}

void run_lama(MainWindow& window) {
  QSignalSpy finished(window.analyses(), &AnalysisTabs::analysisFinished);
  window.analyses()->run("word-weights");
  QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
}

}  // namespace

class LamaTabTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void drawsFigureFourAndExportsTheCliCsvs() {
    MainWindow window;
    window.resize(1360, 860);
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QVERIFY2(window.errorText().isEmpty(), qPrintable(window.errorText()));

    // Opens on the sample model, the Amazon reviews' test part (seed 1) and the paper's six words.
    auto* lama = window.analyses()->lama();
    auto* panel = lama->panel();
    auto* chooser = panel->findChild<QComboBox*>("model");
    QCOMPARE(chooser->currentText(), QString("lama_amazon"));  // the name whole; its architecture in the tooltip
    QCOMPARE(chooser->itemData(chooser->currentIndex(), Qt::ToolTipRole).toString(), QString("lama_amazon: lama"));
    QCOMPARE(QFileInfo(panel->findChild<QLineEdit*>("data")->text()).canonicalFilePath(),
             QFileInfo(kReviews).canonicalFilePath());
    QCOMPARE(panel->findChild<QComboBox*>("part")->currentData().toString(), QString("test"));
    QCOMPARE(panel->findChild<QLineEdit*>("words")->text(), LamaTab::kDefaultWords);
    QVERIFY(lama->listedDocumentCount() > 0);  // test-part reviews with one of the words, before any run
    QVERIFY(lama->documentView()->heads() == 10);

    run_lama(window);
    QVERIFY2(panel->messageText().contains("1041 documents"), qPrintable(panel->messageText()));

    // One small plot per word; one curve per (word, rating) seen at least 3 times, one legend entry per such rating.
    auto* plot = panel->plot()->plot();
    QCOMPARE(plot->axisRects().size(), 6);
    const auto& summary = panel->table();
    QSet<QString> ratings;
    int curves = 0;
    for (int row = 0; row < summary.row_count(); ++row)
      if (summary.number(row, summary.column("count")) >= 3) ++curves, ratings << QString::fromStdString(summary.text(row, 1));
    QVERIFY(curves >= 6);
    QCOMPARE(plot->graphCount(), curves);
    QCOMPARE(plot->legend->itemCount(), ratings.size());
    QVERIFY(lama->keywordView()->model()->rowCount() > 0);
    QVERIFY(lama->shiftView()->model()->rowCount() > 0);

    // The CSVs equal the CLI's on the same split.
    QTemporaryDir dir;
    const auto split = dir.filePath("split");
    run_cli({"split", "--data", kReviews, "--out", split, "--seed", "1", "--percent", "80,10,10"});
    const QStringList model{"--model", kSampleData + "/lama_amazon", "--data", split + "/test.tsv"};
    run_cli(QStringList{"word-weights"} + model +
            QStringList{"--words", LamaTab::kDefaultWords, "--out", dir.filePath("cli_occurrences.csv"), "--summary",
                        dir.filePath("cli_summary.csv"), "--density", dir.filePath("cli_density.csv"), "--shift",
                        dir.filePath("cli_shift.csv")});
    const auto cli_summary = read_all(dir.filePath("cli_summary.csv"));
    QVERIFY(cli_summary.startsWith("word,label,count,mean,median\n"));
    const auto cli_keywords = run_cli(QStringList{"keywords"} + model);
    QVERIFY(panel->exportCsv(dir.filePath("summary.csv")));
    QCOMPARE(read_all(dir.filePath("summary.csv")), cli_summary);
    for (const auto* part : {"occurrences", "density", "shift"}) {
      QVERIFY(lama->exportPart(part, dir.filePath(QString(part) + ".csv")));
      QCOMPARE(read_all(dir.filePath(QString(part) + ".csv")), read_all(dir.filePath(QString("cli_") + part + ".csv")));
    }
    QVERIFY(lama->exportPart("keywords", dir.filePath("keywords.csv")));
    QCOMPARE(read_all(dir.filePath("keywords.csv")), cli_keywords);
    QVERIFY(panel->exportPng(dir.filePath("densities.png")) && QFileInfo(dir.filePath("densities.png")).size() > 0);
    QVERIFY(panel->exportPdf(dir.filePath("densities.pdf")) && QFileInfo(dir.filePath("densities.pdf")).size() > 0);

    // The document view (one forward on the document) agrees with the batched run: each chosen word
    // in a shown document has its mean-of-heads weight among the run's occurrences of that word.
    auto* view = lama->documentView();
    const auto occurrences = read_csv(read_all(dir.filePath("occurrences.csv")).toStdString());
    const QStringList chosen = LamaTab::kDefaultWords.split(',');
    int matched = 0;
    for (int row = 0; row < std::min(lama->listedDocumentCount(), 8); ++row) {
      lama->showListedDocument(row);
      QCOMPARE(view->heads(), 10);
      const auto words = view->words();
      double head_one = 0.0;
      for (int t = 0; t < words.size(); ++t) head_one += view->weight(1, t);
      QVERIFY2(std::abs(head_one - 1.0) < 1e-3, qPrintable(QString("head 1 sums to %1").arg(head_one)));
      for (int t = 0; t < words.size(); ++t) {
        if (!chosen.contains(words[t])) continue;
        const double weight = view->weight(WordWeightView::kMeanOfHeads, t);
        bool found = false;
        for (int r = 0; r < occurrences.row_count() && !found; ++r)
          found = QString::fromStdString(occurrences.text(r, 0)) == words[t] &&
                  std::abs(occurrences.number(r, 2) - weight) <= 1e-4 * weight;
        QVERIFY2(found, qPrintable(QString("'%1' at %2 with weight %3 is not among the run's occurrences")
                                       .arg(words[t]).arg(t).arg(weight)));
        ++matched;
      }
    }
    QVERIFY(matched >= 8);  // every listed document holds at least one chosen word

    // Every head, one line each; a typed review; clicking a word adds it to the words.
    view->setHeadChoice(WordWeightView::kEveryHead);
    QVERIFY(view->html().contains("H10"));
    lama->showText("This is the worst coffee I have ever tasted");
    QCOMPARE(view->words().size(), 9);
    QVERIFY(view->heading().startsWith("Typed text — the model says"));
    Q_EMIT view->wordClicked("coffee");
    QCOMPARE(panel->findChild<QLineEdit*>("words")->text(), LamaTab::kDefaultWords + ",coffee");

    // A screenshot of the tab, to look at.
    window.tabs()->setCurrentWidget(panel);
    QTest::qWait(200);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/lama_tab.png"));

    // Save and reopen: the result (table, plot, keywords) comes back without a run.
    const auto session_path = dir.filePath("session.json");
    QVERIFY(window.saveSession(session_path));
    MainWindow reopened;
    reopened.show();
    reopened.openSession(session_path);
    QTRY_VERIFY_WITH_TIMEOUT(!reopened.isBusy(), kTimeoutMs);
    auto* again = reopened.analyses()->lama();
    QCOMPARE(again->panel()->csv().toUtf8(), cli_summary);
    QCOMPARE(again->part("keywords").toUtf8(), cli_keywords);
    QCOMPARE(again->panel()->plot()->plot()->axisRects().size(), 6);
    QVERIFY(again->keywordView()->model()->rowCount() > 0);
    QCOMPARE(again->panel()->findChild<QLineEdit*>("words")->text(), LamaTab::kDefaultWords + ",coffee");
  }

  void badInputBecomesAMessage() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* lama = window.analyses()->lama();
    auto* panel = lama->panel();

    panel->findChild<QLineEdit*>("words")->setText("amazing,zyzzyvaq");
    run_lama(window);
    QVERIFY2(panel->messageText().contains("'zyzzyvaq' is not in the model's vocabulary"), qPrintable(panel->messageText()));
    QVERIFY(panel->csv().isEmpty());

    panel->findChild<QLineEdit*>("words")->setText("amazing");
    panel->findChild<QLineEdit*>("data")->setText("/no/such/reviews.tsv");
    run_lama(window);
    QVERIFY2(panel->messageText().contains("/no/such/reviews.tsv"), qPrintable(panel->messageText()));

    // A model that is not LAMA: the run says so in one line.
    panel->findChild<QComboBox*>("model")->setCurrentIndex(0);
    panel->findChild<QLineEdit*>("data")->setText(kReviews);
    run_lama(window);
    QVERIFY2(panel->messageText().contains("vanilla_lm: word-weights needs a LAMA classifier (model_type lama)") &&
                 panel->messageText().contains("this checkpoint is a transformer_lm language model"), qPrintable(panel->messageText()));
    QCOMPARE(lama->listedDocumentCount(), 0);
  }
};

QTEST_MAIN(LamaTabTests)
#include "test_lama_tab.moc"

// tests/app/gui/test_logit_lens_tab.cpp — the Logit lens tab on sample_data/ (Qt Test, offscreen): it
// reads the attention view's sentence with the chosen model and shows every layer × position, the
// layer's top token written on each cell as the table has it; a target recolours by the target's
// probability; a cell's tip lists its top k, and a click opens that layer's attention with the
// position's row outlined.
#include "app/gui/analysis_tab.h"
#include "app/gui/analysis_tabs.h"
#include "app/gui/main_window.h"
#include "tests/app/gui/panel_plot.h"
#include "tests/app/gui/sample_models.h"
#include "app/gui/attention_view.h"
#include "widgets/analysis_panel.h"
#include "widgets/attention_heatmap.h"
#include "widgets/result_plot.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

using namespace aw;

namespace {

using aw::test::kSampleData;
using aw::test::cell_texts;
using aw::test::kTimeoutMs;
using aw::test::plot_title;

}  // namespace

class LogitLensTabTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void readsTheSentenceAtEveryLayer() {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    const QString seq = "vosi folu sane buma vuli lolo foko rike sage pola deve sota";
    window.runSentence(seq + " " + seq);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* tab = window.analyses()->tab("logit-lens");
    QVERIFY(tab);
    window.findChild<QTabWidget*>()->setCurrentWidget(tab->panel());
    auto* chooser = tab->modelChooser(0);
    chooser->setCurrentIndex(chooser->findText("induction_lm"));
    QVERIFY(chooser->currentIndex() >= 0);
    auto* panel = tab->panel();
    tab->start();
    QTRY_VERIFY2_WITH_TIMEOUT(!window.isBusy() && panel->hasResult(), qPrintable(panel->messageText()), kTimeoutMs);
    const auto shape = aw::test::sample_shape("induction_lm");
    const auto& table = panel->table();
    QCOMPARE(table.row_count(), (shape.layers + 1) * 24);  // the embeddings and every layer, 24 tokens
    QCOMPARE(plot_title(panel), QString("Logit lens: top token per layer and position"));
    // 24 positions: each cell's token elided to its width, or none where the cells are too narrow.
    auto texts = cell_texts(panel);
    QVERIFY(texts.isEmpty() || texts.size() == table.row_count());
    for (const auto& text : texts) QVERIFY(!text.isEmpty() && text != "…");
    // The copy: at the last layer the repeat's next words are its top tokens (docs/analyses.md).
    const int last = shape.layers;
    for (int row = 0; row < table.row_count(); ++row)
      if (table.number(row, table.column("layer")) == last && table.number(row, table.column("position")) >= 12 &&
          table.number(row, table.column("position")) < 23)
        QCOMPARE(table.text(row, table.column("top1")), table.text(row, table.column("scored")));
    QVERIFY(window.grab().save(AW_BUILD_DIR "/logit_lens_tab.png"));  // to look at

    // Resting on a cell tells where it is, the next token's rank and probability, and the top k.
    auto* plot = panel->plot();
    const int column = 13;  // position 13, in the repeat
    const auto tip = plot->cellToolTip(last, column);
    QVERIFY2(tip.startsWith(QString("after layer %1, position 13 (").arg(last)), qPrintable(tip));
    QVERIFY2(tip.contains("\nnext ") && tip.contains(": rank 1, p = ") && tip.contains("\n1. ") &&
                 tip.contains("\n5. "), qPrintable(tip));
    QVERIFY(plot->cellToolTip(0, column).startsWith("embeddings, position 13 ("));
    QVERIFY(plot->cellToolTip(last + 1, column).isEmpty());

    // A click on that cell opens layer `last`'s attention on the sentence, position 13's row outlined.
    auto* qcp = plot->plot();
    const QPoint cell(static_cast<int>(qcp->xAxis->coordToPixel(column + 1)),
                      static_cast<int>(qcp->yAxis->coordToPixel(last + 1)));
    QSignalSpy opened(&window, &MainWindow::textViewOpened);
    QTest::mouseClick(qcp, Qt::LeftButton, {}, cell);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && opened.count() == 1, kTimeoutMs);
    auto* viewer = opened.first().at(0).value<AttentionView*>();
    QVERIFY(viewer && viewer->isVisible() && viewer != window.attentionView());
    QVERIFY2(viewer->windowTitle().startsWith("induction_lm — the logit lens's text at position 13"),
             qPrintable(viewer->windowTitle()));
    QCOMPARE(viewer->sentence(), seq + " " + seq);
    QCOMPARE(viewer->layer(), last - 1);
    QCOMPARE(viewer->head(), -1);
    QTRY_COMPARE_WITH_TIMEOUT(viewer->heatmap()->outlinedCells().top(), 13, kTimeoutMs);
    QCOMPARE(viewer->heatmap()->outlinedCells().bottom(), 13);
    QVERIFY(viewer->grab().save(AW_BUILD_DIR "/logit_lens_clicked.png"));
    viewer->close();

    // The repeat's 11 positions and a target: wide cells hold each layer's top token whole, coloured
    // by the target's probability.
    panel->findChild<QLineEdit*>("positions")->setText("12-22");
    panel->findChild<QLineEdit*>("target")->setText("sane");
    tab->start();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && panel->hasResult() && plot_title(panel).contains("sane"), kTimeoutMs);
    QCOMPARE(plot_title(panel), QString("Logit lens: top token per layer, coloured by P(sane)"));
    QCOMPARE(panel->table().row_count(), (shape.layers + 1) * 11);
    texts = cell_texts(panel);
    texts.sort();
    QStringList tops;
    for (int row = 0; row < panel->table().row_count(); ++row)
      tops << QString::fromStdString(panel->table().text(row, panel->table().column("top1")));
    tops.sort();
    QCOMPARE(texts, tops);
    QVERIFY(window.grab().save(AW_BUILD_DIR "/logit_lens_tab_target.png"));
  }
};

QTEST_MAIN(LogitLensTabTests)
#include "test_logit_lens_tab.moc"

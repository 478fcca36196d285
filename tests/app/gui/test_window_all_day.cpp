// tests/app/gui/test_window_all_day.cpp — the window as a researcher keeps it open all day (Qt Test,
// offscreen, on sample_data/): the View menu, Ctrl+T on the selected head and Help's shortcuts; an empty
// window saying how to open a model; the autosave and its recovery after a window that did not close;
// the first start fitted to the screen and the layout remembered.
#include "app/gui/analysis_tab.h"
#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/error_line.h"
#include "app/gui/lama_tab.h"
#include "app/gui/main_window.h"
#include "tests/app/gui/sample_models.h"
#include "widgets/analysis_panel.h"
#include "widgets/attention_heatmap.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/result_plot.h"
#include "widgets/score_legend.h"

#include <qcustomplot.h>

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QTableView>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace aw;

namespace {

using aw::test::kSampleData;
using aw::test::kSampleModels;
using aw::test::kTimeoutMs;

}  // namespace

class WindowAllDayTests : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // Every View item works (the heads panel's used to be greyed), Ctrl+T switches the selected head off
  // and on, and Help lists every shortcut.
  void viewMenuAndTheHeadKey() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QMenu* view_menu = nullptr;
    for (auto* menu : window.menuBar()->findChildren<QMenu*>())
      if (menu->title() == "&View") view_menu = menu;
    QVERIFY(view_menu);
    QAction* toggle = nullptr;
    for (auto* action : view_menu->actions()) {
      QVERIFY2(action->isSeparator() || action->isEnabled(), qPrintable(action->text()));
      if (action->text().contains("selected head")) toggle = action;
    }
    QVERIFY(toggle);
    QCOMPARE(toggle->shortcut(), QKeySequence("Ctrl+T"));
    auto* view = window.attentionView();
    view->setLayerHead(1, -1);  // the mean: nothing to switch
    toggle->trigger();
    QCOMPARE(window.headsPanel()->gates().offCount(), 0);
    QVERIFY(window.statusBar()->currentMessage().startsWith("Choose a head first"));
    view->setLayerHead(1, 2);
    toggle->trigger();
    QVERIFY(!window.headsPanel()->gates().isOn(1, 2));
    QCOMPARE(window.headsPanel()->gates().offCount(), 1);
    QCOMPARE(window.statusBar()->currentMessage(), QString("Layer 2, head 3 off"));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);  // the sentence ran again without the head
    toggle->trigger();
    QCOMPARE(window.headsPanel()->gates().offCount(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    view->stepLayer(1);
    QCOMPARE(view->layer(), 2);
    view->stepHead(-5);
    QCOMPARE(view->head(), -1);  // clamped at the mean
    // Analysis → Run this tab (Ctrl+R) runs the tab shown; on the Attention tab it says what it is for.
    QAction* run_tab = nullptr;
    for (auto* action : window.findChildren<QAction*>())
      if (action->text() == "&Run this tab") run_tab = action;
    QVERIFY(run_tab);
    QCOMPARE(run_tab->shortcut(), QKeySequence("Ctrl+R"));
    window.tabs()->setCurrentIndex(0);
    run_tab->trigger();
    QVERIFY(window.statusBar()->currentMessage().startsWith("The Attention tab runs as you type"));
    auto* stats = window.analyses()->panel("stats");
    stats->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    window.tabs()->setCurrentWidget(stats);
    run_tab->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && stats->hasResult(), kTimeoutMs);
    const auto shortcuts = window.shortcutList();
    for (const char* listed : {"Switch the selected head off or on", "Ctrl+T", "Next layer", "Save session…", "Ctrl+C",
                               "Run this tab", "Ctrl+R", "Export the result as CSV…", "Ctrl+E", "Type a sentence"})
      QVERIFY2(shortcuts.contains(listed), listed);
  }

  // A finished run's head scores colour the heads panel whichever model it ran on (it used to colour
  // only the Attention tab's model), with a legend saying what the colours mean; the panel's own
  // model chooser shows any loaded model's heads.
  void headScoresColourAnyModelWithALegend() {
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QCOMPARE(window.attentionView()->currentModel(), 1);  // bet_sf on view
    QCOMPARE(window.headsPanelModel(), 1);
    QVERIFY(window.headsPanel()->legend()->isHidden());
    auto* tab = window.analyses()->tab("importance");
    tab->panel()->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
    tab->modelChooser(0)->setCurrentIndex(0);  // vanilla_lm, not the one on view
    tab->start();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && tab->panel()->hasResult(), kTimeoutMs);
    QCOMPARE(window.headsPanelModel(), 0);
    QCOMPARE(window.attentionView()->currentModel(), 1);  // the Attention tab stays
    QVERIFY(window.headsPanel()->legend()->isVisible());
    QVERIFY(!window.headsPanel()->legend()->label().isEmpty());
    QVERIFY(window.headsPanel()->legend()->high() > window.headsPanel()->legend()->low());
    // The panel's chooser goes back to bet_sf: its own (uncoloured) heads.
    window.findChild<QComboBox*>("heads_model")->setCurrentIndex(1);
    QCOMPARE(window.headsPanelModel(), 1);
    QVERIFY(window.headsPanel()->legend()->isHidden());
  }

  // The LAMA words tab at 1,366 × 768 (less a panel): its density plots and tables get room enough to
  // read (they were tiny, with the rating legend cut off and tables of 3 rows).
  void lamaWordsTabFitsALaptop() {
    MainWindow window;
    window.setGeometry(MainWindow::fittedGeometry(QRect(0, 0, 1366, 768 - 32)));
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    auto* lama = window.analyses()->lama();
    window.tabs()->setCurrentWidget(lama->panel());
    lama->start();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && lama->panel()->hasResult(), kTimeoutMs);
    // The progress line leaves when the run ends: the layout settles a moment later (later still on a busy machine).
    const auto rows = [&] {
      return lama->keywordView()->viewport()->height() / lama->keywordView()->verticalHeader()->defaultSectionSize();
    };
    QTRY_VERIFY2_WITH_TIMEOUT(rows() >= 4, qPrintable(QString::number(rows())), kTimeoutMs);
    QVERIFY2(lama->panel()->plot()->height() >= 200, qPrintable(QString::number(lama->panel()->plot()->height())));
    QVERIFY(window.grab().save(AW_BUILD_DIR "/lama_words_1366.png"));
  }

  // Saving a session says so and names the file in the title; a session from a newer version is
  // refused in one line naming the file.
  void savingConfirmsAndANewerSessionIsRefused() {
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    window.openSampleData(kSampleData);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    const auto path = dir.filePath("study.json");
    QVERIFY(window.saveSessionAs(path));
    QCOMPARE(window.statusBar()->currentMessage(), "Session saved to " + path);
    QCOMPARE(window.windowTitle(), "Attention Workbench — study.json (" + QDir(dir.path()).dirName() + ")");
    QFile newer(dir.filePath("newer.json"));
    QVERIFY(newer.open(QIODevice::WriteOnly));
    newer.write(R"({"format": "attention-workbench-session", "version": 99, "models": []})");
    newer.close();
    window.openSession(dir.filePath("newer.json"));
    QCOMPARE(window.errorText(), dir.filePath("newer.json") + ": was written by a newer workbench (version 99; this one reads 2)");
    QCOMPARE(window.modelCount(), kSampleModels);  // the open session stays
  }

  // With no model the maps say how to open one (it used to be "layer 0" over a dark block), and the
  // choosers wait for a model.
  void anEmptyWindowSaysHowToOpenAModel() {
    MainWindow window;
    window.show();
    auto* view = window.attentionView();
    QVERIFY(view->heatmap()->placeholderText().startsWith("No model loaded: File → Open checkpoint folder…"));
    QVERIFY(!view->heatmap()->plot()->isVisible());
    QVERIFY(!view->findChild<QSpinBox*>("layer")->isEnabled());
    window.openCheckpoint(kSampleData + "/vanilla_lm");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy() && window.modelCount() == 1, kTimeoutMs);
    QCOMPARE(view->heatmap()->placeholderText(), QString("Type a sentence and press Enter"));
    QVERIFY(view->findChild<QSpinBox*>("layer")->isEnabled());
    // An error with nothing else going on shows in the tab bar's corner, readable.
    MainWindow bare;
    bare.resize(1366, 768);
    bare.show();
    bare.openCheckpoint(kSampleData + "/no_such_model");
    QTRY_VERIFY_WITH_TIMEOUT(!bare.isBusy(), kTimeoutMs);
    QTest::qWait(700);
    QVERIFY2(bare.errorLine()->shownText().startsWith(bare.errorText().left(10)) && bare.errorLine()->width() > 200,
             qPrintable(bare.errorLine()->shownText() + " | " + QString::number(bare.errorLine()->width())));
    bare.grab().save(AW_BUILD_DIR "/error_line.png");
    window.openCheckpoint(kSampleData + "/no_such_model");
    QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
    QTest::qWait(20);
    QVERIFY2(window.errorLine()->shownText().startsWith(window.errorText().left(10)) && window.errorLine()->width() > 200,
             qPrintable(window.errorLine()->shownText() + " | " + QString::number(window.errorLine()->width())));
  }

  // A window that does not close (killed, crashed) leaves its session autosaved, after each finished
  // analysis and on a timer; the next start offers it and reopens it with its results. A clean exit
  // removes it; an unreadable one is set aside with one error line, a declined one kept aside.
  void autosaveIsOfferedAfterAWindowThatDidNotClose() {
    const auto path = MainWindow::autosavePath();
    const auto folder = QFileInfo(path).absoluteDir();
    for (const auto* name : {"autosave.json", "autosave-declined.json", "autosave-unreadable.json"})
      QFile::remove(folder.filePath(name));
    const QString sentence = "the river flows through the city";
    {
      auto* killed = new MainWindow;  // never closed: as if the process were killed
      killed->show();
      killed->openSampleData(kSampleData);
      QTRY_VERIFY_WITH_TIMEOUT(!killed->isBusy(), kTimeoutMs);
      QVERIFY(!QFile::exists(path));  // nothing finished yet
      killed->runSentence(sentence);
      QTRY_VERIFY_WITH_TIMEOUT(!killed->isBusy(), kTimeoutMs);
      killed->analyses()->panel("stats")->findChild<QLineEdit*>("text")->setText(kSampleData + "/demo_sentences.txt");
      killed->analyses()->run("stats");
      QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(path), kTimeoutMs);  // written when the analysis finished
      QTRY_VERIFY_WITH_TIMEOUT(!killed->isBusy(), kTimeoutMs);
      killed->setAutosaveInterval(50);  // and on the timer
      const auto written = QFileInfo(path).lastModified();
      QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(path).lastModified() > written, kTimeoutMs);
      killed->setAutosaveEnabled(false);  // the "killed" window writes no more; deleted without a close
      delete killed;
    }
    {
      MainWindow next;
      next.show();
      QDateTime offered;
      QVERIFY(next.offerRecovery([&offered](const QDateTime& saved) { offered = saved; return true; }));
      QVERIFY(offered.isValid());
      QTRY_VERIFY_WITH_TIMEOUT(!next.isBusy() && next.modelCount() == kSampleModels, kTimeoutMs);
      QCOMPARE(next.attentionView()->sentence(), sentence);
      QVERIFY(next.analyses()->panel("stats")->hasResult());  // the finished analysis came back
      QCOMPARE(next.windowTitle(), QString("Attention Workbench — recovered session"));
      next.close();
      QVERIFY(!QFile::exists(path));  // a clean exit leaves nothing to recover
    }
    {
      QFile broken(path);
      QVERIFY(broken.open(QIODevice::WriteOnly));
      broken.write("{\"version\": 3, \"models\": [");
      broken.close();
      MainWindow next;
      QVERIFY(!next.offerRecovery([](const QDateTime&) { return true; }));
      const auto aside = folder.filePath("autosave-unreadable.json");
      QVERIFY2(next.errorText().startsWith("The autosaved session of a window that did not close cannot be read (") &&
                   next.errorText().endsWith("); it is kept as " + aside),
               qPrintable(next.errorText()));
      QVERIFY(QFile::exists(aside) && !QFile::exists(path));
      QVERIFY(!next.offerRecovery([](const QDateTime&) { return true; }));  // nothing left to offer
    }
  }

  // The first start opens on the screen's free area (1,360 × 860 where it fits with the frame), and
  // the window comes back at the size and dock layout it was closed with.
  void opensFittedToTheScreenAndRemembersItsLayout() {
    const QRect laptop(0, 0, 1366, 768 - 32);  // a 1,366 × 768 screen less a 32-pixel panel
    const auto fitted = MainWindow::fittedGeometry(laptop);
    QCOMPARE(fitted.size(), QSize(1366 - 16, 736 - 48));
    QVERIFY(laptop.contains(fitted));
    const QRect full_hd(0, 0, 1920, 1080 - 30);
    QCOMPARE(MainWindow::fittedGeometry(full_hd), QRect(280, 95, 1360, 860));  // centred at its preferred size
    {
      // Every tab of the sample session fits the laptop's fitted size.
      QSettings().remove("window");
      MainWindow window;
      window.setGeometry(fitted);
      window.show();
      window.openSampleData(kSampleData);
      QTRY_VERIFY_WITH_TIMEOUT(!window.isBusy(), kTimeoutMs);
      const auto minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
      QVERIFY2(minimum.width() <= fitted.width() && minimum.height() <= fitted.height(),
               qPrintable(QString("minimum %1 × %2").arg(minimum.width()).arg(minimum.height())));
      window.resize(1280, 680);  // above the window's minimum with the sample models
      window.findChild<QDockWidget*>("heads_dock")->hide();
      window.close();
    }
    MainWindow reopened;
    reopened.show();
    QCOMPARE(reopened.size(), QSize(1280, 680));
    QVERIFY(!reopened.findChild<QDockWidget*>("heads_dock")->isVisible());
    QSettings().remove("window");
    MainWindow first_start;  // nothing saved: the primary screen's fitted size
    QCOMPARE(first_start.geometry(), MainWindow::fittedGeometry(QGuiApplication::primaryScreen()->availableGeometry()));
  }
};

QTEST_MAIN(WindowAllDayTests)
#include "test_window_all_day.moc"

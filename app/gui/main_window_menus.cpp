// app/gui/main_window_menus.cpp — the window's menus (see main_window.h): File (checkpoints, attention
// files, sessions), View (the heads panel, tabs, layers and heads by key, switching the selected head
// off or on) and Help (every shortcut, where the documentation is, the version).
#include "app/gui/main_window.h"

#include "app/gui/analysis_tab.h"
#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/hub_model_dialog.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/run_progress_bar.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

#include <functional>
#include <tuple>

namespace aw {

void MainWindow::buildMenus() {
  auto* file_menu = menuBar()->addMenu("&File");
  file_menu->addAction("&Open checkpoint folder…", QKeySequence::Open, this, [this] {
    const auto dir = QFileDialog::getExistingDirectory(this, "Open checkpoint folder (a workbench or Hugging Face model)");
    if (!dir.isEmpty()) openCheckpoint(dir);
  });
  file_menu->addAction("Open &GGUF file…", this, [this] {
    const auto path = QFileDialog::getOpenFileName(this, "Open GGUF file (llama.cpp: llama, qwen2, qwen3, gemma2, gemma3)",
                                                   QString(), "GGUF files (*.gguf)");
    if (!path.isEmpty()) openCheckpoint(path);
  });
  file_menu->addAction("Open from the &Hugging Face cache…", this, [this] {
    HubModelDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted && !dialog.chosenFolder().isEmpty()) openCheckpoint(dialog.chosenFolder());
  });
  file_menu->addAction("Open &text file…", QKeySequence("Ctrl+Shift+O"), this, [this] {
    const auto path = QFileDialog::getOpenFileName(this, "Open text file (UTF-8, run as the sentence)", QString(),
                                                   "Text files (*.txt);;All files (*)");
    if (!path.isEmpty()) openTextFile(path);
  });
  file_menu->addAction("Open &attention file…", this, [this] {
    const auto path = QFileDialog::getOpenFileName(this, "Open attention file (attention-cli attend --out)", QString(),
                                                   "Attention files (*.safetensors)");
    if (!path.isEmpty()) openAttentionFile(path);
  });
  recent_menu_ = file_menu->addMenu("Open &recent");
  file_menu->addSeparator();
  file_menu->addAction("Open &session…", this, [this] {
    const auto path = QFileDialog::getOpenFileName(this, "Open session", QString(), "Workbench sessions (*.json)");
    if (!path.isEmpty()) openSession(path);
  });
  file_menu->addAction("&Save session…", QKeySequence::Save, this, [this] {
    auto path = QFileDialog::getSaveFileName(this, "Save session", session_path_.isEmpty() ? "session.json" : session_path_,
                                             "Workbench sessions (*.json)");
    if (path.isEmpty()) return;
    if (!path.endsWith(".json")) path += ".json";
    saveSessionAs(path);
  });
  file_menu->addSeparator();
  file_menu->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

  auto* view_menu = menuBar()->addMenu("&View");
  view_menu->addAction(heads_dock_->toggleViewAction());
  heads_dock_->toggleViewAction()->setShortcut(QKeySequence("Ctrl+Shift+H"));
  view_menu->addSeparator();
  view_menu->addAction("&Attention tab", QKeySequence("Ctrl+1"), this, [this] { tabs_->setCurrentIndex(0); });
  view_menu->addAction("Type a &sentence", QKeySequence("Ctrl+L"), this, [this] {
    tabs_->setCurrentIndex(0);
    view_->sentenceEdit()->setFocus();
    view_->sentenceEdit()->selectAll();
  });
  // Ctrl+PgDown / PgUp as well: a focused table or text field may keep Ctrl+Tab for itself.
  view_menu->addAction("&Next tab", this, [this] { tabs_->setCurrentIndex((tabs_->currentIndex() + 1) % tabs_->count()); })
      ->setShortcuts({QKeySequence("Ctrl+PgDown"), QKeySequence::NextChild});
  view_menu->addAction("&Previous tab", this, [this] {
    tabs_->setCurrentIndex((tabs_->currentIndex() + tabs_->count() - 1) % tabs_->count());
  })->setShortcuts({QKeySequence("Ctrl+PgUp"), QKeySequence::PreviousChild});
  view_menu->addSeparator();
  view_menu->addAction("Next &layer", QKeySequence("Ctrl+Down"), this, [this] { view_->stepLayer(1); });
  view_menu->addAction("Previous l&ayer", QKeySequence("Ctrl+Up"), this, [this] { view_->stepLayer(-1); });
  view_menu->addAction("Next &head", QKeySequence("Ctrl+]"), this, [this] { view_->stepHead(1); });
  view_menu->addAction("Previous h&ead", QKeySequence("Ctrl+["), this, [this] { view_->stepHead(-1); });
  view_menu->addAction("&Switch the selected head off or on", QKeySequence("Ctrl+T"), this, [this] { toggleSelectedHead(); });

  // The shown analysis tab's buttons, by key (and for scripts that drive the window).
  auto* analysis_menu = menuBar()->addMenu("&Analysis");
  const auto on_shown_tab = [this](const std::function<void(AnalysisTab&)>& act) {
    if (auto* tab = analyses_->tabShowing(tabs_->currentWidget())) act(*tab);
    else statusBar()->showMessage("The Attention tab runs as you type: choose an analysis tab for this", 6000);
  };
  analysis_menu->addAction("&Run this tab", QKeySequence("Ctrl+R"), this,
                           [on_shown_tab] { on_shown_tab([](AnalysisTab& tab) { tab.start(); }); });
  // On the Attention tab, Cancel stops its text's run (as the button over the maps does).
  analysis_menu->addAction("&Cancel", QKeySequence("Ctrl+."), this, [this, on_shown_tab] {
    if (!analyses_->tabShowing(tabs_->currentWidget()) && view_->runBar()->isRunning()) cancelSentenceRun();
    else on_shown_tab([](AnalysisTab& tab) { tab.cancel(); });
  });
  analysis_menu->addSeparator();
  for (const auto& [text, keys, suffix] : std::initializer_list<std::tuple<const char*, const char*, const char*>>{
           {"Export the result as &CSV…", "Ctrl+E", "csv"},
           {"Export the result as &PNG…", "Ctrl+Shift+E", "png"},
           {"Export the result as P&DF…", "", "pdf"}})
    analysis_menu->addAction(text, QKeySequence(keys), this, [on_shown_tab, suffix = QString(suffix)] {
      on_shown_tab([&suffix](AnalysisTab& tab) { tab.panel()->exportWithDialog(suffix); });
    });

  auto* help_menu = menuBar()->addMenu("&Help");
  help_menu->addAction("&Keyboard shortcuts", QKeySequence::HelpContents, this, [this] {
    QMessageBox box(QMessageBox::NoIcon, "Keyboard shortcuts", shortcutList(), QMessageBox::Close, this);
    box.setTextFormat(Qt::RichText);
    box.exec();
  });
  help_menu->addAction("&About Attention Workbench", this, [this] {
    QMessageBox::about(this, "About Attention Workbench",
                       "<b>Attention Workbench</b><p>Study attention inside transformer models: per-layer maps, "
                       "heads switched off live, and the analyses of Bird-Eye Transformers, Michel et al. "
                       "(Sixteen Heads) and LAMA.</p><p>The documentation is in the docs/ folder of the source: "
                       "docs/window.md for this window, docs/analyses.md for each analysis. The same analyses run "
                       "from the command line: <code>attention-cli help</code>.</p>");
  });
  refreshRecentMenu();
}

QString MainWindow::shortcutList() const {
  QString rows;
  const auto add = [&rows](const QString& what, const QString& keys) {
    rows += QString("<tr><td>%1</td><td>&nbsp;&nbsp;<b>%2</b></td></tr>").arg(what.toHtmlEscaped(), keys.toHtmlEscaped());
  };
  for (const auto* menu : menuBar()->findChildren<QMenu*>())
    for (const auto* action : menu->actions())
      if (!action->shortcut().isEmpty())
        add(QString(action->text()).remove('&'), action->shortcut().toString(QKeySequence::NativeText));
  // Keys of the views themselves, not of a menu (capitalised as the menus' items are).
  add("Run the sentence", "Enter (in the sentence)");
  add("Zoom / move a map", "Wheel / drag (on a map)");
  add("Whole map", "Double-click (on a map)");
  add("Copy the selected cells", "Ctrl+C (in a table)");
  return "<table>" + rows + "</table>";
}

void MainWindow::toggleSelectedHead() {
  const int model = view_->currentModel(), layer = view_->layer(), head = view_->head();
  if (model < 0 || model >= static_cast<int>(gates_.size()) || head < 0) {
    statusBar()->showMessage("Choose a head first (the Head list, or a thumbnail): the mean of the heads cannot be "
                             "switched off", 6000);
    return;
  }
  if (heads_model_ != model) showHeadsOf(model);  // the panel may show another model: switch it to this one
  heads_->toggle(layer, head);  // re-runs the sentence as a click in the panel would
  statusBar()->showMessage(
      QString("Layer %1, head %2 %3").arg(layer + 1).arg(head + 1).arg(heads_->gates().isOn(layer, head) ? "on" : "off"), 4000);
}

}  // namespace aw

// app/gui/main_window_autosave.cpp — the session kept on disk while the window works (see
// main_window.h): written atomically every few minutes and after each finished analysis, removed on a
// clean exit, so that one found at the next start means the last window did not close (a crash, a
// killed process) and its session can be recovered.
#include "app/gui/main_window.h"

#include "app/gui/analysis_tabs.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>

namespace aw {

QString MainWindow::autosavePath() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath("autosave.json");
}

void MainWindow::startAutosave() {
  autosave_timer_ = new QTimer(this);
  autosave_timer_->setInterval(kAutosaveIntervalMs);
  connect(autosave_timer_, &QTimer::timeout, this, &MainWindow::autosave);
  autosave_timer_->start();
  connect(analyses_, &AnalysisTabs::analysisFinished, this, [this] { autosave(); });
}

void MainWindow::setAutosaveInterval(int milliseconds) { autosave_timer_->setInterval(milliseconds); }

void MainWindow::setAutosaveEnabled(bool enabled) {
  autosave_enabled_ = enabled;
  if (enabled) autosave_timer_->start();
  else autosave_timer_->stop();
}

bool MainWindow::autosave() {
  if (!autosave_enabled_ || models_.empty()) return false;  // nothing a person would miss
  const auto path = autosavePath();
  try {
    QDir().mkpath(QFileInfo(path).absolutePath());
    write_session(path, currentSession(path));  // QSaveFile: the old autosave stays whole until the new one is
    return true;
  } catch (const std::exception& error) {
    statusBar()->showMessage("Autosave failed: " + QString::fromUtf8(error.what()), 10000);
    return false;
  }
}

bool MainWindow::offerRecovery(const std::function<bool(const QDateTime& saved)>& ask) {
  const auto path = autosavePath();
  if (!QFile::exists(path)) return false;
  // Kept aside, never deleted: a declined or unreadable autosave is still there to be opened by hand.
  const auto set_aside = [&path](const QString& name) {
    const auto aside = QFileInfo(path).absoluteDir().filePath(name);
    QFile::remove(aside);
    QFile::rename(path, aside);
    return aside;
  };
  try {
    (void)read_session(path);
  } catch (const std::exception& error) {
    const auto aside = set_aside("autosave-unreadable.json");
    showError(QString("The autosaved session of a window that did not close cannot be read (%1); it is kept as %2")
                  .arg(QString::fromUtf8(error.what()), aside),
              "autosave");  // stays while the session it offered is opened in its place
    return false;
  }
  if (!ask(QFileInfo(path).lastModified())) {
    set_aside("autosave-declined.json");
    return false;
  }
  openSession(path);
  return true;
}

void MainWindow::endAutosave() {
  if (!autosave_enabled_) return;  // not this window's autosave to remove (one left by a crash stays)
  autosave_timer_->stop();
  QFile::remove(autosavePath());  // a clean exit: nothing to recover at the next start
}

}  // namespace aw

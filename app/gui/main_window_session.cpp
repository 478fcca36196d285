// app/gui/main_window_session.cpp — the window's sessions (see main_window.h): opening the sample
// folder or a saved session, saving the current one, the last session kept on quitting, and the recent
// checkpoint folders.
#include "app/gui/main_window.h"

#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextStream>

#include <algorithm>

namespace aw {
namespace {

constexpr int kMaxRecent = 8;

bool is_checkpoint_folder(const QString& path) {
  return QFileInfo(path).isDir() && QFile::exists(QDir(path).filePath("config.json"));
}

}  // namespace

QString MainWindow::lastSessionPath() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath("last_session.json");
}

// ---- sessions ----------------------------------------------------------------------------------------

void MainWindow::openSampleData(const QString& dir) {
  const QDir folder(dir);
  if (!folder.exists()) {
    showError(dir + ": no such folder (sample data not found)");
    return;
  }
  if (QFile::exists(folder.filePath("default_session.json"))) {
    openSession(folder.filePath("default_session.json"));
    return;
  }
  QFile sentences(folder.filePath("demo_sentences.txt"));
  if (sentences.open(QIODevice::ReadOnly | QIODevice::Text)) view_->setSentence(QTextStream(&sentences).readLine().trimmed());
  for (const auto& entry : folder.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
    if (is_checkpoint_folder(folder.filePath(entry))) openCheckpoint(folder.filePath(entry));
  enqueue({"Running", [this]() -> Job {
             return [this]() -> JobResult { return {{}, [this] { requestRuns(); }}; };
           }});
}

void MainWindow::openSession(const QString& path) {
  WorkbenchSession saved;
  try {
    saved = read_session(path);
  } catch (const std::exception& error) {
    showError(QString::fromUtf8(error.what()));
    return;
  }
  // A new session replaces the old one: stop its analyses and drop its models.
  analyses_->cancelAll();
  queued_.clear();
  ++generation_;  // the running job's result (if any) belongs to the old session: it is dropped
  watcher_.waitForFinished();  // …and a load must not land in the session after it is cleared
  session_->clear();
  models_.clear();
  failed_runs_.clear();
  gates_.clear();
  scores_.clear();
  view_->clearCaptures();
  view_->setModels(models_);
  analyses_->clearResults();
  clearError();
  view_->setSentence(saved.sentence);
  auto* session = session_.get();
  for (const auto& model : saved.models) {
    enqueue({"Loading " + model.dir, [this, session, model]() -> Job {
               return [this, session, model]() -> JobResult {
                 const auto summary = session->load(model.dir);
                 return {{}, [this, summary, gates = model.gates] { onModelAdded(summary, gates); }};
               };
             }});
  }
  // After the loads: restore the view and the analyses, then run what the view shows.
  const QDir base = QFileInfo(path).absoluteDir();
  enqueue({"Opening session", [this, saved, base, path]() -> Job {
             return [this, saved, base, path]() -> JobResult {
               return {{}, [this, saved, base, path] {
                         view_->setCurrentModel(std::min<int>(saved.current_model, models_.size() - 1));
                         view_->setCompare(saved.compare && models_.size() > 1, saved.compare_model);
                         view_->setLayerHead(saved.layer, saved.head);
                         if (!saved.scale.isEmpty()) view_->setColourScale(colour_scale_from_name(saved.scale));
                         analyses_->setDefaultCorpus(QFileInfo(base.filePath("demo_sentences.txt")).exists()
                                                         ? base.filePath("demo_sentences.txt")
                                                         : QString());
                         analyses_->restore(saved.analyses, base);
                         // Restored head scores are kept for their models; the panel opens on the
                         // Attention tab's model, as it follows it.
                         showHeadsOf(view_->currentModel());
                         int tab = std::clamp(saved.tab, 0, tabs_->count() - 1);
                         for (int i = 0; i < tabs_->count(); ++i)  // by title: the tabs' order may have changed
                           if (!saved.tab_title.isEmpty() && tabs_->tabText(i) == saved.tab_title) tab = i;
                         tabs_->setCurrentIndex(tab);
                         if (auto* inner = qobject_cast<QTabWidget*>(tabs_->currentWidget()))
                           inner->setCurrentIndex(std::clamp(saved.inner_tab, 0, inner->count() - 1));
                         showSessionTitle(path);
                         requestRuns();
                       }};
             };
           }});
}

bool MainWindow::saveSessionAs(const QString& path) {
  if (!saveSession(path)) return false;
  showSessionTitle(path);
  statusBar()->showMessage("Session saved to " + path, 6000);
  return true;
}

void MainWindow::showSessionTitle(const QString& path) {
  // The last session lives in the application's data folder, whose name is the application's: name it
  // for what it is; another session by its file and folder ("default_session.json (sample_data)").
  const QFileInfo file(path);
  const bool last = file == QFileInfo(lastSessionPath()), recovered = file == QFileInfo(autosavePath());
  session_path_ = last || recovered ? QString() : file.absoluteFilePath();
  setWindowTitle("Attention Workbench — " + (last        ? QString("last session")
                                             : recovered ? QString("recovered session")
                                                         : QString("%1 (%2)").arg(file.fileName(), file.absoluteDir().dirName())));
}

WorkbenchSession MainWindow::currentSession(const QString& path) const {
  WorkbenchSession state;
  for (size_t i = 0; i < models_.size(); ++i) state.models.push_back({models_[i].dir, gates_[i]});
  state.sentence = view_->sentence();
  state.current_model = view_->currentModel();
  state.compare = view_->compareModel() >= 0;
  state.compare_model = std::max(0, view_->compareModel());
  state.layer = view_->layer();
  state.head = view_->head();
  state.tab = tabs_->currentIndex();
  state.tab_title = tabs_->tabText(state.tab);
  if (const auto* inner = qobject_cast<QTabWidget*>(tabs_->currentWidget())) state.inner_tab = inner->currentIndex();
  state.scale = colour_scale_name(view_->colourScale());
  state.analyses = analyses_->state(QFileInfo(path).absoluteDir());
  return state;
}

bool MainWindow::saveSession(const QString& path) {
  try {
    QDir().mkpath(QFileInfo(path).absolutePath());
    write_session(path, currentSession(path));
    return true;
  } catch (const std::exception& error) {
    showError(QString::fromUtf8(error.what()));
    return false;
  }
}

// ---- recent folders --------------------------------------------------------------------------------

void MainWindow::rememberRecent(const QString& dir) {
  QSettings settings;
  auto recent = settings.value("recentCheckpoints").toStringList();
  recent.removeAll(dir);
  recent.prepend(dir);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue("recentCheckpoints", recent);
  refreshRecentMenu();
}

void MainWindow::refreshRecentMenu() {
  recent_menu_->clear();
  const auto recent = QSettings().value("recentCheckpoints").toStringList();
  for (const auto& dir : recent) recent_menu_->addAction(dir, this, [this, dir] { openCheckpoint(dir); });
  recent_menu_->setEnabled(!recent.isEmpty());
}

}  // namespace aw

// app/gui/main_window.h — the desktop workbench: the Attention tab (AttentionView), a heads panel that
// switches heads off and on live, one tab per analysis (AnalysisTabs), sessions, recent folders and
// drag-and-drop. Model work runs on worker threads; the window only sees plain data and messages.
#pragma once

#include "app/gui/model_session.h"
#include "app/gui/session_file.h"

#include <QFutureWatcher>
#include <QMainWindow>
#include <QPointer>

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>

class QComboBox;
class QDateTime;
class QTimer;
class QDockWidget;
class QLabel;
class QMenu;
class QTabWidget;

namespace aw {

class AnalysisTabs;
class AttentionView;
class ElidedLabel;
class ErrorLine;
class HeadToggleGrid;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // sample_data/: its default_session.json when there is one, else every checkpoint folder in it.
  void openSampleData(const QString& dir);
  void openCheckpoint(const QString& dir);
  // What models opened from now on compute in (ModelSession::setComputeDtype); throws aw::Error.
  void setComputeDtype(const QString& name);
  // A saved attention file (attend --out FILE.safetensors) in a window of its own, to browse its
  // layers and heads; nullptr (and the error line) when it cannot be read.
  AttentionView* openAttentionFile(const QString& path);
  // `model` run on a text (a patching pair's clean prompt, the logit lens's text) in a window of its own
  // titled by `what`, at `layer`, `head` (−1: the mean), `position`'s row outlined (−1: none); the
  // Attention tab keeps its sentence. textViewOpened says when it is shown.
  void openTextView(int model, const QString& text, const QString& what, int layer, int head, int position = -1);
  void openSession(const QString& path);
  bool saveSession(const QString& path);
  // File → Save session…: saves, names the file in the title and says so in the status bar.
  bool saveSessionAs(const QString& path);
  void runSentence(const QString& sentence);
  // A UTF-8 text file's contents as the sentence, run at once (File → Open text file…, --text-file):
  // a long text need not be pasted. A file that cannot be read, is not UTF-8, is empty or is over
  // kMostTextBytes is refused with one line naming it; false then.
  bool openTextFile(const QString& path);
  static constexpr qint64 kMostTextBytes = 8 << 20;
  // The Attention tab's Cancel: the running sentence run stops at its next layer, queued ones go.
  void cancelSentenceRun();

  // Where the session is kept between runs (reopened on start).
  static QString lastSessionPath();
  // The session written every kAutosaveIntervalMs and after each finished analysis (atomically),
  // removed when the window closes: found at a start, the last window did not close (main_window_autosave.cpp).
  static QString autosavePath();
  static constexpr int kAutosaveIntervalMs = 3 * 60 * 1000;
  void setAutosaveInterval(int milliseconds);
  // Off for a window that renders a screenshot and quits: its session is nobody's work to recover.
  void setAutosaveEnabled(bool enabled);
  // Writes the autosave now (false without a model, or when it cannot be written: a status message).
  bool autosave();
  // An autosave left by a window that did not close: `ask` (given when it was written) decides whether
  // to reopen it. Declined, it is set aside as autosave-declined.json; unreadable, as
  // autosave-unreadable.json with one error line. True when the session is being reopened.
  bool offerRecovery(const std::function<bool(const QDateTime& saved)>& ask);
  // Where the window opens the first time on a screen whose free area is `available`: 1,360 × 860,
  // or less where that does not fit with the window manager's frame, centred.
  static QRect fittedGeometry(const QRect& available);

  // Every menu's shortcut and the views' own keys, as the HTML table Help → Keyboard shortcuts shows.
  QString shortcutList() const;
  bool isBusy() const;  // loading, running a sentence or an analysis, making a layer to show
  QString errorText() const;  // the whole message of the error line; "" when none is shown
  ErrorLine* errorLine() const { return error_line_; }
  AttentionView* attentionView() const { return view_; }
  HeadToggleGrid* headsPanel() const { return heads_; }
  int headsPanelModel() const { return heads_model_; }
  AnalysisTabs* analyses() const { return analyses_; }
  QTabWidget* tabs() const { return tabs_; }
  int modelCount() const { return static_cast<int>(models_.size()); }

 Q_SIGNALS:
  void jobFinished();  // after each background load or sentence run has been applied
  void textViewOpened(AttentionView* viewer);

 protected:
  void closeEvent(QCloseEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  AttentionView* openViewer(const QString& title, const ModelSummary& summary, const AttentionCapture& capture,
                            const HeadGates& gates);  // a browse-only Attention window of its own
  struct JobResult {
    QString error;
    std::function<void()> apply;  // runs on the UI thread when the job succeeded
  };
  using Job = std::function<JobResult()>;
  // Built on the UI thread when the job starts, so it reads the newest sentence and gates.
  struct QueuedJob {
    QString label;
    std::function<Job()> make;
    int run_model = -1;  // ≥ 0: a sentence run for that model (queued at most once)
  };

  void buildMenus();  // main_window_menus.cpp
  void startAutosave();
  void endAutosave();
  // Switches the attention view's layer and head off, or back on (View → Switch the selected head…).
  void toggleSelectedHead();
  // "Attention Workbench — study.json (folder)": the session file the window shows.
  void showSessionTitle(const QString& path);
  // The geometry and dock layout of the last window closed (QSettings), or fittedGeometry the first time.
  void restoreLayout();
  void saveLayout() const;
  void enqueue(QueuedJob job);
  void startNextJob();
  void onJobFinished();
  void requestRuns();  // main_window_runs.cpp
  // "Running <model>": a sentence run's job label, its error's source and its progress line.
  QString runLabel(int model) const;
  void queueRun(int model);
  // A run stopped by Cancel: its map says so, and the same text and gates wait for Enter.
  void showCancelled(int model, const QString& sentence, const HeadGates& gates);
  void onModelAdded(const ModelSummary& summary, const HeadGates& gates);
  void onGatesChanged(const HeadGates& gates);
  void showHeadsOf(int model);
  void updateColouring();
  // `source`: the job whose failure it is ("Loading DIR", "Running MODEL"; QueuedJob::label), so that
  // only that job's success, or dismissing it, clears it; "" for an error of no job.
  void showError(const QString& message, const QString& source = {});
  void clearError();
  void clearErrorOf(const QString& source);
  // The error line in the tab bar's corner where the tabs leave it room to be read, else at the
  // status bar's left.
  void placeErrorLine();
  void updateStatus();
  void rememberRecent(const QString& dir);
  void refreshRecentMenu();
  WorkbenchSession currentSession(const QString& path) const;

  std::unique_ptr<ModelSession> session_;
  std::vector<ModelSummary> models_;
  std::vector<HeadGates> gates_;  // per model
  // Per model: head scores by label ("importance", "ablation damage") for colouring the heads panel.
  std::map<int, std::map<QString, std::vector<std::vector<double>>>> scores_;
  QFutureWatcher<JobResult> watcher_;
  std::deque<QueuedJob> queued_;
  bool job_active_ = false;  // from start until its result has been applied
  int generation_ = 0;       // bumped when a session replaces everything
  int job_generation_ = 0;   // the generation the running job was started in
  int job_run_model_ = -1;   // the running job's model when it is a sentence run
  QString job_label_;        // the running job's label: the source of its error
  QString error_source_;     // the job whose failure the error line shows; "" for none
  // Each model whose run failed, with the sentence and gates that failed: not run again for the same
  // input (one failing model must not make another run again and again), and its error line cleared
  // once the model is no longer shown.
  struct FailedRun {
    QString sentence;
    HeadGates gates;
    bool cancelled = false;  // stopped by Cancel: Enter runs it again
  };
  std::map<int, FailedRun> failed_runs_;
  std::shared_ptr<std::atomic<bool>> run_cancel_;  // the running sentence run's stop flag

  QTabWidget* tabs_;
  AttentionView* view_;
  AnalysisTabs* analyses_;
  QDockWidget* heads_dock_;
  HeadToggleGrid* heads_;
  QComboBox* colour_box_;
  QComboBox* heads_model_box_;
  int heads_model_ = -1;  // the model the heads panel shows
  ErrorLine* error_line_;
  ElidedLabel* status_label_;  // the device and the models, elided where the bar is short
  QMenu* recent_menu_;
  QString session_path_;  // the session file opened or saved last; "" for none
  QTimer* autosave_timer_ = nullptr;
  bool autosave_enabled_ = true;
  std::vector<QPointer<AttentionView>> viewers_;  // attention files' windows, closed with this one
};

}  // namespace aw

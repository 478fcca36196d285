// app/gui/main_window.cpp — see main_window.h.
#include "app/gui/main_window.h"

#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "app/gui/circuit_view.h"
#include "app/gui/error_line.h"
#include "widgets/attention_overview.h"
#include "widgets/elided_label.h"
#include "widgets/head_toggle_grid.h"
#include "widgets/model_box.h"
#include "widgets/run_progress_bar.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextStream>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace aw {
namespace {
constexpr int kDockChars = 16;  // the heads panel's choosers: its width, not their items'
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), session_(std::make_unique<ModelSession>()) {
  setWindowTitle("Attention Workbench");
  setAcceptDrops(true);

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(6, 6, 6, 0);
  tabs_ = new QTabWidget;
  error_line_ = new ErrorLine;
  tabs_->setCornerWidget(error_line_, Qt::TopRightCorner);
  // Where the tabs leave the corner too little room (a dozen tabs at 1,366 px), the line moves to the
  // status bar's left instead (placeErrorLine): neither pushes the content down.
  tabs_->tabBar()->installEventFilter(this);
  // Fifteen tabs whole in a 1,120-px bar: the style's padding (about 12 px a side) trimmed to 5.
  tabs_->tabBar()->setStyleSheet("QTabBar::tab { padding: 4px 5px; }");
  view_ = new AttentionView;
  tabs_->addTab(view_, "Attention");
  layout->addWidget(tabs_, 1);
  setCentralWidget(central);

  TabContext context;
  context.session = session_.get();
  context.gates = [this](int model) { return model >= 0 && model < static_cast<int>(gates_.size()) ? gates_[model] : HeadGates{}; };
  context.sentence = [this] { return view_->sentence(); };
  context.tokens = [this](int model) {
    const auto* capture = view_->capture(model);
    return capture && capture->text == view_->sentence() ? capture->tokens : QStringList();
  };
  context.show_attention = [this](int model, const QString& text, const QString& what, int layer, int head,
                                  int position) { openTextView(model, text, what, layer, head, position); };
  analyses_ = new AnalysisTabs(context, tabs_, this);
  if (auto* circuits = analyses_->group("Circuits")) circuits->addTab(new CircuitView(analyses_, context), "Circuit view");

  heads_dock_ = new QDockWidget("Heads", this);
  heads_dock_->setObjectName("heads_dock");  // saveState names docks by their object names
  // Closable, so that View → Heads can hide and show it (without, that menu item was greyed).
  heads_dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                           QDockWidget::DockWidgetClosable);
  auto* dock_body = new QWidget;
  auto* dock_layout = new QVBoxLayout(dock_body);
  dock_layout->setContentsMargins(4, 4, 4, 4);
  // The dock's own model: it follows the Attention tab, and can show (and colour, and switch heads
  // of) any other loaded model.
  heads_model_box_ = new QComboBox;
  heads_model_box_->setObjectName("heads_model");
  heads_model_box_->setToolTip("The model whose heads this panel shows and switches (follows the Attention tab)");
  dock_layout->addWidget(heads_model_box_);
  colour_box_ = new QComboBox;
  colour_box_->setObjectName("heads_colour");
  colour_box_->addItem("no colouring");
  fix_box_width(colour_box_, kDockChars);  // "previous-token (copying)" would widen the panel
  colour_box_->setToolTip("Colour the cells by a finished run's head scores (ablation, importance, head types)");
  heads_ = new HeadToggleGrid;
  dock_layout->addWidget(colour_box_);
  dock_layout->addWidget(heads_, 1);
  heads_dock_->setWidget(dock_body);
  addDockWidget(Qt::LeftDockWidgetArea, heads_dock_);

  status_label_ = new ElidedLabel;
  // No stretch: a stretched permanent label left no room for messages ("Session saved to …" was not seen);
  // elided, so that with many models it gives way to the error line.
  statusBar()->addPermanentWidget(status_label_);
  buildMenus();

  connect(view_, &AttentionView::runRequested, this, &MainWindow::runSentence);
  connect(view_->runBar(), &RunProgressBar::cancelRequested, this, &MainWindow::cancelSentenceRun);
  connect(view_, &AttentionView::modelsChosen, this, [this] {
    // A failed model no longer shown (compare off, another model chosen): its error goes too.
    for (auto failed = failed_runs_.begin(); failed != failed_runs_.end();) {
      const int model = failed->first;
      if (model == view_->currentModel() || model == view_->compareModel()) {
        ++failed;
        continue;
      }
      if (model < static_cast<int>(models_.size())) clearErrorOf(runLabel(model));
      failed = failed_runs_.erase(failed);
    }
    showHeadsOf(view_->currentModel());  // the panel follows the Attention tab's model
    analyses_->refreshTargets();
    requestRuns();
  });
  connect(heads_, &HeadToggleGrid::gatesChanged, this, &MainWindow::onGatesChanged);
  connect(colour_box_, &QComboBox::currentIndexChanged, this, [this] { updateColouring(); });
  connect(heads_model_box_, &QComboBox::currentIndexChanged, this, [this](int model) { showHeadsOf(model); });
  // A finished run's scores colour the panel at once, whichever model it ran on.
  connect(analyses_, &AnalysisTabs::headScores, this, [this](int model, const QString& label, const auto& scores) {
    scores_[model][label] = scores;
    showHeadsOf(model);
    colour_box_->setCurrentText(label);
  });
  connect(&watcher_, &QFutureWatcher<JobResult>::finished, this, &MainWindow::onJobFinished);
  updateStatus();
  restoreLayout();
  startAutosave();
}

QRect MainWindow::fittedGeometry(const QRect& available) {
  // Room for the title bar and borders the window manager adds around the client area.
  const QSize frame(16, 48);
  const QSize size = QSize(1360, 860).boundedTo(available.size() - frame);
  QRect geometry(QPoint(), size);
  geometry.moveCenter(available.center());
  return geometry;
}

void MainWindow::restoreLayout() {
  const QSettings settings;
  // The last geometry and dock layout; the first time, the screen's free area (1,360 × 860 where it fits).
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) {
    const auto* screen = QGuiApplication::primaryScreen();
    if (screen) setGeometry(fittedGeometry(screen->availableGeometry()));
  }
  restoreState(settings.value("window/state").toByteArray());
}

void MainWindow::saveLayout() const {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
}

MainWindow::~MainWindow() {
  queued_.clear();
  watcher_.waitForFinished();
}

// job_active_, not watcher_.isRunning(): a job that has ended but whose result is not applied yet is still busy.
bool MainWindow::isBusy() const {
  return job_active_ || !queued_.empty() || analyses_->isRunning() || view_->isMakingLayer();
}
QString MainWindow::errorText() const { return error_line_->text(); }

AttentionView* MainWindow::openAttentionFile(const QString& path) {
  SavedAttention saved;
  try {
    saved = ModelSession::openAttentionFile(path);
  } catch (const std::exception& error) {
    showError(QString::fromUtf8(error.what()));
    return nullptr;
  }
  clearError();
  // A window of its own: the file is not a model, so it takes no sentence, gates or analyses.
  return openViewer(QString("%1 — attention of %2, %3 tokens%4")
                        .arg(saved.summary.name, saved.model)
                        .arg(saved.capture.length())
                        .arg(saved.heads == "all" ? QString() : QString(", heads %1 of the model").arg(saved.heads)),
                    saved.summary, saved.capture, {});
}

AttentionView* MainWindow::openViewer(const QString& title, const ModelSummary& summary, const AttentionCapture& capture,
                                      const HeadGates& gates) {
  auto* viewer = new AttentionView;
  viewer->setAttribute(Qt::WA_DeleteOnClose);
  viewer->setWindowFlag(Qt::Window);
  viewer->setWindowTitle(title);
  viewer->setBrowseOnly(true);
  viewer->setModels({summary});
  viewer->setSentence(capture.text);
  viewer->setColourScale(view_->colourScale());
  viewer->setCapture(0, capture, gates);
  viewer->resize(QSize(1100, 700).boundedTo(fittedGeometry(screen()->availableGeometry()).size()));
  viewer->show();
  viewers_.push_back(viewer);
  return viewer;
}

void MainWindow::openTextView(int model, const QString& prompt, const QString& what, int layer, int head,
                              int position) {
  // Its own window, so that the sentence, the compared model and the zoom in the Attention tab stay
  // as the user left them (a prompt replaced the sentence, and a compared model of another
  // vocabulary read it as <unk>).
  if (model < 0 || model >= static_cast<int>(models_.size())) return;
  auto* session = session_.get();
  const auto summary = models_[model];
  const auto gates = gates_[model];
  enqueue({"Running " + summary.name + " on " + what, [this, session, model, prompt, what, layer, head, position, summary, gates]() -> Job {
             return [this, session, model, prompt, what, layer, head, position, summary, gates]() -> JobResult {
               auto capture = session->attend(model, prompt, gates, layer);
               return {{}, [this, what, layer, head, position, summary, gates, capture = std::move(capture)] {
                         auto* viewer = openViewer(QString("%1 — %2, %3 tokens").arg(summary.name, what).arg(capture.length()),
                                                   summary, capture, gates);
                         viewer->setLayerHead(layer, head);
                         if (position >= 0) viewer->showPosition(position);
                         Q_EMIT textViewOpened(viewer);
                       }};
             };
           }});
}

void MainWindow::showError(const QString& message, const QString& source) {
  error_source_ = source;
  placeErrorLine();
  error_line_->showError(message);
}

void MainWindow::placeErrorLine() {
  const int room = tabs_->width() - tabs_->tabBar()->sizeHint().width() - 12;
  const bool corner = room >= ErrorLine::kLeastRoom;
  if (corner == (tabs_->cornerWidget(Qt::TopRightCorner) == error_line_)) return;
  if (corner) {
    statusBar()->removeWidget(error_line_);
    error_line_->setMinimumWidth(0);
    error_line_->setMaximumWidth(ErrorLine::kCornerWidth);
    tabs_->setCornerWidget(error_line_, Qt::TopRightCorner);
  } else {
    tabs_->setCornerWidget(nullptr, Qt::TopRightCorner);
    error_line_->setMaximumWidth(QWIDGETSIZE_MAX);  // the status bar's free width, left of the models…
    error_line_->setMinimumWidth(ErrorLine::kLeastRoom);  // …and never less than can be read: they give way
    statusBar()->insertPermanentWidget(0, error_line_, 1);
  }
  error_line_->setVisible(!error_line_->text().isEmpty());
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  // The tab bar resized (the window did, or tabs came): the line goes where it can be read.
  if (watched == tabs_->tabBar() && event->type() == QEvent::Resize) placeErrorLine();
  return QMainWindow::eventFilter(watched, event);
}
void MainWindow::clearError() { error_line_->clear(); }

void MainWindow::clearErrorOf(const QString& source) {
  // A job's success clears its own earlier failure, or an error of no job; never another job's (a
  // failed load's line went when any sentence ran).
  if (error_source_.isEmpty() || error_source_ == source) clearError();
}

// ---- background jobs: one at a time, in order ------------------------------------------------------

void MainWindow::enqueue(QueuedJob job) {
  queued_.push_back(std::move(job));
  startNextJob();
}

void MainWindow::startNextJob() {
  if (job_active_ || queued_.empty()) return;
  job_active_ = true;
  auto next = std::move(queued_.front());
  queued_.pop_front();
  job_run_model_ = next.run_model;
  job_label_ = next.label;
  statusBar()->showMessage(next.label + "…");
  job_generation_ = generation_;
  auto job = next.make();
  watcher_.setFuture(QtConcurrent::run([job = std::move(job)]() -> JobResult {
    try {
      return job();
    } catch (const std::exception& error) {
      return {QString::fromUtf8(error.what()), {}};
    }
  }));
}

void MainWindow::onJobFinished() {
  const auto result = watcher_.result();
  job_active_ = false;
  if (job_run_model_ >= 0) {  // a sentence run is over: its progress line goes
    view_->runBar()->finish();
    run_cancel_.reset();
  }
  statusBar()->clearMessage();
  if (job_generation_ != generation_) {
    // From before a session was replaced: nothing to apply.
  } else if (!result.error.isEmpty()) {
    showError(result.error, job_label_);
    if (job_run_model_ >= 0) view_->setRunPending(job_run_model_, false);
    if (job_run_model_ >= 0 && job_run_model_ < static_cast<int>(models_.size())) {
      failed_runs_[job_run_model_] = {view_->sentence(), gates_[job_run_model_]};
      view_->dropCapture(job_run_model_, models_[job_run_model_].name + " could not run this text:\n" + result.error);
    }
  } else if (result.apply) {
    clearErrorOf(job_label_);
    result.apply();
  }
  startNextJob();
  Q_EMIT jobFinished();
}

// ---- models and sentences ---------------------------------------------------------------------------

void MainWindow::setComputeDtype(const QString& name) { session_->setComputeDtype(name); }

void MainWindow::openCheckpoint(const QString& dir) {
  auto* session = session_.get();
  enqueue({"Loading " + dir, [this, session, dir]() -> Job {
             return [this, session, dir]() -> JobResult {
               const auto summary = session->load(dir);
               return {{}, [this, summary] {
                         onModelAdded(summary, HeadGates::allOn(summary.heads_per_block));
                         view_->setCurrentModel(static_cast<int>(models_.size()) - 1);
                         // The first model is current already (no change, no signal): run the
                         // sentence typed or given on the command line for it.
                         requestRuns();
                       }};
             };
           }});
}

void MainWindow::onModelAdded(const ModelSummary& summary, const HeadGates& gates) {
  models_.push_back(summary);
  // Saved gates must fit the model; otherwise it starts with every head on.
  HeadGates fitted = HeadGates::allOn(summary.heads_per_block);
  if (gates.on.size() == fitted.on.size() && gates.total() == fitted.total()) fitted = gates;
  gates_.push_back(fitted);
  rememberRecent(summary.dir);
  view_->setModels(models_);
  analyses_->setModels(models_);
  showHeadsOf(view_->currentModel());
  updateStatus();
}

void MainWindow::onGatesChanged(const HeadGates& gates) {
  const int model = heads_model_;
  if (model < 0 || model >= static_cast<int>(gates_.size())) return;
  gates_[model] = gates;
  analyses_->refreshHeadsOff();  // the tabs' "Heads off" fields follow the panel
  requestRuns();
}

void MainWindow::showHeadsOf(int model) {
  heads_model_ = model;
  {
    const QSignalBlocker block_models(heads_model_box_);
    QStringList names, architectures;
    for (const auto& summary : models_) names << summary.name, architectures << summary.architecture;
    fill_model_box(heads_model_box_, names, architectures);
    fix_box_width(heads_model_box_, kDockChars);  // the panel keeps its width whatever the names
    heads_model_box_->setCurrentIndex(model);
    heads_model_box_->setVisible(models_.size() > 1);
  }
  const QSignalBlocker block(colour_box_);
  const auto previous = colour_box_->currentText();
  while (colour_box_->count() > 1) colour_box_->removeItem(1);
  if (model < 0 || model >= static_cast<int>(models_.size())) {
    heads_->setGates({});
    heads_dock_->setWindowTitle("Heads");
    return;
  }
  heads_dock_->setWindowTitle("Heads — " + models_[model].name);
  heads_->grid()->setLayerNames(models_[model].layer_names);
  heads_->grid()->setQueryGroups(models_[model].query_groups);
  heads_->setGates(gates_[model]);
  for (const auto& [label, scores] : scores_[model]) colour_box_->addItem(label);
  widen_box_list(colour_box_);
  colour_box_->setCurrentText(previous);
  updateColouring();
}

void MainWindow::updateColouring() {
  const int model = heads_model_;
  const auto label = colour_box_->currentText();
  const auto& by_label = scores_[model];
  const auto found = by_label.find(label);
  if (found == by_label.end()) heads_->setScores({}, {});
  else heads_->setScores(found->second, label);
  // The overview shows the same scores when it shows the same model.
  const bool same = found != by_label.end() && model == view_->currentModel();
  view_->overview()->setHeadScores(same ? found->second : std::vector<std::vector<double>>{}, label);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  analyses_->cancelAll();
  saveLayout();
  // Attention-file viewers are windows of their own: left open, they would keep the process alive.
  for (const auto& viewer : viewers_)
    if (viewer) viewer->close();
  if (!models_.empty()) saveSession(lastSessionPath());
  endAutosave();
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const auto& url : event->mimeData()->urls()) {
    const auto path = url.toLocalFile();
    if (path.endsWith(".json", Qt::CaseInsensitive) && QFileInfo(path).isFile()) openSession(path);
    else if (QFileInfo(path).isDir()) openCheckpoint(path);  // a bad folder gets its loader's message
    else if (path.endsWith(".gguf", Qt::CaseInsensitive)) openCheckpoint(path);  // a GGUF file is a model
    else showError(path + ": drop a checkpoint folder, a .gguf file or a session .json file");
  }
  event->acceptProposedAction();
}

// ---- status --------------------------------------------------------------------------------------

void MainWindow::updateStatus() {
  // Short on the bar (several models must fit), in full in the tooltip.
  QStringList short_parts{session_->deviceDescription()}, full_parts{session_->deviceDescription()};
  // Up to three models with their family and size; more by name only, so that the line stays short.
  const bool names_only = models_.size() > 3;
  if (names_only) short_parts << QString("%1 models").arg(models_.size());
  for (const auto& s : models_) {
    short_parts << (names_only ? s.name
                               : QString("%1 (%2, %3M)").arg(s.name, s.architecture).arg(s.parameters / 1e6, 0, 'f', 2));
    full_parts << QString("%1: %2, %3 layers, %4M parameters (%5), %6")
                      .arg(s.name, s.architecture)
                      .arg(s.layers)
                      .arg(s.parameters / 1e6, 0, 'f', 2)
                      .arg(s.dtype, s.dir);
  }
  status_label_->setText(names_only ? short_parts.mid(0, 2).join("   |   ") + ": " + short_parts.mid(2).join(", ")
                                    : short_parts.join("   |   "));
  status_label_->setDetail(full_parts.join("\n"));
}

}  // namespace aw

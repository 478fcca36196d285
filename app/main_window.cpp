// app/main_window.cpp — see main_window.h.
#include "app/main_window.h"

#include "models/errors.h"
#include "widgets/attention_heatmap.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QTextStream>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace aw {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), session_(std::make_unique<ModelSession>()) {
  setWindowTitle("Attention Workbench");
  resize(1100, 820);

  auto* file_menu = menuBar()->addMenu("&File");
  file_menu->addAction("&Open checkpoint folder…", QKeySequence::Open, this, [this] {
    const auto dir = QFileDialog::getExistingDirectory(this, "Open checkpoint folder");
    if (!dir.isEmpty()) openCheckpoint(dir);
  });
  file_menu->addSeparator();
  file_menu->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  auto* controls = new QHBoxLayout;
  model_box_ = new QComboBox;
  model_box_->setMinimumContentsLength(18);
  sentence_edit_ = new QLineEdit;
  sentence_edit_->setPlaceholderText("Type a sentence and press Enter");
  run_button_ = new QPushButton("Run");
  layer_box_ = new QSpinBox;
  layer_box_->setPrefix("layer ");
  head_box_ = new QComboBox;
  head_box_->setMinimumContentsLength(12);
  controls->addWidget(new QLabel("Model"));
  controls->addWidget(model_box_);
  controls->addWidget(sentence_edit_, 1);
  controls->addWidget(run_button_);
  controls->addWidget(layer_box_);
  controls->addWidget(head_box_);
  layout->addLayout(controls);
  error_label_ = new QLabel;
  error_label_->setStyleSheet("color: #b00020; font-weight: bold;");
  error_label_->setWordWrap(true);
  error_label_->hide();
  layout->addWidget(error_label_);
  heatmap_ = new AttentionHeatmap;
  layout->addWidget(heatmap_, 1);
  setCentralWidget(central);
  status_label_ = new QLabel;
  statusBar()->addPermanentWidget(status_label_, 1);

  connect(sentence_edit_, &QLineEdit::returnPressed, this, [this] { runSentence(sentence_edit_->text()); });
  connect(run_button_, &QPushButton::clicked, this, [this] { runSentence(sentence_edit_->text()); });
  connect(model_box_, &QComboBox::currentIndexChanged, this, [this] { onModelChanged(); });
  connect(layer_box_, &QSpinBox::valueChanged, this, [this] { refreshHeadChoices(); });
  connect(head_box_, &QComboBox::currentIndexChanged, this, [this] { showCurrentMatrix(); });
  connect(&watcher_, &QFutureWatcher<JobResult>::finished, this, &MainWindow::onJobFinished);
  updateStatus();
}

MainWindow::~MainWindow() { watcher_.waitForFinished(); }

bool MainWindow::isBusy() const { return watcher_.isRunning() || !queued_.empty(); }
QString MainWindow::errorText() const { return error_label_->isVisible() ? error_label_->text() : QString(); }

void MainWindow::startJob(const QString& what, std::function<JobResult()> job) {
  // The session serves one job at a time: later jobs wait in a queue.
  queued_.emplace_back(what, std::move(job));
  startNextJob();
}

void MainWindow::startNextJob() {
  if (watcher_.isRunning() || queued_.empty()) return;
  auto [label, job] = std::move(queued_.front());
  queued_.erase(queued_.begin());
  statusBar()->showMessage(label + "…");
  run_button_->setEnabled(false);
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
  statusBar()->clearMessage();
  run_button_->setEnabled(true);
  if (!result.error.isEmpty()) showError(result.error);
  else if (result.apply) result.apply();
  startNextJob();
  Q_EMIT jobFinished();
}

void MainWindow::showError(const QString& message) {
  error_label_->setText(message);
  error_label_->show();
}

void MainWindow::openCheckpoint(const QString& dir) {
  auto* session = session_.get();
  startJob("Loading " + dir, [this, session, dir]() -> JobResult {
    const auto summary = session->load(dir);
    return {{}, [this, summary] {
              error_label_->hide();
              model_box_->addItem(summary.name);
              model_box_->setCurrentIndex(model_box_->count() - 1);
              updateStatus();
            }};
  });
}

void MainWindow::openSampleData(const QString& dir) {
  const QDir folder(dir);
  if (!folder.exists()) {
    showError(dir + ": no such folder (sample data not found)");
    return;
  }
  // The demo sentence first: each model that finishes loading runs it (onModelChanged).
  QFile sentences(folder.filePath("demo_sentences.txt"));
  if (sentences.open(QIODevice::ReadOnly | QIODevice::Text)) sentence_edit_->setText(QTextStream(&sentences).readLine().trimmed());
  for (const auto& entry : folder.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
    if (QFile::exists(folder.filePath(entry + "/config.json"))) openCheckpoint(folder.filePath(entry));
}

void MainWindow::runSentence(const QString& sentence) {
  if (sentence_edit_->text() != sentence) sentence_edit_->setText(sentence);  // e.g. from --text
  // At start-up the models are still queued for loading; the first one is then the one to run.
  const int index = std::max(0, model_box_->currentIndex());
  if (model_box_->count() == 0 && queued_.empty() && !watcher_.isRunning()) {
    showError("No model loaded: File → Open checkpoint folder…");
    return;
  }
  auto* session = session_.get();
  startJob("Running", [this, session, index, sentence]() -> JobResult {
    auto capture = session->attend(index, sentence);
    return {{}, [this, index, capture = std::move(capture)] {
              error_label_->hide();
              capture_ = capture;
              capture_model_ = index;
              refreshHeadChoices();
            }};
  });
}

void MainWindow::onModelChanged() {
  const int model = model_box_->currentIndex();
  if (model < 0) return;
  layer_box_->setRange(1, session_->summary(model).layers);  // numbered from 1, as in the CSVs
  // Another model than the one shown: run the sentence through it.
  if (capture_model_ != model && !sentence_edit_->text().isEmpty()) runSentence(sentence_edit_->text());
}

void MainWindow::refreshHeadChoices() {
  if (capture_model_ < 0 || capture_.weights_by_layer.empty()) return;
  const int heads = capture_.heads_per_layer.at(std::min<int>(layer_box_->value() - 1, capture_.heads_per_layer.size() - 1));
  const QSignalBlocker block(head_box_);
  const int previous = head_box_->currentIndex();
  head_box_->clear();
  head_box_->addItem("mean of heads");
  for (int head = 0; head < heads; ++head) head_box_->addItem(QString("head %1").arg(head + 1));
  head_box_->setCurrentIndex(std::clamp(previous, 0, heads));
  showCurrentMatrix();
}

void MainWindow::showCurrentMatrix() {
  if (capture_model_ < 0 || capture_.weights_by_layer.empty()) return;
  const int layer = layer_box_->value() - 1, n = capture_.length();
  const int heads = capture_.heads_per_layer.at(layer);
  const int head = head_box_->currentIndex() - 1;  // -1 = mean of heads
  const auto& weights = capture_.weights_by_layer.at(layer);
  AttentionMatrix matrix;
  matrix.rows = matrix.cols = n;
  matrix.row_labels = matrix.col_labels = capture_.tokens;
  matrix.weights.assign(static_cast<size_t>(n) * n, 0.0f);
  for (int h = 0; h < heads; ++h) {
    if (head >= 0 && h != head) continue;
    const float share = head >= 0 ? 1.0f : 1.0f / heads;
    for (size_t i = 0; i < matrix.weights.size(); ++i) matrix.weights[i] += share * weights[h * n * n + i];
  }
  matrix.title = QString("%1 · layer %2 · %3")
                     .arg(session_->summary(capture_model_).name)
                     .arg(layer + 1)
                     .arg(head >= 0 ? QString("head %1").arg(head + 1) : QString("mean of %1 heads").arg(heads));
  heatmap_->setMatrix(matrix);
}

void MainWindow::updateStatus() {
  // Short on the bar (several models must fit), in full in the tooltip.
  QStringList short_parts{session_->deviceDescription()}, full_parts{session_->deviceDescription()};
  for (int i = 0; i < session_->count(); ++i) {
    const auto& s = session_->summary(i);
    short_parts << QString("%1 (%2, %3M)").arg(s.name, s.architecture).arg(s.parameters / 1e6, 0, 'f', 2);
    full_parts << QString("%1: %2, %3 layers, %4M parameters (%5), %6")
                      .arg(s.name, s.architecture)
                      .arg(s.layers)
                      .arg(s.parameters / 1e6, 0, 'f', 2)
                      .arg(s.dtype, s.dir);
  }
  status_label_->setText(short_parts.join("   |   "));
  status_label_->setToolTip(full_parts.join("\n"));
}

}  // namespace aw

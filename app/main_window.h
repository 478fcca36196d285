// app/main_window.h — the desktop workbench window: pick a model, type a sentence, browse every
// layer's and head's attention as a heatmap. Model work runs on a worker thread; the window only
// ever sees plain data (AttentionCapture) and error strings.
#pragma once

#include "app/model_session.h"

#include <QFutureWatcher>
#include <QMainWindow>

#include <functional>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace aw {

class AttentionHeatmap;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads every checkpoint folder directly under `dir` and the first line of demo_sentences.txt.
  void openSampleData(const QString& dir);
  void openCheckpoint(const QString& dir);
  void runSentence(const QString& sentence);

  bool isBusy() const;
  AttentionHeatmap* heatmap() const { return heatmap_; }
  QString errorText() const;

 Q_SIGNALS:
  void jobFinished();

 private:
  struct JobResult {
    QString error;
    std::function<void()> apply;  // runs on the UI thread when the job succeeded
  };
  void startJob(const QString& what, std::function<JobResult()> job);
  void startNextJob();
  void onJobFinished();
  void refreshHeadChoices();
  void showError(const QString& message);
  void showCurrentMatrix();
  void updateStatus();
  void onModelChanged();

  std::unique_ptr<ModelSession> session_;
  AttentionCapture capture_;
  int capture_model_ = -1;
  QFutureWatcher<JobResult> watcher_;
  std::vector<std::pair<QString, std::function<JobResult()>>> queued_;

  QComboBox* model_box_;
  QLineEdit* sentence_edit_;
  QPushButton* run_button_;
  QSpinBox* layer_box_;
  QComboBox* head_box_;
  QLabel* error_label_;
  QLabel* status_label_;
  AttentionHeatmap* heatmap_;
};

}  // namespace aw

// widgets/run_progress_bar.h — a long run's line over the Attention tab's maps, like an analysis tab's:
// what runs, a bar of the layers done, the rate and the time left, and Cancel ("cancelling…" until the
// run stops, which it does between two layers or tiles). Shown only once a run has lasted kShowAfterMs,
// so that the many short runs (a sentence, a gate) never move the maps.
#pragma once

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace aw {

// "4.2 s", "12 s", "3 min 5 s".
QString duration_text(double seconds);

class RunProgressBar : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kShowAfterMs = 400;

  explicit RunProgressBar(QWidget* parent = nullptr);

  void start(const QString& what);  // "Running vanilla_lm": busy until the first report
  // `done` of `total` `unit` (a fraction where a long text's layer is made in row tiles).
  void setProgress(double done, int total, const QString& unit);
  void finish();  // the run is over (done, failed or cancelled): the line goes
  bool isRunning() const { return running_; }
  bool isCancelling() const { return cancelling_; }
  QString text() const;  // the line as it reads
  QPushButton* cancelButton() const { return cancel_; }

 Q_SIGNALS:
  void cancelRequested();

 private:
  QLabel* label_;
  QProgressBar* bar_;
  QPushButton* cancel_;
  QElapsedTimer clock_;
  QTimer show_later_;
  QString what_;
  bool running_ = false, cancelling_ = false;
};

}  // namespace aw

// widgets/run_progress_bar.cpp — see run_progress_bar.h.
#include "widgets/run_progress_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include <cmath>

namespace aw {

QString duration_text(double seconds) {
  if (seconds < 60) return QString("%1 s").arg(seconds, 0, 'f', seconds < 10 ? 1 : 0);
  return QString("%1 min %2 s").arg(static_cast<int>(seconds) / 60).arg(static_cast<int>(seconds) % 60);
}

RunProgressBar::RunProgressBar(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  label_ = new QLabel;
  bar_ = new QProgressBar;
  bar_->setTextVisible(false);
  bar_->setMaximumWidth(220);
  cancel_ = new QPushButton("Cancel");
  cancel_->setToolTip("Stop this run: the map stays empty until the text is run again (Enter)");
  layout->addWidget(label_, 1);
  layout->addWidget(bar_);
  layout->addWidget(cancel_);
  connect(cancel_, &QPushButton::clicked, this, [this] {
    if (!running_ || cancelling_) return;
    cancelling_ = true;
    cancel_->setEnabled(false);
    label_->setText(what_ + ": cancelling…");
    Q_EMIT cancelRequested();
  });
  show_later_.setSingleShot(true);
  connect(&show_later_, &QTimer::timeout, this, [this] {
    if (running_) show();
  });
  hide();
}

void RunProgressBar::start(const QString& what) {
  what_ = what;
  running_ = true;
  cancelling_ = false;
  cancel_->setEnabled(true);
  bar_->setRange(0, 0);  // busy until the first report says how much there is
  label_->setText(what + "…");
  clock_.start();
  show_later_.start(kShowAfterMs);
}

void RunProgressBar::setProgress(double done, int total, const QString& unit) {
  if (!running_ || cancelling_ || total <= 0) return;
  constexpr int kSteps = 1000;  // per unit: a long text's layer moves the bar tile by tile
  bar_->setRange(0, total * kSteps);
  bar_->setValue(static_cast<int>(std::lround(std::min<double>(done, total) * kSteps)));
  const double seconds = clock_.elapsed() / 1000.0;
  const double rate = seconds > 0 ? done / seconds : 0;
  auto text = QString("%1: %2 of %3 %4").arg(what_, QString::number(done, 'f', done == std::floor(done) ? 0 : 1))
                  .arg(total).arg(unit);
  if (rate > 0 && done < total)
    text += QString(" · %1 %2/s · ETA %3").arg(rate, 0, 'f', rate < 10 ? 2 : 0).arg(unit, duration_text((total - done) / rate));
  label_->setText(text);
}

void RunProgressBar::finish() {
  running_ = cancelling_ = false;
  show_later_.stop();
  hide();
}

QString RunProgressBar::text() const { return label_->text(); }

}  // namespace aw

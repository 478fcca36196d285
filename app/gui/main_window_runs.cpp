// app/gui/main_window_runs.cpp — the window's sentence runs (main_window.h): which models run the
// text, one queued run per model, their progress on the bar over the maps, Cancel, and the failed or
// cancelled runs that are not repeated until asked; a text opened from a file.
#include "app/gui/main_window.h"

#include "app/gui/analysis_tabs.h"
#include "app/gui/attention_view.h"
#include "widgets/run_progress_bar.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QStringDecoder>

namespace aw {

bool MainWindow::openTextFile(const QString& path) {
  const auto name = QFileInfo(path).fileName();
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    showError(path + ": cannot be read (" + file.errorString() + ")", "Open text file");
    return false;
  }
  if (file.size() > kMostTextBytes) {
    showError(QString("%1: %2 MB, more than the %3 MB a text may take").arg(name).arg(file.size() / double(1 << 20), 0, 'f', 1).arg(kMostTextBytes >> 20),
              "Open text file");
    return false;
  }
  QStringDecoder decoder(QStringDecoder::Utf8);  // a byte-order mark is dropped
  QString text = decoder(file.readAll());
  if (decoder.hasError()) {
    showError(name + ": not UTF-8 text", "Open text file");
    return false;
  }
  if (text.endsWith('\n')) text.chop(text.endsWith("\r\n") ? 2 : 1);  // the file's last line break is not the text's
  if (text.trimmed().isEmpty()) {
    showError(name + ": the file is empty", "Open text file");
    return false;
  }
  clearErrorOf("Open text file");
  runSentence(text);
  return true;
}

void MainWindow::runSentence(const QString& sentence) {
  if (view_->sentence() != sentence) view_->setSentence(sentence);
  if (models_.empty() && !isBusy()) {
    showError("No model loaded: File → Open checkpoint folder…");
    return;
  }
  if (sentence.trimmed().isEmpty()) {  // nothing to run: say so rather than keep the old map silently
    showError("The sentence is empty: type one and press Enter");
    return;
  }
  for (auto failed = failed_runs_.begin(); failed != failed_runs_.end();)  // asked again: a cancelled run runs
    failed = failed->second.cancelled ? failed_runs_.erase(failed) : std::next(failed);
  requestRuns();
}

void MainWindow::requestRuns() {
  for (int model : {view_->currentModel(), view_->compareModel()})
    if (model >= 0 && model < static_cast<int>(models_.size()) && !view_->sentence().trimmed().isEmpty() &&
        !view_->hasCapture(model, view_->sentence(), gates_[model]) &&
        !(failed_runs_.count(model) && failed_runs_.at(model).sentence == view_->sentence() &&
          failed_runs_.at(model).gates == gates_[model]))
      queueRun(model);
}

QString MainWindow::runLabel(int model) const { return "Running " + models_[model].name; }

void MainWindow::queueRun(int model) {
  // A queued run reads the newest sentence and gates when it starts, so one per model is enough.
  for (const auto& job : queued_)
    if (job.run_model == model) return;
  auto* session = session_.get();
  view_->setRunPending(model, true);  // cleared when the run's result (or error) is applied
  enqueue({runLabel(model), [this, session, model]() -> Job {
             const auto sentence = view_->sentence();
             const auto target = models_[model].translation ? view_->target() : QString();  // "": translate
             const auto gates = gates_[model];
             const int layer = view_->layer();  // the one layer whose floats the capture holds
             // Progress to the bar over the maps (at most every 100 ms: a long text reports each row
             // tile); its Cancel stops the run at the next report.
             auto cancel = std::make_shared<std::atomic<bool>>(false);
             run_cancel_ = cancel;
             view_->runBar()->start(runLabel(model));
             auto progress = [this, cancel, last = std::make_shared<QElapsedTimer>()](double done, int layers) {
               if (!last->isValid() || last->elapsed() >= 100 || done >= layers) {
                 last->start();
                 QMetaObject::invokeMethod(this, [this, done, layers] { view_->runBar()->setProgress(done, layers, "layers"); },
                                           Qt::QueuedConnection);
               }
               return !cancel->load();
             };
             return [this, session, model, sentence, target, gates, layer, progress]() -> JobResult {
               try {
                 auto capture = session->attend(model, sentence, gates, layer, target, progress);
                 return {{}, [this, model, gates, capture = std::move(capture)] {
                           // The new capture first: shown while still pending, the old one would start
                           // making a layer that the new one replaces.
                           view_->setCapture(model, capture, gates);
                           view_->setRunPending(model, false);
                           analyses_->refreshTargets();  // the top-tokens tab's model A may be this one
                           requestRuns();  // the sentence or gates may have changed meanwhile
                         }};
               } catch (const RunCancelled&) {
                 return {{}, [this, model, sentence, gates] {  // not an error: the map says so
                           showCancelled(model, sentence, gates);
                           requestRuns();
                         }};
               }
             };
           },
           model});
}

void MainWindow::cancelSentenceRun() {
  if (run_cancel_) run_cancel_->store(true);
  // The text's queued runs go too: Cancel stops the text, not one model of it.
  for (auto job = queued_.begin(); job != queued_.end();) {
    if (job->run_model < 0) {
      ++job;
      continue;
    }
    showCancelled(job->run_model, view_->sentence(), gates_[job->run_model]);
    job = queued_.erase(job);
  }
}

void MainWindow::showCancelled(int model, const QString& sentence, const HeadGates& gates) {
  failed_runs_[model] = {sentence, gates, /*cancelled=*/true};  // not run again until asked (Enter)
  view_->setRunPending(model, false);
  view_->dropCapture(model, models_[model].name + ": the run was cancelled.\nPress Enter (or Run) to run the text again.");
}

}  // namespace aw

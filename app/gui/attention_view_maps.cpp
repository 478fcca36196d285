// app/gui/attention_view_maps.cpp — the Attention tab's large maps (see attention_view.h): what each
// heatmap shows of its model's capture, a layer the capture does not hold made on a worker, and a long
// text's tokens at full resolution where the map is zoomed in (pooled_zoom.h).
#include "app/gui/attention_view.h"

#include "app/gui/capture_matrices.h"
#include "app/gui/pooled_zoom.h"
#include "widgets/attention_heatmap.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace aw {

void AttentionView::showMatrix(AttentionHeatmap* heatmap, int model) {
  const bool running = pending_runs_.count(model) && model < static_cast<int>(models_.size());
  heatmap->setStale(running ? "running " + models_[model].name + "…" : QString());
  auto* zoom = heatmap == heatmap_ ? zoom_ : compare_zoom_;
  const auto found = captures_.find(model);
  if (found == captures_.end() || model >= static_cast<int>(models_.size())) {
    zoom->clear();
    heatmap->setMatrix({});
    // Why the map is empty, where the eye is: the run's error (each compared model its own), else how
    // to fill it.
    const auto error = run_errors_.find(model);
    if (model >= 0 && model < static_cast<int>(models_.size()))
      heatmap->setPlaceholder(error != run_errors_.end() ? error->second : QString("Type a sentence and press Enter"));
    return;
  }
  const auto& capture = found->second.capture;
  // The compared model may have fewer layers or heads: show its nearest.
  const int layer = std::min(this->layer(), capture.layerCount() - 1);
  const int head = layer >= 0 ? std::min(this->head(), capture.layers[layer].heads - 1) : -1;
  // Zoomed in on a long text's tokens: the zoom shows them at full resolution, made from the state
  // entering the layer, without the pooled map of this layer.
  if (layer >= 0 && zoom->show(capture, found->second.serial, layer, head, models_[model].name, found->second.gates)) return;
  if (layer >= 0 && !capture.holdsLayer(layer)) {
    // The capture holds one layer's floats: another is made on a worker while the map shown so far
    // stays up, greyed, so a layer change never waits on the UI thread.
    const auto& fetch = fetches_[model];
    if (fetch.failed == std::pair{found->second.serial, layer}) {
      heatmap->setMatrix({});
      heatmap->setStale(fetch.failure);
      return;
    }
    if (running) return;  // its new capture comes soon: the layer is made from that one if it lacks it
    heatmap->setStale(QString("making layer %1 of %2…").arg(layer + 1).arg(models_[model].name));
    fetchLayer(model, layer);
    return;
  }
  heatmap->setMatrix(capture_matrix(capture, layer, head, models_[model].name, found->second.gates));
  zoom->pooledShown();
}

void AttentionView::fetchLayer(int model, int layer) {
  auto& fetch = fetches_[model];
  const auto& shown = captures_.at(model);
  if (fetch.running) return;  // when it is over, the layer shown then is asked for: requests in between drop
  fetch.running = true;
  struct Made {
    WeightBlock block;
    QString error;
  };
  auto* watcher = new QFutureWatcher<Made>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, model, serial = shown.serial, layer] {
    const auto made = watcher->result();
    watcher->deleteLater();
    auto& fetch = fetches_[model];
    fetch.running = false;
    const auto found = captures_.find(model);
    if (found == captures_.end() || found->second.serial != serial) return refreshMatrices();  // superseded
    if (made.error.isEmpty()) found->second.capture.holdOnly(layer, made.block);
    else {
      fetch.failed = {serial, layer};
      fetch.failure = made.error;
    }
    refreshMatrices();
  });
  watcher->setFuture(QtConcurrent::run([capture = shown.capture, layer]() -> Made {
    try {
      return {capture.layer(layer), {}};
    } catch (const std::exception& error) {
      return {{}, QString("layer %1: %2").arg(layer + 1).arg(QString::fromUtf8(error.what()))};
    }
  }));
}

bool AttentionView::isMakingLayer() const {
  return zoom_->isBusy() || compare_zoom_->isBusy() ||
         std::any_of(fetches_.begin(), fetches_.end(), [](const auto& fetch) { return fetch.second.running; });
}

void AttentionView::refreshMatrices() {
  showMatrix(heatmap_, currentModel());
  const int compared = compareModel();
  if (compared >= 0) showMatrix(compare_heatmap_, compared);
}

}  // namespace aw

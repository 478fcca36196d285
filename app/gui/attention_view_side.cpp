// app/gui/attention_view_side.cpp — the Attention tab's side of the maps (see attention_view.h): a
// translation model's output, and the predictions at the chosen position (marked stale while the model
// runs a new text, since they are the last text's).
#include "app/gui/attention_view.h"

#include "app/gui/capture_matrices.h"
#include "widgets/expert_strip.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>

#include <algorithm>

namespace aw {

void AttentionView::refreshTranslation() {
  const auto found = captures_.find(currentModel());
  if (found == captures_.end() || !found->second.capture.isTranslation()) {
    translation_label_->hide();
    return;
  }
  const auto& shown = found->second;
  QString html = shown.capture.forced_target.isEmpty()
                     ? QString("<b>Translation</b> (beam %1): ").arg(shown.capture.beam)
                     : QString("<b>Given target</b> (teacher-forced, log-probability %1): ")
                           .arg(shown.capture.target_log_probability, 0, 'f', 2);
  const auto& before = shown.previous_translation;
  if (before.isNull() || before == shown.capture.translation) {
    html += shown.capture.translation.toHtmlEscaped();
    if (!before.isNull()) html += " <span style='color:#666'>(unchanged by the last head change)</span>";
  } else {
    html += marked_changes(before, shown.capture.translation) +
            "<br><span style='color:#666'>before the last head change: " + before.toHtmlEscaped() + "</span>";
  }
  translation_label_->setText(html);
  translation_label_->show();
}

void AttentionView::refreshExperts() {
  const auto found = captures_.find(currentModel());
  if (found == captures_.end() || found->second.capture.expert_layers.empty()) {
    expert_box_->hide();
    return;
  }
  const auto& capture = found->second.capture;
  const int shown_layer = layer();
  const ExpertTokens* routing = nullptr;
  for (const auto& each : capture.expert_layers)
    if (each.layer == shown_layer) routing = &each;
  const auto title = QString("Layer %1: each token on the colour of its first expert (top-%2 of %3; hover for all)")
                         .arg(shown_layer + 1)
                         .arg(capture.expert_layers.front().k)
                         .arg(capture.expert_count);
  expert_strip_->setRouting(capture.tokens, routing, capture.expert_count, title,
                            routing ? QString() : "a dense layer: no router");
  expert_box_->show();
}

void AttentionView::refreshPredictions() {
  predictions_->setRowCount(0);
  const auto found = captures_.find(currentModel());
  if (found == captures_.end()) {
    // No run to show (none yet, or it failed): no tokens to choose either, not the last run's.
    predictions_title_->clear();
    const QSignalBlocker block(position_box_);
    position_box_->clear();
    position_box_->setEnabled(false);
    return;
  }
  const auto& capture = found->second.capture;
  // While the model runs a new text these are the last text's: greyed, and the title says so.
  const bool running = pending_runs_.count(currentModel()) > 0;
  predictions_->setEnabled(!running);
  std::vector<Prediction> shown;
  if (capture.classifier) {
    position_box_->setEnabled(false);
    predictions_title_->setText("Class probabilities for the whole text");
    shown = capture.predictionsAt(0);
  } else {
    position_box_->setEnabled(true);
    const int position = std::clamp(position_box_->currentIndex(), 0, capture.predictionCount() - 1);
    const auto& tokens = capture.isTranslation() ? capture.target_tokens : capture.tokens;
    if (position >= 0) {
      predictions_title_->setText(QString("Next %1token after “%2” (position %3)")
                                      .arg(capture.isTranslation() ? "target " : "")
                                      .arg(tokens.value(position))
                                      .arg(position + 1));
      try {  // a language model's are computed here, when first shown
        shown = capture.predictionsAt(position);
      } catch (const std::exception& error) {
        predictions_title_->setText(QString("No predictions: %1").arg(QString::fromUtf8(error.what())));
      }
    }
  }
  if (running) predictions_title_->setText("Running a new text… (below: the last text's predictions)");
  predictions_->setRowCount(static_cast<int>(shown.size()));
  for (int i = 0; i < static_cast<int>(shown.size()); ++i) {
    predictions_->setItem(i, 0, new QTableWidgetItem(shown[i].label));
    auto* probability = new QTableWidgetItem(QString::number(shown[i].probability, 'f', 4));
    probability->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    predictions_->setItem(i, 1, probability);
  }
}

}  // namespace aw

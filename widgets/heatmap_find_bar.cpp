// widgets/heatmap_find_bar.cpp — see heatmap_find_bar.h.
#include "widgets/heatmap_find_bar.h"

#include "widgets/attention_heatmap.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>

namespace aw {

HeatmapFindBar::HeatmapFindBar(QWidget* parent) : QWidget(parent), edit_(new QLineEdit), note_(new QLabel) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  edit_->setPlaceholderText("Find token");
  edit_->setClearButtonEnabled(true);
  edit_->setMaximumWidth(180);
  edit_->setToolTip("Enter: centre the map on the next token containing this text (again for the one after)");
  note_->setStyleSheet("color: #a00");
  layout->addWidget(edit_);
  layout->addWidget(note_);
  connect(edit_, &QLineEdit::returnPressed, this, [this] { findNext(edit_->text()); });
  connect(edit_, &QLineEdit::textEdited, note_, &QLabel::clear);  // an old "no token" is not about new text
}

void HeatmapFindBar::setHeatmaps(const QList<AttentionHeatmap*>& heatmaps) {
  heatmaps_.clear();
  for (auto* heatmap : heatmaps) heatmaps_ << heatmap;
}

bool HeatmapFindBar::findNext(const QString& text) {
  if (edit_->text() != text) edit_->setText(text);  // asked for by a caller, not typed
  if (text.isEmpty()) {
    note_->clear();
    return false;
  }
  bool first_found = false, first = true;
  for (const auto& heatmap : heatmaps_) {
    if (!heatmap || heatmap->isHidden()) continue;
    const QPoint found = heatmap->findNextToken(text);
    if (first) first_found = found.x() >= 0 || found.y() >= 0;
    first = false;
  }
  note_->setText(first_found ? QString() : QString("no token '%1'").arg(text));
  return first_found;
}

QString HeatmapFindBar::note() const { return note_->text(); }

}  // namespace aw

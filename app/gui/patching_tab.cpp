// app/gui/patching_tab.cpp — see patching_tab.h.
#include "app/gui/patching_tab.h"

#include "app/gui/settings_form.h"
#include "widgets/result_plot.h"

#include <QComboBox>
#include <QFile>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QTextStream>

namespace aw {

PatchingTab::PatchingTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent)
    : AnalysisTab(descriptor, context, parent) {
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  pair_ = new QComboBox;
  pair_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  pair_->setMinimumContentsLength(24);
  pair_->setToolTip("The pair whose clean prompt a click on a head shows in the Attention tab");
  layout->addWidget(pair_, 1);
  layout->addWidget(new QLabel("click a cell of the map to see its attention on this pair's clean prompt"));
  panel()->settingsForm()->addRow("Show pair", row);
  if (auto* pairs = qobject_cast<QLineEdit*>(form()->input("pairs")))
    connect(pairs, &QLineEdit::textChanged, this, [this] { refreshPairs(); });
  connect(panel()->plot(), &ResultPlot::cellClicked, this, [this](int layer, int head) { showHead(layer, head); });
  refreshPairs();
}

void PatchingTab::refreshPairs() {
  const auto* pairs = qobject_cast<QLineEdit*>(form()->input("pairs"));
  clean_prompts_.clear();
  pair_->clear();
  if (!pairs || pairs->text().isEmpty()) return;
  QFile file(pairs->text());
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return;
  QTextStream in(&file);
  while (!in.atEnd()) {
    const auto line = in.readLine();
    if (line.trimmed().isEmpty()) continue;
    const auto fields = line.split('\t');
    if (fields.size() != 4) continue;  // the run says what is wrong with the file
    clean_prompts_ << fields[0];
    pair_->addItem(QString("%1: %2 → %3").arg(clean_prompts_.size()).arg(fields[0], fields[2]));
  }
}

void PatchingTab::showHead(int layer, int head) {
  const int chosen = pair_->currentIndex();
  if (chosen < 0 || chosen >= clean_prompts_.size() || resultModel() < 0 || !context_.show_attention) return;
  // A residual point's map is layers × positions: its column is a position, shown in the layer's mean
  // of heads with that position's row outlined.
  if (panel()->table().column("position") >= 0) {
    const int position = positionOfColumn(head);
    if (position >= 0)
      context_.show_attention(resultModel(), clean_prompts_[chosen], "the pair's clean prompt", layer, -1, position);
    return;
  }
  context_.show_attention(resultModel(), clean_prompts_[chosen], "the pair's clean prompt", layer, head, -1);
}

}  // namespace aw

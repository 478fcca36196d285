// app/gui/top_tokens_tab.cpp — see top_tokens_tab.h.
#include "app/gui/top_tokens_tab.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSpinBox>
#include <QToolButton>

namespace aw {
namespace {
// A button per token up to this many; a longer text's target is a position box (8,191 buttons took
// the window 40 ms to make and more to lay out, each time a run of the text finished).
constexpr int kMostTargetButtons = 64;
}  // namespace

TopTokensTab::TopTokensTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent)
    : AnalysisTab(descriptor, context, parent) {
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFixedHeight(48);
  target_row_ = new QWidget;
  new QHBoxLayout(target_row_);
  target_row_->layout()->setContentsMargins(0, 0, 0, 0);
  scroll->setWidget(target_row_);
  target_spin_ = new QSpinBox;
  target_spin_->setObjectName("target_position");
  target_spin_->setPrefix("position ");
  target_spin_->setKeyboardTracking(false);  // runs when the number is whole, not per digit typed
  target_token_ = new QLabel;
  target_row_->layout()->addWidget(target_spin_);
  target_row_->layout()->addWidget(target_token_);
  connect(target_spin_, &QSpinBox::valueChanged, this, [this](int position) {
    target_token_->setText("“" + shown_tokens_.value(position) + "”");
    if (position != target_) chooseTarget(position);
  });
  target_buttons_ = new QButtonGroup(this);
  target_buttons_->setExclusive(true);
  panel()->settingsForm()->addRow("Target", scroll);
  // A click shows that target's table: the old target's, left on view until Run, read as the new one's.
  connect(target_buttons_, &QButtonGroup::idClicked, this, &TopTokensTab::chooseTarget);
  connect(this, &AnalysisTab::finished, this, [this] {
    if (!rerun_) return;
    rerun_ = false;
    start();
  });
  connect(modelChooser(0), &QComboBox::currentIndexChanged, this, [this] { refreshTargets(); });
}

void TopTokensTab::setModels(const std::vector<ModelSummary>& models) {
  AnalysisTab::setModels(models);
  refreshTargets();
}

void TopTokensTab::chooseTarget(int position) {
  target_ = position;
  if (isRunning()) {
    rerun_ = true;
    cancel();
  } else {
    start();
  }
}

void TopTokensTab::refreshTargets() {
  const auto tokens = context_.tokens ? context_.tokens(chosenModel(0)) : QStringList();
  if (targets_made_ && tokens == shown_tokens_) return;  // each run of the same text lands here
  shown_tokens_ = tokens;
  targets_made_ = true;
  for (auto* button : target_buttons_->buttons()) {
    target_buttons_->removeButton(button);
    delete button;
  }
  const int chosen = target_ >= 1 && target_ < tokens.size() ? target_ : tokens.size() - 1;
  const bool long_text = tokens.size() > kMostTargetButtons;
  target_spin_->setVisible(long_text);
  target_token_->setVisible(long_text);
  if (long_text) {
    const QSignalBlocker block(target_spin_);
    target_spin_->setRange(1, static_cast<int>(tokens.size()) - 1);
    target_spin_->setValue(chosen);
    target_token_->setText("“" + tokens.value(chosen) + "”");
  }
  for (int position = 1; position < (long_text ? 0 : tokens.size()); ++position) {
    auto* button = new QToolButton;
    button->setText(tokens[position]);
    button->setToolTip(QString("target position %1").arg(position));
    button->setCheckable(true);
    button->setChecked(position == chosen);
    target_buttons_->addButton(button, position);
    target_row_->layout()->addWidget(button);
  }
  if (tokens.size() < 2) {
    auto* hint = new QToolButton;
    hint->setText("run a sentence of two or more tokens in the Attention tab");
    hint->setEnabled(false);
    target_buttons_->addButton(hint, -1);
    target_row_->layout()->addWidget(hint);
  }
  target_ = tokens.size() >= 2 ? chosen : -1;
}

bool TopTokensTab::prepare(Run& run, QString* refusal) const {
  if (!AnalysisTab::prepare(run, refusal)) return false;  // the sentence too (its descriptor's sentence_field)
  if (target_ >= 1) run.settings["target"] = QString::number(target_);
  return true;
}

void TopTokensTab::saveExtra(QJsonObject& entry) const {
  auto settings = entry["settings"].toObject();
  settings["target"] = target_ >= 1 ? QString::number(target_) : QString();
  entry["settings"] = settings;
}

void TopTokensTab::restoreExtra(const QJsonObject& entry, const QDir&) {
  const auto settings = entry["settings"].toObject();
  const auto saved = settings["target"];
  target_ = saved.isDouble() ? saved.toInt(-1) : saved.toString().isEmpty() ? -1 : saved.toString().toInt();
  targets_made_ = false;  // the same tokens, another target checked
  refreshTargets();
}

}  // namespace aw

// app/gui/sentence_bar.cpp — see sentence_bar.h.
#include "app/gui/sentence_bar.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

#include <limits>

namespace aw {

SentenceBar::SentenceBar(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  sentence_ = new QLineEdit;
  sentence_->setPlaceholderText("Type a sentence and press Enter");
  sentence_->setMaxLength(std::numeric_limits<int>::max());  // QLineEdit's 32,767 cut 8k-token texts short
  target_ = new QLineEdit;
  target_->setObjectName("target");
  target_->setPlaceholderText("Target translation (optional)");
  target_->setToolTip("A translation to read teacher-forced: the attention behind this target instead of the "
                      "model's own translation, and its log-probability");
  target_->setMaxLength(std::numeric_limits<int>::max());
  target_->hide();
  run_ = new QPushButton("Run");
  row->addWidget(sentence_, 3);
  row->addWidget(target_, 2);
  row->addWidget(run_);
  auto run = [this] { Q_EMIT runRequested(sentence_->text()); };
  connect(sentence_, &QLineEdit::returnPressed, this, run);
  connect(target_, &QLineEdit::returnPressed, this, run);
  connect(run_, &QPushButton::clicked, this, run);
}

QString SentenceBar::sentence() const { return sentence_->text(); }
void SentenceBar::setSentence(const QString& sentence) { sentence_->setText(sentence); }
QString SentenceBar::target() const { return target_->isHidden() ? QString() : target_->text().trimmed(); }
void SentenceBar::setTarget(const QString& target) { target_->setText(target); }
void SentenceBar::setTargetShown(bool shown) { target_->setVisible(shown); }

}  // namespace aw

// app/gui/sentence_bar.h — the Attention tab's input row: the sentence, and for a translation model an
// optional target translation (read teacher-forced: the attention behind that target instead of the
// model's own translation), with a Run button. Enter in either field runs.
#pragma once

#include <QWidget>

class QLineEdit;
class QPushButton;

namespace aw {

class SentenceBar : public QWidget {
  Q_OBJECT

 public:
  explicit SentenceBar(QWidget* parent = nullptr);

  QString sentence() const;
  void setSentence(const QString& sentence);
  // The target given for a translation model ("" = translate); always "" while the field is hidden.
  QString target() const;
  void setTarget(const QString& target);
  // Shown for a translation model only.
  void setTargetShown(bool shown);

  QLineEdit* sentenceEdit() const { return sentence_; }
  QLineEdit* targetEdit() const { return target_; }

 Q_SIGNALS:
  void runRequested(const QString& sentence);

 private:
  QLineEdit* sentence_;
  QLineEdit* target_;
  QPushButton* run_;
};

}  // namespace aw

// app/gui/block_spin_box.h — the Attention tab's layer chooser: numbers for one-kind models, the
// block names ("Cross 2") for translation models.
#pragma once

#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>

namespace aw {

class BlockSpinBox : public QSpinBox {
 public:
  void setNames(const QStringList& names) {
    names_ = names;
    setPrefix(names_.isEmpty() ? "layer " : "");
    update();
    lineEdit()->setText(textFromValue(value()));
  }

 protected:
  QString textFromValue(int value) const override {
    return names_.isEmpty() ? QSpinBox::textFromValue(value) : names_.value(value - 1);
  }
  int valueFromText(const QString& text) const override {
    const int index = names_.indexOf(text);
    return index >= 0 ? index + 1 : QSpinBox::valueFromText(text);
  }
  QValidator::State validate(QString& text, int& position) const override {
    if (names_.isEmpty()) return QSpinBox::validate(text, position);
    return names_.contains(text) ? QValidator::Acceptable : QValidator::Intermediate;
  }

 private:
  QStringList names_;
};

}  // namespace aw

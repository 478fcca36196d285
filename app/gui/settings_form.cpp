// app/gui/settings_form.cpp — see settings_form.h.
#include "app/gui/settings_form.h"

#include "app/gui/session_file.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonValue>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStringList>

#include <algorithm>
#include <climits>

namespace aw {
namespace {

int clamped(int64_t value) { return static_cast<int>(std::clamp<int64_t>(value, INT_MIN + 1, INT_MAX)); }

bool is_wide(FieldKind kind) { return kind == FieldKind::Path || kind == FieldKind::Text || kind == FieldKind::List; }

QString label_of(const SettingField& field) {
  return QString::fromStdString(field.label.empty() ? field.name : field.label);
}

QWidget* make_input(const SettingField& field) {
  const auto initial = QString::fromStdString(field.default_text);
  switch (field.kind) {
    case FieldKind::Integer: {
      auto* spin = new QSpinBox;
      // A field whose default the analysis decides (the window: the model's positions) starts on
      // "auto", one below its minimum.
      const bool automatic = field.default_text.empty();
      spin->setRange(clamped(field.minimum) - (automatic ? 1 : 0), clamped(field.maximum));
      if (automatic) spin->setSpecialValueText("auto");
      spin->setValue(automatic ? spin->minimum() : initial.toInt());
      spin->setMinimumWidth(70);
      return spin;
    }
    case FieldKind::Flag:
      return new QCheckBox(label_of(field));
    case FieldKind::Choice: {
      auto* box = new QComboBox;
      if (field.default_text.empty()) box->addItem("default", QString());
      for (const auto& choice : field.choices) box->addItem(QString::fromStdString(choice), QString::fromStdString(choice));
      box->setCurrentIndex(std::max(0, box->findData(initial)));
      return box;
    }
    case FieldKind::Number:
    case FieldKind::Text:
    case FieldKind::Path:
    case FieldKind::List: {
      auto* edit = new QLineEdit(initial);
      edit->setPlaceholderText(QString::fromStdString(field.value_name));
      return edit;
    }
  }
  return nullptr;
}

}  // namespace

SettingsForm::SettingsForm(const AnalysisDescriptor& descriptor, QWidget* owner) : QObject(owner), owner_(owner) {
  const auto& filled = descriptor.tab.filled_fields;
  for (const auto& field : descriptor.fields) {
    const auto name = QString::fromStdString(field.name);
    if (!field.in_form || std::find(filled.begin(), filled.end(), field.name) != filled.end()) continue;
    auto* input = make_input(field);
    input->setObjectName(name);
    input->setToolTip(QString::fromStdString(field.help));
    QWidget* placed = input;
    if (field.kind == FieldKind::Path) {
      auto* edit = static_cast<QLineEdit*>(input);
      placed = new QWidget;
      auto* layout = new QHBoxLayout(placed);
      layout->setContentsMargins(0, 0, 0, 0);
      auto* browse = new QPushButton("Browse…");
      layout->addWidget(edit, 1);
      layout->addWidget(browse);
      const bool folder = field.value_name == "DIR";
      connect(browse, &QPushButton::clicked, this, [this, edit, name, folder, title = label_of(field)] {
        const auto chosen = folder ? QFileDialog::getExistingDirectory(owner_, title, edit->text())
                                   : QFileDialog::getOpenFileName(owner_, title, edit->text());
        if (chosen.isEmpty()) return;
        edit->setText(chosen);
        Q_EMIT edited(name);
      });
    }
    if (auto* edit = qobject_cast<QLineEdit*>(input))
      connect(edit, &QLineEdit::editingFinished, this, [this, name] { Q_EMIT edited(name); });
    else if (auto* spin = qobject_cast<QSpinBox*>(input))
      connect(spin, &QSpinBox::valueChanged, this, [this, name] { Q_EMIT edited(name); });
    else if (auto* box = qobject_cast<QComboBox*>(input))
      connect(box, &QComboBox::currentIndexChanged, this, [this, name] { Q_EMIT edited(name); });
    else if (auto* check = qobject_cast<QCheckBox*>(input))
      connect(check, &QCheckBox::toggled, this, [this, name] { Q_EMIT edited(name); });
    entries_.push_back({&field, input, placed});
  }
  connect(this, &SettingsForm::edited, this, [this] { updateEnabled(); });
  updateEnabled();
}

void SettingsForm::setModelKinds(unsigned kinds) {
  model_kinds_ = kinds;
  updateEnabled();
}

QString SettingsForm::notUsedBecause(const Entry& shown) const {
  const auto& field = *shown.field;
  if (model_kinds_ != 0 && (field.applies_to & model_kinds_) == 0) {
    QStringList for_kinds;
    if (field.applies_to & kLanguageModels) for_kinds << "language models";
    if (field.applies_to & kClassifiers) for_kinds << "classifiers";
    if (field.applies_to & kTranslationModels) for_kinds << "translation models";
    return "for " + for_kinds.join(" and ") + " only";
  }
  // A condition reads the other setting as the CLI would: a flag "1" or "", the rest its text.
  const auto value_of = [this](const std::string& name) {
    const auto* other = entry(QString::fromStdString(name));
    if (!other) return std::string();
    bool given = false;
    const auto value = text(*other, &given);
    return given ? value.toStdString() : other->field->kind == FieldKind::Flag ? std::string() : other->field->default_text;
  };
  const auto* unmet = unmet_condition(field, value_of);
  if (!unmet) return QString();
  const auto* other = entry(QString::fromStdString(unmet->field));
  if (!other) return QString();
  const auto label = label_of(*other->field);
  QString state;
  if (auto* check = qobject_cast<QCheckBox*>(other->input)) state = check->isChecked() ? "on" : "off";
  else if (auto* box = qobject_cast<QComboBox*>(other->input)) state = box->currentText();
  else state = value_of(unmet->field).empty() ? "empty" : "set";
  return "while " + label + " is " + state;
}

void SettingsForm::updateEnabled() {
  for (const auto& entry : entries_) {
    const auto why = notUsedBecause(entry);
    entry.placed->setEnabled(why.isEmpty());
    entry.input->setEnabled(why.isEmpty());
    if (entry.label) entry.label->setEnabled(why.isEmpty());
    entry.input->setToolTip(QString::fromStdString(entry.field->help) + (why.isEmpty() ? QString() : "\n(not used: " + why + ")"));
  }
}

void SettingsForm::addRowsTo(QFormLayout* form) {
  // Narrow fields follow each other along a row until it would pass kRowWidth pixels, so that a form
  // with many settings wraps instead of widening the window past a laptop's 1,366 pixels.
  constexpr int kRowWidth = 880;
  QHBoxLayout* row = nullptr;
  bool row_stretches = false;  // a row with a path or text field fills the width; others keep left
  int row_width = 0;
  const auto close_row = [&] {
    if (row && !row_stretches) row->addStretch(1);
  };
  for (auto& entry : entries_) {
    const bool wide = is_wide(entry.field->kind);
    const bool flag = entry.field->kind == FieldKind::Flag;
    auto* label = flag ? nullptr : new QLabel(label_of(*entry.field));
    const int width = entry.placed->sizeHint().width() + (label ? label->sizeHint().width() + 6 : 0) + 10;
    if (wide || !row || row_width + width > kRowWidth) {
      close_row();
      auto* holder = new QWidget;
      row = new QHBoxLayout(holder);
      row->setContentsMargins(0, 0, 0, 0);
      row_stretches = wide;
      row_width = width;
      // The form's own label column names the row's first field.
      if (label) form->addRow(label, holder);
      else form->addRow(QString(), holder);  // a check box names itself
      entry.label = label;
      row->addWidget(entry.placed, wide ? 1 : 0);
      continue;
    }
    row_width += width;
    row->addSpacing(10);
    if (label) row->addWidget(label);
    entry.label = label;
    row->addWidget(entry.placed);
  }
  close_row();
  updateEnabled();
}

const SettingsForm::Entry* SettingsForm::entry(const QString& name) const {
  const auto found = std::find_if(entries_.begin(), entries_.end(),
                                  [&](const Entry& entry) { return entry.input->objectName() == name; });
  return found == entries_.end() ? nullptr : &*found;
}

QWidget* SettingsForm::input(const QString& name) const {
  const auto* found = entry(name);
  return found ? found->input : nullptr;
}

QWidget* SettingsForm::placed(const QString& name) const {
  const auto* found = entry(name);
  return found ? found->placed : nullptr;
}

void SettingsForm::replaceWithChoices(const QString& name, QComboBox* box) {
  auto* found = const_cast<Entry*>(entry(name));
  if (!found) return;
  box->setObjectName(name);
  delete found->placed;
  found->input = found->placed = box;
  connect(box, &QComboBox::currentIndexChanged, this, [this, name] { Q_EMIT edited(name); });
  updateEnabled();
}

QString SettingsForm::text(const Entry& entry, bool* given) const {
  QString value;
  if (auto* check = qobject_cast<QCheckBox*>(entry.input)) {
    // "1", not "": values() keeps what differs from the default (""), and setValue reads "1" back as on.
    *given = check->isChecked();
    return *given ? QString("1") : QString();
  }
  if (auto* spin = qobject_cast<QSpinBox*>(entry.input))
    value = !spin->specialValueText().isEmpty() && spin->value() == spin->minimum() ? QString() : QString::number(spin->value());
  else if (auto* box = qobject_cast<QComboBox*>(entry.input))
    value = box->currentData().toString();
  else if (auto* edit = qobject_cast<QLineEdit*>(entry.input))
    value = edit->text().trimmed();
  *given = !value.isEmpty();
  return value;
}

AnalysisSettings SettingsForm::values() const {
  AnalysisSettings settings;
  for (const auto& entry : entries_) {
    if (!notUsedBecause(entry).isEmpty()) continue;
    bool given = false;
    const auto value = text(entry, &given);
    // A value left at its default is not "given": the analysis treats it as unset, as the CLI does
    // an option not typed (so a translation-only setting such as the beam is no error for a language model).
    if (given && value.toStdString() != entry.field->default_text) settings[entry.input->objectName()] = value;
  }
  return settings;
}

void SettingsForm::setValue(const QString& name, const QString& value) {
  const auto* found = entry(name);
  if (!found) return;
  if (auto* check = qobject_cast<QCheckBox*>(found->input)) {
    check->setChecked(!value.isEmpty() && value != "false" && value != "0");
  } else if (auto* spin = qobject_cast<QSpinBox*>(found->input)) {
    bool numeric = false;
    const int number = value.toInt(&numeric);
    spin->setValue(numeric ? number : spin->minimum());
  } else if (auto* box = qobject_cast<QComboBox*>(found->input)) {
    const int index = box->findData(value);
    if (index >= 0) box->setCurrentIndex(index);
  } else if (auto* edit = qobject_cast<QLineEdit*>(found->input)) {
    edit->setText(value);
  }
  updateEnabled();  // a line edit's setText says nothing, and a condition may read it
}

QJsonObject SettingsForm::save(const QDir& base) const {
  QJsonObject saved;
  for (const auto& entry : entries_) {
    bool given = false;
    const auto value = text(entry, &given);
    const auto name = entry.input->objectName();
    if (entry.field->kind == FieldKind::Flag) saved[name] = given;
    else saved[name] = entry.field->kind == FieldKind::Path && given ? base.relativeFilePath(value) : value;
  }
  return saved;
}

void SettingsForm::restore(const QJsonObject& saved, const QDir& base) {
  for (const auto& entry : entries_) {
    const auto name = entry.input->objectName();
    if (!saved.contains(name)) continue;
    const auto value = saved[name];
    if (entry.field->kind == FieldKind::Flag) {
      setValue(name, value.toBool() ? "1" : "");
      continue;
    }
    auto text = setting_text(value);
    if (entry.field->kind == FieldKind::Path && !text.isEmpty()) text = QDir::cleanPath(base.absoluteFilePath(text));
    setValue(name, text);
  }
}

}  // namespace aw

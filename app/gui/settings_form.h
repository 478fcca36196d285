// app/gui/settings_form.h — an analysis' settings as editors, made from its descriptor's fields
// (analysis/core/descriptor.h) the way attention-cli makes options of them: Integer → spin box (a field
// without a default starts on "auto"), Flag → check box, Choice → combo box, Path → line edit with
// Browse…, Text / List → line edit; label from the field's label, tooltip from its help. Each editor
// is named after its field (objectName), and the settings read, save and restore by field name.
#pragma once

#include "analysis/core/descriptor.h"
#include "app/gui/model_session.h"

#include <QDir>
#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <vector>

class QComboBox;
class QFormLayout;
class QWidget;

namespace aw {

class SettingsForm : public QObject {
  Q_OBJECT

 public:
  // Editors for the fields shown in a form (in_form), except those the tab fills itself
  // (descriptor.tab.filled_fields).
  SettingsForm(const AnalysisDescriptor& descriptor, QWidget* owner);

  // Lays the editors out: each path or text field starts a row under its label; the spin boxes,
  // choices and check boxes that follow join that row (each with its label), so a form stays short.
  void addRowsTo(QFormLayout* form);
  // The editor itself (QSpinBox, QCheckBox, QComboBox or QLineEdit), and what to place in a layout
  // (for a path, the line edit with its Browse… button).
  QWidget* input(const QString& name) const;
  QWidget* placed(const QString& name) const;
  // Shows `box` for a field instead of the generated editor; its items carry the values as item data.
  void replaceWithChoices(const QString& name, QComboBox* box);

  // Greys what does not apply, its tooltip saying why: a setting none of `kinds` (ModelKindBit; 0 = no
  // model chosen) can use, or one whose condition on another setting fails (applies_when: "Choose
  // heads on" while the mode is single). The conditions are checked again after every edit.
  void setModelKinds(unsigned kinds);

  // What is given: flags that are on, values that are not "auto", empty or the field's default; a
  // greyed setting is left out, as the CLI would refuse it.
  AnalysisSettings values() const;
  void setValue(const QString& name, const QString& value);
  // By field name: flags as booleans, the rest as text ("" = not given); paths relative to `base`.
  QJsonObject save(const QDir& base) const;
  void restore(const QJsonObject& saved, const QDir& base);

 Q_SIGNALS:
  void edited(const QString& name);  // the user changed a field (a path picked with Browse… too)

 private:
  struct Entry {
    const SettingField* field;
    QWidget* input;
    QWidget* placed;
    QWidget* label = nullptr;  // its label once laid out (greyed with it)
  };
  const Entry* entry(const QString& name) const;
  QString text(const Entry& entry, bool* given) const;
  // Why `shown` does not apply now ("" = it does), in the window's words.
  QString notUsedBecause(const Entry& shown) const;
  void updateEnabled();

  std::vector<Entry> entries_;
  QWidget* owner_;
  unsigned model_kinds_ = 0;
};

}  // namespace aw

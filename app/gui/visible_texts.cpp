// app/gui/visible_texts.cpp — see visible_texts.h.
#include "app/gui/visible_texts.h"

#include "app/gui/error_line.h"
#include "widgets/attention_heatmap.h"
#include "widgets/elided_label.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QStatusBar>
#include <QTabBar>
#include <QTextDocument>

namespace aw {
namespace {

QString plain(const QString& text) {
  if (!Qt::mightBeRichText(text)) return text;
  QTextDocument document;
  document.setHtml(text);
  return document.toPlainText();
}

// Whether a label's text is wider (or, wrapped, taller) than the label: part of it is not drawn.
bool label_cut(const QLabel* label, const QString& text) {
  const auto room = label->contentsRect();
  if (label->wordWrap()) return label->heightForWidth(label->width()) > label->height() + 1;
  int widest = 0;
  for (const auto& line : text.split('\n')) widest = std::max(widest, label->fontMetrics().horizontalAdvance(line));
  return widest > room.width() + 1;
}

// Shown and not clipped away by an ancestor (a scroll area's viewport): its rectangle in the window's
// coordinates, cut by each ancestor's, is not empty. (visibleRegion() is empty under opaque children too.)
bool on_screen(const QWidget* widget, const QWidget* window) {
  if (!widget->isVisible()) return false;
  QRect shown(widget->mapTo(window, QPoint(0, 0)), widget->size());
  for (const auto* ancestor = widget->parentWidget(); ancestor && ancestor != window; ancestor = ancestor->parentWidget())
    shown &= QRect(ancestor->mapTo(window, QPoint(0, 0)), ancestor->size());
  return !shown.isEmpty();
}

QString line_of(const QWidget* widget, const QString& kind, QString text, bool cut = false) {
  const auto origin = widget->mapToGlobal(QPoint(0, 0));
  text.replace('\n', " / ");
  return QString("%1 %2 @%3,%4,%5,%6: %7%8")
      .arg(kind, widget->objectName().isEmpty() ? QString("-") : widget->objectName())
      .arg(origin.x()).arg(origin.y()).arg(widget->width()).arg(widget->height())
      .arg(text, cut ? QString(" [cut]") : QString());
}

}  // namespace

QStringList visible_texts(const QWidget* window) {
  QStringList lines{"Window " + window->objectName() + ": " + window->windowTitle()};
  for (const auto* widget : window->findChildren<QWidget*>()) {
    if (!on_screen(widget, window)) continue;
    if (qobject_cast<const ErrorLine*>(widget->parentWidget())) continue;  // the line itself says it
    if (const auto* error = qobject_cast<const ErrorLine*>(widget)) {
      if (!error->text().isEmpty()) lines << line_of(error, "ErrorLine", error->shownText(), error->shownText() != error->text());
    } else if (const auto* elided = qobject_cast<const ElidedLabel*>(widget)) {
      lines << line_of(elided, "ElidedLabel", elided->shownText(), elided->shownText() != elided->text());
    } else if (const auto* label = qobject_cast<const QLabel*>(widget)) {
      const auto text = plain(label->text());
      if (!text.trimmed().isEmpty()) lines << line_of(label, "Label", text, label_cut(label, text));
    } else if (const auto* button = qobject_cast<const QAbstractButton*>(widget)) {
      if (!button->text().isEmpty()) lines << line_of(button, "Button", button->text());
    } else if (const auto* edit = qobject_cast<const QLineEdit*>(widget)) {
      lines << line_of(edit, "LineEdit", edit->text().size() > 80 ? edit->text().left(80) + QString("… (%1 characters)").arg(edit->text().size()) : edit->text());
    } else if (const auto* box = qobject_cast<const QComboBox*>(widget)) {
      lines << line_of(box, "ComboBox", box->currentText());
    } else if (const auto* bar = qobject_cast<const QTabBar*>(widget)) {
      QStringList tabs;
      for (int tab = 0; tab < bar->count(); ++tab) tabs << bar->tabText(tab);
      lines << line_of(bar, "TabBar", tabs.join(" | "), bar->tabRect(bar->count() - 1).right() > bar->width());
    } else if (const auto* status = qobject_cast<const QStatusBar*>(widget)) {
      if (!status->currentMessage().isEmpty()) lines << line_of(status, "StatusMessage", status->currentMessage());
    } else if (const auto* map = qobject_cast<const AttentionHeatmap*>(widget)) {
      if (!map->titleText().isEmpty()) lines << line_of(map, "MapTitle", map->titleText());
    }
  }
  return lines;
}

bool write_visible_texts(const QWidget* window, const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) return false;
  file.write((visible_texts(window).join('\n') + '\n').toUtf8());
  return file.flush();
}

void install_visible_text_dump(QWidget* window) {
  const auto path = qEnvironmentVariable("AW_VISIBLE_TEXT_DUMP");
  if (path.isEmpty()) return;
  auto* shortcut = new QShortcut(QKeySequence("Ctrl+Alt+Shift+D"), window);
  shortcut->setContext(Qt::ApplicationShortcut);
  QObject::connect(shortcut, &QShortcut::activated, window, [window, path] {
    window->grab().save(path + ".png");  // and what they look like, beside them
    if (!write_visible_texts(window, path)) qWarning("cannot write the visible texts to %s", qPrintable(path));
  });
}

}  // namespace aw

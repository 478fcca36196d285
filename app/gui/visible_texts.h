// app/gui/visible_texts.h — every text a person can see in a window, as lines: what each label, button,
// chooser, tab bar, status bar and map title shows (as drawn: an elided line's shown part), where it is
// on the screen, and "[cut]" where the widget is too small for it. scripts/dev/gui-walk.sh reads them
// (AW_VISIBLE_TEXT_DUMP=FILE, then Ctrl+Alt+Shift+D writes the file) to check that a message is on
// screen and whole, which pixels alone cannot say.
#pragma once

#include <QStringList>

class QWidget;

namespace aw {

// Lines "Kind objectName @x,y,w,h: text" (screen coordinates), the window's title first; hidden
// widgets, and those scrolled or clipped out of view, are left out.
QStringList visible_texts(const QWidget* window);

// Writes them to `path` (UTF-8, one per line); false when the file cannot be written.
bool write_visible_texts(const QWidget* window, const QString& path);

// With AW_VISIBLE_TEXT_DUMP set, Ctrl+Alt+Shift+D on `window` writes its visible texts there (and the
// window as drawn beside them, FILE.png).
void install_visible_text_dump(QWidget* window);

}  // namespace aw

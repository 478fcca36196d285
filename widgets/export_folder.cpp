// widgets/export_folder.cpp — see export_folder.h.
#include "widgets/export_folder.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace aw {

namespace {
constexpr const char* kKey = "export/folder";
}

QString suggested_export_path(const QString& name) {
  const auto folder = QSettings().value(kKey).toString();
  return QDir(folder.isEmpty() || !QDir(folder).exists() ? QDir::currentPath() : folder).filePath(name);
}

void remember_export(const QString& path) { QSettings().setValue(kKey, QFileInfo(path).absolutePath()); }

}  // namespace aw

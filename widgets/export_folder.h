// widgets/export_folder.h — the folder of the window's last export, whichever tab or map wrote it: every
// export dialog opens there (an analysis table, a map's view, LAMA's parts), and the next start too
// (QSettings "export/folder"). Before any export, the folder the window was started in.
#pragma once

#include <QString>

namespace aw {

// `name` in the last export's folder: what an export dialog suggests.
QString suggested_export_path(const QString& name);
// An export was written to `path`: its folder is where the next one opens.
void remember_export(const QString& path);

}  // namespace aw

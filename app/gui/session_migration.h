// app/gui/session_migration.h — sessions written before the analysis descriptors (format version 1)
// saved each tab's settings under its widgets' names and indexes ("corpus", "first_row": true,
// "mode": 1) and named the tabs "table1", "ablation", …; version 2 saves them by descriptor field
// name ("text", "no-first-row": false, "mode": "all-but-one") under the descriptor's name ("stats").
#pragma once

#include <QJsonObject>

namespace aw {

// The "analyses" object of a version-1 session in version 2's form; results (csv, parts, model) are kept.
QJsonObject migrate_analyses_v1(const QJsonObject& analyses);

}  // namespace aw

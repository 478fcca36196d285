// app/gui/session_file.h — a saved workbench session (JSON): the models with their head gates, the
// sentence, what the attention view showed, and each analysis tab's settings and finished result.
// Paths are stored relative to the session file's folder, so a session travels with its data.
#pragma once

#include "widgets/head_gates.h"

#include <QJsonObject>
#include <QString>

#include <vector>

namespace aw {

struct SessionModel {
  QString dir;      // absolute once read
  HeadGates gates;  // empty = all on
};

struct WorkbenchSession {
  std::vector<SessionModel> models;
  QString sentence;
  int current_model = 0;
  bool compare = false;
  int compare_model = 1;
  int layer = 0;  // 0-based
  int head = -1;  // −1 = mean of heads
  int tab = 0;
  QString tab_title;  // the shown tab's title: found again where the tabs' order changed ("": by index)
  int inner_tab = 0;  // a tab of several (Circuits): the inner tab shown
  QString scale;  // the attention view's colour scale by name (colour_scale.h); empty = fixed 0–1
  QJsonObject analyses;  // AnalysisTabs::state, paths already relative to the file's folder (read: in the
                         // current format, an older file's migrated)
};

// What the window opens on start, from the command line: a given session file; else the sample
// folder's session (`--sample-data DIR`), unless `--restore` asks for the last session and there is
// one; else, without `--fresh`, the last session when there is one; else nothing.
enum class StartSession { Given, Sample, Last, Nothing };
StartSession start_session(bool session_given, bool sample_given, bool restore, bool fresh, bool last_exists);

// A setting's value as a session file holds it (text, or a number from older files) → its text.
QString setting_text(const QJsonValue& value);

// Throws aw::Error "path: what is wrong" for an unreadable file, bad JSON or a wrong format.
WorkbenchSession read_session(const QString& path);
// Throws aw::Error when the file cannot be written. Writes to a temporary file first, so a failed
// save never leaves half a session behind.
void write_session(const QString& path, const WorkbenchSession& session);

}  // namespace aw

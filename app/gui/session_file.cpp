// app/gui/session_file.cpp — see session_file.h.
#include "app/gui/session_file.h"

#include "app/gui/session_migration.h"

#include "models/errors.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

namespace aw {
namespace {

constexpr const char* kFormat = "attention-workbench-session";
constexpr int kVersion = 2;  // 2: analysis settings by descriptor field name (session_migration.h)

[[noreturn]] void fail(const QString& path, const QString& message) {
  throw Error(path.toStdString() + ": " + message.toStdString());
}

}  // namespace

QString setting_text(const QJsonValue& value) {
  return value.isDouble() ? QString::number(value.toInteger()) : value.toString();
}

WorkbenchSession read_session(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) fail(path, "cannot be read (" + file.errorString() + ")");
  QJsonParseError parse_error;
  const auto document = QJsonDocument::fromJson(file.readAll(), &parse_error);
  if (parse_error.error != QJsonParseError::NoError)
    fail(path, QString("is not valid JSON (%1 at byte %2)").arg(parse_error.errorString()).arg(parse_error.offset));
  const auto root = document.object();
  if (root["format"].toString() != kFormat) fail(path, QString("is not a workbench session (no \"format\": \"%1\")").arg(kFormat));
  if (root["version"].toInt() > kVersion)
    fail(path, QString("was written by a newer workbench (version %1; this one reads %2)").arg(root["version"].toInt()).arg(kVersion));

  const QDir base = QFileInfo(path).absoluteDir();
  WorkbenchSession session;
  for (const auto& value : root["models"].toArray()) {
    const auto entry = value.toObject();
    if (!entry["dir"].isString()) fail(path, "a model entry has no \"dir\"");
    SessionModel model;
    model.dir = QDir::cleanPath(base.absoluteFilePath(entry["dir"].toString()));
    for (const auto& layer : entry["gates"].toArray()) {
      std::vector<bool> heads;
      for (const auto& head : layer.toArray()) heads.push_back(head.toBool(true) && head.toDouble(1) != 0);
      model.gates.on.push_back(heads);
    }
    session.models.push_back(model);
  }
  session.sentence = root["sentence"].toString();
  const auto view = root["view"].toObject();
  session.current_model = view["model"].toInt(0);
  session.compare = view["compare"].toBool(false);
  session.compare_model = view["compare_model"].toInt(1);
  session.layer = view["layer"].toInt(0);
  session.head = view["head"].toInt(-1);
  session.tab = view["tab"].toInt(0);
  session.tab_title = view["tab_title"].toString();
  session.inner_tab = view["inner_tab"].toInt(0);
  session.scale = view["scale"].toString();
  session.analyses = root["analyses"].toObject();
  if (root["version"].toInt(1) < 2) session.analyses = migrate_analyses_v1(session.analyses);
  return session;
}

void write_session(const QString& path, const WorkbenchSession& session) {
  const QDir base = QFileInfo(path).absoluteDir();
  QJsonArray models;
  for (const auto& model : session.models) {
    QJsonArray gates;
    for (const auto& layer : model.gates.on) {
      QJsonArray heads;
      for (bool on : layer) heads.append(on ? 1 : 0);
      gates.append(heads);
    }
    models.append(QJsonObject{{"dir", base.relativeFilePath(model.dir)}, {"gates", gates}});
  }
  const QJsonObject root{{"format", kFormat},
                         {"version", kVersion},
                         {"models", models},
                         {"sentence", session.sentence},
                         {"view", QJsonObject{{"model", session.current_model},
                                              {"compare", session.compare},
                                              {"compare_model", session.compare_model},
                                              {"layer", session.layer},
                                              {"head", session.head},
                                              {"tab", session.tab},
                                              {"tab_title", session.tab_title},
                                              {"inner_tab", session.inner_tab},
                                              {"scale", session.scale}}},
                         {"analyses", session.analyses}};
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) fail(path, "cannot be written (" + file.errorString() + ")");
  file.write(QJsonDocument(root).toJson(QJsonDocument::Indented));
  if (!file.commit()) fail(path, "cannot be written (" + file.errorString() + ")");
}

StartSession start_session(bool session_given, bool sample_given, bool restore, bool fresh, bool last_exists) {
  if (session_given) return StartSession::Given;
  if (sample_given && !(restore && last_exists)) return StartSession::Sample;
  if ((!fresh || restore) && last_exists) return StartSession::Last;
  return StartSession::Nothing;
}

}  // namespace aw

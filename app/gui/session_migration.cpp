// app/gui/session_migration.cpp — see session_migration.h. Version 1's keys, per tab:
//   every corpus tab   corpus (path), window, batch (numbers)  → text, window, batch (text)
//   table1 → stats     per_head, first_row (bools)             → per-head, no-first-row (inverted)
//   ablation → ablate  model (index), mode (0 single, 1 all-but-one)
//   importance         model, normalize (bool)                 → no-normalize (inverted)
//   pruning → prune    model, step
//   top_tokens         model_a, model_b, k, target (−1 = none) → models [a, b], k, target
//   diag_sweep         model, factors
//   lama → word-weights  model, data, part (0 whole … 3 test), seed, words, head (0 = mean, K),
//                        scale (0 none, 1 length), top, min_count, only_with_words
// Model chooser indexes move out of the settings into the entry's "models" list.
#include "app/gui/session_migration.h"

#include "app/gui/session_file.h"

#include <QJsonArray>
#include <QStringList>

#include <utility>

namespace aw {
namespace {

const std::pair<const char*, const char*> kRenamedTabs[] = {
    {"table1", "stats"},          {"ablation", "ablate"},         {"importance", "importance"}, {"pruning", "prune"},
    {"top_tokens", "top-tokens"}, {"diag_sweep", "diag-sweep"}, {"lama", "word-weights"},
};

QString indexed(const QJsonValue& value, const QStringList& names) { return names.value(value.toInt(0), names.front()); }

QJsonObject migrate_settings(const QString& tab, const QJsonObject& old, QJsonArray* models) {
  QJsonObject settings;
  for (auto value = old.begin(); value != old.end(); ++value) {
    const auto key = value.key();
    if (key == "model" || key == "model_a" || key == "model_b") continue;
    if (key == "corpus") settings["text"] = value->toString();
    else if (key == "per_head") settings["per-head"] = value->toBool();
    else if (key == "first_row") settings["no-first-row"] = !value->toBool(true);
    else if (key == "normalize") settings["no-normalize"] = !value->toBool(true);
    else if (key == "mode") settings["mode"] = indexed(*value, {"single", "all-but-one"});
    else if (key == "part") settings["part"] = indexed(*value, {"whole", "train", "valid", "test"});
    else if (key == "scale") settings["scale"] = indexed(*value, {"none", "length"});
    else if (key == "head") settings["head"] = value->toInt(0) > 0 ? QString::number(value->toInt()) : QString("mean");
    else if (key == "min_count") settings["min-count"] = setting_text(*value);
    else if (key == "target") settings["target"] = value->toInt(-1) >= 1 ? setting_text(*value) : QString();
    else if (key == "only_with_words") continue;  // a view setting: the entry's own, below
    else if (value->isBool()) settings[key] = value->toBool();
    else settings[key] = setting_text(*value);
  }
  for (const auto& key : tab == "top_tokens" ? QStringList{"model_a", "model_b"} : QStringList{"model"})
    if (old.contains(key)) models->append(old[key].toInt());
  return settings;
}

}  // namespace

QJsonObject migrate_analyses_v1(const QJsonObject& analyses) {
  QJsonObject migrated;
  for (const auto& [old_id, new_id] : kRenamedTabs) {
    if (!analyses.contains(old_id)) continue;
    auto entry = analyses[old_id].toObject();
    const auto old_settings = entry["settings"].toObject();
    QJsonArray models;
    entry["settings"] = migrate_settings(old_id, old_settings, &models);
    if (!models.isEmpty()) entry["models"] = models;
    if (old_settings.contains("only_with_words")) entry["only_with_words"] = old_settings["only_with_words"].toBool();
    migrated[new_id] = entry;
  }
  return migrated;
}

}  // namespace aw

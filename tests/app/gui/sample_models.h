// tests/app/gui/sample_models.h — what the window tests share: sample_data/, the shape of a bundled
// model read from its config.json (so the tests follow a retrained sample), and a tiny model trained
// by attention-cli for a test.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace aw::test {

constexpr int kTimeoutMs = 60000;
inline const QString kSampleData = AW_SOURCE_DIR "/sample_data";
// The models the sample session opens: vanilla_lm, bet_sf, lama_amazon and induction_lm.
constexpr int kSampleModels = 4;

inline QByteArray read_all(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A bundled model's layers and heads per layer, from its config.json: the tests follow a retrained sample.
struct SampleShape {
  int layers = 0, heads = 0, positions = 0;
  int total() const { return layers * heads; }
};
inline SampleShape sample_shape(const QString& name) {
  const auto config = QJsonDocument::fromJson(read_all(kSampleData + "/" + name + "/config.json")).object();
  return {config["n_layers"].toInt(), config["n_heads"].toInt(), config["max_positions"].toInt()};
}

// Trains a transformer_lm on the demo sentences with the CLI; `options` adds its --layers, --heads,
// --epochs, … True when it exited 0.
inline bool train_demo_model(const QString& out, const QStringList& options) {
  QProcess train;
  train.start(AW_CLI_PATH, QStringList{"train", "--arch", "transformer_lm", "--train", kSampleData + "/demo_sentences.txt",
                                       "--valid", kSampleData + "/demo_sentences.txt", "--out", out} +
                               options);
  return train.waitForFinished(kTimeoutMs) && train.exitCode() == 0;
}

}  // namespace aw::test

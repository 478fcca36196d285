// app/model_session.h — the models the desktop application has loaded, behind a header without
// LibTorch so the window code compiles fast. Not thread-safe: one job at a time (the window runs
// each job on a worker thread and starts the next only when it has finished).
#pragma once

#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace aw {

struct ModelSummary {
  QString name;          // folder name
  QString dir;
  QString architecture;  // model_type
  int layers = 0;
  std::vector<int> heads_per_layer;
  qint64 parameters = 0;
  QString dtype;
  int max_positions = 0;
};

// Every layer's attention for one text, as plain floats.
struct AttentionCapture {
  QStringList tokens;
  std::vector<int> heads_per_layer;
  std::vector<std::vector<float>> weights_by_layer;  // per layer: heads × n × n, row-major
  int length() const { return tokens.size(); }
};

class ModelSession {
 public:
  ModelSession();
  ~ModelSession();

  // Loads a checkpoint folder; throws aw::Error (message for the user) and leaves the session as it was.
  ModelSummary load(const QString& dir);
  int count() const;
  const ModelSummary& summary(int index) const;
  QString deviceDescription() const;

  // Runs model `index` on `text` with full capture; throws aw::Error for an empty or too long text.
  AttentionCapture attend(int index, const QString& text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace aw

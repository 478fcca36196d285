// app/model_session.h — the models the desktop application has loaded and everything it asks of
// them (attention capture, predictions, the analyses as CSV), behind a header without LibTorch so
// the window code compiles fast. Thread-safe: loading takes a lock, and every job works on its own
// reference to the model, so an analysis can run while sentences are re-run with other gates.
#pragma once

#include "widgets/head_gates.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
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
  bool classifier = false;
  bool causal = true;
};

struct Prediction {
  QString label;       // a next token, or a class name
  double probability = 0.0;
};

// Every layer's attention for one text, as plain floats.
struct AttentionCapture {
  QString text;
  QStringList tokens;
  std::vector<int> heads_per_layer;
  std::vector<int> rows_per_layer;                   // queries: n, or 1 for a global-context model (LAMA)
  std::vector<std::vector<float>> weights_by_layer;  // per layer: heads × rows × n, row-major
  // Language model: per position the top 5 next tokens; classifier: one list, every class.
  std::vector<std::vector<Prediction>> predictions;
  bool classifier = false;
  int length() const { return tokens.size(); }
};

// An analysis' progress: (done, total) of the current phase, named; returning false cancels.
using AnalysisProgress = std::function<bool(qint64 done, qint64 total, const QString& phase)>;

struct CorpusSettings {
  QString path;     // a text file (language models) or label<TAB>text lines (classifiers)
  int window = 64;  // tokens per window (language models)
  int batch = 8;
};

// A finished analysis: the CLI's CSV, or cancelled.
struct AnalysisOutput {
  QString csv;
  bool cancelled = false;
};

class ModelSession {
 public:
  ModelSession();
  ~ModelSession();

  // Loads a checkpoint folder; throws aw::Error (message for the user) and leaves the session as it was.
  ModelSummary load(const QString& dir);
  // Drops every model (e.g. before opening a session file).
  void clear();
  int count() const;
  ModelSummary summary(int index) const;
  QString deviceDescription() const;

  // Runs model `index` on `text` with full capture and the given gates (empty = all on); throws
  // aw::Error for an empty or too long text.
  AttentionCapture attend(int index, const QString& text, const HeadGates& gates = {}) const;

  // The analyses of docs/analyses.md, each returning the CSV the CLI writes (throw aw::Error on bad input).
  AnalysisOutput tableOne(const QList<int>& models, const std::vector<HeadGates>& gates, const CorpusSettings& corpus,
                          bool per_head, bool include_first_row, const AnalysisProgress& progress) const;
  AnalysisOutput ablation(int model, const HeadGates& gates, const CorpusSettings& corpus, bool all_but_one,
                          const AnalysisProgress& progress) const;
  AnalysisOutput importance(int model, const HeadGates& gates, const CorpusSettings& corpus, bool normalize,
                            const AnalysisProgress& progress) const;
  AnalysisOutput pruning(int model, const CorpusSettings& corpus, int step_percent, const AnalysisProgress& progress) const;
  AnalysisOutput topTokens(const QList<int>& models, const std::vector<HeadGates>& gates, const QString& sentence,
                           int target, int k, const AnalysisProgress& progress) const;
  AnalysisOutput diagonalSweep(int model, const HeadGates& gates, const CorpusSettings& corpus, const QString& factors,
                               const AnalysisProgress& progress) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace aw

// app/gui/model_session.h — the models the desktop application has loaded and everything it asks of
// them (attention capture, predictions, the analyses as CSV), behind a header without LibTorch so
// the window code compiles fast. Thread-safe: loading takes a lock, and every job works on its own
// reference to the model, so an analysis can run while sentences are re-run with other gates.
#pragma once

#include "widgets/head_gates.h"

#include <QList>
#include <QMap>
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

// A finished analysis: the CLI's CSV, or cancelled. Analyses with several results (LAMA word
// weights) name the others in `parts`.
struct AnalysisOutput {
  QString csv;
  bool cancelled = false;
  QMap<QString, QString> parts;
};

// LAMA word weights (Figure 4) and keywords (Table 6) over one part of a labelled file.
enum class LabelledPart { Whole = 0, Train = 1, Valid = 2, Test = 3 };
struct LamaWordSettings {
  QString data;                           // label<TAB>text lines
  LabelledPart part = LabelledPart::Test; // which part of the seeded 80/10/10 split (as `attention-cli split`)
  int seed = 1;
  QStringList words;                      // as typed (the model's tokenizer normalises them)
  int head = 0;                           // 0 = mean over heads, K = head K (1-based)
  bool scale_by_length = false;           // weight × document length (1.0 = uniform)
  int density_points = 100;
  int top = 10, min_count = 5;            // keywords per label
  int batch = 32;
};
struct LabelledDocument {
  QString label;  // class name
  QString text;
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
  // The same for a classifier's document: a text longer than the model's positions is cut as the
  // analyses cut it (first words, final token kept), so the view shows what they measured.
  AttentionCapture attendDocument(int index, const QString& text, const HeadGates& gates = {}) const;

  // The documents of `part` of a labelled file, in the order the split gives them, with the model's
  // class names (throws aw::Error naming the file for unreadable files and unknown labels).
  std::vector<LabelledDocument> labelledDocuments(int model, const QString& data, LabelledPart part, int seed) const;

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
  // LAMA only (throws aw::Error for any other model; the gates do not change LAMA's attention A).
  // csv = word-weights' summary (its stdout); parts: "occurrences" (its --out), "density" (its
  // --density), "keywords" (the keywords command's CSV) and "description" (what was read).
  AnalysisOutput lamaWordWeights(int model, const LamaWordSettings& settings, const AnalysisProgress& progress) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace aw

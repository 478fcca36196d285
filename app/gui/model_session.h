// app/gui/model_session.h — the models the desktop application has loaded and everything it asks of
// them (attention capture, predictions, any analysis of the registry), behind a header without LibTorch so
// the window code compiles fast. Thread-safe: loading takes a lock, and every job works on its own
// reference to the model, so an analysis can run while sentences are re-run with other gates.
#pragma once

#include "analysis/core/descriptor.h"
#include "models/attention_kind.h"
#include "table/result_table.h"
#include "widgets/expert_tokens.h"
#include "widgets/head_gates.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <optional>
#include <vector>

namespace aw {

struct ModelSummary {
  QString name;          // folder name
  QString dir;
  QString architecture;  // model_type
  int layers = 0;
  std::vector<int> heads_per_block;
  qint64 parameters = 0;
  QString dtype;
  int max_positions = 0;
  bool classifier = false;
  bool causal = true;
  bool translation = false;
  // Per attention block of a translation model, what the views call it: "Enc 1", "Dec 1", "Cross 1"
  // (its encoder layers, then each decoder layer's self- and cross-attention); empty otherwise, where
  // the views number the layers.
  QStringList layer_names;
  // Grouped-query models (llama, mistral, qwen2): per layer, how many query heads share each
  // key/value head, in head order; empty where every head has its own.
  std::vector<std::vector<int>> query_groups;
  QStringList analyses;  // the analyses (descriptor names) it can run: the descriptors' own model check
};

struct Prediction {
  QString label;       // a next token, or a class name
  double probability = 0.0;
};

// One layer's attention as plain floats: heads × rows × cols, row-major. Shared and never changed
// once made: the floats are the captured tensor's own (no copy), a re-run under other gates reuses
// the blocks of the layers below its change, and a copy of a capture copies no weights.
struct WeightBlock {
  int heads = 0, rows = 0, cols = 0;
  std::shared_ptr<const float> values;
  // The mean of the heads, made once by the worker that made the block (withMeanOfHeads): the mean map
  // of a long text's 32 heads × 1,024² blocks took the UI thread 13–16 ms to average. Empty otherwise.
  std::shared_ptr<const std::vector<float>> mean_of_heads = {};

  // A block that owns `weights` (heads × rows × cols of them).
  static WeightBlock of(int heads, int rows, int cols, std::vector<float> weights) {
    auto owner = std::make_shared<const std::vector<float>>(std::move(weights));
    return {heads, rows, cols, std::shared_ptr<const float>(owner, owner->data())};
  }
  size_t size() const { return static_cast<size_t>(heads) * rows * cols; }
  const float* head(int h) const { return values.get() + static_cast<size_t>(h) * rows * cols; }
  std::vector<float> toVector() const { return std::vector<float>(values.get(), values.get() + size()); }
  // Row-major, each head's weight times 1/heads summed in head order (the kept one, or made now: the
  // same floats either way).
  std::vector<float> meanOfHeads() const {
    if (mean_of_heads) return *mean_of_heads;
    std::vector<float> mean(static_cast<size_t>(rows) * cols, 0.0f);
    const float share = 1.0f / static_cast<float>(std::max(heads, 1));
    for (int h = 0; h < heads; ++h) {
      const float* weights = head(h);
      for (size_t i = 0; i < mean.size(); ++i) mean[i] += share * weights[i];
    }
    return mean;
  }
  WeightBlock withMeanOfHeads() const {
    WeightBlock block = *this;
    if (values && heads > 0) block.mean_of_heads = std::make_shared<const std::vector<float>>(meanOfHeads());
    return block;
  }
};

// Every layer's attention for one text, as plain floats. A translation model's capture is of its own
// translation of the text (beam search under the gates): `tokens` are the source's, `target_tokens`
// the decoder's (start token, then the translation), and each block's rows and columns are the
// tokens its kind relates (enc: source × source, dec: target × target, cross: target × source).
struct AttentionCapture {
  static constexpr int kThumbnailSide = 64;

  QString text;
  QStringList tokens;
  QStringList target_tokens;          // translation models only
  // gpt-oss: each row's weights over the tokens leave its share to the head's learned sink; the map
  // shows that share as a last column of its own ("⟨sink⟩").
  bool learned_sinks = false;
  // Mixtures of experts: each sparse layer's experts per token (ExpertTokens::layer names it), and how
  // many experts a layer has; empty for every other model.
  std::vector<ExpertTokens> expert_layers;
  int expert_count = 0;
  // A saved region or pooled map (attend --rows/--cols/--pool): what its rows and columns stand for
  // (the region's tokens, or "12–27" per block); empty = the tokens.
  QStringList row_labels, column_labels;
  std::vector<AttentionKind> layer_kinds;  // translation models: each block's kind
  QString translation;                // translation models: the translation's text
  int beam = 0;                       // its beam size
  // A target given to read teacher-forced instead of translating ("" = the model's own translation),
  // and its log-probability under the model (EOS included).
  QString forced_target;
  double target_log_probability = 0.0;
  // The model's layer number (1-based) of each block, when they are not simply 1, 2, …: a saved
  // attention file may hold some layers only (attend --layers 2,5).
  std::vector<int> layer_numbers;
  // Per layer its attention; rows are the queries: n, or 1 for a global-context model (LAMA). A
  // model's capture holds the floats of one layer only (the one its view shows): the others keep
  // their shape with null `values` and are made again by `layer()` (12 layers × 48 MB at 1,024
  // tokens for GPT-2 small would otherwise stay in memory while one is looked at).
  std::vector<WeightBlock> layers;
  // Makes `layer`'s block again (the model's attention of that layer, from the state that entered it
  // in this run); empty where every block is held (saved files, translations, LAMA documents).
  std::function<WeightBlock(int layer)> replay_layer;
  // A text of more than kFullMapTokens: every layer is held and made again as its block means of
  // `pool` × `pool` tokens (computed tile by tile, never the whole matrix), row_labels and
  // column_labels name each block's span ("1–8"), and `region` makes any part of a layer at full
  // resolution, rows [first_row, end_row) × keys [first_col, end_col), 0-based tokens, from the state
  // that entered it: what a zoomed-in view shows. pool 0: the cells are the tokens.
  static constexpr int kFullMapTokens = 1024;
  int pool = 0;
  std::function<WeightBlock(int layer, int first_row, int end_row, int first_col, int end_col)> region;
  // Per layer the same downsampled to at most kThumbnailSide × kThumbnailSide per head, each cell the
  // mean of the block of weights it covers (equal to `layers` for texts of up to 64 tokens): the
  // overview draws these, so 1,024 tokens cost it 4,096 cells per head, not a million.
  std::vector<WeightBlock> thumbnails;
  // Classifier: one list, every class; translation model: per decoder position the top 5 next target
  // tokens. A language model's come from predictionsAt, computed per position when first asked for.
  std::vector<std::vector<Prediction>> predictions;
  // The top 5 next tokens after `position` (language models; set by the session). The product with
  // the vocabulary is most of a re-run's cost, and the view shows one position at a time.
  std::function<std::vector<Prediction>(int position)> predict_position;
  bool classifier = false;
  int length() const { return tokens.size(); }
  int layerCount() const { return static_cast<int>(layers.size()); }
  // Whether `layer`'s floats are here (else layer() makes them: a layer's attention, ~0.1 s at 1,024
  // tokens on GPT-2 small: ask for it off the UI thread).
  bool holdsLayer(int layer) const;
  // `layer`'s block, held or made again; throws aw::Error for a layer out of range.
  WeightBlock layer(int layer) const;
  // Holds `block` as `layer`'s and lets go of every other layer's floats that can be made again.
  void holdOnly(int layer, WeightBlock block);
  bool isTranslation() const { return !layer_kinds.empty(); }
  // The kind of `layer`'s attention (translation models), or nothing.
  std::optional<AttentionKind> layerKind(int layer) const;
  // The query and key tokens of `layer`'s rows and columns.
  const QStringList& rowTokens(int layer) const;
  const QStringList& columnTokens(int layer) const;
  // The predictions shown for `position` (classifiers: any position gives the classes).
  std::vector<Prediction> predictionsAt(int position) const;
  // How many positions have predictions.
  int predictionCount() const;
};

// A sentence run's progress: layers done (a fraction while a long text's layer is made in row tiles) of
// the model's layers; returning false stops the run between two layers or tiles, which then throws
// RunCancelled.
using RunProgress = std::function<bool(double layers_done, int layers)>;
struct RunCancelled : std::runtime_error {
  RunCancelled() : std::runtime_error("cancelled") {}
};

// An analysis' progress: (done, total) of the current phase, named; returning false cancels.
using AnalysisProgress = std::function<bool(qint64 done, qint64 total, const QString& phase)>;

// An analysis' settings by the descriptor's field name (analysis/core/descriptor.h), as typed: a flag is on
// when present (its value is ignored); a field left out takes the descriptor's default.
using AnalysisSettings = QMap<QString, QString>;

// A finished analysis: its result tables by output name (`main` is the one the CLI prints: the tab's
// table and plot; the others are its further parts, "occurrences", "density", …), or cancelled.
struct AnalysisOutput {
  ResultTables tables;
  std::string main = "csv";
  bool cancelled = false;
  QString description;                    // what was read ("reviews.tsv: 120 documents")
  std::optional<HeadScores> head_scores;  // `model`: the session's index of the scored model
  QStringList notes;  // what the analysis told on the way ("3 examples truncated to 256 tokens")

  bool hasResult() const { return tables.count(main) > 0; }
  const ResultTable& mainTable() const;   // an empty table when there is none
  // A part's table, or nullptr.
  const ResultTable* part(const std::string& name) const;
};

// An attention file written by `attend --out FILE.safetensors`, opened to browse: its layers stay in
// the file (memory-mapped, so a page is read when a map shows it) and its thumbnails are the file's.
struct SavedAttention {
  ModelSummary summary;    // name: the file's; architecture "saved attention"; no analyses
  AttentionCapture capture;
  QString model;           // the model it was captured from
  QString heads;           // "all", or the model's heads it holds: "[1,3]"
};

struct LabelledDocument {
  QString label;  // class name
  QString text;
};

// The models the local Hugging Face cache holds (models/checkpoint/hub_cache.h), each by its Hub name
// beside the snapshot folder of its main revision that load() opens; `cache` is where it looked.
struct CachedHubModels {
  QString cache;
  QStringList names, folders;
};

class ModelSession {
 public:
  static constexpr int kTranslationBeam = 4;

  ModelSession();
  ~ModelSession();

  // What the models loaded from now on compute in: "f32", "bf16", "f16" (CUDA only) or "auto" (the
  // default: BF16 on CUDA, F32 on the CPU). Throws aw::Error for another name. Recurrent and
  // translation models compute in F32 whatever is asked.
  void setComputeDtype(const QString& name);
  // Loads a checkpoint folder; throws aw::Error (message for the user) and leaves the session as it was.
  ModelSummary load(const QString& dir);
  // Opens a saved attention file (no model needed). F16 files are converted to F32 on opening; F32
  // files are read lazily. Throws aw::Error naming the file for anything else.
  static SavedAttention openAttentionFile(const QString& path);
  // What the local Hugging Face cache holds (never the network).
  static CachedHubModels cachedHubModels();

  // Drops every model (e.g. before opening a session file).
  void clear();
  int count() const;
  ModelSummary summary(int index) const;
  QString deviceDescription() const;

  // Runs model `index` on `text` with full capture and the given gates (empty = all on); throws
  // aw::Error for an empty or too long text. A translation model first translates the text (beam
  // kTranslationBeam) and captures the forward over its translation.
  // The capture holds `shown_layer`'s floats (clamped to the model's layers); the others are made
  // again when asked (AttentionCapture::layer).
  // A translation model given a non-empty `target` reads it teacher-forced instead of translating.
  // `progress` hears of each layer made (not for a translation model, whose texts are short).
  AttentionCapture attend(int index, const QString& text, const HeadGates& gates = {}, int shown_layer = 0,
                          const QString& target = {}, const RunProgress& progress = {}) const;
  // The same for a classifier's document, holding every layer: a text longer than the model's
  // positions is cut as the analyses cut it (first words, final token kept), so the view shows what
  // they measured.
  AttentionCapture attendDocument(int index, const QString& text, const HeadGates& gates = {}) const;

  // The documents of `part` ("whole", "train", "valid" or "test": analysis/core/labelled_parts.h) of a
  // labelled file, in the order the split gives them, with the model's class names (throws aw::Error
  // naming the file for unreadable files and unknown labels).
  std::vector<LabelledDocument> labelledDocuments(int model, const QString& data, const QString& part, int seed) const;

  // Runs the registry's analysis `analysis` (analysis/core/registry.h) on `models` (session indexes)
  // with `settings` (the head gates among them: "heads-off"). Throws aw::Error with a line for the
  // user: a bad setting names its label ("Window: 99 exceeds the model's 16 positions").
  AnalysisOutput run(const QString& analysis, const QList<int>& models, const AnalysisSettings& settings,
                     const AnalysisProgress& progress) const;
  // The heads `gates` switches off in model `index`, as the "heads-off" setting writes one model's
  // group ("2.3,4.1", "cross1.2"; "none" when every head is on).
  QString headsOffText(int index, const HeadGates& gates) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace aw

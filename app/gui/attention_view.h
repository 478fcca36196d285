// app/gui/attention_view.h — the Attention tab: type a sentence, see the chosen model's layer and head
// (or the mean of the heads) as a large heatmap, optionally beside a second model (compare mode), an
// overview of every layer × head, and the next-token predictions of a chosen position. A long text's
// map is its block means until zoomed in far enough, then its tokens at full resolution. It shows
// captures the main window hands it; it never runs a model itself.
#pragma once

#include "app/gui/capture_matrices.h"
#include "app/gui/model_session.h"
#include "widgets/attention_matrix.h"
#include "widgets/colour_scale.h"

#include <QWidget>

#include <map>
#include <set>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace aw {

class AttentionHeatmap;
class AttentionOverview;
class ExpertStrip;
class RunProgressBar;
class SentenceBar;
class HeatmapFindBar;
class PooledZoom;

class AttentionView : public QWidget {
  Q_OBJECT

 public:
  explicit AttentionView(QWidget* parent = nullptr);

  void setModels(const std::vector<ModelSummary>& models);
  int currentModel() const;
  void setCurrentModel(int model);
  // −1 when compare mode is off.
  int compareModel() const;
  void setCompare(bool enabled, int model);

  QString sentence() const;
  void setSentence(const QString& sentence);
  // The target translation given for the current translation model ("" = it translates).
  QString target() const;
  int layer() const;  // 0-based
  int head() const;   // 0-based; −1 = mean of heads
  void setLayerHead(int layer, int head);
  // Centres the map on the query row of token `position` (0-based; its block in a long text's block
  // means) and outlines it.
  void showPosition(int position);
  // The next (+1) or previous (−1) layer, or head (the mean of the heads before head 1), within bounds.
  void stepLayer(int delta);
  void stepHead(int delta);
  int position() const;  // the query row whose predictions are shown
  // Browsing a saved capture: no sentence to type, no second model, no predictions.
  void setBrowseOnly(bool browse_only);
  // The heatmaps' and thumbnails' colour scale (the Scale box).
  ColourScale colourScale() const;
  void setColourScale(ColourScale scale);

  // A model's capture (run on sentence() with `gates`), shown when it is the current or compared model.
  void setCapture(int model, const AttentionCapture& capture, const HeadGates& gates);
  void clearCaptures();
  // Forgets one model's capture (its run failed or was cancelled): its heatmap empties rather than keep
  // an older sentence's map up as if it were this one's, and says `reason` where the map was (naming the
  // model: compared maps each say their own) until the model's next run starts or a capture comes.
  void dropCapture(int model, const QString& reason = {});
  QString runError(int model) const;  // the reason said over the model's map; "" when none
  // The line over the maps while a sentence run lasts: progress in layers and Cancel (run_progress_bar.h).
  RunProgressBar* runBar() const { return run_bar_; }
  // A run for `model` is queued or under way (true) or over (false): its heatmap greys with a note.
  void setRunPending(int model, bool pending);
  // Whether `model` has a capture of this sentence with these gates.
  bool hasCapture(int model, const QString& sentence, const HeadGates& gates) const;
  const AttentionCapture* capture(int model) const;
  // Whether a layer the captures do not hold, or a long text's region at full resolution, is being
  // made to be shown (see fetchLayer and pooled_zoom.h).
  bool isMakingLayer() const;

  AttentionHeatmap* heatmap() const { return heatmap_; }
  AttentionHeatmap* compareHeatmap() const { return compare_heatmap_; }
  AttentionOverview* overview() const { return overview_; }
  QTableWidget* predictions() const { return predictions_; }
  // A translation model's translation, with what the last head change altered in bold.
  QLabel* translationLabel() const { return translation_label_; }
  QLineEdit* sentenceEdit() const;
  QLineEdit* targetEdit() const;  // a translation model's optional target (shown for one only)
  HeatmapFindBar* findBar() const { return find_bar_; }  // Find token, over both maps
  // Each map's zoom into a long text's tokens at full resolution (pooled_zoom.h).
  PooledZoom* pooledZoom() const { return zoom_; }
  PooledZoom* comparePooledZoom() const { return compare_zoom_; }

 Q_SIGNALS:
  void runRequested(const QString& sentence);
  void modelsChosen();  // the current or compared model changed: the window runs what is missing

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void refresh();
  void refreshHeads();
  void syncCompareChoices();  // the compare list without the model shown
  void refreshOverview();
  void refreshPredictions();
  void refreshTranslation();
  void refreshExperts();  // the shown layer's experts per token (mixtures of experts), else hidden
  void showMatrix(AttentionHeatmap* heatmap, int model);
  void levelMapTitles();
  void refreshMatrices();  // the large heatmap and the compared one
  // Makes `layer` of `model`'s capture on a worker, then shows it; while one is being made, only the
  // newest request waits for its turn.
  void fetchLayer(int model, int layer);

  struct Shown {
    AttentionCapture capture;
    HeadGates gates;
    int serial = 0;  // which setCapture brought it
    QString previous_translation;  // the translation of the same text before the gates changed
  };
  std::vector<ModelSummary> models_;
  std::map<int, Shown> captures_;
  std::set<int> pending_runs_;  // models with a run queued or under way
  std::map<int, QString> run_errors_;  // why a model has no map (its run failed or was cancelled)
  struct LayerFetch {
    bool running = false;
    std::pair<int, int> failed{-1, -1};  // (serial, layer) that could not be made, and why
    QString failure;
  };
  std::map<int, LayerFetch> fetches_;  // per model
  int next_serial_ = 0;
  std::pair<int, int> overview_shows_{-1, -1};  // (model, serial) of the overview's matrices

  QComboBox* model_box_;
  QCheckBox* compare_check_;
  QComboBox* compare_box_;
  QSpinBox* layer_box_;
  QComboBox* head_box_;
  QComboBox* scale_box_;  // the heatmaps' colour scale (widgets/attention_heatmap.h)
  HeatmapFindBar* find_bar_;
  bool following_ = false;  // one map is moving the other to its region
  SentenceBar* sentence_bar_;
  RunProgressBar* run_bar_;
  AttentionHeatmap* heatmap_;
  AttentionHeatmap* compare_heatmap_;
  PooledZoom* zoom_;
  PooledZoom* compare_zoom_;
  AttentionOverview* overview_;
  QComboBox* position_box_;
  QWidget* predictions_box_;
  ExpertStrip* expert_strip_;
  QWidget* expert_box_;  // the strip's scroll area, hidden for models without experts
  QLabel* predictions_title_;
  QLabel* translation_label_;
  QTableWidget* predictions_;
};

}  // namespace aw

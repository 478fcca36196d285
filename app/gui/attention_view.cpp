// app/gui/attention_view.cpp — see attention_view.h.
#include "app/gui/attention_view.h"

#include "app/gui/sentence_bar.h"

#include "app/gui/block_spin_box.h"
#include "app/gui/pooled_zoom.h"

#include "widgets/attention_heatmap.h"
#include "widgets/attention_overview.h"
#include "widgets/expert_strip.h"
#include "widgets/model_box.h"
#include "widgets/heatmap_find_bar.h"
#include "widgets/run_progress_bar.h"
#include "widgets/selection_copy.h"

#include <QCheckBox>
#include <QComboBox>
#include <QStandardItemModel>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace aw {

AttentionView::AttentionView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* choosers = new QHBoxLayout;
  model_box_ = new QComboBox;
  model_box_->setObjectName("model");
  model_box_->setMinimumContentsLength(14);
  compare_check_ = new QCheckBox("Compare with");
  compare_check_->setObjectName("compare");
  compare_box_ = new QComboBox;
  compare_box_->setObjectName("compare_model");
  compare_box_->setMinimumContentsLength(14);
  compare_box_->setEnabled(false);
  layer_box_ = new BlockSpinBox;
  layer_box_->setObjectName("layer");
  layer_box_->setPrefix("layer ");
  layer_box_->setMinimumWidth(90);
  layer_box_->setToolTip("PgUp / PgDn");
  head_box_ = new QComboBox;
  head_box_->setMinimumContentsLength(14);
  head_box_->setToolTip("← / →");
  choosers->addWidget(new QLabel("Model"));
  choosers->addWidget(model_box_);
  choosers->addSpacing(12);
  choosers->addWidget(compare_check_);
  choosers->addWidget(compare_box_);
  choosers->addSpacing(12);
  choosers->addWidget(layer_box_);
  choosers->addWidget(head_box_);
  choosers->addSpacing(12);
  scale_box_ = new QComboBox;
  scale_box_->setObjectName("scale");
  for (const auto scale : {ColourScale::Fixed, ColourScale::Auto, ColourScale::Log, ColourScale::RowNormalised})
    scale_box_->addItem(colour_scale_name(scale));
  scale_box_->setToolTip("Colour scale: fixed 0–1 compares heads; auto, log or per row show long sequences, "
                         "whose weights are near 1/n");
  choosers->addWidget(new QLabel("Scale"));
  choosers->addWidget(scale_box_);
  choosers->addSpacing(12);
  find_bar_ = new HeatmapFindBar;  // on both maps when comparing
  choosers->addWidget(find_bar_);
  choosers->addStretch(1);
  layout->addLayout(choosers);

  sentence_bar_ = new SentenceBar;
  layout->addWidget(sentence_bar_);
  run_bar_ = new RunProgressBar;  // shown while a run lasts (main_window.cpp reports to it)
  layout->addWidget(run_bar_);
  translation_label_ = new QLabel;
  translation_label_->setTextFormat(Qt::RichText);
  translation_label_->setWordWrap(true);
  translation_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  translation_label_->hide();
  layout->addWidget(translation_label_);

  auto* splitter = new QSplitter(Qt::Horizontal);
  auto* maps = new QWidget;
  auto* maps_layout = new QHBoxLayout(maps);
  maps_layout->setContentsMargins(0, 0, 0, 0);
  heatmap_ = new AttentionHeatmap;
  compare_heatmap_ = new AttentionHeatmap;
  compare_heatmap_->hide();
  zoom_ = new PooledZoom(heatmap_, this);
  compare_zoom_ = new PooledZoom(compare_heatmap_, this);
  for (auto* zoom : {zoom_, compare_zoom_}) {  // a long text's map: its bar over it, what it shows and the way back
    auto* column = new QVBoxLayout;
    column->addWidget(zoom->bar());
    column->addWidget(zoom == zoom_ ? heatmap_ : compare_heatmap_, 1);
    maps_layout->addLayout(column);
    connect(zoom, &PooledZoom::pooledMapWanted, this, &AttentionView::refreshMatrices);
  }
  find_bar_->setHeatmaps({heatmap_, compare_heatmap_});
  // Compared, both maps show the same region: a zoom or pan of one moves the other (not back again).
  for (auto [leader, follower] : {std::pair{heatmap_, compare_heatmap_}, std::pair{compare_heatmap_, heatmap_}}) {
    connect(leader, &AttentionHeatmap::visibleCellsChanged, follower, [this, leader = leader, follower = follower](const QRect& cells) {
      const auto &led = leader->matrix(), &follows = follower->matrix();
      // A long text's tokens at full resolution and another map's blocks can be as many cells, not the same ones.
      const bool same_cells = follows.rows == led.rows && follows.cols == led.cols && follows.first_row == led.first_row &&
                              follows.first_col == led.first_col && follows.text_length == led.text_length;
      if (following_ || compare_heatmap_->isHidden() || !same_cells) return;
      following_ = true;
      follower->setVisibleCells(cells);
      following_ = false;
    });
  }
  connect(heatmap_, &AttentionHeatmap::titleLinesChanged, this, &AttentionView::levelMapTitles);
  connect(compare_heatmap_, &AttentionHeatmap::titleLinesChanged, this, &AttentionView::levelMapTitles);
  splitter->addWidget(maps);

  auto* side = new QWidget;
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  auto* overview_box = new QGroupBox("Every layer and head (click to enlarge)");
  auto* overview_layout = new QVBoxLayout(overview_box);
  overview_ = new AttentionOverview;
  auto* scroll = new QScrollArea;
  scroll->setWidget(overview_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  overview_layout->addWidget(scroll);
  side_layout->addWidget(overview_box, 3);

  predictions_box_ = new QGroupBox("Predictions");
  auto* predictions_box = predictions_box_;
  auto* predictions_layout = new QVBoxLayout(predictions_box);
  auto* position_row = new QHBoxLayout;
  position_row->addWidget(new QLabel("After token"));
  position_box_ = new QComboBox;
  position_box_->setObjectName("after_token");
  position_box_->setToolTip("Or click a row of the heatmap");
  position_row->addWidget(position_box_, 1);
  predictions_layout->addLayout(position_row);
  predictions_title_ = new QLabel;
  predictions_layout->addWidget(predictions_title_);
  predictions_ = new QTableWidget(0, 2);
  predictions_->setHorizontalHeaderLabels({"prediction", "probability"});
  predictions_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  predictions_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  predictions_->verticalHeader()->hide();
  predictions_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  enable_selection_copy(predictions_);
  // Room for the header and all five predictions (4 of 5 showed, beside the overview's empty space);
  // the overview above takes what is left.
  predictions_->setMinimumHeight(predictions_->horizontalHeader()->sizeHint().height() +
                                 5 * predictions_->verticalHeader()->defaultSectionSize() + 2 * predictions_->frameWidth() + 2);
  predictions_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  predictions_layout->addWidget(predictions_);
  side_layout->addWidget(predictions_box, 0);
  splitter->addWidget(side);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({800, 380});  // the heatmaps need the width; the overview scrolls
  layout->addWidget(splitter, 1);
  // A mixture of experts: the shown layer's first choice per token, under the maps, a few lines high.
  expert_strip_ = new ExpertStrip;
  auto* expert_scroll = new QScrollArea;
  expert_scroll->setWidget(expert_strip_);
  expert_scroll->setWidgetResizable(true);
  expert_scroll->setFrameShape(QFrame::NoFrame);
  expert_scroll->setMaximumHeight(96);
  expert_scroll->hide();
  expert_box_ = expert_scroll;
  layout->addWidget(expert_scroll);

  connect(sentence_bar_, &SentenceBar::runRequested, this, &AttentionView::runRequested);
  connect(model_box_, &QComboBox::currentIndexChanged, this, [this] {
    syncCompareChoices();
    refreshHeads();
    Q_EMIT modelsChosen();
  });
  connect(compare_check_, &QCheckBox::toggled, this, [this](bool on) {
    compare_box_->setEnabled(on);
    refresh();
    Q_EMIT modelsChosen();
  });
  connect(compare_box_, &QComboBox::currentIndexChanged, this, [this] {
    refresh();
    Q_EMIT modelsChosen();
  });
  connect(layer_box_, &QSpinBox::valueChanged, this, [this] { refreshHeads(); });
  connect(head_box_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(scale_box_, &QComboBox::currentIndexChanged, this, [this] {
    const auto scale = colour_scale_from_name(scale_box_->currentText());
    heatmap_->setColourScale(scale);
    compare_heatmap_->setColourScale(scale);
    overview_->setColourScale(scale);
  });
  connect(overview_, &AttentionOverview::thumbnailClicked, this, [this](int layer, int head) { setLayerHead(layer, head); });
  connect(position_box_, &QComboBox::currentIndexChanged, this, [this] { refreshPredictions(); });
  connect(heatmap_, &AttentionHeatmap::cellClicked, this, [this](int row, int) {
    // An encoder block's rows are source tokens, not the decoder positions the predictions follow.
    const auto* shown = capture(currentModel());
    if (!shown || shown->layerKind(layer()) == AttentionKind::Encoder) return;
    // A long text's row is a region's token (counted from its first) or a block of `pool` tokens (its last).
    const auto& matrix = heatmap_->matrix();
    const int token = matrix.text_length > 0 ? matrix.first_row + row
                      : shown->pool > 1      ? std::min((row + 1) * shown->pool, shown->length()) - 1
                                             : row;
    if (token < position_box_->count()) position_box_->setCurrentIndex(token);
  });
  refreshHeads();  // no model yet: the maps say how to open one
}

void AttentionView::setModels(const std::vector<ModelSummary>& models) {
  const int current = model_box_->currentIndex(), compared = compare_box_->currentIndex();
  models_ = models;
  const QSignalBlocker block_model(model_box_), block_compare(compare_box_);
  QStringList names, architectures;
  for (const auto& model : models) names << model.name, architectures << model.architecture;
  fill_model_box(model_box_, names, architectures);
  fill_model_box(compare_box_, names, architectures);
  model_box_->setCurrentIndex(std::clamp(current, 0, static_cast<int>(models.size()) - 1));
  compare_box_->setCurrentIndex(std::clamp(compared < 0 ? 1 : compared, 0, static_cast<int>(models.size()) - 1));
  syncCompareChoices();
  refreshHeads();
}

void AttentionView::syncCompareChoices() {
  // The model shown cannot be compared with itself: greyed in the list, and moved off when chosen.
  // (Also what follows the chosen model.)
  const int current = currentModel(), count = compare_box_->count();
  // A translation model takes an optional target to read teacher-forced.
  sentence_bar_->setTargetShown(current >= 0 && current < static_cast<int>(models_.size()) && models_[current].translation);
  if (auto* items = qobject_cast<QStandardItemModel*>(compare_box_->model()))
    for (int i = 0; i < count; ++i) items->item(i)->setEnabled(i != current);
  if (count > 1 && compare_box_->currentIndex() == current) compare_box_->setCurrentIndex((current + 1) % count);
  compare_check_->setEnabled(count > 1);
  compare_check_->setToolTip(count > 1 ? "Show a second model's attention beside this one's"
                                       : "Open a second model to compare with");
  if (count < 2) compare_check_->setChecked(false);
}

int AttentionView::currentModel() const { return model_box_->currentIndex(); }
void AttentionView::setCurrentModel(int model) { model_box_->setCurrentIndex(model); }
int AttentionView::compareModel() const {
  return compare_check_->isChecked() && compare_box_->currentIndex() != currentModel() ? compare_box_->currentIndex() : -1;
}

void AttentionView::setCompare(bool enabled, int model) {
  if (model >= 0 && model < compare_box_->count()) compare_box_->setCurrentIndex(model);
  compare_check_->setChecked(enabled);
}

QString AttentionView::sentence() const { return sentence_bar_->sentence(); }
void AttentionView::setSentence(const QString& sentence) { sentence_bar_->setSentence(sentence); }
QString AttentionView::target() const { return sentence_bar_->target(); }
QLineEdit* AttentionView::sentenceEdit() const { return sentence_bar_->sentenceEdit(); }
QLineEdit* AttentionView::targetEdit() const { return sentence_bar_->targetEdit(); }
int AttentionView::layer() const { return layer_box_->value() - 1; }
int AttentionView::head() const { return head_box_->currentIndex() - 1; }

void AttentionView::setLayerHead(int layer, int head) {
  layer_box_->setValue(layer + 1);
  if (head + 1 < head_box_->count()) head_box_->setCurrentIndex(head + 1);
}

void AttentionView::showPosition(int position) {
  const auto* shown = capture(currentModel());
  if (!shown || position < 0 || position >= shown->length()) return;
  heatmap_->showToken({-1, shown->pool > 1 ? position / shown->pool : position});
}

void AttentionView::stepLayer(int delta) { layer_box_->setValue(layer_box_->value() + delta); }  // the box clamps

void AttentionView::stepHead(int delta) {
  head_box_->setCurrentIndex(std::clamp(head_box_->currentIndex() + delta, 0, head_box_->count() - 1));
}

int AttentionView::position() const { return position_box_->currentIndex(); }

void AttentionView::setBrowseOnly(bool browse_only) {
  sentence_bar_->setVisible(!browse_only);
  compare_check_->setVisible(!browse_only);
  compare_box_->setVisible(!browse_only);
  predictions_box_->setVisible(!browse_only);
}

ColourScale AttentionView::colourScale() const { return colour_scale_from_name(scale_box_->currentText()); }
void AttentionView::setColourScale(ColourScale scale) { scale_box_->setCurrentText(colour_scale_name(scale)); }

void AttentionView::setCapture(int model, const AttentionCapture& capture, const HeadGates& gates) {
  // A translation re-run for other gates keeps the one before, to show what the change altered.
  QString previous;
  const auto before = captures_.find(model);
  const bool new_text = before == captures_.end() || before->second.capture.text != capture.text;
  if (!new_text) {
    previous = before->second.gates != gates ? before->second.capture.translation : before->second.previous_translation;
  }
  captures_[model] = {capture, gates, ++next_serial_, previous};
  run_errors_.erase(model);
  pending_runs_.erase(model);  // shown once, below: setRunPending(false) after it has nothing to redraw
  // A new text opens on its whole map (another gate setting of the same text keeps the zoom): a pooled
  // map of as many blocks would otherwise keep the last text's zoom, and a region its tokens.
  std::vector<AttentionHeatmap*> reopened;
  if (new_text) {
    if (model == currentModel()) reopened.push_back(heatmap_);
    if (model == compareModel()) reopened.push_back(compare_heatmap_);
    for (auto* map : reopened) (map == heatmap_ ? zoom_ : compare_zoom_)->clear();
  }
  if (model == currentModel()) {
    // New tokens: the predictions default to the last position. A translation model predicts
    // after each of its decoder's tokens.
    const auto& positions = capture.isTranslation() ? capture.target_tokens : capture.tokens;
    const QSignalBlocker block(position_box_);
    const bool same_tokens = position_box_->count() == positions.size();
    const int previous_position = position_box_->currentIndex();
    position_box_->clear();
    QStringList items;  // one addItems: 1,024 addItem calls each updated the box
    for (int i = 0; i < positions.size(); ++i) items << QString("%1: %2").arg(i + 1).arg(positions[i]);
    position_box_->addItems(items);
    position_box_->setCurrentIndex(same_tokens && previous_position >= 0 ? previous_position : positions.size() - 1);
  }
  refreshHeads();
  for (auto* map : reopened) map->resetZoom();
}

void AttentionView::clearCaptures() {
  captures_.clear();
  pending_runs_.clear();
  run_errors_.clear();
  overview_->clear();
  overview_shows_ = {-1, -1};
}

void AttentionView::dropCapture(int model, const QString& error) {
  const bool had_error = run_errors_.count(model) > 0;
  if (error.isEmpty()) run_errors_.erase(model);
  else run_errors_[model] = error;
  const bool erased = captures_.erase(model) > 0;
  if (!erased && error.isEmpty() && !had_error) return;
  if (overview_shows_.first == model) {
    overview_->clear();
    overview_shows_ = {-1, -1};
  }
  refresh();
}

bool AttentionView::hasCapture(int model, const QString& sentence, const HeadGates& gates) const {
  const auto found = captures_.find(model);
  // A translation model's capture is of the target given with it (none: its own translation).
  const auto target = found != captures_.end() && found->second.capture.isTranslation() ? this->target() : QString();
  return found != captures_.end() && found->second.capture.text == sentence && found->second.gates == gates &&
         found->second.capture.forced_target == target;
}

const AttentionCapture* AttentionView::capture(int model) const {
  const auto found = captures_.find(model);
  return found == captures_.end() ? nullptr : &found->second.capture;
}

void AttentionView::refreshHeads() {
  const int model = currentModel();
  // No model: nothing to choose, and the maps say how to open one (not "layer 0" over a dark block).
  const bool any = model >= 0 && model < static_cast<int>(models_.size());
  for (auto* chooser : std::initializer_list<QWidget*>{model_box_, layer_box_, head_box_}) chooser->setEnabled(any);
  for (auto* map : {heatmap_, compare_heatmap_})
    map->setPlaceholder(any ? QString("Type a sentence and press Enter")
                            : QString("No model loaded: File → Open checkpoint folder… (Ctrl+O),\n"
                                      "or drop a checkpoint folder or a session file on the window"));
  if (!any) {
    const QSignalBlocker block(layer_box_);
    layer_box_->setRange(1, 1);
    refresh();
    return;
  }
  const auto& summary = models_[model];
  {
    const QSignalBlocker block(layer_box_);
    layer_box_->setRange(1, std::max(1, summary.layers));
    static_cast<BlockSpinBox*>(layer_box_)->setNames(summary.layer_names);
  }
  const int layer = layer_box_->value() - 1;
  const int heads = layer < static_cast<int>(summary.heads_per_block.size()) ? summary.heads_per_block[layer] : 0;
  {
    const QSignalBlocker block(head_box_);
    const int previous = head_box_->currentIndex();
    head_box_->clear();
    head_box_->addItem("mean of heads");
    for (int head = 0; head < heads; ++head) head_box_->addItem(QString("head %1").arg(head + 1));
    head_box_->setCurrentIndex(std::clamp(previous, 0, heads));
  }
  refresh();
}

QString AttentionView::runError(int model) const {
  const auto found = run_errors_.find(model);
  return found == run_errors_.end() ? QString() : found->second;
}

void AttentionView::setRunPending(int model, bool pending) {
  if (pending) run_errors_.erase(model);  // a new run: its own result or error replaces the last one's
  if (pending ? !pending_runs_.insert(model).second : pending_runs_.erase(model) == 0) return;
  refresh();
}

void AttentionView::refreshOverview() {
  const int model = currentModel();
  const auto found = captures_.find(model);
  if (found == captures_.end()) {
    overview_->clear();
    overview_shows_ = {-1, -1};
    return;
  }
  if (overview_shows_ != std::pair{model, found->second.serial}) {  // a new capture: render its thumbnails
    const auto& capture = found->second.capture;
    std::vector<std::vector<AttentionMatrix>> matrices;
    for (int layer = 0; layer < static_cast<int>(capture.thumbnails.size()); ++layer) {
      std::vector<AttentionMatrix> row;
      for (int head = -1; head < capture.thumbnails[layer].heads; ++head) row.push_back(thumbnail_matrix(capture, layer, head));
      matrices.push_back(std::move(row));
    }
    overview_->setMatrices(std::move(matrices));
    overview_->setLayerNames(model < static_cast<int>(models_.size()) ? models_[model].layer_names : QStringList());
    overview_->setQueryGroups(model < static_cast<int>(models_.size()) ? models_[model].query_groups
                                                                       : std::vector<std::vector<int>>{});
    overview_shows_ = {model, found->second.serial};
  }
  overview_->setGates(found->second.gates);
  overview_->setCurrent(layer(), head());
}

void AttentionView::levelMapTitles() {
  // Side by side, the shorter title is padded to the longer one's lines so both maps start level.
  const int lines = compare_heatmap_->isHidden() ? 0 : std::max(heatmap_->titleLines(), compare_heatmap_->titleLines());
  heatmap_->setMinimumTitleLines(lines);
  compare_heatmap_->setMinimumTitleLines(lines);
}

void AttentionView::refresh() {
  refreshOverview();
  compare_heatmap_->setVisible(compareModel() >= 0);
  levelMapTitles();
  refreshMatrices();
  refreshTranslation();
  refreshPredictions();
  refreshExperts();
}

void AttentionView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_PageUp: layer_box_->setValue(layer_box_->value() - 1); break;
    case Qt::Key_PageDown: layer_box_->setValue(layer_box_->value() + 1); break;
    case Qt::Key_Left: head_box_->setCurrentIndex(std::max(0, head_box_->currentIndex() - 1)); break;
    case Qt::Key_Right: head_box_->setCurrentIndex(std::min(head_box_->count() - 1, head_box_->currentIndex() + 1)); break;
    default: QWidget::keyPressEvent(event); return;
  }
  event->accept();
}

}  // namespace aw

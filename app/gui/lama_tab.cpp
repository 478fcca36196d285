// app/gui/lama_tab.cpp — see lama_tab.h.
#include "app/gui/lama_tab.h"

#include "app/gui/settings_form.h"
#include "widgets/analysis_panel.h"
#include "widgets/analysis_plots.h"
#include "widgets/export_folder.h"
#include "table/csv_format.h"
#include "widgets/result_table_model.h"
#include "widgets/result_plot.h"
#include "widgets/word_weight_view.h"
#include "widgets/selection_copy.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace aw {
namespace {

constexpr int kPreviewCharacters = 90;
// The comma-separated words of a line edit, trimmed, without empty ones.
QStringList word_list(const QString& text) {
  QStringList words;
  for (const auto& word : text.split(',', Qt::SkipEmptyParts))
    if (!word.trimmed().isEmpty()) words << word.trimmed();
  return words;
}

QWidget* row_of(std::initializer_list<QWidget*> widgets, int stretch_index = 0) {
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  int index = 0;
  for (auto* widget : widgets) layout->addWidget(widget, index++ == stretch_index ? 1 : 0);
  if (stretch_index < 0) layout->addStretch(1);
  return row;
}

QSpinBox* spin_box(QWidget* input, const QString& prefix, const QString& suffix = {}) {
  auto* spin = qobject_cast<QSpinBox*>(input);
  spin->setPrefix(prefix);
  spin->setSuffix(suffix);
  return spin;
}

}  // namespace

const QString LamaTab::kDefaultWords = "amazing,happy,recommended,poor,terrible,worst";
LamaTab::LamaTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent)
    : AnalysisTab(descriptor, context, parent, false) {
  layOutForm();
  // Under the summary table: the keywords and the other CSVs; under the plot: the document view.
  auto* keywords = new QWidget;
  auto* keyword_layout = new QVBoxLayout(keywords);
  keyword_layout->setContentsMargins(0, 0, 0, 0);
  // Captions wrap: at one line each they set the tab's (and so the window's) minimum width.
  const auto caption = [](const QString& text) {
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    return label;
  };
  keyword_layout->addWidget(caption("<b>Keywords per rating</b> (LAMA Table 6) — double-click one to add it"));
  keyword_model_ = new ResultTableModel(this);
  keyword_view_ = new QTableView;
  keyword_view_->setModel(keyword_model_);
  keyword_view_->setAlternatingRowColors(true);
  keyword_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  keyword_view_->verticalHeader()->setDefaultSectionSize(22);
  keyword_layout->addWidget(keyword_view_, 1);
  keyword_layout->addWidget(caption("<b>Shift between ratings</b> — Mann–Whitney U per word and pair of ratings; "
                                       "effect = P(weight in a &gt; weight in b), p Holm-adjusted"));
  shift_model_ = new ResultTableModel(this);
  shift_view_ = new QTableView;
  shift_view_->setModel(shift_model_);
  shift_view_->setAlternatingRowColors(true);
  shift_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  shift_view_->verticalHeader()->setDefaultSectionSize(22);
  keyword_layout->addWidget(shift_view_, 1);
  // Both tables scroll: a header and a row or two are enough at the least, so the window fits 768 px.
  for (auto* view : {keyword_view_, shift_view_}) {
    view->setMinimumHeight(52);
    enable_selection_copy(view);
  }
  auto* exports = new QHBoxLayout;
  exports->addWidget(new QLabel("Export CSV:"));
  for (const auto& [name, title] : {std::pair<QString, QString>{"occurrences", "Occurrences…"},
                                    {"density", "Densities…"}, {"keywords", "Keywords…"},
                                    {"shift", "Shifts…"}}) {
    auto* button = new QPushButton(title);
    part_exports_[name] = button;
    button->setEnabled(false);
    connect(button, &QPushButton::clicked, this, [this, name = name] {
      auto path = QFileDialog::getSaveFileName(panel(), "Export " + name, suggested_export_path(name + ".csv"),
                                               "CSV files (*.csv)");
      if (path.isEmpty()) return;
      if (!path.endsWith(".csv")) path += ".csv";
      if (!exportPart(name, path)) panel()->showMessage(path + ": cannot be written", true);
      else remember_export(path);
    });
    exports->addWidget(button);
  }
  exports->addStretch(1);
  keyword_layout->addLayout(exports);

  auto* documents = new QWidget;
  auto* document_layout = new QVBoxLayout(documents);
  document_layout->setContentsMargins(0, 0, 0, 0);
  document_box_ = new QComboBox;
  document_box_->setMinimumContentsLength(30);
  document_box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  only_with_words_ = new QCheckBox("only with a chosen word");
  only_with_words_->setObjectName("only_with_words");
  only_with_words_->setChecked(true);
  document_layout->addWidget(row_of({new QLabel("Document"), document_box_, only_with_words_}, 1));
  typed_edit_ = new QLineEdit;
  typed_edit_->setPlaceholderText("…or type a review and press Enter");
  document_layout->addWidget(typed_edit_);
  document_view_ = new WordWeightView;
  document_layout->addWidget(document_view_, 1);
  panel()->setPlotVisible(true);  // before it moves into its column: a hidden widget would take no room there
  panel()->addResultViews(keywords, documents);
  // At 1,366 × 768: the keyword and shift tables under the summary get the larger share of their
  // column, the six small plots and their legend more height than the document view below them.
  panel()->resultColumn(0)->setStretchFactor(0, 2);
  panel()->resultColumn(0)->setStretchFactor(1, 3);
  panel()->resultColumn(1)->setStretchFactor(0, 2);
  panel()->resultColumn(1)->setStretchFactor(1, 1);

  panel()->setPlotter([this](ResultPlot& plot, const PlotInput& input) { plotDensities(plot, input); });
  connect(modelChooser(), &QComboBox::currentIndexChanged, this, [this] {
    fillHeadChoices();
    reloadDocuments();
  });
  connect(form(), &SettingsForm::edited, this, [this](const QString& name) {
    if (name == "data" || name == "part" || name == "seed") reloadDocuments();
    if (name == "words") listDocuments();
  });
  connect(only_with_words_, &QCheckBox::toggled, this, [this] { listDocuments(); });
  connect(document_box_, &QComboBox::activated, this, [this](int row) { showListedDocument(row); });
  connect(typed_edit_, &QLineEdit::returnPressed, this, [this] { showText(typed_edit_->text()); });
  connect(document_view_, &WordWeightView::wordClicked, this, [this](const QString& word) { addWord(word); });
  connect(keyword_view_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const int column = keyword_model_->table().column("word");
    if (column >= 0) addWord(QString::fromStdString(keyword_model_->table().text(index.row(), column)));
  });
}

void LamaTab::layOutForm() {
  auto* form = panel()->settingsForm();
  auto* settings = this->form();
  settings->setValue("part", "test");
  auto* part = qobject_cast<QComboBox*>(settings->input("part"));
  for (const auto& [choice, text] : {std::pair<QString, QString>{"whole", "whole file"}, {"train", "train part (80 %)"},
                                     {"valid", "valid part (10 %)"}, {"test", "test part (10 %)"}})
    part->setItemText(part->findData(choice), text);
  part->setToolTip("The seeded shuffle-and-cut of `attention-cli split` (80/10/10)");
  qobject_cast<QLineEdit*>(settings->input("data"))
      ->setPlaceholderText("label<TAB>text lines, e.g. ../shared/data/amazon-fine-food/reviews.tsv");
  form->addRow("Data", row_of({settings->placed("data"), part, spin_box(settings->input("seed"), "seed "),
                               spin_box(settings->input("batch"), "batch ")}));

  words_edit_ = qobject_cast<QLineEdit*>(settings->input("words"));
  words_edit_->setText(kDefaultWords);
  words_edit_->setToolTip("Comma-separated; or click a word in the document view, or double-click a keyword");
  form->addRow("Words", row_of({words_edit_, spin_box(settings->input("points"), "", " density points")}));

  head_box_ = new QComboBox;
  head_box_->addItem("mean of the heads", "mean");
  settings->replaceWithChoices("head", head_box_);
  scale_box_ = qobject_cast<QComboBox*>(settings->input("scale"));
  scale_box_->setItemText(scale_box_->findData("none"), "weight");
  scale_box_->setItemText(scale_box_->findData("length"), "weight × document length (1 = uniform)");
  form->addRow("Weight", row_of({head_box_, scale_box_, spin_box(settings->input("top"), "keywords: top "),
                                 spin_box(settings->input("min-count"), "seen ≥ ", " times"),
                                 settings->input("with-punctuation")},
                                -1));
}

QString LamaTab::dataPath() const { return qobject_cast<QLineEdit*>(form()->input("data"))->text().trimmed(); }

bool LamaTab::isLama(int model) const {
  return model >= 0 && model < static_cast<int>(models().size()) && models()[model].analyses.contains("word-weights");
}

void LamaTab::setModels(const std::vector<ModelSummary>& models) {
  AnalysisTab::setModels(models);
  fillHeadChoices();
  reloadDocuments();
}

void LamaTab::fillHeadChoices() {
  const int model = chosenModel();
  const int heads = isLama(model) && !models()[model].heads_per_block.empty() ? models()[model].heads_per_block[0] : 0;
  const auto previous = head_box_->currentData().toString();
  const QSignalBlocker block(head_box_);
  head_box_->clear();
  head_box_->addItem("mean of the heads", "mean");
  for (int head = 1; head <= heads; ++head) head_box_->addItem(QString("head %1").arg(head), QString::number(head));
  head_box_->setCurrentIndex(std::max(0, head_box_->findData(previous)));
}

bool LamaTab::prepare(Run& run, QString* refusal) const {
  if (!AnalysisTab::prepare(run, refusal)) return false;
  // Typed words may carry spaces after the commas.
  if (run.settings.contains("words")) run.settings["words"] = word_list(run.settings["words"]).join(',');
  return true;
}

void LamaTab::showOutput(const AnalysisOutput& output) {
  AnalysisTab::showOutput(output);  // draws the densities through the plotter
  const auto* keywords = output.part("keywords");
  const auto* shift = output.part("shift");
  keyword_model_->setTable(keywords ? *keywords : ResultTable());
  shift_model_->setTable(shift ? *shift : ResultTable());
  for (auto button = part_exports_.begin(); button != part_exports_.end(); ++button)
    button.value()->setEnabled(output.part(button.key().toStdString()) != nullptr);
  if (!output.description.isEmpty()) panel()->showMessage(output.description, false);
  listDocuments();
}

void LamaTab::clearResult() {
  AnalysisTab::clearResult();
  keyword_model_->setTable({});
  shift_model_->setTable({});
  document_view_->clear();
}

void LamaTab::saveExtra(QJsonObject& entry) const { entry["only_with_words"] = only_with_words_->isChecked(); }

void LamaTab::restoreExtra(const QJsonObject& entry, const QDir&) {
  if (entry.contains("only_with_words")) only_with_words_->setChecked(entry["only_with_words"].toBool());
  fillHeadChoices();
  reloadDocuments();  // its data file and split may have changed
}

QString LamaTab::part(const QString& name) const {
  const auto* table = shown().part(name.toStdString());
  return table ? QString::fromStdString(write_csv(*table)) : QString();
}

bool LamaTab::exportPart(const QString& name, const QString& path) const {
  return !part(name).isEmpty() && write_text_file(path, part(name));
}

void LamaTab::plotDensities(ResultPlot& plot, const PlotInput& input) const {
  PlotInput labelled = input;
  labelled.x_label = scale_box_->currentData().toString() == "length" ? QString("weight × length") : QString("attention weight");
  find_plot_kind("word-weights")->draw(plot, labelled);
}

void LamaTab::reloadDocuments() {
  const int model = chosenModel();
  const auto values = form()->values();
  const auto key = QString("%1|%2|%3|%4").arg(model).arg(dataPath(), values.value("part"), values.value("seed"));
  if (key == documents_key_) return;
  documents_key_ = key;
  documents_.clear();
  shown_document_ = -1;
  if (!isLama(model)) {
    document_view_->clear(models().empty() ? "Load a LAMA checkpoint (e.g. sample_data/lama_amazon) first"
                                           : "Choose a LAMA model to see its attention over a document");
  } else if (!dataPath().isEmpty()) {
    try {
      documents_ = context_.session->labelledDocuments(model, dataPath(), values.value("part", "whole"),
                                                       values.value("seed", "1").toInt());
    } catch (const std::exception& error) {
      document_view_->clear(QString::fromUtf8(error.what()));
    }
  }
  listDocuments();
}

void LamaTab::listDocuments() {
  QStringList words;
  for (const auto& word : word_list(words_edit_->text())) words << QRegularExpression::escape(word);
  const QRegularExpression any_word("\\b(" + words.join('|') + ")\\b", QRegularExpression::CaseInsensitiveOption);
  const bool filter = only_with_words_->isChecked() && !words.isEmpty();
  listed_.clear();
  const QSignalBlocker block(document_box_);
  document_box_->clear();
  for (int i = 0; i < static_cast<int>(documents_.size()); ++i) {
    const auto& document = documents_[i];
    if (filter && !any_word.match(document.text).hasMatch()) continue;
    listed_.push_back(i);
    auto preview = document.text.left(kPreviewCharacters);
    if (document.text.size() > kPreviewCharacters) preview += "…";
    document_box_->addItem(QString("%1 · #%2 · %3").arg(rating_text(document.label)).arg(i + 1).arg(preview));
  }
  if (listed_.empty()) {
    document_box_->addItem(documents_.empty() ? "no documents read" : "no document has one of the words");
    document_box_->setEnabled(false);
    return;
  }
  document_box_->setEnabled(true);
  document_box_->setToolTip(QString("%1 of %2 documents").arg(listed_.size()).arg(documents_.size()));
  // Keep the document on view when it is still listed; otherwise show the first one.
  const auto shown = std::find(listed_.begin(), listed_.end(), shown_document_);
  if (shown != listed_.end()) document_box_->setCurrentIndex(static_cast<int>(shown - listed_.begin()));
  else showListedDocument(0);
}

void LamaTab::showListedDocument(int row) {
  if (row < 0 || row >= static_cast<int>(listed_.size())) return;
  const auto& document = documents_[listed_[row]];
  shown_document_ = listed_[row];
  if (document_box_->currentIndex() != row) document_box_->setCurrentIndex(row);
  showCapture(QString("Document #%1 of %2, rated %3")
                  .arg(listed_[row] + 1)
                  .arg(documents_.size())
                  .arg(rating_text(document.label)),
              document.text);
}

void LamaTab::showText(const QString& text) {
  if (text.trimmed().isEmpty()) return;
  shown_document_ = -1;
  showCapture("Typed text", text);
}

void LamaTab::showCapture(const QString& heading, const QString& text) {
  const int model = chosenModel();
  if (!isLama(model)) {
    document_view_->clear("Choose a LAMA model to see its attention over a document");
    return;
  }
  try {
    const auto capture = context_.session->attendDocument(model, text, context_.gates ? context_.gates(model) : HeadGates{});
    if (capture.layers.empty() || capture.layers.front().rows != 1)
      throw std::runtime_error("this model's attention is not one weight per word and head");
    QString predicted;
    if (const auto classes = capture.predictionsAt(0); !classes.empty()) {
      const auto best = std::max_element(classes.begin(), classes.end(), [](const auto& a, const auto& b) {
        return a.probability < b.probability;
      });
      predicted = QString(" — the model says %1 (p = %2)").arg(rating_text(best->label)).arg(best->probability, 0, 'f', 2);
    }
    const auto& block = capture.layers.front();
    document_view_->setDocument(heading + predicted, capture.tokens, block.heads,
                                std::vector<float>(block.head(0), block.head(0) + static_cast<size_t>(block.heads) * block.cols));
  } catch (const std::exception& error) {
    document_view_->clear(QString::fromUtf8(error.what()));
  }
}

void LamaTab::addWord(const QString& word) {
  if (word.isEmpty() || word == "<unk>") return;
  auto words = word_list(words_edit_->text());
  if (words.contains(word, Qt::CaseInsensitive)) return;
  words << word;
  words_edit_->setText(words.join(','));
  panel()->showMessage(QString("Added '%1' to the words — Run to see its densities").arg(word), false);
}

}  // namespace aw

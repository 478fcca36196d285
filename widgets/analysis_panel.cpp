// widgets/analysis_panel.cpp — see analysis_panel.h.
#include "widgets/analysis_panel.h"
#include "widgets/export_folder.h"
#include "widgets/run_progress_bar.h"

#include "widgets/result_plot.h"
#include "table/csv_format.h"
#include "widgets/selection_copy.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPdfWriter>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace aw {

AnalysisPanel::AnalysisPanel(const QString& description, QWidget* parent)
    : QWidget(parent), settings_(new QFormLayout), table_model_(new ResultTableModel(this)), plot_(new ResultPlot) {
  auto* layout = new QVBoxLayout(this);
  // Its first sentence, "more…" for the rest: the whole paragraph took four lines of a 768-pixel screen.
  about_ = new QLabel;
  about_->setObjectName("description");
  about_->setWordWrap(true);
  about_->setTextFormat(Qt::RichText);
  about_->setToolTip(QString(description).remove(QRegularExpression("<[^>]*>")));
  connect(about_, &QLabel::linkActivated, this, [this](const QString& link) { showDescription(link == "more"); });
  description_ = description;
  showDescription(false);
  layout->addWidget(about_);

  auto* top = new QHBoxLayout;
  top->addLayout(settings_, 1);
  auto* actions = new QVBoxLayout;
  run_button_ = new QPushButton("Run");
  run_button_->setDefault(true);
  cancel_button_ = new QPushButton("Cancel");
  cancel_button_->setEnabled(false);
  actions->addWidget(run_button_);
  actions->addWidget(cancel_button_);
  actions->addStretch(1);
  top->addLayout(actions);
  layout->addLayout(top);

  auto* progress_row = new QHBoxLayout;
  progress_bar_ = new QProgressBar;
  progress_bar_->setRange(0, 1);
  progress_bar_->setValue(0);
  progress_label_ = new QLabel;
  // A fixed share of the row: the bar keeps most of it whatever the line says.
  progress_label_->setMinimumWidth(260);
  progress_label_->setMaximumWidth(360);
  progress_row->addWidget(progress_bar_, 1);
  progress_row->addWidget(progress_label_);
  layout->addLayout(progress_row);
  message_label_ = new QLabel;
  message_label_->setWordWrap(true);
  message_label_->hide();
  layout->addWidget(message_label_);

  splitter_ = new QSplitter(Qt::Horizontal);
  auto* splitter = splitter_;
  table_view_ = new QTableView;
  table_view_->setModel(table_model_);
  table_view_->setAlternatingRowColors(true);
  table_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_view_->verticalHeader()->setDefaultSectionSize(22);
  enable_selection_copy(table_view_);
  splitter->addWidget(table_view_);
  splitter->addWidget(plot_);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  layout->addWidget(splitter, 1);

  auto* exports = new QHBoxLayout;
  table_chooser_ = new QComboBox;
  table_chooser_->setObjectName("shown_table");
  table_chooser_->setToolTip("Which of the result's tables the table shows (and Export CSV writes)");
  table_chooser_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  table_chooser_->hide();
  connect(table_chooser_, &QComboBox::currentIndexChanged, this, [this] { showChosenTable(); });
  exports->addWidget(table_chooser_);
  exports->addStretch(1);
  auto add_export = [&](const QString& text, const QString& filter, const QString& suffix,
                        bool (AnalysisPanel::*write)(const QString&)) {
    auto* button = new QPushButton(text);
    button->setEnabled(false);
    connect(button, &QPushButton::clicked, this, [this, filter, suffix, write] { chooseAndExport(filter, suffix, write); });
    exports->addWidget(button);
    export_buttons_ << button;
  };
  add_export("Export CSV…", "CSV files (*.csv)", "csv", &AnalysisPanel::exportCsv);
  add_export("Export PNG…", "PNG images (*.png)", "png", &AnalysisPanel::exportPng);
  add_export("Export PDF…", "PDF files (*.pdf)", "pdf", &AnalysisPanel::exportPdf);
  layout->addLayout(exports);

  connect(run_button_, &QPushButton::clicked, this, &AnalysisPanel::runRequested);
  connect(cancel_button_, &QPushButton::clicked, this, &AnalysisPanel::cancelRequested);
}

void AnalysisPanel::showDescription(bool whole) {
  // The first sentence ends at the first ". " after the bold title ("<b>Michel Figure 3.</b> ").
  const int title_end = description_.indexOf("</b>");
  const int end = description_.indexOf(". ", title_end < 0 ? 0 : title_end + 4);
  if (end < 0) {
    about_->setText(description_);
    return;
  }
  about_->setText(whole ? description_ + " <a href=\"less\">less</a>"
                        : description_.left(end + 1) + " <a href=\"more\">more…</a>");
}

bool AnalysisPanel::descriptionShownWhole() const { return !about_->text().contains("href=\"more\""); }

QSplitter* AnalysisPanel::resultColumn(int column) const {
  return qobject_cast<QSplitter*>(splitter_->widget(column));
}

void AnalysisPanel::setPlotVisible(bool visible) { plot_->setVisible(visible); }

void AnalysisPanel::addResultViews(QWidget* below_table, QWidget* below_plot) {
  auto stack = [this](int index, QWidget* top, QWidget* below) {
    auto* column = new QSplitter(Qt::Vertical);
    splitter_->replaceWidget(index, column);
    column->addWidget(top);
    column->addWidget(below);
    column->setStretchFactor(0, 1);
    column->setStretchFactor(1, 1);
  };
  stack(0, table_view_, below_table);
  stack(1, plot_, below_plot);
}

void AnalysisPanel::setRunning(bool running) {
  running_ = running;
  run_button_->setEnabled(!running);
  cancel_button_->setEnabled(running);
  for (auto* button : export_buttons_) button->setEnabled(!running && has_result_);
  if (running) {
    clock_.start();
    progress_bar_->setRange(0, 0);  // busy until the first report says how much there is
    progress_label_->setText("starting…");
    message_label_->hide();
  }
}

void AnalysisPanel::endRun(RunEnd end) {
  setRunning(false);
  const bool reported = progress_bar_->maximum() > 0;
  switch (end) {
    case RunEnd::Done:
      progress_bar_->setRange(0, 1);
      progress_bar_->setValue(1);
      run_seconds_ = clock_.elapsed() / 1000.0;  // said by setResult, which follows
      break;
    case RunEnd::Failed:
      progress_bar_->setRange(0, 1);
      progress_bar_->setValue(0);
      progress_label_->setText("not run (see the message)");
      break;
    case RunEnd::Cancelled:  // the bar stays where the last report left it
      if (!reported) progress_bar_->setRange(0, 1), progress_bar_->setValue(0);
      progress_label_->setText("cancelled");
      break;
  }
}

QString AnalysisPanel::progressText() const { return progress_label_->text(); }

int AnalysisPanel::progressPercent() const {
  if (progress_bar_->maximum() <= 0) return -1;
  return static_cast<int>(100.0 * (progress_bar_->value() - progress_bar_->minimum()) /
                          (progress_bar_->maximum() - progress_bar_->minimum()));
}

void AnalysisPanel::setProgress(qint64 done, qint64 total, const QString& unit) {
  if (total <= 0) return;
  progress_bar_->setRange(0, static_cast<int>(std::min<qint64>(total, 1 << 30)));
  progress_bar_->setValue(static_cast<int>(std::min(done, total)));
  const double seconds = clock_.elapsed() / 1000.0;
  const double rate = seconds > 0 ? done / seconds : 0;
  auto text = QString("%1 / %2 %3").arg(done).arg(total).arg(unit);
  if (rate > 0) text += QString(" · %1/s · ETA %2").arg(rate, 0, 'f', rate < 10 ? 1 : 0).arg(duration_text((total - done) / rate));
  progress_label_->setText(text);
}

void AnalysisPanel::redrawPlot() {
  if (has_result_ && plotter_) plotter_(*plot_, PlotInput{main_table_, &parts_});
}

void AnalysisPanel::setResult(const ResultTable& table, const ResultTables& parts) {
  has_result_ = true;
  if (!running_) {  // a result restored from a session came from a finished run: a full bar, not "0 %"
    progress_bar_->setRange(0, 1);
    progress_bar_->setValue(1);
  }
  parts_ = parts;
  main_table_ = table;
  {
    const QSignalBlocker quiet(table_chooser_);
    table_chooser_->clear();
    table_chooser_->addItem("Table: result", QString());
    for (const auto& [name, title] : other_tables_)
      if (parts.count(name.toStdString())) table_chooser_->addItem("Table: " + title, name);
  }
  table_chooser_->setVisible(table_chooser_->count() > 1);
  table_model_->setTable(table);
  if (plotter_) plotter_(*plot_, PlotInput{main_table_, &parts_});
  fitTableWidth();  // after the plot: its title's width is part of the room it keeps
  for (auto* button : export_buttons_) button->setEnabled(true);
  // The line says what a person wants to know; the table's key=value metadata (the CSV's first line)
  // is its tooltip, one pair per line.
  const auto rows = QString("%1 row%2").arg(table.row_count()).arg(table.row_count() == 1 ? "" : "s");
  progress_label_->setText(run_seconds_ >= 0 ? QString("done in %1 · %2").arg(duration_text(run_seconds_), rows) : rows);
  run_seconds_ = -1;  // a result restored later was not run now
  progress_label_->setToolTip(metadata_line(table).replace(", ", "\n"));
  Q_EMIT resultShown();
}

void AnalysisPanel::showChosenTable() {
  const auto part = table_chooser_->currentData().toString().toStdString();
  const auto found = parts_.find(part);
  table_model_->setTable(part.empty() || found == parts_.end() ? main_table_ : found->second);
  fitTableWidth();
}

void AnalysisPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (has_result_) QTimer::singleShot(0, this, &AnalysisPanel::fitTableWidth);  // once laid out at its size
}

void AnalysisPanel::fitTableWidth() {
  // The table takes the room its columns need, up to three fifths of the pane: in its narrow share its
  // last columns (Table 1's Ratio, Patching's p_value) were cut at the edge.
  constexpr int kPlotRoom = 560;
  const auto sizes = splitter_->sizes();
  if (sizes.size() < 2 || sizes[0] <= 0 || sizes[1] <= 0) return;
  const int total = sizes[0] + sizes[1];
  table_view_->resizeColumnsToContents();
  const int needed = table_view_->verticalHeader()->sizeHint().width() + table_view_->horizontalHeader()->length() +
                     2 * table_view_->frameWidth() + table_view_->verticalScrollBar()->sizeHint().width();
  // The plot keeps at least 560 px where it has them (its axes read at that width), its title's first
  // line whole where it can, and two fifths.
  int room = kPlotRoom;
  auto* layout = plot_->plot()->plotLayout();
  if (auto* title = layout->elementCount() > 0 ? qobject_cast<QCPTextElement*>(layout->element(0, 0)) : nullptr)
    room = std::max(room, QFontMetrics(title->font()).horizontalAdvance(title->text().section('\n', 0, 0)) + 40);
  const int wanted = std::min({needed, total * 3 / 5, std::max(sizes[0], total - room)});
  if (wanted > sizes[0]) splitter_->setSizes({wanted, total - wanted});
}

void AnalysisPanel::clearResult() {
  has_result_ = false;
  parts_.clear();
  main_table_ = {};
  table_chooser_->clear();
  table_chooser_->hide();
  table_model_->setTable({});
  for (auto* button : export_buttons_) button->setEnabled(false);
  progress_label_->clear();
  progress_label_->setToolTip({});
}

QString AnalysisPanel::csv() const {
  return has_result_ ? QString::fromStdString(write_csv(table_model_->table())) : QString();
}

void AnalysisPanel::showMessage(const QString& message, bool is_error) {
  message_label_->setText(message);
  message_label_->setStyleSheet(is_error ? "color: #b00020; font-weight: bold;" : "color: #555555;");
  message_label_->setVisible(!message.isEmpty());
}

const ResultTable& AnalysisPanel::table() const { return main_table_; }
QString AnalysisPanel::messageText() const { return message_label_->isHidden() ? QString() : message_label_->text(); }

bool AnalysisPanel::exportCsv(const QString& path) { return has_result_ && write_text_file(path, csv()); }

bool AnalysisPanel::exportPng(const QString& path) { return plot_->isVisible() ? plot_->savePng(path) : renderTable(path, false); }
bool AnalysisPanel::exportPdf(const QString& path) { return plot_->isVisible() ? plot_->savePdf(path) : renderTable(path, true); }

QPixmap AnalysisPanel::tableImage() const {
  // The whole table at its own size, not the view's visible part in its (often far larger) box: a
  // view of the same model, sized to its columns and rows, never shown.
  QTableView whole;
  whole.setModel(table_view_->model());
  whole.setFont(table_view_->font());
  whole.setAlternatingRowColors(table_view_->alternatingRowColors());
  whole.setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  whole.setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  whole.ensurePolished();
  whole.resizeColumnsToContents();
  const int frame = 2 * whole.frameWidth();
  whole.resize(whole.verticalHeader()->sizeHint().width() + whole.horizontalHeader()->length() + frame,
               whole.horizontalHeader()->sizeHint().height() + whole.verticalHeader()->length() + frame);
  return whole.grab();
}

bool AnalysisPanel::renderTable(const QString& path, bool pdf) {
  if (!pdf) return tableImage().save(path, "PNG");
  QPdfWriter writer(path);
  writer.setResolution(144);
  QPainter painter;
  if (!painter.begin(&writer)) return false;
  const auto image = tableImage();
  const double scale = std::min(1.0, painter.viewport().width() / static_cast<double>(image.width()));
  painter.scale(scale, scale);
  painter.drawPixmap(0, 0, image);
  return painter.end();
}

void AnalysisPanel::exportWithDialog(const QString& suffix) {
  if (!has_result_ || running_) {
    showMessage(running_ ? "Still running: export once the result is shown" : "Nothing to export yet: run the analysis first",
                true);
    return;
  }
  if (suffix == "csv") chooseAndExport("CSV files (*.csv)", suffix, &AnalysisPanel::exportCsv);
  else if (suffix == "png") chooseAndExport("PNG images (*.png)", suffix, &AnalysisPanel::exportPng);
  else chooseAndExport("PDF files (*.pdf)", "pdf", &AnalysisPanel::exportPdf);
}

QString AnalysisPanel::shownExportName() const {
  // A CSV of another part than the main table says which ("prune_vanilla_lm_between").
  const auto part = table_chooser_->currentData().toString();
  if (part.isEmpty()) return export_name_;
  return (export_name_.isEmpty() ? QString("result") : export_name_) + "_" + part;
}

QString AnalysisPanel::exportTitle(const QString& suffix) const {
  const auto name = suffix == "csv" ? shownExportName() : export_name_;
  return QString("Export %1 as %2").arg(name.isEmpty() ? QString("the result") : name, suffix.toUpper());
}

QString AnalysisPanel::suggestedExportPath(const QString& suffix) const {
  const auto shown = suffix == "csv" ? shownExportName() : export_name_;
  auto name = shown.isEmpty() ? QString("result") : shown;
  name.replace(QRegularExpression("[^A-Za-z0-9._-]+"), "_");
  return suggested_export_path(name + "." + suffix);
}

void AnalysisPanel::chooseAndExport(const QString& filter, const QString& suffix, bool (AnalysisPanel::*write)(const QString&)) {
  auto path = QFileDialog::getSaveFileName(this, exportTitle(suffix), suggestedExportPath(suffix), filter);
  if (path.isEmpty()) return;
  if (!path.endsWith("." + suffix, Qt::CaseInsensitive)) path += "." + suffix;
  remember_export(path);  // the next export, in any tab, starts there
  if ((this->*write)(path)) showMessage("Written to " + path, false);
  else showMessage(path + ": cannot be written", true);
}

}  // namespace aw

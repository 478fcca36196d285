// widgets/analysis_panel.h — one analysis tab: its settings (a form the application fills), Run and
// Cancel, a progress bar with rate and ETA, the result as a table and a plot, and Export CSV / PNG /
// PDF. The panel holds the result table itself (table/result_table.h); its CSV export is the file the
// CLI writes for the same run.
#pragma once

#include "widgets/analysis_plots.h"
#include "widgets/result_table_model.h"

#include <QElapsedTimer>
#include <QList>
#include <QPair>
#include <QWidget>

#include <functional>

class QComboBox;
class QFormLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTableView;

namespace aw {

class ResultPlot;

class AnalysisPanel : public QWidget {
  Q_OBJECT

 public:
  AnalysisPanel(const QString& description, QWidget* parent = nullptr);

  QFormLayout* settingsForm() const { return settings_; }
  void setPlotter(Plotter plotter) { plotter_ = std::move(plotter); }
  // Without a plot (e.g. a table that is itself the figure), PNG/PDF export renders the table.
  void setPlotVisible(bool visible);
  // Stacks a further view under the table and one under the plot (each column becomes a vertical
  // splitter), for analyses with more than one result to show.
  void addResultViews(QWidget* below_table, QWidget* below_plot);
  // After addResultViews: the vertical splitter of the table's (0) or the plot's (1) column.
  QSplitter* resultColumn(int column) const;
  // The description's first sentence and a "more…" link, or the whole of it and "less".
  void showDescription(bool whole);
  bool descriptionShownWhole() const;

  // Running: Run and Export off (the shown result is about to be replaced), Cancel on, the bar busy.
  void setRunning(bool running);
  bool isRunning() const { return running_; }
  // How a run ended, for the progress line: Done (bar full; setResult then writes its summary), Failed
  // (bar empty, "not run"), Cancelled (bar where it stopped, "cancelled"; the previous result stays).
  enum class RunEnd { Done, Failed, Cancelled };
  void endRun(RunEnd end);
  QString progressText() const;
  int progressPercent() const;  // −1 while busy without a report
  void setProgress(qint64 done, qint64 total, const QString& unit);
  // Shows a finished result as table and plot; `parts` are the report's other tables (the plot of
  // LAMA's words reads "density").
  void setResult(const ResultTable& table, const ResultTables& parts = {});
  // The parts (name, title) a chooser beside the exports can put in the table's place, when a result
  // has them; Export CSV then writes the table shown, named after its part (prune_vanilla_lm_between.csv).
  void setOtherTables(const QList<QPair<QString, QString>>& titled_parts) { other_tables_ = titled_parts; }
  QComboBox* tableChooser() const { return table_chooser_; }
  // Draws the shown result's plot again (the plotter reads settings of its own that changed).
  void redrawPlot();
  // No result: an empty table, the plot cleared.
  void clearResult();
  bool hasResult() const { return has_result_; }
  void showMessage(const QString& message, bool is_error);
  // The table shown as the CSV the CLI writes ("" without a result).
  QString csv() const;
  const ResultTable& table() const;  // the main table, whichever the chooser shows
  QString messageText() const;

  // What the export dialogs name the file after ("ablate_vanilla_lm"): the dialog is titled
  // "Export ablate_vanilla_lm as CSV" and suggests ablate_vanilla_lm.csv in the last export's folder.
  void setExportName(const QString& name) { export_name_ = name; }
  QString exportTitle(const QString& suffix) const;
  // The export dialog for "csv", "png" or "pdf", as the buttons open it; without a result, a message.
  void exportWithDialog(const QString& suffix);
  QString suggestedExportPath(const QString& suffix) const;

  bool exportCsv(const QString& path);
  bool exportPng(const QString& path);
  bool exportPdf(const QString& path);

  ResultPlot* plot() const { return plot_; }
  QTableView* tableView() const { return table_view_; }
  QPushButton* runButton() const { return run_button_; }
  QPushButton* cancelButton() const { return cancel_button_; }

 Q_SIGNALS:
  void runRequested();
  void cancelRequested();
  void resultShown();

 private:
  void chooseAndExport(const QString& filter, const QString& suffix, bool (AnalysisPanel::*write)(const QString&));
  bool renderTable(const QString& path, bool pdf);
  QPixmap tableImage() const;
  void showChosenTable();
  QString shownExportName() const;

  QLabel* about_;
  QString description_;
  QFormLayout* settings_;
  QPushButton* run_button_;
  QPushButton* cancel_button_;
  QProgressBar* progress_bar_;
  QLabel* progress_label_;
  QLabel* message_label_;
  void showEvent(QShowEvent* event) override;  // a result set while the tab was hidden is fitted now
  QSplitter* splitter_;  // table | plot
  void fitTableWidth();  // the table's pane widened to its columns (at most 3/5, the plot kept ≥ 560 px)
  QTableView* table_view_;
  ResultTableModel* table_model_;
  ResultPlot* plot_;
  QList<QPushButton*> export_buttons_;
  Plotter plotter_;
  ResultTables parts_;
  ResultTable main_table_;
  QComboBox* table_chooser_;  // the main table or one of other_tables_ (hidden without any)
  QList<QPair<QString, QString>> other_tables_;
  QString export_name_;
  bool has_result_ = false;
  bool running_ = false;
  QElapsedTimer clock_;
  double run_seconds_ = -1;  // the run that just ended, for the result's line; −1: none
};

}  // namespace aw

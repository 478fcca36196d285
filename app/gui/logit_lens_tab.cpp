// app/gui/logit_lens_tab.cpp — see logit_lens_tab.h.
#include "app/gui/logit_lens_tab.h"

#include "widgets/analysis_panel.h"
#include "widgets/result_plot.h"

#include <QFile>


namespace aw {

LogitLensTab::LogitLensTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent)
    : AnalysisTab(descriptor, context, parent) {
  connect(panel()->plot(), &ResultPlot::cellClicked, this, [this](int row, int column) { showCell(row, column); });
}

void LogitLensTab::showCell(int row, int column) {
  if (row < 1 || resultModel() < 0 || !context_.show_attention || !panel()->hasResult()) return;
  const int position = positionOfColumn(column);
  if (position < 0) return;
  // The text the result was computed on: the Attention tab's sentence when the run began, or the
  // file it named (a restored session keeps neither: no guess at the text then).
  const auto& settings = resultSettings();
  QString text = settings.value("text");
  if (text.isEmpty() && !settings.value("text-file").isEmpty()) {
    QFile file(settings.value("text-file"));
    if (file.open(QIODevice::ReadOnly)) text = QString::fromUtf8(file.readAll());
  }
  if (text.isEmpty()) return;
  context_.show_attention(resultModel(), text, QString("the logit lens's text at position %1").arg(position), row - 1,
                          -1, position);
}

}  // namespace aw

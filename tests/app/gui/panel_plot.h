// tests/app/gui/panel_plot.h — what the window tests read off an analysis tab's plot: its title and
// the texts written on its cells.
#pragma once

#include "widgets/analysis_panel.h"
#include "widgets/result_plot.h"

#include <qcustomplot.h>

#include <QString>
#include <QStringList>

namespace aw::test {

inline QString plot_title(AnalysisPanel* panel) { return panel->plot()->title(); }

inline QStringList cell_texts(AnalysisPanel* panel) {
  QStringList texts;
  auto* plot = panel->plot()->plot();
  for (int item = 0; item < plot->itemCount(); ++item)
    if (auto* text = qobject_cast<QCPItemText*>(plot->item(item))) texts << text->text();
  return texts;
}

}  // namespace aw::test

// app/gui/logit_lens_tab.h — the Logit lens tab: the `logit-lens` descriptor's form, table and layers ×
// positions map; a click on a cell after layer l opens layer l's attention (the mean of its heads) on
// the lens's text in a window of its own, the clicked position's row outlined.
#pragma once

#include "app/gui/analysis_tab.h"

namespace aw {

class LogitLensTab : public AnalysisTab {
  Q_OBJECT

 public:
  LogitLensTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent);

  // What a click on the map's cell does: row 0 is the embeddings (no attention), row l the state
  // after layer l; column c the c-th position the result read.
  void showCell(int row, int column);
};

}  // namespace aw

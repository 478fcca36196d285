// app/gui/patching_tab.h — the Patching tab: the `patch` descriptor's form, table and effect map, and a
// chooser of the pairs file's prompts: a click on a head of the map shows that head's attention on the
// chosen pair's clean prompt in the Attention tab, with the model the result was computed on.
#pragma once

#include "app/gui/analysis_tab.h"

#include <QStringList>

class QComboBox;

namespace aw {

class PatchingTab : public AnalysisTab {
  Q_OBJECT

 public:
  PatchingTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent);

  QComboBox* pairChooser() const { return pair_; }
  // Re-reads the pairs file's clean prompts into the chooser.
  void refreshPairs();
  // What a click on the map's (layer, head) cell does (0-based).
  void showHead(int layer, int head);

 private:
  QComboBox* pair_;
  QStringList clean_prompts_;  // the first field of each pair's line, in the file's order
};

}  // namespace aw

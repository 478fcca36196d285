// app/gui/head_types_tab.h — the head-types tab: the `head-types` descriptor's form and table, a map
// of one score over layers × heads (or one score against another, a point per head), the best heads
// of every score listed, and the heads panel coloured by the score on the map.
#pragma once

#include "app/gui/analysis_tab.h"

#include <QJsonObject>

class QComboBox;

namespace aw {

class TopHeadsTable;

class HeadTypesTab : public AnalysisTab {
  Q_OBJECT

 public:
  HeadTypesTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent);

  QComboBox* scoreChooser() const { return score_; }
  QComboBox* againstChooser() const { return against_; }
  TopHeadsTable* topHeads() const { return top_heads_; }

 protected:
  void showOutput(const AnalysisOutput& output) override;
  QString scoreLabel(const AnalysisOutput& output) const override;
  void saveExtra(QJsonObject& entry) const override;
  void restoreExtra(const QJsonObject& entry, const QDir& base) override;

 private:
  // Redraws the plot for the choosers and colours the heads panel by the mapped score.
  void showChosen();

  QComboBox* score_;
  QComboBox* against_;  // "—" or the score on the horizontal axis of a scatter
  TopHeadsTable* top_heads_;
  QJsonObject pending_view_;  // a restored session's choosers, applied once its result is shown
};

}  // namespace aw

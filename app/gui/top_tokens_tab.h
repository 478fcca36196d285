// app/gui/top_tokens_tab.h — the top-tokens tab (Bird-Eye Table 3): the `top-tokens` descriptor run
// on the attention view's sentence for two models side by side, the target token chosen by clicking
// one of the sentence's tokens (position 0 cannot be one: nothing precedes it), which runs it at once;
// a text of more than 64 tokens chooses it by position instead.
#pragma once

#include "app/gui/analysis_tab.h"

class QButtonGroup;
class QLabel;
class QSpinBox;
class QWidget;

namespace aw {

class TopTokensTab : public AnalysisTab {
  Q_OBJECT

 public:
  TopTokensTab(const AnalysisDescriptor& descriptor, const TabContext& context, QObject* parent);

  void setModels(const std::vector<ModelSummary>& models) override;
  // The sentence's tokens changed: offer them as targets.
  void refreshTargets();
  int target() const { return target_; }

 protected:
  bool prepare(Run& run, QString* refusal) const override;
  void saveExtra(QJsonObject& entry) const override;
  void restoreExtra(const QJsonObject& entry, const QDir& base) override;

 private:
  QButtonGroup* target_buttons_;
  QWidget* target_row_;
  QSpinBox* target_spin_;   // a long text's target, by position (no button per token)
  QLabel* target_token_;    // the token at that position
  QStringList shown_tokens_;  // the tokens the targets were made for
  bool targets_made_ = false;
  void chooseTarget(int position);  // a token clicked or a position chosen: run for it
  int target_ = -1;  // the clicked token's position; −1: none (the run takes the last)
  bool rerun_ = false;  // a target clicked while a run was going: run again once it ends
};

}  // namespace aw

// widgets/heatmap_find_bar.h — "Find token": a line edit over one or more attention heatmaps. Enter
// centres each shown map on the next token whose label contains the text (AttentionHeatmap::
// findNextToken), again for the one after, wrapping at the end; a note says "no token 'x'" when none has it.
#pragma once

#include <QList>
#include <QPointer>
#include <QWidget>

class QLabel;
class QLineEdit;

namespace aw {

class AttentionHeatmap;

class HeatmapFindBar : public QWidget {
  Q_OBJECT

 public:
  explicit HeatmapFindBar(QWidget* parent = nullptr);

  // The maps searched; a hidden one (a compared model's, compare off) is skipped.
  void setHeatmaps(const QList<AttentionHeatmap*>& heatmaps);
  // Finds the next match of `text` (put in the line edit) on each shown map; false (and the note)
  // when the first has none.
  bool findNext(const QString& text);

  QLineEdit* edit() const { return edit_; }
  QString note() const;  // "" after a match, else "no token 'x'"

 private:
  QLineEdit* edit_;
  QLabel* note_;
  QList<QPointer<AttentionHeatmap>> heatmaps_;
};

}  // namespace aw

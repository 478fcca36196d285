// widgets/model_box.cpp — see model_box.h.
#include "widgets/model_box.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QScrollBar>

#include <algorithm>

namespace aw {
namespace {

// The box's tooltip follows its current item: the name and architecture.
void follow_current_tooltip(QComboBox* box) {
  if (box->property("aw_tooltip_follows").toBool()) return;
  box->setProperty("aw_tooltip_follows", true);
  QObject::connect(box, &QComboBox::currentIndexChanged, box,
                   [box](int index) { box->setToolTip(box->itemData(index, Qt::ToolTipRole).toString()); });
}

}  // namespace

void fix_box_width(QComboBox* box, int chars) {
  box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  box->setMinimumContentsLength(chars);
}

void widen_box_list(QComboBox* box) {
  int widest = 0;
  for (int item = 0; item < box->count(); ++item)
    widest = std::max(widest, box->fontMetrics().horizontalAdvance(box->itemText(item)));
  box->view()->setMinimumWidth(widest + 3 * box->fontMetrics().averageCharWidth() +
                               box->view()->verticalScrollBar()->sizeHint().width());
}

void fill_model_box(QComboBox* box, const QStringList& names, const QStringList& architectures) {
  box->clear();
  qsizetype longest = 8;
  for (qsizetype index = 0; index < names.size(); ++index) {
    box->addItem(names[index]);
    const auto architecture = architectures.value(index);
    box->setItemData(static_cast<int>(index), architecture.isEmpty() ? names[index] : names[index] + ": " + architecture,
                     Qt::ToolTipRole);
    longest = std::max(longest, names[index].size());
  }
  fix_box_width(box, static_cast<int>(std::min<qsizetype>(longest, kMostChars)));
  widen_box_list(box);
  follow_current_tooltip(box);
  box->setToolTip(box->itemData(box->currentIndex(), Qt::ToolTipRole).toString());
}

}  // namespace aw

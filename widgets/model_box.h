// widgets/model_box.h — a chooser of loaded models that shows each name whole: the item is the name
// (the architecture in its tooltip and the box's), and the box is as wide as the longest name up to
// kMostChars characters ("vanilla_lm (transfor" was all a 14-character box showed of "vanilla_lm
// (transformer_lm)"). Its list opens as wide as its widest item.
#pragma once

#include <QStringList>

class QComboBox;

namespace aw {

constexpr int kMostChars = 28;  // a longer name is elided in the box, whole in its list and tooltip

// Replaces the box's items by `names` (architectures[i] in item i's tooltip; may be empty); the
// caller sets the current index after.
void fill_model_box(QComboBox* box, const QStringList& names, const QStringList& architectures = {});

// Any chooser whose items come and go (the heads panel's colourings): its width fixed at `chars`
// characters, not its widest item's, and its list as wide as its items.
void fix_box_width(QComboBox* box, int chars);
void widen_box_list(QComboBox* box);  // after the items change

}  // namespace aw

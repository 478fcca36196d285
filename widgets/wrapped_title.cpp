// widgets/wrapped_title.cpp — see wrapped_title.h.
#include "widgets/wrapped_title.h"

namespace aw {

QStringList wrapped_line(const QFontMetrics& metrics, const QString& line, int width) {
  if (metrics.horizontalAdvance(line) <= width) return {line};
  const QStringList words = line.split(' ');
  QString first;
  int taken = 0;
  for (; taken < words.size(); ++taken) {
    const QString longer = first.isEmpty() ? words[taken] : first + ' ' + words[taken];
    if (metrics.horizontalAdvance(longer) > width) break;
    first = longer;
  }
  if (first.isEmpty()) return {metrics.elidedText(line, Qt::ElideMiddle, width)};  // one word wider than the width
  const QString rest = words.mid(taken).join(' ');
  return {first, metrics.elidedText(rest, Qt::ElideRight, width)};
}

}  // namespace aw

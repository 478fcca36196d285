// widgets/expert_strip.cpp — see expert_strip.h.
#include "widgets/expert_strip.h"

#include <QFontMetrics>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace aw {
namespace {

constexpr int kPad = 3, kGap = 2, kMaxChip = 160;

}  // namespace

QColor expert_colour(int expert) {
  // Twelve hues 30° apart, each in three turns of lightness: 36 experts before a colour repeats.
  const int hue = (expert % 12) * 30, turn = (expert / 12) % 3;
  return QColor::fromHsl(hue, 150, turn == 0 ? 170 : turn == 1 ? 205 : 135);
}

ExpertStrip::ExpertStrip(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  setAccessibleName("Experts per token");
}

void ExpertStrip::setRouting(const QStringList& tokens, const ExpertTokens* routing, int expert_count,
                             const QString& title, const QString& note) {
  tokens_ = tokens;
  routed_ = routing != nullptr && routing->k > 0 &&
            static_cast<int>(routing->experts.size()) == tokens.size() * routing->k;
  routing_ = routed_ ? *routing : ExpertTokens{};
  expert_count_ = expert_count;
  title_ = title;
  note_ = note;
  setAccessibleDescription(title_ + (note_.isEmpty() ? "" : ": " + note_));
  updateGeometry();
  update();
}

QString ExpertStrip::tokenText(int index) const {
  if (index < 0 || index >= tokens_.size()) return {};
  QString text = tokens_[index] + " → ";
  if (!routed_) return text + note_;
  QStringList chosen;
  for (int slot = 0; slot < routing_.k; ++slot) {
    const auto at = static_cast<size_t>(index) * routing_.k + slot;
    chosen << QString("expert %1 (%2)").arg(routing_.experts[at]).arg(routing_.weights[at], 0, 'f', 3);
  }
  return text + chosen.join(", ");
}

std::vector<QRect> ExpertStrip::layout(int width, int* height) const {
  const QFontMetrics metrics(font());
  const int line = metrics.height() + 2 * kPad;
  int x = 0, y = metrics.height() + kGap;  // under the title line
  std::vector<QRect> chips;
  chips.reserve(static_cast<size_t>(tokens_.size()));
  for (const auto& token : tokens_) {
    // A pixel of slack: an advance rounded down would elide a token that fits.
    const int chip = std::min(kMaxChip, metrics.horizontalAdvance(token.isEmpty() ? " " : token) + 2 * kPad + 2);
    if (x > 0 && x + chip > width) x = 0, y += line + kGap;
    chips.emplace_back(x, y, chip, line);
    x += chip + kGap;
  }
  if (height) *height = y + (tokens_.isEmpty() ? 0 : line) + kGap;
  return chips;
}

int ExpertStrip::heightForWidth(int width) const {
  int height = 0;
  layout(std::max(width, 100), &height);
  return height;
}

QSize ExpertStrip::sizeHint() const { return {400, heightForWidth(400)}; }

int ExpertStrip::tokenAt(const QPoint& position) const {
  const auto chips = layout(width());
  for (size_t i = 0; i < chips.size(); ++i)
    if (chips[i].contains(position)) return static_cast<int>(i);
  return -1;
}

void ExpertStrip::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const QFontMetrics metrics(font());
  const auto header = note_.isEmpty() ? title_ : title_ + " — " + note_;
  painter.drawText(QRect(0, 0, width(), metrics.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   metrics.elidedText(header, Qt::ElideRight, width()));
  const auto chips = layout(width());
  for (size_t i = 0; i < chips.size(); ++i) {
    const auto& chip = chips[i];
    if (!rect().intersects(chip)) continue;
    const QColor fill = routed_ ? expert_colour(routing_.experts[i * routing_.k]) : palette().color(QPalette::Button);
    painter.fillRect(chip, fill);
    painter.setPen(Qt::black);
    const auto& token = tokens_[static_cast<int>(i)];
    const bool fits = chip.width() < kMaxChip;  // only a chip cut at the widest is elided
    painter.drawText(chip, Qt::AlignCenter,
                     fits ? token : metrics.elidedText(token, Qt::ElideRight, chip.width() - 2 * kPad));
  }
}

bool ExpertStrip::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    const int token = tokenAt(help->pos());
    if (token >= 0) QToolTip::showText(help->globalPos(), tokenText(token).toHtmlEscaped(), this);
    else QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

}  // namespace aw

// widgets/word_weight_view.cpp — see word_weight_view.h.
#include "widgets/word_weight_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace aw {
namespace {

// From white up to this warm colour; black text stays readable on both.
const QColor kStrongest(244, 109, 67);

QString background(double relative) {
  const double t = std::clamp(relative, 0.0, 1.0);
  auto blend = [t](int strong) { return static_cast<int>(255 + (strong - 255) * t + 0.5); };
  return QColor(blend(kStrongest.red()), blend(kStrongest.green()), blend(kStrongest.blue())).name();
}

}  // namespace

WordWeightView::WordWeightView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel("Colour by"));
  head_box_ = new QComboBox;
  head_box_->setObjectName("document_heads");
  top->addWidget(head_box_);
  top->addStretch(1);
  layout->addLayout(top);
  text_ = new QTextBrowser;
  text_->setOpenLinks(false);
  text_->setMinimumHeight(60);
  layout->addWidget(text_, 1);
  info_ = new QLabel("Hover a word for its weight; click it to add it to the words");
  info_->setWordWrap(true);
  layout->addWidget(info_);

  connect(head_box_, &QComboBox::currentIndexChanged, this, [this] { render(); });
  connect(text_, &QTextBrowser::highlighted, this, [this](const QUrl& link) { describe(link); });
  connect(text_, &QTextBrowser::anchorClicked, this, [this](const QUrl& link) {
    const int position = link.path().section(':', 1, 1).toInt();
    if (position >= 0 && position < words_.size()) Q_EMIT wordClicked(words_[position]);
  });
  clear();
}

void WordWeightView::setDocument(const QString& heading, const QStringList& words, int heads,
                                 const std::vector<float>& weights) {
  const int previous = headChoice();
  heading_ = heading;
  words_ = words;
  heads_ = heads;
  weights_ = weights;
  {
    const QSignalBlocker block(head_box_);
    head_box_->clear();
    head_box_->addItem("mean of the heads", kMeanOfHeads);
    for (int head = 1; head <= heads; ++head) head_box_->addItem(QString("head %1").arg(head), head);
    head_box_->addItem("every head, one line each", kEveryHead);
    const int found = head_box_->findData(previous);
    head_box_->setCurrentIndex(found >= 0 ? found : 0);
  }
  render();
}

void WordWeightView::clear(const QString& message) {
  words_.clear();
  weights_.clear();
  heads_ = 0;
  text_->setHtml("<p style='color:#666'>" + message.toHtmlEscaped() + "</p>");
}

void WordWeightView::setHeadChoice(int choice) {
  const int found = head_box_->findData(choice);
  if (found >= 0) head_box_->setCurrentIndex(found);
}

int WordWeightView::headChoice() const {
  return head_box_->currentIndex() >= 0 ? head_box_->currentData().toInt() : kMeanOfHeads;
}

double WordWeightView::weight(int choice, int position) const {
  const int n = words_.size();
  if (position < 0 || position >= n || heads_ == 0) return 0.0;
  if (choice >= 1 && choice <= heads_) return weights_[static_cast<size_t>(choice - 1) * n + position];
  double sum = 0.0;
  for (int head = 0; head < heads_; ++head) sum += weights_[static_cast<size_t>(head) * n + position];
  return sum / heads_;
}

QString WordWeightView::html() const { return text_->toHtml(); }
QString WordWeightView::infoText() const { return info_->text(); }

void WordWeightView::render() {
  if (words_.isEmpty()) return;
  const int choice = headChoice();
  QList<int> lines;
  if (choice == kEveryHead)
    for (int head = 1; head <= heads_; ++head) lines << head;
  else lines << choice;
  QString html = "<p><b>" + heading_.toHtmlEscaped() + "</b></p>";
  const int n = words_.size();
  for (int line : lines) {
    // White for the line's smallest weight, the full colour for its largest: attention close to
    // uniform still shows which words it leans on; the caption gives the actual span.
    double smallest = weight(line, 0), largest = smallest;
    for (int t = 1; t < n; ++t) smallest = std::min(smallest, weight(line, t)), largest = std::max(largest, weight(line, t));
    const double span = largest - smallest;
    html += "<p style='line-height:150%'>";
    if (choice == kEveryHead) html += QString("<b>H%1</b>&nbsp; ").arg(line);
    for (int t = 0; t < n; ++t) {
      const double relative = span > 0 ? (weight(line, t) - smallest) / span : 0.0;
      html += QString("<a href='w:%1:%2' style='color:#000; text-decoration:none'>"
                      "<span style='background-color:%3'>&nbsp;%4&nbsp;</span></a> ")
                  .arg(line)
                  .arg(t)
                  .arg(background(relative), words_[t].toHtmlEscaped());
    }
    html += QString("&nbsp;<span style='color:#666'>[%1 – %2 = %3 – %4 × uniform]</span></p>")
                .arg(smallest, 0, 'g', 3)
                .arg(largest, 0, 'g', 3)
                .arg(smallest * n, 0, 'f', 2)
                .arg(largest * n, 0, 'f', 2);
  }
  html += "<p style='color:#666'>Colour: white = a line's smallest weight, full = its largest (the span in brackets; "
          "uniform = 1/" + QString::number(n) + ").</p>";
  text_->setHtml(html);
}

void WordWeightView::describe(const QUrl& link) {
  if (link.isEmpty()) return;
  const auto parts = link.path().split(':');
  if (parts.size() != 2) return;
  const int line = parts[0].toInt(), position = parts[1].toInt();
  if (position < 0 || position >= words_.size()) return;
  const double value = weight(line, position);
  info_->setText(QString("'%1' (word %2 of %3, %4): weight %5 = %6 × uniform (1/%3)")
                     .arg(words_[position])
                     .arg(position + 1)
                     .arg(words_.size())
                     .arg(line == kMeanOfHeads ? QString("mean of the heads") : QString("head %1").arg(line))
                     .arg(value, 0, 'f', 4)
                     .arg(value * words_.size(), 0, 'f', 2));
}

}  // namespace aw

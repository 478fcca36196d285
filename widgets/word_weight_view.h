// widgets/word_weight_view.h — one document with each word coloured by its attention weight (LAMA:
// one distribution over the words per head). Shows the mean over heads, one head, or every head as
// its own line; hovering a word tells its weight, clicking it offers the word to the caller.
#pragma once

#include <QStringList>
#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QTextBrowser;
class QUrl;

namespace aw {

class WordWeightView : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMeanOfHeads = 0;
  static constexpr int kEveryHead = -1;

  explicit WordWeightView(QWidget* parent = nullptr);

  // weights[h · n + t] for heads h and words t (each head's row sums to 1 over the n words).
  void setDocument(const QString& heading, const QStringList& words, int heads, const std::vector<float>& weights);
  void clear(const QString& message = "Pick a document or type one to see its words coloured by attention");

  // kMeanOfHeads, a head K (1-based) or kEveryHead.
  void setHeadChoice(int choice);
  int headChoice() const;
  int heads() const { return heads_; }
  QStringList words() const { return words_; }
  QString heading() const { return heading_; }
  // The weight of word `position` for a choice of kMeanOfHeads or a head K.
  double weight(int choice, int position) const;
  // The rendered document (rich text), for tests.
  QString html() const;
  QString infoText() const;

 Q_SIGNALS:
  void wordClicked(const QString& word);

 private:
  void render();
  void describe(const QUrl& link);

  QComboBox* head_box_;
  QTextBrowser* text_;
  QLabel* info_;
  QString heading_;
  QStringList words_;
  int heads_ = 0;
  std::vector<float> weights_;
};

}  // namespace aw

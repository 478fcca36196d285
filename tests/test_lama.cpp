// tests/test_lama.cpp — the LAMA classifier and its analyses: the attention chain and S = AH against
// a float64 re-implementation, the low-rank score as a bilinear form, the regularisers and the
// word-weight statistics against hand-computed values, gates, save/load, training, and the data
// helpers (labels, split, word normalisation, confusion matrix).
#include "analysis/heads/gate_evaluation.h"
#include "analysis/heads/head_importance.h"
#include "analysis/statistics/significance.h"
#include "table/csv_format.h"
#include "analysis/statistics/kernel_density.h"
#include "analysis/lama/lama_attention.h"
#include "analysis/lama/word_weights.h"
#include "models/nn/bigru_classifier.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "models/text/data_split.h"
#include "models/errors.h"
#include "models/training/evaluation.h"
#include "models/nn/lama.h"
#include "models/runtime.h"
#include "models/training/trainer.h"
#include "models/text/vocabulary.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <tuple>
#include <random>
#include <sstream>

namespace aw {
namespace {

using test::file_bytes;

using test::max_difference;
using test::TempDir;
using test::write_file;

// Two documents of 7 and 5 words (the second padded).
ModelInput two_documents() {
  ModelInput input;
  input.input_ids = torch::tensor({3, 5, 7, 2, 9, 4, 11, 6, 8, 3, 12, 2, 0, 0}, torch::kLong).view({2, 7});
  input.attention_mask = torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, torch::kLong).view({2, 7});
  return input;
}

std::shared_ptr<LamaImpl> tiny_lama(const std::string& context = "mean", int64_t embedding_dim = 6, uint64_t seed = 5) {
  torch::manual_seed(seed);
  auto model = std::make_shared<LamaImpl>(test::tiny_lama_config("lama", context, embedding_dim));
  torch::NoGradGuard no_grad;
  for (auto& parameter : model->parameters()) parameter.normal_(0.0, 0.5);  // far from uniform attention
  model->eval();
  return model;
}

torch::Tensor f64(const torch::Tensor& t) { return t.detach().to(torch::kFloat64); }

// The attention chain written out independently in float64 from the model's parameters and its GRU
// annotations (embed's output): returns {f, A, S}.
std::vector<torch::Tensor> reference_chain(LamaImpl& model, const torch::Tensor& embedded, const torch::Tensor& mask) {
  const int64_t width = 8;
  const auto h = f64(embedded.narrow(-1, 0, width));                                  // (B, n, 2h)
  const auto keep = mask.to(torch::kFloat64);                                          // (B, n)
  torch::Tensor c;
  if (model.context.defined()) {
    c = f64(model.context).unsqueeze(0).expand({h.size(0), width});
  } else {
    const auto e = f64(embedded.narrow(-1, width, embedded.size(-1) - width));         // (B, n, E)
    const auto mean = (e * keep.unsqueeze(-1)).sum(1) / keep.sum(1, true);
    c = model.context_proj ? torch::matmul(mean, f64(model.context_proj->weight).t()) + f64(model.context_proj->bias)
                           : mean;
  }
  const auto u = torch::tanh(torch::matmul(h, f64(model.word_proj->weight).t()) + f64(model.word_proj->bias));
  const auto p = f64(model.p), q = f64(model.q);
  const auto f = torch::matmul(c, p).unsqueeze(1) * torch::matmul(u, q);               // (B, n, m)
  const auto t = torch::tanh(f);
  const auto g = t / t.pow(2).sum(-1, true).sqrt();                                    // ℓ2 over heads
  auto logits = g.transpose(1, 2);                                                     // (B, m, n)
  logits = logits.masked_fill(keep.eq(0).unsqueeze(1), -INFINITY);
  const auto a = logits.exp() / logits.exp().sum(-1, true);
  return {f, a, torch::matmul(a, h)};
}

TEST(Lama, GateSweepReusesTheEncoderAndMatchesGatedForwards) {
  auto model = tiny_lama();
  const auto input = two_documents();
  ClassifierBatches batches;
  batches.inputs = {input};
  batches.labels = {torch::tensor({0, 2}, torch::kLong)};
  const auto data = classification_data(batches);
  auto gates = torch::ones({3, 1, 3});
  gates[1][0][0] = 0.0;
  gates[2][0][2] = 0.0;
  const auto metrics = evaluate_gate_settings(*model, data, gates, 0);
  ASSERT_EQ(metrics.size(), 3u);
  for (int64_t s = 0; s < 3; ++s) {
    ForwardOptions options;
    options.head_gates = gates[s];
    torch::NoGradGuard no_grad;
    const auto logits = model->forward(input, options).logits;
    const double loss = torch::nn::functional::cross_entropy(logits, batches.labels[0]).item<double>();
    EXPECT_NEAR(metrics[s].loss, loss, 1e-5) << "setting " << s;
  }
}

TEST(Lama, PerExampleImportanceEqualsBatchesOfOneExample) {
  // With one example a batch, the per-batch |∂L/∂ξ| is already the per-example one: the batched
  // per-example form (one gate row per example) must give the same numbers.
  auto model = tiny_lama();
  torch::manual_seed(3);
  const auto ids = torch::randint(2, 20, {6, 7}, torch::kLong);
  const auto labels = torch::randint(0, 3, {6}, torch::kLong);
  ClassifierBatches threes, ones;
  for (int64_t start = 0; start < 6; start += 3) {
    ModelInput input;
    input.input_ids = ids.narrow(0, start, 3);
    threes.inputs.push_back(input);
    threes.labels.push_back(labels.narrow(0, start, 3));
  }
  for (int64_t row = 0; row < 6; ++row) {
    ModelInput input;
    input.input_ids = ids.narrow(0, row, 1);
    ones.inputs.push_back(input);
    ones.labels.push_back(labels.narrow(0, row, 1));
  }
  const auto batched = head_importance(*model, "m", classification_data(threes), false, {}, {}, /*per_example=*/true);
  const auto single = head_importance(*model, "m", classification_data(ones), false);
  EXPECT_EQ(batched.examples, 6);
  for (int64_t head = 0; head < 3; ++head)
    EXPECT_NEAR(batched.scores[0][head], single.scores[0][head], 1e-6 * (1 + single.scores[0][head])) << head;
}

// ----------------------------------------------------------------------------------------------
// Training on a labelled set with an obvious signal: class 1 documents contain "awful", class 2 "fine",
// class 3 "superb", each among random filler words.
std::string sentiment_tsv(int documents, uint64_t seed) {
  std::mt19937_64 engine(seed);
  const char* cue[] = {"awful", "fine", "superb"};
  std::ostringstream text;
  for (int d = 0; d < documents; ++d) {
    const int label = d % 3;
    text << label + 1 << '\t';
    const int length = 3 + static_cast<int>(engine() % 5);
    const int cue_at = static_cast<int>(engine() % length);
    for (int i = 0; i < length; ++i) text << (i ? " " : "") << (i == cue_at ? cue[label] : "f" + std::to_string(engine() % 8));
    text << '\n';
  }
  return text.str();
}

struct ClassifierRun {
  TempDir dir;
  TrainSettings settings;
  ModelConfig config;
  std::vector<std::string> vocabulary;

  explicit ClassifierRun(const std::string& arch) {
    write_file(dir.file("train.tsv"), sentiment_tsv(60, 1));
    write_file(dir.file("valid.tsv"), sentiment_tsv(15, 2));
    const auto labels = read_label_names(dir.file("train.tsv"));
    std::vector<std::string> texts;
    for (const auto& example : read_labelled_file(dir.file("train.tsv"), labels)) texts.push_back(example.text_a);
    vocabulary = build_text_vocabulary(texts, 1, true, "train.tsv");
    nlohmann::json json = {{"model_type", arch}, {"vocab_size", static_cast<int64_t>(vocabulary.size())},
                           {"labels", labels},   {"max_positions", 16}, {"dropout", 0.1}};
    if (arch == "encoder_classifier") {
      json.update({{"n_layers", 1}, {"n_heads", 2}, {"d_model", 16}});
    } else {
      json.update({{"embedding_dim", 8}, {"rnn_hidden", 6}, {"classifier_hidden", 16}});
      if (arch == "lama") json.update({{"n_heads", 3}, {"context", "mean"}, {"regularizer", "penal"}});
    }
    config = parse_model_config(json, "classifier run");
    settings.train_path = dir.file("train.tsv");
    settings.valid_path = dir.file("valid.tsv");
    settings.epochs = 8;
    settings.batch = 6;
    settings.lr = 1e-2;
    settings.warmup_steps = 3;
    settings.log_every = 1;
    settings.seed = 4;
  }

  TrainSummary train(const std::string& out, const TrainObserver& observer = {}) {
    settings.out_dir = dir.file(out);
    return train_classifier(config, vocabulary, settings, observer);
  }
};

class LamaTraining : public ::testing::Test {
 protected:
  void SetUp() override { configure_threads(1); }
};

// ----------------------------------------------------------------------------------------------
DocumentAttention document(int64_t index, int64_t label, std::vector<std::string> tokens, std::vector<float> weights) {
  DocumentAttention d;
  d.index = index;
  d.label = label;
  d.heads = static_cast<int64_t>(weights.size() / tokens.size());
  d.tokens = std::move(tokens);
  d.weights = std::move(weights);
  return d;
}

// Two heads. "good" occurs twice in document 0 (label "1"), once in document 2 (label "2").
std::vector<DocumentAttention> hand_made_documents() {
  return {document(0, 0, {"good", "movie", "good"}, {0.5f, 0.2f, 0.3f, /**/ 0.1f, 0.1f, 0.8f}),
          document(1, 1, {"bad", "movie"}, {0.9f, 0.1f, /**/ 0.7f, 0.3f}),
          document(2, 1, {"good", "bad", "plot", "<unk>"}, {0.1f, 0.6f, 0.2f, 0.1f, /**/ 0.3f, 0.2f, 0.4f, 0.1f})};
}

TEST(WordWeights, ShiftsBetweenLabelsAreMannWhitneyTestsHolmAdjusted) {
  const std::vector<std::string> labels = {"1", "2", "3"};
  std::vector<WordWeight> occurrences;
  auto add = [&](const std::string& word, const std::string& label, std::vector<double> weights) {
    for (double w : weights) occurrences.push_back({word, label, w, 0, 0});
  };
  add("great", "1", {0.1, 0.2, 0.3});
  add("great", "2", {0.25, 0.4, 0.5, 0.6});
  add("great", "3", {0.2});
  add("bad", "1", {0.5, 0.7});
  add("bad", "3", {0.1, 0.2});
  const auto shifts = word_weight_shifts(occurrences, labels, {"great", "bad"});
  ASSERT_EQ(shifts.size(), 4u);
  // U by hand: pairs where label_a's weight is larger, a tie counting ½.
  const std::vector<std::tuple<std::string, std::string, std::string, double, double>> expected = {
      {"great", "1", "2", 1.0, 1.0 / 12}, {"great", "1", "3", 1.5, 0.5}, {"great", "2", "3", 4.0, 1.0}, {"bad", "1", "3", 4.0, 1.0}};
  const std::vector<std::vector<double>> a = {{0.1, 0.2, 0.3}, {0.1, 0.2, 0.3}, {0.25, 0.4, 0.5, 0.6}, {0.5, 0.7}};
  const std::vector<std::vector<double>> b = {{0.25, 0.4, 0.5, 0.6}, {0.2}, {0.2}, {0.1, 0.2}};
  std::vector<double> raw;
  for (size_t i = 0; i < 4; ++i) {
    const auto& [word, label_a, label_b, u, effect] = expected[i];
    EXPECT_EQ(shifts[i].word, word);
    EXPECT_EQ(shifts[i].label_a, label_a);
    EXPECT_EQ(shifts[i].label_b, label_b);
    EXPECT_EQ(shifts[i].count_a, static_cast<int64_t>(a[i].size()));
    EXPECT_DOUBLE_EQ(shifts[i].u, u);
    EXPECT_DOUBLE_EQ(shifts[i].effect, effect);
    EXPECT_DOUBLE_EQ(shifts[i].p_value, mann_whitney_u(a[i], b[i]).p_value);
    raw.push_back(shifts[i].p_value);
  }
  EXPECT_DOUBLE_EQ(shifts[0].median_b, 0.45);
  const auto adjusted = holm_adjusted(raw);
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(shifts[i].p_adjusted, adjusted[i]);
  EXPECT_EQ(write_csv(word_shift_table(shifts)).substr(0, 83),
            "word,label_a,label_b,count_a,count_b,median_a,median_b,U,effect,p_value,p_adjusted\n");
}

TEST(WordWeights, GroupsOccurrencesByWordAndLabel) {
  const std::vector<std::string> labels = {"1", "2"};
  const auto docs = hand_made_documents();
  const auto mean = collect_word_weights(docs, labels, {"good", "bad"}, {});
  ASSERT_EQ(mean.size(), 5u);
  // good/1: (0.5+0.1)/2, (0.3+0.8)/2; good/2: (0.1+0.3)/2; bad/2: (0.9+0.7)/2, (0.6+0.2)/2.
  const double expected[] = {0.3, 0.55, 0.2, 0.8, 0.4};
  const char* words[] = {"good", "good", "good", "bad", "bad"};
  const char* label_of[] = {"1", "1", "2", "2", "2"};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(mean[i].word, words[i]);
    EXPECT_EQ(mean[i].label, label_of[i]);
    EXPECT_NEAR(mean[i].weight, expected[i], 1e-6) << i;
  }
  WeightSelection head2;
  head2.head = 2;
  head2.scale = WeightScale::Length;
  const auto scaled = collect_word_weights(docs, labels, {"good"}, head2);
  ASSERT_EQ(scaled.size(), 3u);
  EXPECT_NEAR(scaled[0].weight, 0.1 * 3, 1e-6);
  EXPECT_NEAR(scaled[1].weight, 0.8 * 3, 1e-6);
  EXPECT_NEAR(scaled[2].weight, 0.3 * 4, 1e-6);
  EXPECT_EQ(scaled[2].document, 2);
  EXPECT_EQ(scaled[1].position, 2);

  const auto summary = summarize_word_weights(mean, labels, {"good", "bad"});
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[0].word, "good");
  EXPECT_EQ(summary[0].count, 2);
  EXPECT_NEAR(summary[0].mean, 0.425, 1e-6);
  EXPECT_NEAR(summary[0].median, 0.425, 1e-6);
  EXPECT_EQ(summary[2].word, "bad");
  EXPECT_NEAR(summary[2].mean, 0.6, 1e-6);
  EXPECT_EQ(write_csv(word_weights_table(mean)).rfind("word,label,weight\ngood,1,0.3\ngood,1,0.55\ngood,2,0.2\nbad,2,0.8\n", 0), 0u);
  EXPECT_EQ(write_csv(word_summary_table(summary)).rfind("word,label,count,mean,median\ngood,1,2,0.425,0.425\n", 0), 0u);
}

TEST(WordWeights, KeywordsRankByMeanWeightWithMinimumCount) {
  const std::vector<std::string> labels = {"1", "2"};
  KeywordSettings settings;
  settings.min_count = 1;
  settings.top = 2;
  const auto keywords = top_keywords(hand_made_documents(), labels, settings);
  // Label 1: good (0.3, 0.55 → 0.425, 2), movie (0.15); label 2: bad (0.8, 0.4 → 0.6), plot 0.3, movie 0.2,
  // good 0.2; "<unk>" never counts.
  ASSERT_EQ(keywords.size(), 4u);
  EXPECT_EQ(keywords[0].word, "good");
  EXPECT_NEAR(keywords[0].mean_weight, 0.425, 1e-6);
  EXPECT_EQ(keywords[0].count, 2);
  EXPECT_EQ(keywords[1].word, "movie");
  EXPECT_EQ(keywords[2].label, "2");
  EXPECT_EQ(keywords[2].word, "bad");
  EXPECT_EQ(keywords[3].word, "plot");
  EXPECT_EQ(keywords[3].rank, 2);
  settings.min_count = 2;
  const auto frequent = top_keywords(hand_made_documents(), labels, settings);
  ASSERT_EQ(frequent.size(), 2u);  // good in label 1, bad in label 2
  EXPECT_EQ(frequent[1].word, "bad");
  EXPECT_EQ(write_csv(keywords_table(frequent)), "label,rank,word,mean_weight,count\n1,1,good,0.425,2\n2,1,bad,0.6,2\n");
}

TEST(WordWeights, SilvermanBandwidthAndDensity) {
  // σ = √2.5, IQR = 4 − 2 → min(1.5811, 1.4925) = 1.4925; b = 0.9 · 1.4925 · 5^(−1/5).
  const std::vector<double> values = {1, 2, 3, 4, 5};
  EXPECT_NEAR(silverman_bandwidth(values), 0.9 * (2.0 / 1.34) * std::pow(5.0, -0.2), 1e-12);
  EXPECT_NEAR(silverman_bandwidth({0.02, 0.02}), 0.001, 1e-12);  // equal values: 5 % of the mean
  // The density integrates to 1 (trapezoid rule on a wide grid) and peaks at the centre.
  std::vector<double> grid;
  for (int i = 0; i <= 2000; ++i) grid.push_back(-7.0 + 20.0 * i / 2000.0);
  const auto density = gaussian_kde(values, 0.8, grid);
  double area = 0.0;
  for (size_t i = 1; i < grid.size(); ++i) area += 0.5 * (density[i] + density[i - 1]) * (grid[i] - grid[i - 1]);
  EXPECT_NEAR(area, 1.0, 1e-6);
  // One point: f̂(x) = φ((x − v)/b) / b.
  EXPECT_NEAR(gaussian_kde({2.0}, 0.5, {2.5})[0], std::exp(-0.5) / (0.5 * std::sqrt(2 * M_PI)), 1e-12);

  const auto occurrences = collect_word_weights(hand_made_documents(), {"1", "2"}, {"good"}, {});
  const auto curves = word_weight_densities(occurrences, {"1", "2"}, {"good"}, 50);
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].x, curves[1].x);  // one grid per word
  EXPECT_EQ(curves[0].x.size(), 50u);
  EXPECT_GE(curves[0].x.front(), 0.0);
}

TEST(WordWeights, ResolvesWordsThroughTheTokenizer) {
  TempDir dir;
  write_file(dir.file("vocab.txt"), "<unk>\n<eos>\ngreat\n!\nworst\n");
  const auto tokenizer = load_word_tokenizer(dir.file("vocab.txt"), /*normalize=*/true);
  EXPECT_EQ(resolve_words(*tokenizer, {"Great", "worst"}), (std::vector<std::string>{"great", "worst"}));
  auto error_of = [&](const std::vector<std::string>& words) {
    try {
      resolve_words(*tokenizer, words);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of({}), "--words: no words given (expected a comma-separated list such as amazing,worst)");
  EXPECT_EQ(error_of({"great", "zzz"}), "--words: 'zzz' is not in the model's vocabulary");
  EXPECT_EQ(error_of({"great!"}), "--words: 'great!' is 2 tokens for this model, not one word");
}

TEST(WordWeights, DocumentAttentionFromTheModel) {
  TempDir dir;
  write_file(dir.file("vocab.txt"), "<unk>\n<eos>\nw2\nw3\nw4\nw5\nw6\nw7\nw8\nw9\nw10\nw11\nw12\nw13\nw14\nw15\nw16\nw17\nw18\nw19\n");
  const auto tokenizer = load_word_tokenizer(dir.file("vocab.txt"));
  auto model = tiny_lama();
  const std::vector<LabelledExample> examples = {{0, "w2 w3 w4", ""}, {2, "w5 nothing", ""}, {1, "w6", ""}};
  const auto result = lama_document_attention(*model, *tokenizer, examples, 2);
  ASSERT_EQ(result.documents.size(), 3u);
  EXPECT_EQ(result.documents[1].tokens, (std::vector<std::string>{"w5", "<unk>"}));
  EXPECT_EQ(result.documents[1].label, 2);
  EXPECT_EQ(result.documents[2].index, 2);
  // Each head's weights sum to 1 over the document's words, and equal the forward's capture.
  ModelInput input;
  input.input_ids = torch::tensor({2, 3, 4}, torch::kLong).view({1, 3});
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  torch::NoGradGuard no_grad;
  const auto a = model->forward(input, options).attention[0];
  for (int64_t h = 0; h < 3; ++h) {
    double sum = 0.0;
    for (int64_t t = 0; t < 3; ++t) {
      EXPECT_NEAR(result.documents[0].weight(h, t), a[0][h][0][t].item<float>(), 1e-6);
      sum += result.documents[0].weight(h, t);
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  TempDir lm_dir;
  test::write_tiny_checkpoint(lm_dir.path(), test::tiny_config("transformer_lm"));
  const auto lm = load_checkpoint(lm_dir.path());
  EXPECT_THROW(lama_document_attention(*lm.model, *lm.tokenizer, examples), Error);
}

}  // namespace
}  // namespace aw

// analysis/statistics/significance.cpp — see significance.h.
#include "analysis/statistics/significance.h"

#include "models/errors.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace aw {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The q-quantile of ascending `sorted` [B, S] per column, interpolated linearly between order
// statistics at position q·(B − 1) (numpy's default "linear" method).
torch::Tensor quantile_of_sorted(const torch::Tensor& sorted, double q) {
  const auto count = sorted.size(0);
  const double position = q * static_cast<double>(count - 1);
  const auto below = static_cast<int64_t>(std::floor(position));
  const auto above = std::min<int64_t>(below + 1, count - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

// Indices of `values` from smallest to largest (ties in input order).
std::vector<size_t> ascending_order(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  return order;
}

double mean_of(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// Sample variance (n − 1 in the denominator), two-pass.
double variance_of(const std::vector<double>& values, double mean) {
  double sum = 0;
  for (double v : values) sum += (v - mean) * (v - mean);
  return sum / static_cast<double>(values.size() - 1);
}

// The regularised incomplete beta I_x(a, b), by its continued fraction evaluated with the modified
// Lentz method; the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) keeps x where the fraction converges fast.
double incomplete_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incomplete_beta(1 - x, b, a);
  const double log_front = a * std::log(x) + b * std::log1p(-x) - std::log(a) -
                           (std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double fraction = d;
  for (int m = 1; m <= 10000; ++m) {
    // Even term d_{2m} = m (b − m) x / ((a + 2m − 1)(a + 2m)), then odd d_{2m+1}.
    for (const double term : {m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                              -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))}) {
      d = 1 + term * d;
      if (std::fabs(d) < kTiny) d = kTiny;
      c = 1 + term / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      d = 1 / d;
      fraction *= d * c;
    }
    if (std::fabs(d * c - 1) < kEpsilon) break;
  }
  return std::exp(log_front) * fraction;
}

// Two-sided tail of Student's t: P(|T| ≥ |t|) = I_{ν/(ν+t²)}(ν/2, 1/2).
double student_t_two_sided(double t, double degrees_of_freedom) {
  if (std::isinf(t)) return 0;
  return incomplete_beta(degrees_of_freedom / (degrees_of_freedom + t * t), degrees_of_freedom / 2, 0.5);
}

}  // namespace

torch::Tensor resampled_sums(const torch::Tensor& values, int64_t resamples, uint64_t seed) {
  if (values.dim() != 2)
    throw Error("bootstrap: per-example values must be [examples, columns], got " + shape_string(values.sizes()));
  const auto examples = values.size(0);
  if (examples == 0) throw Error("bootstrap: no examples to resample");
  if (resamples < 1) throw Error("bootstrap: needs at least one resample, got " + std::to_string(resamples));
  torch::NoGradGuard no_grad;
  const auto host = values.detach().to(torch::kCPU, torch::kFloat64).contiguous();  // (N, K)
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  // Resamples in chunks whose draw counts stay near 128 MB, all from one generator stream.
  const int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 24) / examples);
  std::vector<torch::Tensor> chunks;
  for (int64_t first = 0; first < resamples; first += chunk) {
    const auto rows = std::min(chunk, resamples - first);
    const auto draws = torch::randint(examples, {rows, examples}, generator, torch::kLong);  // (b, N)
    auto counts = torch::zeros({rows, examples}, torch::kFloat64);
    counts.scatter_add_(1, draws, torch::ones({rows, examples}, torch::kFloat64));
    chunks.push_back(counts.matmul(host));  // (b, K)
  }
  return torch::cat(chunks);
}

torch::Tensor sums_per_unit(const torch::Tensor& values, const std::vector<int64_t>& blocks) {
  const auto host = values.to(torch::kCPU, torch::kFloat64);
  if (blocks.empty()) return host;
  TORCH_CHECK(static_cast<int64_t>(blocks.size()) == host.size(0), "sums_per_unit: one block per example");
  const auto units = torch::tensor(blocks, torch::kLong);
  auto shape = host.sizes().vec();
  shape[0] = units.max().item<int64_t>() + 1;
  return torch::zeros(shape, host.options()).index_add_(0, units, host);
}

std::vector<PairedDifference> summarize_bootstrap(const torch::Tensor& observed, const torch::Tensor& resampled,
                                                  const torch::Tensor& resolution) {
  TORCH_CHECK(observed.dim() == 1 && resampled.dim() == 2 && resampled.size(1) == observed.size(0) &&
                  resampled.size(0) > 0,
              "bootstrap summary: observed [S] and resampled [B, S]");
  const auto values = resampled.to(torch::kFloat64);
  const auto centre = observed.to(torch::kFloat64);
  const auto sorted = std::get<0>(values.sort(0));
  // The interval always holds its estimate: with few distinct resamples (one unit, a discrete metric)
  // or a skewed one (perplexity's exp), the percentiles can fall on one side of it, and an interval
  // beside its own estimate reads as a finding.
  const auto low = torch::minimum(quantile_of_sorted(sorted, 0.025), centre).contiguous();
  const auto high = torch::maximum(quantile_of_sorted(sorted, 0.975), centre).contiguous();
  // A resample as far as 0 counts, ties included: discrete metrics (accuracy, BLEU on few sentences)
  // tie exactly, and with few units one resampled multiset stands for many resamples, so rounding
  // must not decide a tie (towards the larger p). A tie is within `resolution` when it is given.
  const auto slack = resolution.defined() ? resolution.to(torch::kFloat64).reshape({-1}) : centre.abs() * 1e-9;
  const auto as_far = ((values - centre).abs() >= centre.abs() - slack).sum(0).to(torch::kFloat64);  // (S)
  const auto p = ((as_far + 1) / static_cast<double>(values.size(0) + 1)).contiguous();

  std::vector<PairedDifference> results(static_cast<size_t>(observed.size(0)));
  const auto centre_host = centre.contiguous();
  for (size_t s = 0; s < results.size(); ++s)
    results[s] = {centre_host.data_ptr<double>()[s], low.data_ptr<double>()[s], high.data_ptr<double>()[s],
                  p.data_ptr<double>()[s]};
  return results;
}

std::vector<PairedDifference> paired_bootstrap(const torch::Tensor& differences, int64_t resamples, uint64_t seed) {
  if (differences.dim() != 2)
    throw Error("paired bootstrap: differences must be [examples, settings], got " + shape_string(differences.sizes()));
  if (differences.size(0) == 0) throw Error("paired bootstrap: no examples to resample");
  if (resamples < 1) throw Error("paired bootstrap: needs at least one resample, got " + std::to_string(resamples));
  const auto examples = static_cast<double>(differences.size(0));
  const auto means = resampled_sums(differences, resamples, seed) / examples;  // (B, S)
  return summarize_bootstrap(differences.detach().to(torch::kCPU, torch::kFloat64).mean(0), means);
}

std::vector<double> holm_adjusted(const std::vector<double>& p_values) {
  const size_t count = p_values.size();
  const auto order = ascending_order(p_values);
  std::vector<double> adjusted(count);
  double running = 0;  // step-down: never below an earlier (smaller) p's adjustment
  for (size_t rank = 0; rank < count; ++rank) {
    const double scaled = std::min(1.0, static_cast<double>(count - rank) * p_values[order[rank]]);
    running = std::max(running, scaled);
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

std::vector<double> benjamini_hochberg_adjusted(const std::vector<double>& p_values) {
  const size_t count = p_values.size();
  const auto order = ascending_order(p_values);
  std::vector<double> adjusted(count);
  double running = 1;  // step-up: never above a later (larger) p's adjustment
  for (size_t rank = count; rank-- > 0;) {
    const double scaled = static_cast<double>(count) / static_cast<double>(rank + 1) * p_values[order[rank]];
    running = std::min(running, scaled);
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

double pearson_r(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size())
    throw Error("correlation needs samples of one length, got " + std::to_string(x.size()) + " and " +
                std::to_string(y.size()));
  if (x.size() < 2) return kNaN;
  const double mean_x = mean_of(x), mean_y = mean_of(y);
  double xy = 0, xx = 0, yy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    xy += (x[i] - mean_x) * (y[i] - mean_y);
    xx += (x[i] - mean_x) * (x[i] - mean_x);
    yy += (y[i] - mean_y) * (y[i] - mean_y);
  }
  if (xx == 0 || yy == 0) return kNaN;
  return xy / std::sqrt(xx * yy);
}

std::vector<double> tied_ranks(const std::vector<double>& values) {
  const auto order = ascending_order(values);
  std::vector<double> ranks(values.size());
  for (size_t first = 0; first < order.size();) {
    size_t last = first;
    while (last + 1 < order.size() && values[order[last + 1]] == values[order[first]]) ++last;
    const double mean_rank = (static_cast<double>(first) + static_cast<double>(last)) / 2 + 1;
    for (size_t i = first; i <= last; ++i) ranks[order[i]] = mean_rank;
    first = last + 1;
  }
  return ranks;
}

double spearman_rho(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return pearson_r(x, y);  // the same message
  return pearson_r(tied_ranks(x), tied_ranks(y));
}

double student_t_cdf(double t, double degrees_of_freedom) {
  const double half_tail = student_t_two_sided(t, degrees_of_freedom) / 2;
  return t >= 0 ? 1 - half_tail : half_tail;
}

double student_t_quantile(double p, double degrees_of_freedom) {
  if (!(p > 0 && p < 1)) throw Error("a quantile needs 0 < p < 1, got " + std::to_string(p));
  if (!(degrees_of_freedom > 0))
    throw Error("Student's t needs degrees of freedom > 0, got " + std::to_string(degrees_of_freedom));
  if (p == 0.5) return 0.0;
  if (p < 0.5) return -student_t_quantile(1 - p, degrees_of_freedom);  // the distribution is symmetric
  double low = 0, high = 1;
  while (student_t_cdf(high, degrees_of_freedom) < p) {
    low = high;
    high *= 2;
  }
  // The cdf is increasing: halve [low, high] until the midpoint no longer moves in double precision.
  for (int step = 0; step < 200; ++step) {
    const double middle = low + (high - low) / 2;
    if (middle == low || middle == high) break;
    (student_t_cdf(middle, degrees_of_freedom) < p ? low : high) = middle;
  }
  return low + (high - low) / 2;
}

namespace {

// What Welch's test and interval share: the difference of the means, its squared standard error
// s_a²/n_a + s_b²/n_b, and the Welch–Satterthwaite ν (0 when both samples are constant).
struct WelchParts {
  double difference = 0, squared_error = 0, degrees_of_freedom = 0;
};

WelchParts welch_parts(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2 || b.size() < 2)
    throw Error("Welch's t-test needs at least 2 values in each sample, got " + std::to_string(a.size()) + " and " +
                std::to_string(b.size()));
  const double mean_a = mean_of(a), mean_b = mean_of(b);
  const double share_a = variance_of(a, mean_a) / static_cast<double>(a.size());
  const double share_b = variance_of(b, mean_b) / static_cast<double>(b.size());
  WelchParts parts;
  parts.difference = mean_a - mean_b;
  parts.squared_error = share_a + share_b;
  if (parts.squared_error > 0)
    parts.degrees_of_freedom = parts.squared_error * parts.squared_error /
                               (share_a * share_a / static_cast<double>(a.size() - 1) +
                                share_b * share_b / static_cast<double>(b.size() - 1));
  return parts;
}

}  // namespace

TestResult welch_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  const auto parts = welch_parts(a, b);
  TestResult result;
  if (parts.squared_error == 0) {  // both samples constant
    result.statistic =
        parts.difference == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), parts.difference);
    result.p_value = parts.difference == 0 ? 1 : 0;
    return result;
  }
  result.statistic = parts.difference / std::sqrt(parts.squared_error);
  result.degrees_of_freedom = parts.degrees_of_freedom;
  result.p_value = student_t_two_sided(result.statistic, result.degrees_of_freedom);
  return result;
}

std::pair<double, double> welch_interval(const std::vector<double>& a, const std::vector<double>& b,
                                         double confidence) {
  const auto parts = welch_parts(a, b);
  const double half_width = parts.squared_error > 0 ? student_t_quantile((1 + confidence) / 2, parts.degrees_of_freedom) *
                                                          std::sqrt(parts.squared_error)
                                                    : 0.0;
  return {parts.difference - half_width, parts.difference + half_width};
}

TestResult mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty())
    throw Error("the Mann–Whitney test needs values in both samples, got " + std::to_string(a.size()) + " and " +
                std::to_string(b.size()));
  std::vector<double> both(a);
  both.insert(both.end(), b.begin(), b.end());
  const auto ranks = tied_ranks(both);
  const double n_a = static_cast<double>(a.size()), n_b = static_cast<double>(b.size()), n = n_a + n_b;
  const double rank_sum_a = std::accumulate(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(a.size()), 0.0);
  TestResult result;
  result.statistic = rank_sum_a - n_a * (n_a + 1) / 2;
  // Ties shrink the variance by Σ(t³ − t) / (n(n − 1)) over groups of t equal values.
  std::vector<double> sorted(both);
  std::sort(sorted.begin(), sorted.end());
  double tie_sum = 0;
  for (size_t first = 0; first < sorted.size();) {
    size_t last = first;
    while (last + 1 < sorted.size() && sorted[last + 1] == sorted[first]) ++last;
    const double t = static_cast<double>(last - first + 1);
    tie_sum += t * t * t - t;
    first = last + 1;
  }
  const double variance = n_a * n_b / 12 * ((n + 1) - tie_sum / (n * (n - 1)));
  if (variance <= 0) return result;  // every value tied: no evidence either way, p = 1
  const double z = (std::fabs(result.statistic - n_a * n_b / 2) - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return result;
}

}  // namespace aw

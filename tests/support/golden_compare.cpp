// tests/support/golden_compare.cpp — compares a CSV the CLI wrote with its golden copy (tests/golden/):
// every column and every "# key=value" of the golden file must be in the new file with the same
// value (text exactly; numbers to 1e-4 relative to the larger of the two values and a tenth of the
// column's largest |value|, so a value near 0 that is the difference of two large ones — an
// ablation's Δ — is held to its column's scale), and the rows must match in number and order.
// The tolerance is not tighter because the numbers are float32 sums printed to 6 digits: OpenBLAS
// chooses its kernels per CPU, and on another CPU the sixth digit moves (by up to 0.4 of this
// tolerance between the Intel and AMD machines these files have met). A delta* column is a
// difference of the row's metric (metric − baseline) and carries that metric's rounding too, so it
// may also move by 1e-6 of the row's metric: PyTorch 2.11's BLAS (not OpenBLAS) moved Δs of 0.1–0.24
// beside perplexities of 60 by 2.6e-5 (2× the column rule). A bootstrap's p-value counts resamples, so
// where that rounding moves a resample across the line it steps by 1/(B + 1), and with few units by
// the many resamples that drew the same units (resample_step): with "bootstrap=B" in the golden file's
// comment, p_value may move by that step and p_adjusted by it for each row (Holm multiplies a p by up
// to the number of tests). New
// columns and new comment keys may appear. A .tsv file is compared byte for byte. Prints the first
// difference and exits 1.
// Usage: golden_compare GOLDEN NEW [TOLERANCE]   (TOLERANCE replaces 1e-4, for a case whose numbers
// are ratios to a small difference: tests/golden/cases.txt says which and why)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot be read\n", path.c_str());
    std::exit(1);
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Splits on `separator`, honouring double quotes ("a,b" is one field; "" is a quote).
std::vector<std::string> split_fields(const std::string& line, char separator) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
      else quoted = !quoted;
    } else if (c == separator && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

bool parse_number(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

double relative_tolerance = 1e-4;

// `column_largest`: the largest finite |value| of the golden column (0 for a comment's value);
// `difference_of`: for a delta* column, |the row's metric| (0 otherwise); `step`: how far a counted
// value (a bootstrap p) may move in whole counts (0 otherwise).
bool same_value(const std::string& golden, const std::string& fresh, double column_largest = 0.0,
                double difference_of = 0.0, double step = 0.0) {
  if (golden == fresh) return true;
  double a = 0, b = 0;
  if (!parse_number(golden, a) || !parse_number(fresh, b)) return false;
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  const double scale = std::max({std::abs(a), std::abs(b), 0.1 * column_largest, 0.01 * difference_of});
  return std::abs(a - b) <= std::max(relative_tolerance * scale + 1e-9, step);
}

// Per column of the golden file's table, its largest finite |value|.
std::vector<double> column_largest_values(const std::vector<std::string>& golden) {
  std::vector<double> largest;
  bool header_seen = false;
  for (const auto& line : golden) {
    if (!line.empty() && line[0] == '#') continue;
    if (!header_seen) {
      header_seen = true;
      continue;
    }
    const auto fields = split_fields(line, ',');
    if (largest.size() < fields.size()) largest.resize(fields.size(), 0.0);
    for (size_t c = 0; c < fields.size(); ++c) {
      double value = 0;
      if (parse_number(fields[c], value) && std::isfinite(value)) largest[c] = std::max(largest[c], std::abs(value));
    }
  }
  return largest;
}

// "# model=x, metric=y" → {model: x, metric: y}; a comment without '=' is kept whole under "".
std::map<std::string, std::string> comment_values(const std::string& line) {
  std::map<std::string, std::string> values;
  for (auto part : split_fields(line.substr(1), ',')) {
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    const auto equals = part.find('=');
    if (equals == std::string::npos) values[""] += part;
    else values[part.substr(0, equals)] = part.substr(equals + 1);
  }
  return values;
}

// How far a bootstrap p-value of the golden file may step when the last bits of the values resampled
// move: 0 unless a comment says bootstrap=B (B > 0). A resample that crosses the line moves p by
// 1 / (B + 1), but with U units (units=U) every resample drawing the same multiset of units crosses
// with it: the likeliest multiset, U distinct units, stands for B·U!/Uᵁ resamples on average (15 of
// 1,000 for 6 units; an AMD EPYC moved golden.ablate_single's p by 4). So p may move by that
// multiplicity, three standard deviations above its mean, and never by less than 3 resamples.
double resample_step(const std::vector<std::string>& golden) {
  double resamples = 0, units = 0;
  for (const auto& line : golden) {
    if (line.empty() || line[0] != '#') continue;
    const auto values = comment_values(line);
    if (const auto found = values.find("bootstrap"); found != values.end()) parse_number(found->second, resamples);
    if (const auto found = values.find("units"); found != values.end()) parse_number(found->second, units);
  }
  if (!(resamples > 0)) return 0.0;
  double resamples_per_multiset = 0.0;
  if (units >= 1 && units <= 170) {
    const double share = std::exp(std::lgamma(units + 1) - units * std::log(units));  // U! / U^U
    const double mean = resamples * share;
    resamples_per_multiset = mean + 3 * std::sqrt(mean);
  }
  return std::ceil(std::max(3.0, resamples_per_multiset)) / (resamples + 1);
}

// The table's rows below its header (comments left out).
double data_rows(const std::vector<std::string>& golden) {
  double rows = -1;  // the header
  for (const auto& line : golden)
    if (line.empty() || line[0] != '#') ++rows;
  return std::max(rows, 0.0);
}

[[noreturn]] void differ(const std::string& path, size_t line, const std::string& what) {
  std::fprintf(stderr, "%s: line %zu: %s\n", path.c_str(), line + 1, what.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: golden_compare GOLDEN NEW [TOLERANCE]\n");
    return 2;
  }
  const std::string golden_path = argv[1], fresh_path = argv[2];
  if (argc == 4 && (!parse_number(argv[3], relative_tolerance) || !(relative_tolerance > 0))) {
    std::fprintf(stderr, "golden_compare: TOLERANCE must be a positive number, got '%s'\n", argv[3]);
    return 2;
  }
  const auto golden = read_lines(golden_path), fresh = read_lines(fresh_path);
  const double resample = resample_step(golden);
  const bool exact = golden_path.size() > 4 && golden_path.substr(golden_path.size() - 4) == ".tsv";
  if (golden.size() != fresh.size())
    differ(fresh_path, std::min(golden.size(), fresh.size()),
           std::to_string(fresh.size()) + " lines, the golden file has " + std::to_string(golden.size()));

  std::vector<int> column_of;  // golden column → fresh column
  std::vector<bool> is_delta;  // golden column named delta…
  std::vector<double> p_steps;  // per golden column: how far a bootstrap p may step (0: not a p)
  int metric_column = -1;      // golden column named metric
  const auto largest = exact ? std::vector<double>{} : column_largest_values(golden);
  for (size_t i = 0; i < golden.size(); ++i) {
    if (exact) {
      if (golden[i] != fresh[i]) differ(fresh_path, i, "'" + fresh[i] + "', golden '" + golden[i] + "'");
      continue;
    }
    if (!golden[i].empty() && golden[i][0] == '#') {
      const auto want = comment_values(golden[i]), have = comment_values(fresh[i]);
      for (const auto& [key, value] : want) {
        const auto found = have.find(key);
        if (found == have.end()) differ(fresh_path, i, "comment lacks '" + key + "'");
        if (!same_value(value, found->second))
          differ(fresh_path, i, key + "=" + found->second + ", golden " + value);
      }
      continue;
    }
    const auto want = split_fields(golden[i], ','), have = split_fields(fresh[i], ',');
    if (column_of.empty()) {  // the header
      for (const auto& name : want) {
        int found = -1;
        for (size_t c = 0; c < have.size(); ++c)
          if (have[c] == name) found = static_cast<int>(c);
        if (found < 0) differ(fresh_path, i, "no column '" + name + "'");
        column_of.push_back(found);
        is_delta.push_back(name.rfind("delta", 0) == 0);
        p_steps.push_back(name == "p_value" ? resample : name == "p_adjusted" ? resample * data_rows(golden) : 0.0);
        if (name == "metric") metric_column = static_cast<int>(column_of.size()) - 1;
      }
      continue;
    }
    if (want.size() != column_of.size()) differ(golden_path, i, "row width differs from its header");
    double metric = 0.0;
    if (metric_column >= 0 && (!parse_number(want[metric_column], metric) || !std::isfinite(metric))) metric = 0.0;
    for (size_t c = 0; c < want.size(); ++c) {
      const auto column = static_cast<size_t>(column_of[c]);
      const auto value = column < have.size() ? have[column] : std::string("(missing)");
      if (!same_value(want[c], value, c < largest.size() ? largest[c] : 0.0, is_delta[c] ? std::abs(metric) : 0.0,
                      p_steps[c]))
        differ(fresh_path, i, "column " + std::to_string(c + 1) + ": " + value + ", golden " + want[c]);
    }
  }
  return 0;
}

// app/cli/data_commands.cpp — `attention-cli split`: a seeded train/valid/test split of a labelled
// file, or of translation pairs grouped by source (models/text/data_split.h), written as three .tsv files.
#include "analysis/core/descriptor.h"
#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "models/errors.h"
#include "models/parse_number.h"
#include "models/text/data_split.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace aw {
namespace {

std::string default_percents() {
  const auto percent = [](double value) { return std::to_string(std::lround(value)); };
  return percent(kDefaultTrainPercent) + "," + percent(kDefaultValidPercent) + "," +
         percent(100 - kDefaultTrainPercent - kDefaultValidPercent);
}

}  // namespace

int run_split(int argc, char** argv) {
  const CliOptions options("split", {{"data", "out", "seed", "percent", "group-by"}, {}}, argc, argv, 2);
  const auto group_by = options.get("group-by", "line");
  if (group_by != "line" && group_by != "source")
    throw Error("attention-cli split: --group-by must be line or source, got '" + group_by + "'");
  const auto percents = split_list(options.get("percent", default_percents()));
  std::vector<double> values;
  for (const auto& text : percents) {
    double value = -1;
    if (!parse_real(text, value) || value < 0)
      throw Error("attention-cli split: --percent expects TRAIN,VALID,TEST percentages, got '" + options.get("percent", "") + "'");
    values.push_back(value);
  }
  if (values.size() != 3 || std::abs(values[0] + values[1] + values[2] - 100.0) > 1e-9)
    throw Error("attention-cli split: --percent needs three numbers that sum to 100, got '" + options.get("percent", "") + "'");
  const auto data = options.require("data");
  const auto out = options.require("out");
  const auto seed = static_cast<uint64_t>(options.get_int("seed", 1, 0));
  const bool by_source = group_by == "source";
  const auto split = by_source ? split_lines_grouped_by_source(data, seed, values[0], values[1])
                               : split_labelled_lines(data, seed, values[0], values[1]);
  write_labelled_split(split, out);
  std::printf("split %s (seed %llu%s): %zu train, %zu valid, %zu test lines → %s/{train,valid,test}.tsv\n", data.c_str(),
              static_cast<unsigned long long>(seed), by_source ? ", grouped by source" : "", split.train.size(),
              split.valid.size(), split.test.size(), out.c_str());
  return 0;
}

}  // namespace aw

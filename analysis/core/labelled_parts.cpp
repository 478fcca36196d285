// analysis/core/labelled_parts.cpp — see labelled_parts.h.
#include "analysis/core/labelled_parts.h"

#include "models/errors.h"
#include "models/text/data_split.h"

#include <cmath>

namespace aw {

const std::vector<std::string>& labelled_part_names() {
  static const std::vector<std::string> names{"whole", "train", "valid", "test"};
  return names;
}

LabelledPart parse_labelled_part(const std::string& name) {
  const auto& names = labelled_part_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<LabelledPart>(i);
  throw Error("the part of a labelled file must be whole, train, valid or test, got '" + name + "'");
}

const char* to_string(LabelledPart part) { return labelled_part_names().at(static_cast<size_t>(part)).c_str(); }

std::vector<LabelledExample> read_labelled_part(const std::string& path, const std::vector<std::string>& labels,
                                                LabelledPart part, uint64_t seed, std::string* described) {
  if (part == LabelledPart::Whole) {
    if (described) *described = path;
    return read_labelled_file(path, labels);
  }
  const auto split = split_labelled_lines(path, seed, kDefaultTrainPercent, kDefaultValidPercent);
  const auto& lines = part == LabelledPart::Train ? split.train : part == LabelledPart::Valid ? split.valid : split.test;
  const auto percent = [](double value) { return std::to_string(std::lround(value)); };
  const auto name = path + " (" + to_string(part) + " part of the seed-" + std::to_string(seed) + " " +
                    percent(kDefaultTrainPercent) + "/" + percent(kDefaultValidPercent) + "/" +
                    percent(100 - kDefaultTrainPercent - kDefaultValidPercent) + " split)";
  if (described) *described = name;
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return parse_labelled_text(text, name, labels);
}

}  // namespace aw

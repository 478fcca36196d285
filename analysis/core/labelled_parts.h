// analysis/core/labelled_parts.h — one part (train, valid, test or the whole) of a labelled file, as the
// seeded default split of `attention-cli split` cuts it (models/text/data_split.h), read with a
// model's classes. The LAMA analyses and the GUI's document view read their documents through it.
#pragma once

#include "models/text/corpus.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

enum class LabelledPart { Whole, Train, Valid, Test };

// "whole" | "train" | "valid" | "test".
const std::vector<std::string>& labelled_part_names();
LabelledPart parse_labelled_part(const std::string& name);
const char* to_string(LabelledPart part);

// The examples of `part` of `path`, in the order the split gives them. `described` (optional)
// receives what was read: "reviews.tsv (test part of the seed-1 80/10/10 split)". Throws aw::Error
// naming the file for an unreadable file or an unknown label.
std::vector<LabelledExample> read_labelled_part(const std::string& path, const std::vector<std::string>& labels,
                                                LabelledPart part, uint64_t seed, std::string* described = nullptr);

}  // namespace aw

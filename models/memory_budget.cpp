// models/memory_budget.cpp — see memory_budget.h.
#include "models/memory_budget.h"

#include "models/errors.h"
#include "models/parse_number.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>

namespace aw {
namespace {

constexpr int64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

std::atomic<int64_t> chosen_budget{0};

}  // namespace

int64_t memory_share(int64_t divisor) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const int64_t memory = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : 8 * kGiB;
  return std::clamp<int64_t>(memory / std::max<int64_t>(divisor, 1), 64 * kMiB, kGiB);
}

int64_t attention_memory_budget() {
  const int64_t chosen = chosen_budget.load();
  return chosen > 0 ? chosen : memory_share(32);
}

void set_attention_memory_budget(int64_t bytes) { chosen_budget.store(std::max<int64_t>(bytes, 0)); }

int64_t parse_memory_size(const std::string& text, const std::string& what) {
  std::string number = text;
  int64_t unit = 1;
  for (const char* suffix : {"iB", "B"})  // "2GiB", "2GB", "2G" and "2048" all read
    if (number.size() > std::string(suffix).size() && number.compare(number.size() - std::string(suffix).size(),
                                                                     std::string::npos, suffix) == 0) {
      number.resize(number.size() - std::string(suffix).size());
      break;
    }
  if (!number.empty()) {
    switch (std::toupper(static_cast<unsigned char>(number.back()))) {
      case 'K': unit = kKiB; break;
      case 'M': unit = kMiB; break;
      case 'G': unit = kGiB; break;
      case 'T': unit = kGiB * 1024; break;
      default: break;
    }
    if (unit > 1) number.pop_back();
  }
  double value = 0;
  if (!parse_real(number, value) || !(value > 0) || value * static_cast<double>(unit) > 9.0e18)
    throw Error(what + ": '" + text + "' is not a memory size (a positive number with K, M or G, e.g. 512M)");
  return std::max<int64_t>(1, static_cast<int64_t>(value * static_cast<double>(unit)));
}

std::string format_bytes(int64_t bytes) {
  const struct { int64_t size; const char* name; } units[] = {{kGiB, "GiB"}, {kMiB, "MiB"}, {kKiB, "KiB"}};
  for (const auto& unit : units)
    if (bytes >= unit.size) {
      char text[32];
      const double value = static_cast<double>(bytes) / static_cast<double>(unit.size);
      std::snprintf(text, sizeof(text), value < 10 ? "%.1f %s" : "%.0f %s", value, unit.name);
      return text;
    }
  return std::to_string(bytes) + " B";
}

std::string memory_size_argument(int64_t bytes) {
  if (bytes >= kMiB) return std::to_string((bytes + kMiB - 1) / kMiB) + "M";
  return std::to_string((bytes + kKiB - 1) / kKiB) + "K";
}

}  // namespace aw

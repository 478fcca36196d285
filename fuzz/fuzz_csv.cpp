// fuzz/fuzz_csv.cpp — the CSV parser of the desktop application's result views (RFC 4180 quoting,
// comment blocks, several tables in one text); session files carry such results from elsewhere.
#include "fuzz/fuzz_support.h"

#include "widgets/csv_table.h"

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto table = aw::parse_csv(QString::fromUtf8(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size)));
  volatile double sink = 0;
  for (int row = 0; row < table.rows.size(); ++row)
    for (int column = 0; column < table.header.size() + 1; ++column) sink = sink + std::isnan(table.number(row, column));
  (void)table.commentValue("model");
  return 0;
}

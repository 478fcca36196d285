// fuzz/fuzz_csv.cpp — the CSV reader of result tables (table/csv_format.h: RFC 4180 quoting, comment
// blocks, several tables in one text): attention-plot reads such files, and session files carry them
// from elsewhere. What it reads must write back and read again to the same table.
#include "fuzz/fuzz_support.h"

#include "table/csv_format.h"

#include <cmath>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto table = aw::read_csv(std::string(reinterpret_cast<const char*>(data), size));
  volatile double sink = 0;
  for (int64_t row = 0; row < table.row_count(); ++row)
    for (int column = 0; column <= static_cast<int>(table.columns().size()); ++column)
      sink = sink + std::isnan(table.number(row, column));
  (void)table.meta_text("model");
  // Written out, the table reads back cell for cell (the text it came from may differ: quoting,
  // blank lines, a second block's header).
  const auto again = aw::read_csv(aw::write_csv(table));
  if (table.columns().size() > 0 && again.row_count() != table.row_count()) std::abort();
  return 0;
}

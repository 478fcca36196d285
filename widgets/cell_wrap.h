// widgets/cell_wrap.h — a layer's row of cells (heads, thumbnails) wrapped into bands when the width
// does not hold them all at their least size: 32 heads in a 200-pixel panel are 3 bands of 11, every
// head in view, instead of 11 and a sideways scrollbar. The heads panel and the overview lay out by it.
#pragma once

#include <algorithm>

namespace aw {

struct CellWrap {
  int per_band = 1;  // cells side by side
  int bands = 1;     // rows of cells per layer

  // `count` cells in `room` pixels, each taking at least `least_pitch` (its side and the gap). Wrapped,
  // a band holds whole groups of `group` cells (the query heads of one key/value head) where one fits,
  // so every band's gaps fall in the same places.
  static CellWrap fit(int count, int room, int least_pitch, int group = 0) {
    count = std::max(1, count);
    int per_band = std::clamp(room / std::max(1, least_pitch), 1, count);
    if (per_band < count && group > 1 && per_band >= group) per_band -= per_band % group;
    return {per_band, (count + per_band - 1) / per_band};
  }
  bool wrapped() const { return bands > 1; }
  int band(int index) const { return index / per_band; }
  int column(int index) const { return index % per_band; }
  int first(int band) const { return band * per_band; }  // the index a band starts with
};

}  // namespace aw

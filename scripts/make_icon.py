#!/usr/bin/env python3
"""Writes resources/attention-workbench.png: the application icon, a 4x4 attention-like grid in
viridis colours (a lower-triangular, causal pattern). Standard library only (zlib + struct)."""
import struct
import zlib
from pathlib import Path

SIZE, CELLS, GAP = 64, 4, 2
VIRIDIS = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]
# weights per cell: row i attends to columns 0..i; strongest on a few cells
WEIGHTS = [[4, 0, 0, 0], [1, 3, 0, 0], [2, 1, 3, 0], [1, 2, 0, 4]]


def pixel(x, y):
    cell = SIZE // CELLS
    col, row = x // cell, y // cell
    if x % cell < GAP // 2 or x % cell >= cell - GAP // 2 or y % cell < GAP // 2 or y % cell >= cell - GAP // 2:
        return (0, 0, 0, 0)
    return VIRIDIS[WEIGHTS[row][col]] + (255,)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(SIZE)) for y in range(SIZE))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
out = Path(__file__).resolve().parent.parent / "resources" / "attention-workbench.png"
out.write_bytes(png)
print(f"wrote {out} ({len(png)} bytes)")

#!/usr/bin/python3
"""Helpers for the report tests (not a test itself; tests/cli_report*.sh call it).

  report_check.py png-not-blank FILE.png   exit 0 when the PNG has content: at least 1 % of its
                                           pixels are not the background and it has >= 8 colors
Decodes the PNG with zlib alone (8-bit RGB or RGBA, non-interlaced: what Chromium writes).
"""
import struct
import sys
import zlib


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG: depth %d color type %d" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "png-not-blank":
        sys.exit(__doc__)
    w, h, bpp, rows = png_pixels(sys.argv[2])
    counts = {}
    for line in rows[::2]:
        for x in range(0, w * bpp, bpp * 2):
            px = line[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    background = max(counts.values())
    ink = 1 - background / total
    print("%s: %dx%d, %d colors, %.1f %% not background" % (sys.argv[2], w, h, len(counts), 100 * ink))
    sys.exit(0 if ink >= 0.01 and len(counts) >= 8 else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Draws the boxes of `grove detect` CSV files onto a grey image, one colour per file, with a
legend line; writes a PNG.   picture.py IMAGE OUT.png "label:R,G,B:boxes.csv" ..."""
import csv
import sys

import cv2

img = cv2.cvtColor(cv2.imread(sys.argv[1], cv2.IMREAD_GRAYSCALE), cv2.COLOR_GRAY2BGR)
y = 18
for spec in sys.argv[3:]:
    label, rgb, path = spec.split(":", 2)
    r, g, b = (int(v) for v in rgb.split(","))
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    for row in rows:
        x0, y0, w, h = (int(v) for v in row[1:5])
        cv2.rectangle(img, (x0, y0), (x0 + w - 1, y0 + h - 1), (b, g, r), 2)
    cv2.putText(img, "%s (%d)" % (label, len(rows)), (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                (b, g, r), 1, cv2.LINE_AA)
    y += 18
cv2.imwrite(sys.argv[2], img)

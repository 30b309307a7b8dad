#!/usr/bin/python3
"""A grove-trained cascade runs in OpenCV: `grove cascade train --opencv` writes OpenCV's XML,
cv2.CascadeClassifier loads it and detectMultiScale finds the same boxes as `grove detect` with
the XML and with grove's own cascade file (raw windows and grouped boxes, three photos).
Then tests/data/vision/cascade_lfw3.xml (the first 3 stages, 13 features, of a 14-stage cascade
grove trained on the 40 lfw crops; it accepts thousands of windows a photo, so every scanned
row counts): the same raw windows and grouped boxes as OpenCV on four photos at scale factors
1.1, 1.2 and 1.3 -- among them the levels where OpenCV's stripes leave the last window
row unscanned (detect.c), e.g. chelsea at 1.1, windows 29 x 29 at y = 271.
"""
import csv
import os
import subprocess
import sys
import tempfile

import cv2

import fixtures
from fixtures import GROVE, SRC, check

DATA = os.path.join(SRC, "tests", "data", "vision")


def grey(path):
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    return img if img.ndim == 2 else cv2.cvtColor(img[:, :, :3], cv2.COLOR_BGR2GRAY)


def grove_boxes(cascade, image, mn, sf=1.1):
    out = subprocess.run([GROVE, "detect", cascade, image, "--min-neighbors", str(mn),
                          "--scale-factor", str(sf)], capture_output=True, text=True, check=True)
    return sorted(tuple(int(v) for v in r[1:6]) for r in list(csv.reader(out.stdout.splitlines()))[1:])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        js, xml = os.path.join(tmp, "c.json"), os.path.join(tmp, "c.xml")
        run = subprocess.run([GROVE, "cascade", "train", "--positives", os.path.join(DATA, "lfw"),
                              "--negatives", os.path.join(DATA, "negatives_small"),
                              "--output", js, "--opencv", xml, "--window", "16x16",
                              "--stages", "3", "--max-weak", "25", "--negatives-per-stage", "300",
                              "--seed", "3", "--quiet"], capture_output=True, text=True)
        check(run.returncode == 0, "training failed: %s" % run.stderr)
        if run.returncode:
            return 1
        print(run.stdout)
        check("stage,features,f_i,d_i,F,D,negatives" in run.stdout, "no per-stage table")
        clf = cv2.CascadeClassifier(xml)
        check(not clf.empty(), "cv2 could not load grove's XML")
        check(tuple(clf.getOriginalWindowSize()) == (16, 16), "window size")
        for name in ["astronaut.pgm", "rocket.jpg", "negatives_small/coins.png"]:
            path = os.path.join(DATA, name)
            for mn in (0, 3):
                boxes, counts = clf.detectMultiScale2(grey(path), 1.1, mn)
                cvb = sorted(tuple(int(v) for v in b) + (int(k),) for b, k in zip(boxes, counts))
                gx = grove_boxes(xml, path, mn)
                gj = grove_boxes(js, path, mn)
                print("%-28s minNeighbors=%d  opencv %5d  grove(xml) %5d  grove(json) %5d" % (
                    name, mn, len(cvb), len(gx), len(gj)))
                check(cvb == gx, "%s mn=%d: OpenCV and grove differ on grove's XML" % (name, mn))
                check(gx == gj, "%s mn=%d: the XML and grove's file differ" % (name, mn))
                if mn == 0:
                    check(len(cvb) > 0, "%s: the trained cascade accepts no window at all" % name)
        committed = os.path.join(DATA, "cascade_lfw3.xml")
        clf = cv2.CascadeClassifier(committed)
        check(not clf.empty(), "cv2 could not load %s" % committed)
        for name in ["astronaut.pgm", "rocket.jpg", "negatives_small/coins.png",
                     "negatives_small/chelsea.png"]:
            path = os.path.join(DATA, name)
            img = grey(path)
            for sf in (1.1, 1.2, 1.3):
                for mn in (0, 3):
                    boxes, counts = clf.detectMultiScale2(img, sf, mn)
                    cvb = sorted(tuple(int(v) for v in b) + (int(k),) for b, k in zip(boxes, counts))
                    gx = grove_boxes(committed, path, mn, sf)
                    if cvb != gx:
                        a, b = set(cvb), set(gx)
                        print("  only OpenCV:", sorted(a - b)[:4], " only grove:", sorted(b - a)[:4])
                    print("cascade_lfw3 %-28s scaleFactor=%.2f minNeighbors=%d  opencv %5d  grove %5d"
                          % (name, sf, mn, len(cvb), len(gx)))
                    check(cvb == gx, "cascade_lfw3 %s sf=%g mn=%d: OpenCV and grove differ" % (name, sf, mn))
    return fixtures.finish("py_opencv_cascade")


if __name__ == "__main__":
    sys.exit(main())

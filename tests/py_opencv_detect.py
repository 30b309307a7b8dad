#!/usr/bin/python3
"""grove detect against OpenCV's CascadeClassifier.detectMultiScale (the oracle).

The same cascade XML (Debian's opencv-data), the same image (cv2 reads it; colour goes through
cvtColor(BGR2GRAY) as grove does) and the same settings: grove must find the same objects --
the same count, each box paired with one of OpenCV's at IoU >= 0.8.  (grove reproduces
OpenCV's pyramid, its bit-exact resize and its float arithmetic, so the boxes are normally
identical; the table says how many were.)  Also: the astronaut's true face box is found at
IoU >= 0.8, and grove's output does not depend on the thread count.
"""
import csv
import os
import subprocess
import sys

import cv2

import fixtures
from fixtures import GROVE, SRC, check

IMG = os.path.join(SRC, "tests", "data", "vision")
CASC = "/usr/share/opencv4/haarcascades"


def iou(a, b):
    ax, ay, aw, ah = a[:4]
    bx, by, bw, bh = b[:4]
    iw = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    ih = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = iw * ih
    return inter / float(aw * ah + bw * bh - inter)


def pair(cv_boxes, gv_boxes):
    """Greedy pairing by IoU; returns the smallest IoU of the pairs (1 if none) and whether all
    boxes were paired."""
    left = list(gv_boxes)
    worst = 1.0
    for b in cv_boxes:
        if not left:
            return 0.0, False
        best = max(left, key=lambda g: iou(b, g))
        worst = min(worst, iou(b, best))
        left.remove(best)
    return worst, not left


def grey(path):
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    return img if img.ndim == 2 else cv2.cvtColor(img[:, :, :3], cv2.COLOR_BGR2GRAY)


def grove_detect(cascade, image, extra):
    out = subprocess.run([GROVE, "detect", cascade, image] + extra, capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    rows = list(csv.reader(out.stdout.splitlines()))
    assert rows[0] == ["image", "x", "y", "w", "h", "neighbours"], rows[0]
    return [tuple(int(v) for v in r[1:6]) for r in rows[1:]]


def main():
    images = ["astronaut.pgm", "negatives_small/chelsea.png", "negatives_small/coins.png", "rocket.jpg"]
    # stumps and trees, upright and tilted features
    cascades = ["frontalface_default", "frontalface_alt2", "frontalface_alt_tree", "eye",
                "eye_tree_eyeglasses", "smile", "frontalcatface_extended"]
    settings = [(1.1, 3, None, None)]
    print("%-26s %-14s %9s %6s %6s %9s %s" % ("cascade", "image", "settings", "opencv", "grove",
                                            "identical", "min IoU"))
    total = identical = 0
    runs = [(c, i, s) for c in cascades for i in images for s in settings]
    # other settings on the astronaut: coarser pyramid, more neighbours, size limits
    runs += [("frontalface_default", "astronaut.pgm", (1.2, 5, None, None)),
             ("frontalface_alt2", "astronaut.pgm", (1.05, 2, (40, 40), (200, 200))),
             ("eye", "astronaut.pgm", (1.3, 1, (20, 20), None)),
             ("frontalface_default", "negatives_small/coins.png", (1.1, 0, None, None))]
    for cname, iname, (sf, mn, mins, maxs) in runs:
        cpath = os.path.join(CASC, "haarcascade_%s.xml" % cname)
        ipath = os.path.join(IMG, iname)
        clf = cv2.CascadeClassifier(cpath)
        kw = {}
        extra = ["--scale-factor", str(sf), "--min-neighbors", str(mn)]
        if mins:
            kw["minSize"] = mins
            extra += ["--min-size", "%dx%d" % mins]
        if maxs:
            kw["maxSize"] = maxs
            extra += ["--max-size", "%dx%d" % maxs]
        boxes, counts = clf.detectMultiScale2(grey(ipath), scaleFactor=sf, minNeighbors=mn, **kw)
        cvb = sorted(tuple(int(v) for v in b) + (int(k),) for b, k in zip(boxes, counts))
        gvb = sorted(grove_detect(cpath, ipath, extra))
        worst, all_paired = pair(cvb, gvb)
        same = cvb == gvb
        total += 1
        identical += same
        print("%-26s %-14s %9s %6d %6d %9s %.3f" % (cname, iname, "%g/%d" % (sf, mn), len(cvb),
                                                  len(gvb), "yes" if same else "no", worst))
        check(len(cvb) == len(gvb), "%s on %s: OpenCV %d boxes, grove %d" % (cname, iname,
                                                                           len(cvb), len(gvb)))
        check(all_paired and worst >= 0.8, "%s on %s: a box pairs at IoU %.3f only (%s vs %s)"
              % (cname, iname, worst, cvb, gvb))
    print("identical box lists: %d of %d runs" % (identical, total))

    # the true face box
    with open(os.path.join(IMG, "boxes.csv")) as f:
        truth = [tuple(int(v) for v in r[1:5]) for r in list(csv.reader(f))[1:]]
    face = os.path.join(CASC, "haarcascade_frontalface_default.xml")
    got = grove_detect(face, os.path.join(IMG, "astronaut.pgm"), [])
    check(len(got) == 1 and iou(got[0], truth[0]) >= 0.8,
          "astronaut: %s vs the true box %s" % (got, truth))
    # thread-count independence (also of the raw, ungrouped windows)
    for extra in ([], ["--min-neighbors", "0"]):
        outs = [grove_detect(face, os.path.join(IMG, "negatives_small", "coins.png"), extra + ["-j", str(j)])
                for j in (1, 2, 3)]
        check(outs[0] == outs[1] == outs[2], "thread counts give different boxes %s" % extra)
    return fixtures.finish("py_opencv_detect")


if __name__ == "__main__":
    sys.exit(main())

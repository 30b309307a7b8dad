#!/usr/bin/python3
"""OpenCV's detectMultiScale on one grey image: the median of REPS runs with THREADS threads.
Prints "opencv,THREADS,MEDIAN_MS,BOXES".   cv_detect.py CASCADE IMAGE THREADS REPS [SF MINN]"""
import sys
import time

import cv2

casc, path, threads, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sf = float(sys.argv[5]) if len(sys.argv) > 5 else 1.1
mn = int(sys.argv[6]) if len(sys.argv) > 6 else 3
cv2.setNumThreads(threads)
clf = cv2.CascadeClassifier(casc)
img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
times, n = [], 0
for _ in range(reps):
    t0 = time.perf_counter()
    boxes = clf.detectMultiScale(img, sf, mn)
    times.append(1e3 * (time.perf_counter() - t0))
    n = len(boxes)
times.sort()
print("opencv,%d,%.2f,%d" % (threads, times[len(times) // 2], n))

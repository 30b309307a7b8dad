#!/usr/bin/env bash
# Viola-Jones in grove, measured (the numbers of docs/vision.md):
#  1. detection speed: OpenCV's haarcascade_frontalface_default.xml on a 640x480 photo (the
#     astronaut, resized), scale factor 1.1, 3 neighbours: grove_cascade_detect against
#     cv2.CascadeClassifier.detectMultiScale, 1 and 2 threads, median of REPS runs each (image in
#     memory, both), and the ratio opencv/grove (> 1: grove faster);
#  2. training: `grove cascade train` on the 70 training faces of lfw_faces (the fixed split of
#     lfw_faces.test_idx.txt; mirrored and shifted copies) and 9 of the 12 negative images,
#     STAGES stages, 2 threads: time and the per-stage table;
#  3. evaluation beside OpenCV's pretrained cascade: detection rate on the 30 held-out face
#     crops, false positives per million windows on the 3 held-out negative images (coffee,
#     motorcycle_left, page), and the boxes found on the astronaut (IoU with the true box);
#     docs/vision-astronaut.png shows both cascades' boxes.
#   bench/vision/run.sh            DATA=/work/data STAGES=12 REPS=15 THREADS_LIST="1 2"
set -euo pipefail
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/bench/out/vision
DATA=${DATA:-/work/data}
STAGES=${STAGES:-12}
REPS=${REPS:-15}
THREADS_LIST=${THREADS_LIST:-"1 2"}
BUILD=${BUILD:-$ROOT/build}
PY=/usr/bin/python3
CASC=/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
mkdir -p "$OUT"
[[ -d $DATA/lfw_faces ]] || "$ROOT/../shared/data/get-datasets.sh" "$DATA"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j2 >/dev/null
G=$BUILD/grove
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$ROOT/include" "$ROOT/bench/vision/detect_bench.c" \
   "$BUILD/libgrove.a" $(pkg-config --libs jansson libpng libxml-2.0) -ljpeg -lz -lm -fopenmp \
   -o "$OUT/detect_bench"

echo "== 1. detection speed (640x480, scale 1.1, 3 neighbours; machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
$PY -c "
import cv2; g = cv2.imread('$ROOT/tests/data/vision/astronaut.pgm', 0)
cv2.imwrite('$OUT/astronaut640x480.pgm', cv2.resize(g, (640, 480), interpolation=cv2.INTER_AREA))"
IMG=$OUT/astronaut640x480.pgm
for t in $THREADS_LIST; do
  gl=$("$OUT/detect_bench" "$CASC" "$IMG" "$t" "$REPS")
  ol=$($PY "$ROOT/bench/vision/cv_detect.py" "$CASC" "$IMG" "$t" "$REPS")
  gm=$(cut -d, -f3 <<<"$gl"); om=$(cut -d, -f3 <<<"$ol")
  echo "threads $t: grove ${gm} ms ($(cut -d, -f4 <<<"$gl") boxes, $(cut -d, -f5 <<<"$gl") windows)," \
       "opencv ${om} ms ($(cut -d, -f4 <<<"$ol") boxes), opencv/grove = $($PY -c "print('%.2f' % ($om / $gm))")"
done

echo "== 2. training ($STAGES stages, 2 threads)"
rm -rf "$OUT/pos" "$OUT/heldpos" "$OUT/neg" "$OUT/heldneg"
mkdir -p "$OUT/pos" "$OUT/heldpos" "$OUT/neg" "$OUT/heldneg"
$PY - "$DATA" "$OUT" <<'PYEOF'
import shutil, sys
data, out = sys.argv[1], sys.argv[2]
test = set(int(l) for l in open(data + '/lfw_faces.test_idx.txt'))
for i in range(100):
    shutil.copy('%s/lfw_faces/faces/%03d.pgm' % (data, i),
                '%s/%s/%03d.pgm' % (out, 'heldpos' if i in test else 'pos', i))
held = {'coffee', 'motorcycle_left', 'page'}
import os
for f in sorted(os.listdir(data + '/face_negatives')):
    shutil.copy(data + '/face_negatives/' + f, out + ('/heldneg/' if f[:-4] in held else '/neg/') + f)
PYEOF
/usr/bin/time -f "train: %e s wall, %M KB peak" "$G" cascade train --positives "$OUT/pos" \
  --negatives "$OUT/neg" --output "$OUT/trained.json" --opencv "$OUT/trained.xml" \
  --stages "$STAGES" --threads 2 --quiet | tee "$OUT/train_table.csv"

echo "== 3. evaluation: held-out faces and negatives, the astronaut"
for c in "$OUT/trained.json" "$CASC"; do
  "$G" cascade eval "$c" --positives "$OUT/heldpos" --negatives "$OUT/heldneg" -j 2
done
"$G" detect "$OUT/trained.json" "$ROOT/tests/data/vision/astronaut.pgm" > "$OUT/astronaut_trained.csv"
"$G" detect "$CASC" "$ROOT/tests/data/vision/astronaut.pgm" > "$OUT/astronaut_opencv.csv"
$PY - "$OUT" "$ROOT/tests/data/vision/boxes.csv" <<'PYEOF'
import csv, sys
out, truth_path = sys.argv[1], sys.argv[2]
truth = [int(v) for v in list(csv.reader(open(truth_path)))[1][1:5]]
def iou(a, b):
    iw = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    ih = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return iw * ih / float(a[2] * a[3] + b[2] * b[3] - iw * ih)
for name in ("trained", "opencv"):
    rows = [[int(v) for v in r[1:6]] for r in list(csv.reader(open('%s/astronaut_%s.csv' % (out, name))))[1:]]
    best = max((iou(r, truth) for r in rows), default=0.0)
    print("astronaut, %s cascade: %d boxes, best IoU with the true face box %.3f" % (name, len(rows), best))
PYEOF
$PY "$ROOT/bench/vision/picture.py" "$ROOT/tests/data/vision/astronaut.pgm" "$ROOT/docs/vision-astronaut.png" \
  "grove-trained cascade:0,255,0:$OUT/astronaut_trained.csv" \
  "OpenCV frontalface_default (run by grove):255,64,64:$OUT/astronaut_opencv.csv"
echo "picture: docs/vision-astronaut.png"

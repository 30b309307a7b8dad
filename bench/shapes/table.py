#!/usr/bin/python3
"""The table of bench/shapes/run.sh: one row per cell, workload and thread count.

usage: table.py results.tsv header.txt

Ratios are taken round by round (grove and each peer of the same round) and shown as the median
with the range over rounds: fit = grove's fit / the peer's fit (each as the tool reports it,
binning included); proc = grove's train + predict processes / the peer's (wall); mem = grove's
peak RSS / the peer's.  Quality: AUC (bin), accuracy (mc7), RMSE (reg) of each tool, medians.
Targets (marked * when missed): d6 fit <= 0.4 x XGBoost hist; 63L fit <= 0.45 x XGBoost lossguide
and processes <= 0.5 x LightGBM's; quality within AUC 0.002 / accuracy 0.003 / RMSE 0.5 %;
peak memory <= XGBoost's.  Workload rf: grove's random forest against scikit-learn's (the
"XGBoost" columns then hold scikit-learn): fit <= 0.5 x, peak memory <= scikit-learn's.
"""
import statistics as st
import sys
from collections import defaultdict

rows = defaultdict(dict)  # (cell, wl, t) -> {(tool, rep): (fit, whole, mem, q)}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 10 or not f[5]:
        continue
    rows[(f[0], f[1], f[2])][(f[3], f[4])] = (float(f[5]), float(f[6]), float(f[7]), float(f[8]))


def ratio(d, peer, k):
    r = [d[(g, rep)][k] / d[(peer, rep)][k] for (g, rep) in d if g == "grove" and (peer, rep) in d
         and d[(peer, rep)][k] > 0]
    return r


def fmt(r, target=None):
    if not r:
        return "-"
    m = st.median(r)
    s = "%.2f" % m + (" (%.2f-%.2f)" % (min(r), max(r)) if len(r) > 1 else "")
    return s + (" *" if target is not None and m > target else "")


def quality(d, tool):
    q = [v[3] for (t, _), v in d.items() if t == tool]
    return st.median(q) if q else None


print(open(sys.argv[2]).read().strip())
print()
print("| cell | workload | threads | fit ÷ XGBoost (rf: ÷ scikit-learn) | proc ÷ LightGBM | mem ÷ XGBoost (rf: ÷ scikit-learn) | quality grove / XGBoost (rf: scikit-learn) / LightGBM |")
print("|---|---|---:|---:|---:|---:|---|")
for (cell, wl, t), d in rows.items():
    task = cell.rsplit(":", 1)[1]
    peer = "sklearn" if wl == "rf" else "xgboost"
    qs = [quality(d, x) for x in ("grove", peer, "lightgbm")]
    qtxt = " / ".join("-" if q is None else "%.4f" % q for q in qs)
    if qs[0] is not None and qs[1] is not None:
        if task == "reg":
            bad = qs[0] > qs[1] * 1.005
        else:
            bad = qs[0] < qs[1] - (0.002 if task == "bin" else 0.003)
        qtxt += " *" if bad else ""
    print("| %s | %s | %s | %s | %s | %s | %s |" % (
        cell, wl, t, fmt(ratio(d, peer, 0), {"d6": 0.4, "63L": 0.45, "rf": 0.5}.get(wl, 0.4)),
        fmt(ratio(d, "lightgbm", 1), 0.5) if wl == "63L" else "-",
        fmt(ratio(d, peer, 2), 1.0), qtxt))

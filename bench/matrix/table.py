#!/usr/bin/python3
"""Formats bench/matrix/run.sh's results.tsv as markdown tables (stdout).

usage: table.py results.tsv header.txt [other-results.tsv other-header.txt]
With a second run's files, that run's peer rows join the table (stable sort keeps each cell's
rows together, grove first); say so when you publish such a table.
1. Every row with its ratios to grove's row of the same cell: train, train-process CPU,
   whole-process and CPU time and peak memory as other / grove (> 1: grove faster or smaller),
   prediction rows/s as grove / other, quality as grove - other (grove-gvb: grove with the
   model file in the binary encoding, set against the text one).  For the grove-before row the
   ratios read before / now (> 1: faster now).
2. Issue 13's targets, as the run shows them: grove's fit time over the peer's (the fit as each
   tool reports it, wall time) and the same over train-process CPU time, met or not.
With several rounds a cell (run.sh's REPS), each (cell, tool) row of the tables is the median of
its rounds, column by column, and each training target is also given round by round (grove's
fit over the peer's of the same round): the median, the range, and in how many rounds it is met.
"""
import statistics
import sys

def load(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path) if l.strip()]
    # results without train_cpu_s or the round (older runs): round 1
    return [r[:10] + [""] * (10 - len(r[:10])) + [r[10] if len(r) > 10 and r[10] else "1"]
            for r in rows]


def medians(rows):
    """One row per (cell, tool), in first-seen order: each numeric column's median."""
    groups = {}
    for r in rows:
        groups.setdefault((r[0], r[1]), []).append(r)
    out = []
    for (cell, tool), rs in groups.items():
        row = [cell, tool]
        for k in range(2, 10):
            try:
                vals = sorted((float(r[k]), r[k]) for r in rs)
            except ValueError:
                row.append(rs[0][k])
                continue
            m = len(vals) // 2  # odd: the middle value as printed; even: the two middle ones' mean
            row.append(vals[m][1] if len(vals) % 2 else
                       "%.*f" % (max(len(v[1].partition(".")[2]) for v in vals[m - 1:m + 1]),
                                 (vals[m - 1][0] + vals[m][0]) / 2))
        out.append(row + [str(len(rs))])
    return out


by_round = {}  # (cell, tool) -> {round: row}
for r in load(sys.argv[1]):
    by_round.setdefault((r[0], r[1]), {})[r[10]] = r
n_rounds = max((len(v) for v in by_round.values()), default=1)
rows = medians(load(sys.argv[1]))
header = open(sys.argv[2]).read().strip().lstrip("# ")
print(f"Measured {header}.\n")
if n_rounds > 1:
    print(f"Each row: the median of its {n_rounds} rounds, column by column.\n")
if len(sys.argv) > 4:  # the peers' rows of another run (e.g. grove and grove-before rerun alone)
    have = {(r[0], r[1]) for r in rows}
    extra = [r for r in medians(load(sys.argv[3])) if not r[1].startswith("grove")
             and (r[0], r[1]) not in have]
    order = {c: i for i, c in enumerate(dict.fromkeys(r[0] for r in rows))}
    rows = sorted(rows + extra, key=lambda r: order.get(r[0], len(order)))
    other = open(sys.argv[4]).read().strip().lstrip("# ")
    print(f"Peer rows (XGBoost, scikit-learn, ranger, LightGBM) from the run of {other}; their ratios "
          "set them against grove's row of this run.\n")
print("| workload:data | tool | train s | train CPU s | whole s | whole CPU s | predict rows/s "
      "| peak MB | quality | load | train × | train CPU × | whole × | whole CPU × | predict × "
      "| memory × | quality ± |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def ratio(a, b):
    try:
        return "%.2f" % (float(a) / float(b)) if float(b) > 0 else ""
    except ValueError:
        return ""


grove = {r[0]: r for r in rows if r[1] == "grove"}
for cell, tool, train, whole, cpu, pred, mb, q, load, tcpu, _ in rows:
    extra = [""] * 7
    g = grove.get(cell)
    if g and tool != "grove":
        extra = [ratio(train, g[2]), ratio(tcpu, g[9]), ratio(whole, g[3]), ratio(cpu, g[4]),
                 ratio(g[5], pred), ratio(mb, g[6]), "%+.4f" % (float(g[7]) - float(q))]
    name = "**grove**" if tool == "grove" else tool
    print(f"| {cell} | {name} | {train} | {tcpu} | {whole} | {cpu} | {pred} | {mb} | {q} | {load} | "
          + " | ".join(extra) + " |")

def pcpu(r):  # CPU seconds of the predict process: both processes' minus the train process's
    try:
        return "%.2f" % (float(r[4]) - float(r[9]))
    except ValueError:
        return ""


# a short view: per cell, CPU seconds of grove's train process and of both processes, and each
# other row's ratio to them (before / now, peer / grove: > 1 = grove now faster)
cells = list(dict.fromkeys(r[0] for r in rows))
others = list(dict.fromkeys(r[1] for r in rows if r[1] != "grove"))
if grove and others:
    print("\nIn short (CPU seconds, the fair figure on a shared machine; × = other ÷ grove, "
          "train process / both processes / predict process; > 1: grove now faster):\n")
    print("| workload:data | grove train CPU s | grove whole CPU s | "
          + " | ".join(f"{o} ×" for o in others) + " |")
    print("|---|---:|---:|" + "---:|" * len(others))
    for cell in cells:
        g = grove.get(cell)
        if not g:
            continue
        cols = []
        for o in others:
            r = next((x for x in rows if x[0] == cell and x[1] == o), None)
            cols.append("%s / %s / %s" % (ratio(r[9], g[9]) or "–", ratio(r[4], g[4]) or "–",
                                          ratio(pcpu(r), pcpu(g)) or "–") if r else "")
        print(f"| {cell} | {g[9]} | {g[4]} | " + " | ".join(cols) + " |")

# the matrix's targets: (cell, peer, what, target, kind); kind 'le': grove/peer <= target,
# 'ge': peer/grove >= target (speedups), 'pred': grove rows/s / peer rows/s >= target
TARGETS = [
    ("gbdt-d6:1m", "xgboost", "depth-6 training vs XGBoost hist, 1M", 0.5, "le"),
    ("gbdt-d6:fashion", "xgboost", "depth-6 training vs XGBoost hist, fashion-MNIST", 0.5, "le"),
    ("gbdt-63L:1m", "xgboost", "63 leaves training vs XGBoost lossguide, 1M", 0.75, "le"),
    ("gbdt-63L:fashion", "xgboost", "63 leaves training vs XGBoost lossguide, fashion-MNIST",
     0.35, "le"),
    ("forest:fashion", "sklearn", "forest training vs scikit-learn, fashion-MNIST", 0.5, "le"),
    ("adaboost:100k", "sklearn", "AdaBoost training, scikit-learn / grove", 100, "ge"),
    ("adaboost:100k", "sklearn", "AdaBoost whole process, scikit-learn / grove", 20, "whole"),
    ("forest:100k", "sklearn", "forest predict process rows/s vs scikit-learn", 2, "pred"),
    ("gbdt-d6:1m", "xgboost", "gbdt predict process rows/s vs XGBoost", 2, "pred"),
]
peer = {(r[0], r[1]): r for r in rows}
# the prediction targets also with the binary model file (run.sh's grove-gvb rows)
TARGETS += [(c, p, w + " (.gvb model)", t, k, "grove-gvb") for c, p, w, t, k in TARGETS if k == "pred"]
# the gbdt training targets also with quantized gradients (run.sh's grove-qB rows)
quant = sorted({r[1] for r in rows if r[1].startswith("grove-q")})
TARGETS += [(c, p, w + " (%s)" % q.replace("grove-q", "quantized_bits="), t, k, q)
            for q in quant for c, p, w, t, k in TARGETS[:4]]
lines = []
for cell, p, what, target, kind, *tool in TARGETS:
    g, o = (peer.get((cell, tool[0])) if tool else grove.get(cell)), peer.get((cell, p))
    if not g or not o:
        continue
    try:
        if kind == "le":
            a, b = float(g[2]) / float(o[2]), (float(g[9]) / float(o[9]) if g[9] and o[9] else None)
            t = "≤ %g" % target
            ok = a <= target
        elif kind == "ge":
            a, b = float(o[2]) / float(g[2]), (float(o[9]) / float(g[9]) if g[9] and o[9] else None)
            t = "≥ %g" % target
            ok = a >= target
        elif kind == "whole":
            a, b = float(o[3]) / float(g[3]), float(o[4]) / float(g[4])
            t = "≥ %g" % target
            ok = a >= target
        else:
            a = float(g[5]) / float(o[5])
            b = float(pcpu(o)) / float(pcpu(g)) if pcpu(o) and pcpu(g) else None
            t = "≥ %g" % target
            ok = a >= target
    except (ValueError, ZeroDivisionError):
        continue
    if b is not None:
        ok_b = b <= target if kind == "le" else b >= target
        verdict = {(True, True): "met", (False, False): "**not met**",
                   (True, False): "met by wall time only", (False, True): "met by CPU only"}[
                       (ok, ok_b)]
    else:
        verdict = "met" if ok else "**not met**"
    per = ""
    if kind == "le" and n_rounds > 1:  # round by round: grove's fit over the peer's of the same round
        gr, orr = by_round.get((cell, tool[0] if tool else "grove"), {}), by_round.get((cell, p), {})
        ra = sorted(float(gr[k][2]) / float(orr[k][2]) for k in gr if k in orr)
        if ra:
            per = (f"{statistics.median(ra):.2f} ({ra[0]:.2f}–{ra[-1]:.2f}); met in "
                   f"{sum(x <= target for x in ra)} of {len(ra)}")
    lines.append(f"| {what} | {t} | {a:.2f} | " + ("%.2f" % b if b is not None else "") +
                 (f" | {per}" if n_rounds > 1 else "") + f" | {verdict} |")
if lines:
    print("\nIssue 13's targets in this run (fit time as each tool reports it; CPU: the train "
          "processes' CPU time, or for the whole-process target the CPU of both processes; "
          "prediction: rows/s of the whole predict process, and its CPU time as peer / grove):\n")
    if n_rounds > 1:
        print("(\"this run\" and \"by CPU\" set the medians of the rounds side by side; \"by round\": "
              "the ratio within each round, its median, range, and the rounds that meet the target.)\n")
        print("| target | wanted | this run | by CPU | by round | |")
        print("|---|---:|---:|---:|---|---|")
    else:
        print("| target | wanted | this run | by CPU | |")
        print("|---|---:|---:|---:|---|")
    print("\n".join(lines))

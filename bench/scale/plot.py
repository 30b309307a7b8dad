#!/usr/bin/python3
"""bench/scale's results: a markdown table (wall, CPU, peak memory, ratios to grove's) and a
log-log plot of CPU seconds and of peak memory against rows, per job and tool, with the slope of
each line between its first and last size (1 = linear in the rows; a quadratic step would push it
towards 2).  CPU time (user + system) rather than wall time: on a shared machine wall time moves
with the other work, the CPU time much less.

usage: plot.py RESULTS.tsv OUT.svg
"""
import collections
import math
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def slope(pts, i):
    ns = sorted(pts)
    if len(ns) < 2:
        return None
    return math.log(pts[ns[-1]][i] / pts[ns[0]][i]) / math.log(ns[-1] / ns[0])


def main():
    res, out = sys.argv[1], sys.argv[2]
    lines = [l.rstrip("\n").split("\t") for l in open(res)]
    head, rows = lines[0], lines[1:]
    col = {name: i for i, name in enumerate(head)}
    by = collections.defaultdict(dict)            # (job, tool) -> rows -> (cpu, peak, wall)
    for r in rows:
        n, job, tool = int(r[0]), r[1], r[2]
        wall, peak = float(r[col["wall_s"]]), int(r[col["peak_mb"]])
        cpu = float(r[col["cpu_s"]]) if "cpu_s" in col else wall
        by[(job, tool)][n] = (cpu, peak, wall)
    print("| rows | job | tool | wall s | CPU s | peak MB | CPU / grove's | peak / grove's |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for (job, tool), pts in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1] != "grove", kv[0][1])):
        for n in sorted(pts):
            cpu, peak, wall = pts[n]
            g = by[(job, "grove")].get(n)
            print("| {:,} | {} | {} | {:.1f} | {:.1f} | {:,} | {} | {} |".format(
                n, job, tool, wall, cpu, peak,
                "%.2f" % (cpu / g[0]) if g else "", "%.2f" % (peak / g[1]) if g else ""))
    print()
    fig, (ax, am) = plt.subplots(1, 2, figsize=(11, 4.5))
    for (job, tool), pts in sorted(by.items()):
        ns = sorted(pts)
        style = "-" if tool == "grove" else "--"
        ax.loglog(ns, [pts[n][0] for n in ns], style, marker="o", label="%s %s" % (job, tool))
        am.loglog(ns, [pts[n][1] for n in ns], style, marker="o", label="%s %s" % (job, tool))
        s_cpu, s_mem = slope(pts, 0), slope(pts, 1)
        if s_cpu is not None:
            print("slope of log(CPU s) / log(rows), %s %s, %s to %s rows: %.2f (peak memory: %.2f)"
                  % (job, tool, f"{ns[0]:,}", f"{ns[-1]:,}", s_cpu, s_mem))
    ax.set_xlabel("training rows")
    ax.set_ylabel("whole process, CPU seconds (user + system)")
    am.set_xlabel("training rows")
    am.set_ylabel("peak resident memory, MB")
    for a in (ax, am):
        a.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.suptitle("grove and XGBoost from 1M to 10M rows x 28 features (gbdt depth 6, forest depth 10)")
    fig.tight_layout()
    fig.savefig(out, metadata={"Date": None})


if __name__ == "__main__":
    main()

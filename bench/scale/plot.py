#!/usr/bin/python3
"""bench/scale's results: a markdown table (wall, peak memory, ratios to grove) and a log-log
plot of wall time against rows per job and tool, with the slope of each line between its first
and last size (1 = linear in the rows; a quadratic step would push it towards 2).

usage: plot.py RESULTS.tsv OUT.svg
"""
import collections
import math
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    res, out = sys.argv[1], sys.argv[2]
    rows = [l.rstrip("\n").split("\t") for l in open(res)][1:]
    by = collections.defaultdict(dict)            # (job, tool) -> rows -> (wall, peak)
    for n, job, tool, wall, peak, _ in rows:
        by[(job, tool)][int(n)] = (float(wall), int(peak))
    print("| rows | job | tool | wall s | peak MB | wall / grove's | peak / grove's |")
    print("|---|---|---|---|---|---|---|")
    for n, job, tool, wall, peak, _ in rows:
        g = by[(job, "grove")].get(int(n))
        print("| {:,} | {} | {} | {} | {:,} | {} | {} |".format(
            int(n), job, tool, wall, int(peak),
            "%.2f" % (float(wall) / g[0]) if g else "", "%.2f" % (int(peak) / g[1]) if g else ""))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    print()
    for (job, tool), pts in sorted(by.items()):
        ns = sorted(pts)
        ws = [pts[n][0] for n in ns]
        ax.loglog(ns, ws, marker="o", label="%s %s" % (job, tool))
        if len(ns) > 1:
            slope = math.log(ws[-1] / ws[0]) / math.log(ns[-1] / ns[0])
            print("slope of log(wall) against log(rows), %s %s: %.2f" % (job, tool, slope))
    ax.set_xlabel("training rows")
    ax.set_ylabel("whole process, seconds")
    ax.set_title("grove and XGBoost from 1M to 10M rows (28 features)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, metadata={"Date": None})


if __name__ == "__main__":
    main()

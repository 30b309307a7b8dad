#!/usr/bin/python3
"""Formats bench/matrix/run.sh's results.tsv as a markdown table (stdout).

usage: table.py results.tsv header.txt
Each peer row carries its ratios to grove's row of the same cell: train, whole-process and CPU
time and peak memory as peer / grove (> 1: grove faster or smaller), prediction rows/s as
grove / peer, quality as grove - peer.
"""
import sys

rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
header = open(sys.argv[2]).read().strip().lstrip("# ")
print(f"Measured {header}.\n")
print("| workload:data | tool | train s | whole s | CPU s | predict rows/s | peak MB | quality "
      "| load | train × | whole × | CPU × | predict × | memory × | quality ± |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
grove = {r[0]: r for r in rows if r[1] == "grove"}
for cell, tool, train, whole, cpu, pred, mb, q, load in rows:
    extra = [""] * 6
    g = grove.get(cell)
    if g and tool != "grove":
        f = lambda a, b: "%.2f" % (float(a) / float(b)) if float(b) > 0 else ""
        extra = [f(train, g[2]), f(whole, g[3]), f(cpu, g[4]), f(g[5], pred), f(mb, g[6]),
                 "%+.4f" % (float(g[7]) - float(q))]
    name = "**grove**" if tool == "grove" else tool
    print(f"| {cell} | {name} | {train} | {whole} | {cpu} | {pred} | {mb} | {q} | {load} | "
          + " | ".join(extra) + " |")

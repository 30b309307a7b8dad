#!/usr/bin/python3
"""loc.py -- the largest files and functions of src/ and cli/ by line count.

A function is counted from its signature's first line (a line at column 0 that is not a comment, a
preprocessor line or a declaration ending in ';') to the closing brace at column 0.
Usage: scripts/loc.py [N]   (default: the 15 largest of each)
"""
import os
import re
import sys

top = int(sys.argv[1]) if len(sys.argv) > 1 else 15
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
files, funcs = [], []
for d in ("src", "cli", "include"):
    for dirpath, _, names in os.walk(os.path.join(root, d)):
        for name in names:
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
            files.append((len(lines) - 1, rel))
            start = None
            for i, line in enumerate(lines):
                if start is None and re.match(r"^[A-Za-z_]", line) and "(" in line \
                        and not line.rstrip().endswith(";") and not line.startswith(("typedef", "struct", "enum")):
                    start, sig, opened = i, line, "{" in line
                    if opened and line.rstrip().endswith("}"):    # a function on one line
                        start = None
                elif start is not None and not opened and line.rstrip().endswith(";"):
                    start = None    # a declaration over several lines
                elif start is not None and not opened and "{" in line:
                    opened = True
                elif start is not None and line.startswith("}"):
                    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", sig)
                    funcs.append((i - start + 1, f"{rel}:{start + 1} {m.group(1) if m else sig}"))
                    start = None
files.sort(reverse=True)
funcs.sort(reverse=True)
print(f"total lines in src/, cli/, include/: {sum(n for n, _ in files)} in {len(files)} files")
print(f"\nlargest files:")
for n, rel in files[:top]:
    print(f"  {n:6d}  {rel}")
print(f"\nlargest functions ({len(funcs)} functions):")
for n, what in funcs[:top]:
    print(f"  {n:6d}  {what}")

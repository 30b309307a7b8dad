#!/usr/bin/python3
"""layers.py -- the folders are the pipeline, and dependencies point one way (ctest "layers").

A file in layer L may include (#include "...") and call only what lives in L or in a layer before it:

    core -> dist -> data -> bin -> loss -> learn -> ensemble -> model -> eval -> vision -> api -> cli

  core      status, errors, allocator, RNG, parameter table, output files, text and JSON helpers
  dist      collectives (one process, MPI): needs only core, so every layer above may reduce
  data      datasets, CSV and LIBSVM
  bin       quantile bins, binned matrix
  loss      objectives (scores -> gradients, hessians) and weighted metrics
  learn     base learners: the histogram tree engine, stump, linear learners, mlp
  ensemble  AdaBoost family, bagging, forests, gbdt, stacking, voting
  model     the container of components and its file (read, write, gzip); export to C (each component
            writes its own code through its export_c slot)
  eval      metrics over a model, cross-validation, bias-variance, diagnostics, HTML reports
  vision    images, Haar features and the attentional cascade (an ensemble of stumps plus a detector)
  api       the public entry points (include/grove.h is implemented here and by the lower layers'
            grove_* functions)
  cli       the grove program: include/grove.h only

Two checks:
  1. includes: every #include "x" under src/ and cli/ resolved to a file; its folder is its layer.
     include/grove.h (the public header: types, status codes) may be included by any layer, but see 2.
  2. calls (when GROVE_BIN names a build directory): every undefined symbol of an object file of the
     library resolved to the object file that defines it; a call into a later layer is a back edge.
     This catches what the include check cannot: a lower layer calling a public grove_* function that
     api/ implements.
Known back edges are listed in ALLOWED with the reason; anything else fails.  --graph prints the include
graph (layer -> layer: number of #include lines) and the back edges, for docs/architecture.md.
"""
import os
import re
import subprocess
import sys

ORDER = ["core", "dist", "data", "bin", "loss", "learn", "ensemble", "model", "eval", "vision", "api", "cli"]
RANK = {name: i for i, name in enumerate(ORDER)}

# "file -> later layer" -> why it is tolerated for now.  Each entry is a debt to pay, not a design; an entry
# that no longer occurs is reported so that the list only shrinks.
ALLOWED = {
    "src/eval/biasvar.c -> api": "bias-variance trains and predicts through the public grove_train and "
                                 "grove_model_predict_label",
    "src/eval/metrics.c -> api": "grove_model_evaluate predicts through the public grove_model_predict",
    "src/eval/ranking.c -> api": "grove_model_rank_metric predicts through the public grove_model_predict, "
                                 "as metrics.c does",
    "src/eval/report.c -> api": "the report predicts and reads importances through the public API",
}
used_allowed = set()

SRC = os.environ.get("GROVE_SRC", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def allowed(rel, dst):
    key = f"{rel} -> {dst}"
    if key in ALLOWED:
        used_allowed.add(key)
        return True
    return False


def layer_of(path):
    rel = os.path.relpath(path, SRC).replace(os.sep, "/")
    parts = rel.split("/")
    if parts[0] == "include":
        return "public"
    if parts[0] == "cli":
        return "cli"
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return None


def includes():
    """Yields (file, line number, included path, layer from, layer to)."""
    for top in ("src", "cli"):
        for root, _, files in os.walk(os.path.join(SRC, top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        target = os.path.normpath(os.path.join(root, m.group(1)))
                        if not os.path.exists(target):
                            target = os.path.join(SRC, "include", m.group(1))
                        if not os.path.exists(target):
                            yield path, n, m.group(1), layer_of(path), None
                            continue
                        yield path, n, m.group(1), layer_of(path), layer_of(target)


def check_includes(graph, problems):
    for path, n, inc, src, dst in includes():
        rel = os.path.relpath(path, SRC)
        if src not in RANK:
            problems.append(f"{rel}: folder '{src}' is not a layer (add it to ORDER in tests/layers.py "
                            f"and to docs/architecture.md)")
            continue
        if dst is None:
            problems.append(f"{rel}:{n}: #include \"{inc}\" names no file")
            continue
        if dst == "public":
            continue
        if dst not in RANK:
            problems.append(f"{rel}:{n}: #include \"{inc}\": folder '{dst}' is not a layer")
            continue
        graph[(src, dst)] = graph.get((src, dst), 0) + 1
        if src == "cli" and dst != "cli":
            problems.append(f"{rel}:{n}: the CLI includes \"{inc}\"; it may use include/grove.h only")
        elif RANK[dst] > RANK[src] and allowed(rel, dst):
            continue
        elif RANK[dst] > RANK[src]:
            problems.append(f"{rel}:{n}: #include \"{inc}\": {src} may not include {dst} (a later layer)")


def nm(path):
    out = subprocess.run(["nm", "-P", path], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(sym)
        elif kind in "TDBRCVW":
            defined.add(sym)
    return defined, undefined


def check_calls(build, calls, problems):
    objdir = os.path.join(build, "CMakeFiles", "grove_obj.dir")
    if not os.path.isdir(objdir):
        return False
    objects = {}
    for root, _, files in os.walk(objdir):
        for name in files:
            if name.endswith(".c.o"):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, objdir)[:-2]          # src/eval/report.c
                objects[rel] = nm(path)
    owner = {}
    for rel, (defined, _) in objects.items():
        for sym in defined:
            owner[sym] = rel
    for rel, (_, undefined) in sorted(objects.items()):
        src = rel.split("/")[1]
        for sym in sorted(undefined):
            if sym not in owner:
                continue
            dst = owner[sym].split("/")[1]
            if src == dst:
                continue
            calls.setdefault((src, dst), set()).add(sym)
            if src in RANK and dst in RANK and RANK[dst] > RANK[src] and not allowed(rel, dst):
                problems.append(f"{rel} calls {sym} ({owner[sym]}): {src} may not call into {dst} (a later layer)")
    return True


def main():
    graph, calls, problems = {}, {}, []
    check_includes(graph, problems)
    build = os.environ.get("GROVE_BIN")
    have_calls = bool(build) and check_calls(build, calls, problems)
    if "--graph" in sys.argv:
        used = [l for l in ORDER if any(l in k for k in graph) or any(l in k for k in calls)]
        print("#include lines, row includes column (B = back edge):\n")
        print("| from \\ to | " + " | ".join(used) + " |")
        print("|---" * (len(used) + 1) + "|")
        for a in used:
            cells = []
            for b in used:
                n = graph.get((a, b), 0)
                cells.append("" if n == 0 else (f"**{n} B**" if RANK[b] > RANK[a] else str(n)))
            print(f"| {a} | " + " | ".join(cells) + " |")
        back = sum(n for (a, b), n in graph.items() if RANK[b] > RANK[a])
        print(f"\nback edges (include lines): {back}")
        if have_calls:
            print("\ncalls into a later layer (symbols):")
            for (a, b), syms in sorted(calls.items()):
                if a in RANK and b in RANK and RANK[b] > RANK[a]:
                    print(f"  {a} -> {b}: {len(syms)}: " + ", ".join(sorted(syms)))
    for key in sorted(set(ALLOWED) - used_allowed):
        if have_calls:
            print(f"layers: notice: '{key}' no longer occurs: delete it from ALLOWED in tests/layers.py")
    for p in problems:
        print("layers: " + p, file=sys.stderr)
    n_inc = sum(graph.values())
    print(f"layers: {n_inc} includes checked, calls {'checked' if have_calls else 'not checked (no GROVE_BIN)'}, "
          f"{len(used_allowed)} known debts (ALLOWED), {len(problems)} against the pipeline order")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Where grove's time goes, from bench/matrix/profile.sh's perf profiles, as markdown.

usage: phases.py collapse BINARY < perf-script-output > NAME.tsv
       phases.py report PROFILE_DIR CELL...

collapse reads `perf script -F ip,sym,symoff,dso` (samples with their call chains) and writes
one line per (phase, function): samples, phase, function.  Each sample is charged to its own
code: the sampled instruction, or for a sample in the kernel the user-space instruction that
entered it (a page fault or a system call; that part of a call chain is exact, the rest is not
read since grove is built without frame pointers).  An instruction of grove's binary is looked
up with addr2line (the binary carries -g): the innermost inlined function whose source file is
one of grove's .c files names it, and that file (and for a few files the function) names the
phase -- so code inlined into an OpenMP region is still charged to the file it was written in.
Other shared objects: jansson is model save/load, zlib is CSV reading (the matrix reads
fashion-MNIST's .csv.gz and writes models uncompressed), the C library's memory functions,
its read/write system calls, libgomp and the dynamic loader get phases of their own.  The
shortest round-trip double formatting (core/dtoa.c) counts as output formatting also where a
model save calls it.

report reads PROFILE_DIR/<workload>_<data>.{train,predict}.{tsv,time} and prints, per cell,
the phases with their share of each process's samples and the CPU seconds (user + sys of the
process under perf) that share stands for, then the top functions of each process.
"""
import collections
import os
import re
import subprocess
import sys

FILE_PHASES = [
    (r"(data/(csv|input|libsvm|dataset|dataset_api|labels|array)|core/(numparse|text))\.c$",
     "CSV read + parse"),
    (r"bin/bin\.c$", "binning"),
    (r"learn/hist\.c$", "histogram build"),
    (r"learn/split\.c$", "split scan"),
    (r"learn/tree\.c$", "partition + node stats"),
    (r"(learn/(tree_pack|tree_predict)|api/predict)\.c$", "prediction"),
    (r"(loss/objective|ensemble/(gbdt|boost|adaboost_step|bagging|common)|learn/tree_component)\.c$",
     "gradients + boosting updates"),
    (r"(loss/metric|eval/\w+)\.c$", "quality summary (AUC, metrics)"),
    (r"(core/(dtoa|output)|cli/predict)\.c$", "output formatting"),
    (r"(model/\w+|core/json)\.c$", "model save/load"),
    (r"core/alloc\.c$", "memory (malloc, memset, page faults)"),
]
FILE_PHASES = [(re.compile(p), n) for p, n in FILE_PHASES]
PREDICT_FN = re.compile(r"predict|scores_to|member_output|add_member_score|alpha_sum|"
                        r"_outputs$|leaves|pack")
ORDER = ["CSV read + parse", "binning", "gradients + boosting updates", "histogram build",
         "split scan", "partition + node stats", "quality summary (AUC, metrics)", "prediction",
         "output formatting", "model save/load", "memory (malloc, memset, page faults)",
         "file I/O (kernel read/write)", "OpenMP runtime (wait, fork/join)",
         "startup (dynamic loader)", "other grove (CLI, glue)", "other"]


def grove_phase(path, fn):
    for rx, n in FILE_PHASES:
        if rx.search(path):
            if n == "gradients + boosting updates" and PREDICT_FN.search(fn):
                return "prediction"
            return n
    return "other grove (CLI, glue)"


def lookup(binary, ips):
    """ip -> (function, file) of the innermost inlined frame in one of grove's .c files"""
    out = {}
    if not ips:
        return out
    ips = sorted(ips)
    p = subprocess.run(["addr2line", "-a", "-i", "-f", "-e", binary],
                       input="\n".join("0x%x" % i for i in ips), capture_output=True, text=True)
    cur, frames = None, []

    def done():
        if cur is None:
            return
        pick = next(((f, s) for f, s in frames if re.search(r"/(src|cli)/.*\.c$", s)), None)
        if pick is None and frames:
            pick = frames[-1]
        out[cur] = pick or ("??", "??")

    lines = p.stdout.splitlines()
    i = 0
    while i < len(lines):
        if re.match(r"^0x[0-9a-f]+$", lines[i]):
            done()
            cur, frames = int(lines[i], 16), []
            i += 1
            continue
        fn = lines[i]
        src = lines[i + 1].split(":")[0] if i + 1 < len(lines) else "??"
        frames.append((fn, src))
        i += 2
    done()
    return out


def other_phase(dso, sym, via_kernel):
    base = os.path.basename(dso)
    if "libgomp" in base or "libomp" in base:
        return "OpenMP runtime (wait, fork/join)"
    if base.startswith("ld-linux"):
        return "startup (dynamic loader)"
    if "libjansson" in base:
        return "model save/load"
    if "libz" in base:  # the matrix reads fashion-MNIST's .csv.gz and saves models uncompressed
        return "CSV read + parse"
    if base.startswith("libc") or base.startswith("libm"):
        if via_kernel and re.match(r"^(__)?(read|write|pread|pwrite|open|close|fsync|"
                                   r"fdatasync|lseek|__libc_(read|write))", sym):
            return "file I/O (kernel read/write)"
        if re.match(r"^(__)?(mem|str|malloc|free|calloc|realloc|_int_|cfree|unlink|tcache|"
                    r"__libc_|sysmalloc|munmap|mmap|madvise|brk|sbrk|posix_memalign)", sym):
            return "memory (malloc, memset, page faults)"
        if re.match(r"^(__)?(exp|log|pow)|^@plt$", sym) or base.startswith("libm"):
            return "gradients + boosting updates"
        if re.search(r"printf|hack_digit|_IO_|fwrite|__mpn_mul", sym):
            return "output formatting"
        if re.search(r"strto[dfl]|str_to_mpn|round_and_return|__mpn_", sym):
            return "CSV read + parse"
    if base.startswith("[kernel"):
        return "memory (malloc, memset, page faults)"
    return "other"


FRAME = re.compile(r"^\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$")


def collapse(binary):
    samples = []  # (ip or None, dso, sym, via_kernel)
    block = []

    def flush():
        if not block:
            return
        frames = []
        for l in block:
            m = FRAME.match(l)
            if m:
                frames.append((int(m.group(1), 16), m.group(2), m.group(3)))
        block.clear()
        if not frames:
            return
        via_kernel = frames[0][2].startswith("[kernel")
        own = frames[0]
        if via_kernel:
            own = next((f for f in frames if not f[2].startswith("[kernel")), frames[0])
        ip, sym, dso = own
        sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
        samples.append((ip, dso, sym, via_kernel))

    for line in sys.stdin:
        if line.strip():
            block.append(line)
        else:
            flush()
    flush()
    real = os.path.realpath(binary)
    ips = {ip for ip, dso, _, _ in samples if os.path.realpath(dso) == real}
    where = lookup(binary, ips)
    agg = collections.Counter()
    for ip, dso, sym, via_kernel in samples:
        if os.path.realpath(dso) == real and ip in where:
            fn, src = where[ip]
            ph = grove_phase(src, fn)
            label = "%s (%s)" % (fn, "/".join(src.split("/")[-2:]))
            if via_kernel:
                label += " [kernel]"
        else:
            ph = other_phase(dso, sym, via_kernel)
            label = "%s (%s)" % (sym, os.path.basename(dso))
            if via_kernel and not dso.startswith("[kernel"):
                label += " [kernel]"
        agg[(ph, label)] += 1
    for (ph, label), n in agg.most_common():
        print(f"{n}\t{ph}\t{label}")


def read(prefix):
    rows = []
    if os.path.exists(prefix + ".tsv"):
        for line in open(prefix + ".tsv"):
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3:
                rows.append((int(parts[0]), parts[1], parts[2]))
    cpu = 0.0
    try:
        t = open(prefix + ".time").read().split()
        cpu = float(t[-2]) + float(t[-1])
    except (OSError, ValueError, IndexError):
        pass
    return rows, cpu


def report(d, cells):
    head = os.path.join(d, "header.txt")
    if os.path.exists(head):
        print("Profiled " + open(head).read().strip().lstrip("# ") + ".\n")
    print("Each process's samples (perf record -g, cpu-clock) charged to the phase of the code "
          "that ran (bench/matrix/phases.py); CPU s = the process's user + sys time under perf "
          "times the phase's share.\n")
    for cell in cells:
        name = cell.replace(":", "_")
        procs = {p: read(os.path.join(d, f"{name}.{p}")) for p in ("train", "predict")}
        tot = {p: sum(s for s, _, _ in procs[p][0]) or 1 for p in procs}
        share = {p: collections.Counter() for p in procs}
        for p, (rows, _) in procs.items():
            for s, ph, _ in rows:
                share[p][ph] += s
        cpu_all = sum(procs[p][1] for p in procs) or 1
        print(f"#### {cell}\n")
        print("| phase | train % | train CPU s | predict % | predict CPU s | share of whole CPU |")
        print("|---|---:|---:|---:|---:|---:|")
        for ph in ORDER:
            if not any(share[p].get(ph) for p in procs):
                continue
            cols, whole = [], 0.0
            for p in procs:
                f = share[p].get(ph, 0) / tot[p]
                whole += f * procs[p][1]
                cols += ["%.1f" % (100 * f), "%.2f" % (f * procs[p][1])]
            print(f"| {ph} | " + " | ".join(cols) + " | %.1f %% |" % (100 * whole / cpu_all))
        print("| **total** | 100 | %.2f | 100 | %.2f | 100 %% |\n"
              % (procs["train"][1], procs["predict"][1]))
        for p, (rows, _) in procs.items():
            top = sorted(rows, key=lambda r: -r[0])[:8]
            if top:
                print(f"Top functions, {p}: " + "; ".join(
                    "%s %.1f %%" % (label, 100 * s / tot[p]) for s, _, label in top) + ".\n")


if __name__ == "__main__":
    if sys.argv[1] == "collapse":
        collapse(sys.argv[2])
    else:
        report(sys.argv[2], sys.argv[3:])

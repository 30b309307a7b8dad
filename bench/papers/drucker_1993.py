"""Drucker, Schapire & Simard 1993, boosting by filtering with neural networks on digits
("Improving performance in neural networks using a boosting algorithm", NIPS 5; "Boosting
performance in neural networks", IJPRAI 7(4)), reproduced in shape with grove.

The paper's algorithm (Schapire 1990's filter): train network 1 on examples from an oracle; for
network 2 flip a fair coin and pass fresh examples through network 1 until it errs (heads) or is
right (tails), so network 1 is right on half of network 2's set; for network 3 keep only the
fresh examples on which networks 1 and 2 disagree; the committee votes.  The filter needs a
large supply of independent examples; the paper made it from a finite digit set with deformed
copies of the training digits.  Each network sees as many examples as the first, and all three
have the same architecture.

Ours (grove train --algo filter-boost --base mlp, one hidden layer of HIDDEN units):
  one network, the data      grove train --algo mlp on the training rows
  one network, the oracle    --algo filter-boost --set filter.depth=0 --set filter.oracle=deform:
                             one network on N fresh deformed draws -- exactly the committee's
                             first network (same seed, same draws)
  one network, 3N draws      the same with boost.sample_size = 3N (as many examples as the three
                             networks together)
  committee, data oracle     --algo filter-boost, filter.oracle=data: today's filter, which
                             reuses the N training rows
  committee, deform oracle   --algo filter-boost --set filter.oracle=deform
  e1, e2, e3                 each network's error on its own filtered distribution (measured by
                             the filter on fresh draws, stored in the model)
  g(p)                       Schapire's 3p^2 - 2p^3 with p = max(e1, e2, e3): his lemma bounds the
                             committee's error under the oracle's distribution by it; and with
                             p = network 1's test error, the committee's test error if the three
                             networks erred independently with network 1's rate
Mean +- standard error over SEEDS seeds (digits default 5, fashion-MNIST default 3); the
committee's gain is the paired difference committee - one network (same seed, same first draws).

Cost (CPU seconds, one seed): digits ~5 s; fashion-MNIST ~40 s on its FASHION_N = 3,000 training
rows (the first 3,000 of fashion_mnist_train10k.csv: all ten classes, 282-321 rows each) and the
fixed test set of the first FASHION_TEST = 2,000 rows of fashion_mnist_test.csv.gz.  The full
10,000 rows with the full 10,000-row test set cost about 4x that per seed and did not finish in
40 minutes on the loaded 2-core build machine.  JOBS = 2 seeds run at once (grove itself runs
single-threaded: the filter is sequential).
"""
import concurrent.futures
import gzip
import os
import sys

import papers as P

SETS = [
    # name, train, test, rows (train, test; 0 = all), width, height, deformation, network, seeds
    ("digits", "digits (8x8, 1,258 training rows, 539 test rows)", "digits_train.csv",
     "digits_test.csv", (0, 0), 8, 8,
     ["deform.shift=0.3", "deform.rotation=5", "deform.elastic_alpha=1", "deform.elastic_sigma=1"],
     ["base.mlp.hidden=32"], 5),
    ("fashion-MNIST", "fashion-MNIST (28x28, %d training rows, %d test rows)",
     "fashion_mnist_train10k.csv", "fashion_mnist_test.csv.gz",
     (int(os.environ.get("FASHION_N", "3000")), int(os.environ.get("FASHION_TEST", "2000"))),
     28, 28,
     ["deform.shift=1", "deform.rotation=5", "deform.elastic_alpha=3.5",
      "deform.elastic_sigma=3.5"],
     ["base.mlp.hidden=32", "base.mlp.epochs=20"], 3),
]

# The paper's numbers (USPS digits, raw error % with no rejects): Drucker's summary of the
# IJPRAI results, connectionists mailing list, 28 July 1993
# (mailman.srv.cs.cmu.edu/pipermail/connectionists/1993-July/014973.html).
PAPER = [("USPS digits, the 1990 network", 4.9, 3.6),
         ("USPS digits, a newer network", 3.3, 2.6)]
KEYS = ("one_data", "one_oracle", "one_3n", "com_data", "com_def",
        "e1", "e2", "e3", "g_max", "g_test", "gain_n", "gain_3n")


def sets(args):
    out = []
    for a in args:
        out += ["--set", a]
    return out


def g(p):
    return 3 * p * p - 2 * p ** 3


def head_rows(src, dst, n):
    """The header and the first n rows of src (gzip when it ends in .gz) into dst."""
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt") as f, open(dst, "w") as out:
        for i, line in enumerate(f):
            if i > n:
                break
            out.write(line)


def one_seed(s, tr, te, n, oracle, netp, plain, mdl):
    seed = ["--seed", s]
    r = {}
    base = ("--algo", "filter-boost", "--base", "mlp", *netp)
    P.train(tr, mdl, "--algo", "mlp", *plain, *seed)
    r["one_data"] = P.error(mdl, te)
    P.train(tr, mdl, *base, *oracle, "--set", "filter.depth=0", *seed)
    r["one_oracle"] = P.error(mdl, te)
    P.train(tr, mdl, *base, *oracle, "--set", "filter.depth=0",
            "--set", "boost.sample_size=%d" % (3 * n), *seed)
    r["one_3n"] = P.error(mdl, te)
    P.train(tr, mdl, *base, *seed)
    r["com_data"] = P.error(mdl, te)
    P.train(tr, mdl, *base, *oracle, *seed)
    r["com_def"] = P.error(mdl, te)
    e = P.info(mdl)["model"]["errors"]
    for j in range(3):
        r["e%d" % (j + 1)] = e[j]
    r["g_max"] = g(max(e))
    r["g_test"] = g(r["one_oracle"])
    r["gain_n"] = r["com_def"] - r["one_oracle"]
    r["gain_3n"] = r["com_def"] - r["one_3n"]
    os.remove(mdl)
    print("  seed %d: %s" % (s, " ".join("%s %.4f" % (k, r[k]) for k in KEYS)), file=sys.stderr)
    return r


def main():
    data = P.setup(sys.argv)[1]
    only = os.environ.get("DATASETS", "")
    jobs = int(os.environ.get("JOBS", "2"))
    tmp = P.tmpdir()
    rows = []
    for short, name, train, test, (ntr, nte), w, h, deform, net, seeds in SETS:
        if only and only not in short:
            continue
        seeds = int(os.environ.get("SEEDS", seeds))
        tr, te = os.path.join(data, train), os.path.join(data, test)
        if ntr:
            tr = os.path.join(tmp, "train.csv")
            head_rows(os.path.join(data, train), tr, ntr)
            name = name % (ntr, nte)
        if nte:
            te = os.path.join(tmp, "test.csv")
            head_rows(os.path.join(data, test), te, nte)
        n = len(P.read_csv(tr)[1])
        img = ["image.width=%d" % w, "image.height=%d" % h]
        oracle = sets(["filter.oracle=deform"] + img + deform)
        netp = sets(net)
        plain = sets([a[len("base."):] for a in net])
        print("%s: %d seeds, %d at once" % (short, seeds, jobs), file=sys.stderr)
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            res = list(pool.map(lambda s: one_seed(s, tr, te, n, oracle, netp, plain,
                                                   os.path.join(tmp, "m%d.json" % s)),
                                range(1, seeds + 1)))
        r = {k: [x[k] for x in res] for k in KEYS}
        rows.append((short, name, seeds, {k: P.mean_se(v) for k, v in r.items()}, deform, net))
    print("## Drucker, Schapire & Simard 1993: boosting by filtering with neural networks\n")
    print("Test error (%), mean ± standard error over seeds (`bench/papers/drucker_1993.sh`).  "
          "Every network: one hidden layer of the same size; each trains on as many examples as "
          "the training set has rows (N), except the 3N column.  Gain: the committee (deform "
          "oracle) minus one network, paired by seed, in points.\n")
    print("| data (seeds) | one network, the data | one network, N oracle draws | "
          "one network, 3N oracle draws | committee, data oracle | committee, deform oracle | "
          "gain vs N draws | gain vs 3N draws |")
    print("|---|---|---|---|---|---|---|---|")
    for short, name, seeds, m, _, _ in rows:
        print("| %s (%d) | %s | %s | %s | %s | **%s** | %s | %s |" % (
            name, seeds, *(P.fmt_pct(*m[k][:2]) for k in
                           ("one_data", "one_oracle", "one_3n", "com_data", "com_def")),
            "%+.1f ± %.1f" % (100 * m["gain_n"][0], 100 * m["gain_n"][1]),
            "%+.1f ± %.1f" % (100 * m["gain_3n"][0], 100 * m["gain_3n"][1])))
    print("\nThe committee of the deform oracle, its networks on their own filtered "
          "distributions, and Schapire's prediction (%):\n")
    print("| data | e1 (network 1 on EX) | e2 (network 2 on EX2) | e3 (network 3 on EX3) | "
          "g(max e) | committee, test | p = network 1's test error | g(p) = 3p² − 2p³ |")
    print("|---|---|---|---|---|---|---|---|")
    for short, name, seeds, m, _, _ in rows:
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            short, *(P.fmt_pct(*m[k][:2]) for k in
                     ("e1", "e2", "e3", "g_max", "com_def", "one_oracle", "g_test"))))
    print("\nThe paper's numbers beside ours (test error %, no rejects; ratio = committee / one "
          "network):\n")
    print("| data | one network | committee | ratio |")
    print("|---|---|---|---|")
    for name, one, com in PAPER:
        print("| paper: %s | %.1f | %.1f | %.2f |" % (name, one, com, com / one))
    for short, name, seeds, m, _, _ in rows:
        for col, label in (("one_data", "the data"), ("one_oracle", "N oracle draws")):
            print("| ours: %s, one network on %s | %s | %s | %.2f |" % (
                short, label, P.fmt_pct(m[col][0]), P.fmt_pct(m["com_def"][0]),
                m["com_def"][0] / m[col][0]))
    print("\nSettings: " + "; ".join(
        "%s: %s, network %s" % (short, " ".join(d), " ".join(net))
        for short, _, _, _, d, net in rows) + ".")
    print("EX is the deform oracle (a training row drawn at random, then shifted and rotated "
          "uniformly within those bounds, and elastically distorted; data/oracle.h), EX2 and EX3 "
          "the filtered oracles: EX2 a fair coin picks whether the next example is one network 1 "
          "gets right or wrong, EX3 passes only examples on which networks 1 and 2 disagree.  "
          "Each e_j is measured on max(N, 2,000) fresh draws from the network's own oracle.")
    for fn in os.listdir(tmp):
        os.remove(os.path.join(tmp, fn))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()

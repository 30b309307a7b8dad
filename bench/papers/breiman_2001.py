"""Breiman 2001, "Random forests" (Machine Learning 45:5-32), Table 2, reproduced with grove.

Protocol (paper, sec. 4-5): Forest-RI -- bootstrap samples, unpruned CART trees, F inputs drawn at
random at every node -- 100 trees, plurality vote.  On every random 90/10 split two forests are
grown, F = 1 and F = int(log2 M + 1); "selection" is the test error of the one with the lower
out-of-bag (OOB) error, "single input" that of F = 1.  The paper's last column is the error of
the individual trees (their OOB estimate, averaged over the forest).  Synthetic sets: 300
training and 3,000 test rows drawn afresh every repetition.

Ours, on every split (seed = split index; papers.split):
  forest F=1, F=int(log2 M+1)   grove train --algo forest --rounds 100 --set max_features=F
                                --set bagging.vote=hard; the OOB error read from `grove info`
  selection                     the forest with the smaller OOB error (ties: F = 1)
  one tree                      the test error of one tree of the selected forest's kind
                                (--rounds 1): the individual tree's error, measured on the test
                                set rather than OOB
  OOB - test                    the selected forest's OOB estimate minus its test error; the
                                paper (sec. 3.1) finds the OOB estimate as accurate as a test
                                set of the training set's size, i.e. unbiased
twonorm, ringnorm: Breiman's generators (1996, "Bias, variance and arcing classifiers"; also R's
mlbench.twonorm/ringnorm, which made DATA_DIR's copies): 20 inputs; twonorm N(+-a 1, I),
a = 2/sqrt(20); ringnorm N(0, 4 I) against N(a 1, I), a = 1/sqrt(20); equal priors.  Their Bayes
errors are the floors: twonorm Phi(-2) exactly; ringnorm by Monte Carlo of the Bayes rule (the
log-likelihood ratio) on BAYES_MC draws; and the Bayes rule's error on each repetition's own test
rows (the floor for those very rows).
REPS (default 100) splits of the real sets; SYNTH_REPS (default 20) fresh synthetic draws.
"""
import math
import os
import random
import sys

import papers as P

# (file, label, M, paper's selection, single input, one tree in %, note)
REAL = [
    ("breast_cancer", "breast cancer", 30, 2.9, 2.7, 6.3,
     "ours: Wisconsin diagnostic (569 x 30); the paper: Wisconsin original (699 x 9)"),
    ("ionosphere", "ionosphere", 34, 7.1, 7.5, 12.7, ""),
    ("pima_indians_diabetes", "diabetes (pima)", 8, 24.2, 24.3, 33.1, ""),
    ("glass", "glass", 9, 20.6, 21.2, 36.9, ""),
    ("sonar", "sonar", 60, 15.9, 18.0, 31.7, ""),
]
SYNTH = [("twonorm", 3.9, 3.9, 24.7), ("ringnorm", 4.9, 4.9, 25.7)]
D = 20


def gen(kind, n, rng):
    """n rows of Breiman's twonorm or ringnorm (classes 1 and 2 alternate, n/2 each)."""
    rows, xs, ys = [], [], []
    for i in range(n):
        y = 1 + (i % 2)
        if kind == "twonorm":
            a = (2 / math.sqrt(D)) * (1 if y == 1 else -1)
            x = [rng.gauss(a, 1) for _ in range(D)]
        elif y == 1:
            x = [rng.gauss(0, 2) for _ in range(D)]
        else:
            x = [rng.gauss(1 / math.sqrt(D), 1) for _ in range(D)]
        xs.append(x)
        ys.append(y)
        rows.append("%d," % y + ",".join("%.6f" % v for v in x))
    return rows, xs, ys


def bayes(kind, x):
    """The Bayes rule: the class of larger density (equal priors)."""
    if kind == "twonorm":
        return 1 if sum(x) > 0 else 2
    a = 1 / math.sqrt(D)
    # log N(x; 0, 4I) - log N(x; a1, I) = -|x|^2/8 - D log 2 + |x - a1|^2/2
    llr = -sum(v * v for v in x) / 8 - D * math.log(2) + sum((v - a) ** 2 for v in x) / 2
    return 1 if llr > 0 else 2


def bayes_error_mc(kind, n, seed):
    if kind == "twonorm":
        return 0.5 * math.erfc(2 / math.sqrt(2)), 0.0  # Phi(-2): the means are 4 sd apart
    rng = random.Random(seed)
    _, xs, ys = gen(kind, n, rng)
    wrong = sum(bayes(kind, x) != y for x, y in zip(xs, ys))
    p = wrong / n
    return p, math.sqrt(p * (1 - p) / n)


def forests(tmp, tr_csv, te_csv, m, seed):
    """Returns (selection test error, F=1 test error, one tree test error, OOB of selection)."""
    mdl = os.path.join(tmp, "f.model")
    res = []
    for f in (1, int(math.log2(m) + 1)):
        P.train(tr_csv, mdl, "--algo", "forest", "--rounds", 100, "--seed", seed,
                "--set", "max_features=%d" % f, "--set", "bagging.vote=hard")
        res.append((P.info(mdl)["model"]["oob_error"], P.error(mdl, te_csv), f))
    sel = res[0] if res[0][0] <= res[1][0] else res[1]
    P.train(tr_csv, mdl, "--algo", "forest", "--rounds", 1, "--seed", seed,
            "--set", "max_features=%d" % sel[2])
    return sel[1], res[0][1], P.error(mdl, te_csv), sel[0]


def cells(e_sel, e_one, e_tree, oob, p_sel, p_one, p_tree):
    s, o, t = P.mean_se(e_sel), P.mean_se(e_one), P.mean_se(e_tree)
    d = P.mean_se([a - b for a, b in zip(oob, e_sel)])
    return [P.fmt_pct(*s[:2]), "%.1f" % p_sel, P.fmt_diff(s[0], p_sel),
            P.fmt_pct(*o[:2]), "%.1f" % p_one, P.fmt_diff(o[0], p_one),
            P.fmt_pct(*t[:2]), "%.1f" % p_tree,
            P.fmt_pct(P.mean_se(oob)[0]), "%+.1f ± %.1f" % (100 * d[0], 100 * d[1])], (s, o, t)


def main():
    data = P.setup(sys.argv)[1]
    reps = int(os.environ.get("REPS", "100"))
    synth_reps = int(os.environ.get("SYNTH_REPS", "20"))
    n_mc = int(os.environ.get("BAYES_MC", "200000"))
    only = os.environ.get("DATASETS", "").split()
    tmp = P.tmpdir()
    tr_csv, te_csv = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
    lines, far = [], []
    for name, label, m, p_sel, p_one, p_tree, note in REAL:
        if only and name not in only:
            continue
        header, rows = P.read_csv(os.path.join(data, name + ".csv"))
        acc = ([], [], [], [])
        for r in range(reps):
            tr, te = P.split(rows, 0.10, 2000 + r)
            P.write_csv(tr_csv, header, tr)
            P.write_csv(te_csv, header, te)
            for a, v in zip(acc, forests(tmp, tr_csv, te_csv, m, r)):
                a.append(v)
        c, st = cells(*acc, p_sel, p_one, p_tree)
        lines.append("| %s | %s | – |" % (label, " | ".join(c)))
        if abs(100 * st[0][0] - p_sel) > 2 * 100 * st[0][1]:
            far.append((label, 100 * st[0][0] - p_sel))
    floors = []
    header = "label," + ",".join("x%d" % (j + 1) for j in range(D))
    for kind, p_sel, p_one, p_tree in SYNTH:
        if only and kind not in only:
            continue
        acc = ([], [], [], [])
        emp = []
        for r in range(synth_reps):
            rng = random.Random(5000 + r)
            tr, _, _ = gen(kind, 300, rng)
            te, xs, ys = gen(kind, 3000, rng)
            P.write_csv(tr_csv, header, tr)
            P.write_csv(te_csv, header, te)
            for a, v in zip(acc, forests(tmp, tr_csv, te_csv, D, r)):
                a.append(v)
            emp.append(sum(bayes(kind, x) != y for x, y in zip(xs, ys)) / len(ys))
        c, st = cells(*acc, p_sel, p_one, p_tree)
        b, b_se = bayes_error_mc(kind, n_mc, 77)
        e = P.mean_se(emp)
        lines.append("| %s | %s | %s |" % (kind, " | ".join(c),
                                           "%.2f (rule on our test rows: %.2f)" % (100 * b, 100 * e[0])))
        floors.append((kind, b, b_se, e[0]))
        if abs(100 * st[0][0] - p_sel) > 2 * 100 * st[0][1]:
            far.append((kind, 100 * st[0][0] - p_sel))
    print("## Breiman 2001, \"Random forests\": Forest-RI, OOB estimate, Bayes floors\n")
    print("Test error (%%), mean ± standard error over %d random 90/10 splits (real sets) or %d fresh "
          "300/3,000 draws (twonorm, ringnorm); 100 trees, hard vote (`bench/papers/breiman_2001.sh`; "
          "paper: Table 2, 100 repetitions).\n" % (reps, synth_reps))
    print("| data | selection | paper | diff | F = 1 | paper | diff | one tree | paper (OOB) | "
          "OOB estimate | OOB − test | Bayes error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    print("\nSelection: of the forests with F = 1 and F = int(log2 M + 1) inputs per node, the one "
          "with the lower OOB error.  One tree: a single tree of the selected kind on the test "
          "rows (the paper: the trees' OOB error).  OOB − test: the selected forest's OOB "
          "estimate minus its test error, mean ± s.e. over the repetitions; the paper finds the "
          "OOB estimate unbiased.")
    for kind, b, b_se, e in floors:
        if kind == "twonorm":
            print("Bayes error of twonorm: Φ(−2) = %.2f %% exactly (the class means are 4 standard "
                  "deviations apart along the diagonal; Breiman quotes 2.3 %%)." % (100 * b))
        else:
            verdict = ("agrees with it" if abs(b - 0.013) <= 2 * b_se else
                       "is %s: the quoted value does not follow from the stated definition "
                       "(a = 1/sqrt(20), as in mlbench)" % ("higher" if b > 0.013 else "lower"))
            print("Bayes error of ringnorm: %.2f ± %.2f %% by Monte Carlo of the likelihood-ratio "
                  "rule (%d draws); Breiman quotes 1.3 %%, and ours %s." %
                  (100 * b, 100 * b_se, n_mc, verdict))
    if far:
        print("\nMore than two standard errors from the paper's selection column: " +
              ", ".join("%s (%+.1f)" % f for f in far) + ".  Why:")
        for label, _ in far:
            if label in WHY:
                print("- %s: %s." % (label, WHY[label]))
        print("- all: %s." % WHY_ALL)
    for fn in os.listdir(tmp):
        os.remove(os.path.join(tmp, fn))
    os.rmdir(tmp)


WHY = {
    "breast cancer": "not the same data (ours: scikit-learn's diagnostic set, 569 x 30; the paper's: "
                     "the original Wisconsin set, 699 x 9), as in the bagging table",
    "twonorm": "fresh draws of 300 training rows carry their own spread (the paper's 3.9 is a mean "
               "over other draws); the Bayes floor is 2.3, so both sit well above it",
    "ringnorm": "as twonorm: the data are other draws of the same generator",
}
WHY_ALL = ("grove's trees split on at most 255 quantile bins per input and send vote ties to the "
           "lowest class; the paper's means carry about our standard error too, which the 2-s.e. "
           "flag does not include")


if __name__ == "__main__":
    main()

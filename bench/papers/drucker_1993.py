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
Mean +- standard error over SEEDS seeds (digits default 5, fashion-MNIST default 3).
"""
import os
import sys

import papers as P

SETS = [
    # name, train, test, width, height, deformation, network, seeds
    ("digits (8x8, 1,258 training rows)", "digits_train.csv", "digits_test.csv", 8, 8,
     ["deform.shift=0.3", "deform.rotation=5", "deform.elastic_alpha=1", "deform.elastic_sigma=1"],
     ["base.mlp.hidden=32"], 5),
    ("fashion-MNIST (28x28, the first 10,000 training rows)", "fashion_mnist_train10k.csv",
     "fashion_mnist_test.csv.gz", 28, 28,
     ["deform.shift=1", "deform.rotation=5", "deform.elastic_alpha=3.5",
      "deform.elastic_sigma=3.5"],
     ["base.mlp.hidden=32", "base.mlp.epochs=20"], 3),
]


def sets(args):
    out = []
    for a in args:
        out += ["--set", a]
    return out


def g(p):
    return 3 * p * p - 2 * p ** 3


def main():
    data = P.setup(sys.argv)[1]
    only = os.environ.get("DATASETS", "")
    tmp = P.tmpdir()
    mdl = os.path.join(tmp, "m.json")
    rows = []
    for name, train, test, w, h, deform, net, seeds in SETS:
        if only and only not in name:
            continue
        seeds = int(os.environ.get("SEEDS", seeds))
        tr, te = os.path.join(data, train), os.path.join(data, test)
        n = len(P.read_csv(tr)[1]) if train.endswith(".csv") else 0
        img = ["image.width=%d" % w, "image.height=%d" % h]
        oracle = sets(["filter.oracle=deform"] + img + deform)
        netp = sets(net)
        plain = sets([a[len("base."):] for a in net])
        r = {k: [] for k in ("one_data", "one_oracle", "one_3n", "com_data", "com_def",
                             "e1", "e2", "e3", "g_max", "g_test")}
        for s in range(1, seeds + 1):
            seed = ["--seed", s]
            P.train(tr, mdl, "--algo", "mlp", *plain, *seed)
            r["one_data"].append(P.error(mdl, te))
            P.train(tr, mdl, "--algo", "filter-boost", "--base", "mlp", *netp, *oracle,
                    "--set", "filter.depth=0", *seed)
            r["one_oracle"].append(P.error(mdl, te))
            P.train(tr, mdl, "--algo", "filter-boost", "--base", "mlp", *netp, *oracle,
                    "--set", "filter.depth=0", "--set", "boost.sample_size=%d" % (3 * n), *seed)
            r["one_3n"].append(P.error(mdl, te))
            P.train(tr, mdl, "--algo", "filter-boost", "--base", "mlp", *netp, *seed)
            r["com_data"].append(P.error(mdl, te))
            P.train(tr, mdl, "--algo", "filter-boost", "--base", "mlp", *netp, *oracle, *seed)
            r["com_def"].append(P.error(mdl, te))
            e = P.info(mdl)["model"]["errors"]
            for j in range(3):
                r["e%d" % (j + 1)].append(e[j])
            r["g_max"].append(g(max(e)))
            r["g_test"].append(g(r["one_oracle"][-1]))
        rows.append((name, seeds, {k: P.mean_se(v) for k, v in r.items()}, deform, net))
    print("## Drucker, Schapire & Simard 1993: boosting by filtering with neural networks\n")
    print("Test error (%), mean ± standard error over seeds (`bench/papers/drucker_1993.sh`).  "
          "Every network: one hidden layer, the same size; each sees as many examples as the "
          "training set has rows (N), except the 3N column.\n")
    print("| data (seeds) | one network, the data | one network, N oracle draws | "
          "one network, 3N oracle draws | committee, data oracle | committee, deform oracle |")
    print("|---|---|---|---|---|---|")
    for name, seeds, m, _, _ in rows:
        print("| %s (%d) | %s | %s | %s | %s | **%s** |" % (
            name, seeds, *(P.fmt_pct(*m[k][:2]) for k in
                           ("one_data", "one_oracle", "one_3n", "com_data", "com_def"))))
    print("\nThe committee of the deform oracle, its networks on their own filtered "
          "distributions, and Schapire's prediction:\n")
    print("| data | e1 (network 1 on EX) | e2 (network 2 on EX2) | e3 (network 3 on EX3) | "
          "g(max e) | committee, test | g(network 1's test error) |")
    print("|---|---|---|---|---|---|---|")
    for name, seeds, m, _, _ in rows:
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            name.split(" (")[0], *(P.fmt_pct(*m[k][:2]) for k in
                                   ("e1", "e2", "e3", "g_max", "com_def", "g_test"))))
    print("\nSettings: " + "; ".join(
        "%s: %s, network %s" % (name.split(" (")[0], " ".join(d), " ".join(net))
        for name, _, _, d, net in rows) + ".")
    print("EX is the deform oracle (a training row drawn at random, then shifted and rotated "
          "uniformly within those bounds, and elastically distorted; data/oracle.h), EX2 and EX3 the filtered oracles.  "
          "e2 near 50 % is by construction only for network 1 (network 1 errs on half of EX2); "
          "network 2's own error on EX2 measures how much it learned from the hard half.")
    for fn in os.listdir(tmp):
        os.remove(os.path.join(tmp, fn))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()

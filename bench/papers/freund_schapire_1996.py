#!/usr/bin/python3
"""Freund & Schapire 1996, "Experiments with a new boosting algorithm" (ICML), Table 2: test
error of a weak learner alone, boosted (AdaBoost.M1, error-based; AdaBoost.M2, pseudo-loss, on
multiclass sets only) and bagged, T = 100 rounds, for the public sets grove has among the
paper's benchmarks: iris, glass (multiclass), ionosphere, sonar, breast cancer, pima, house
votes (two classes).

usage: freund_schapire_1996.py [GROVE_BIN] [DATA_DIR]      REPS=10 (the paper's 10 runs)

Protocol (the paper's for sets without a test set): 10-fold cross-validation averaged over 10
runs (`grove cv --folds 10 --seed r`, stratified folds, r = 0..REPS-1); ours as mean ± standard
error over the runs.  Learners: the paper's FindAttrTest (the single attribute test -- value or
threshold -- with the least error) is grove's stump; C4.5 (default options, pruning on) is
grove's tree with the entropy criterion and at least 2 rows a leaf -- grove has no
pessimistic-error pruning, so our tree is unpruned (C4.5's -m 2 is kept).  Boosting by
reweighting; bagging by bootstrap samples of size N with simple voting.  The paper's numbers
(Table 2, its "–" / "boost" / "bag" columns and the pseudo-loss "boost" column) were read from
the author's copy (cseweb.ucsd.edu/~yfreund/papers/boostingexperiments.pdf) as quoted in
public reproduction notes; FindDecRule has no grove counterpart and is left out.  The rows of
breast-cancer-w, pima-indians-di and house-votes-84 could not be read here (no copy of the
table's text for them was found), so those rows print ours with "n/a" for the paper.
"""
import os
import sys

import papers as P

# paper, Table 2 (% test error): stumps alone, M1, bag, M2 (pseudo-loss); C4.5 alone, boost, bag
PAPER = {
    "iris": {"stump": 35.2, "stump_m1": 4.7, "stump_bag": 28.4, "stump_m2": 4.8,
             "tree": 5.9, "tree_boost": 5.0, "tree_bag": 5.0},
    "glass": {"stump": 51.5, "stump_m1": 51.1, "stump_bag": 50.9, "stump_m2": 29.4,
              "tree": 31.7, "tree_boost": 22.7, "tree_bag": 25.7},
    "ionosphere": {"stump": 17.8, "stump_m1": 8.5, "stump_bag": 17.3, "stump_m2": None,
                   "tree": 8.9, "tree_boost": 5.8, "tree_bag": 6.2},
    "sonar": {"stump": 25.9, "stump_m1": 16.5, "stump_bag": 25.9, "stump_m2": None,
              "tree": 28.9, "tree_boost": 19.0, "tree_bag": 24.3},
    # in the paper's Table 2, but its numbers for these rows were not available here
    "breast_cancer": None, "pima_indians_diabetes": None, "house_votes84": None,
}
LABEL = {"breast_cancer": "breast cancer (diagnostic)", "pima_indians_diabetes": "pima",
         "house_votes84": "house votes 84"}
TREE = ["--set", "criterion=entropy", "--set", "min_samples_leaf=2"]
BASE_TREE = ["--set", "base=tree", "--set", "base.criterion=entropy",
             "--set", "base.min_samples_leaf=2"]
CONFIGS = [
    ("stump", "stump alone", ["--algo", "stump"]),
    ("stump_m1", "stumps, AdaBoost.M1", None),  # adaboost for two classes, m1 for more
    ("stump_bag", "stumps, bagged", ["--algo", "bagging", "--set", "base=stump",
                                     "--set", "rounds=100"]),
    ("stump_m2", "stumps, AdaBoost.M2", ["--algo", "adaboost.m2", "--set", "base=stump",
                                         "--set", "rounds=100"]),
    ("tree", "C4.5-like tree", ["--algo", "tree"] + TREE),
    ("tree_boost", "tree, boosted (M1)", None),
    ("tree_bag", "tree, bagged", ["--algo", "bagging", "--set", "rounds=100"] + BASE_TREE),
]


def main():
    grove, data = P.setup(sys.argv)
    reps = int(os.environ.get("REPS", "10"))
    print("## Freund & Schapire 1996, Table 2: weak learners alone, boosted and bagged\n")
    print("10-fold cross-validation × %d runs, T = 100 rounds; %% test error, ours (mean ± s.e. "
          "over runs) / the paper's / difference.\n" % reps)
    print("| data | " + " | ".join(c[1] for c in CONFIGS) + " |")
    print("|---|" + "---|" * len(CONFIGS))
    for name, paper in PAPER.items():
        path = os.path.join(data, name + ".csv")
        k = len(set(l.split(",")[0] for l in open(path).read().splitlines()[1:]))
        boost = "adaboost" if k == 2 else "adaboost.m1"
        cells = []
        for key, _, args in CONFIGS:
            if key == "stump_m2" and k == 2:
                cells.append("– (two classes)")
                continue
            if key == "stump_m1":
                args = ["--algo", boost, "--set", "base=stump", "--set", "rounds=100"]
            if key == "tree_boost":
                args = ["--algo", boost, "--set", "rounds=100"] + BASE_TREE
            errs = [P.cv_error(path, 10, r, *args) for r in range(reps)]
            m, se, _ = P.mean_se(errs)
            if paper is None:
                cells.append("%s / n/a" % P.fmt_pct(m, se))
            else:
                cells.append("%s / %s / %s" % (P.fmt_pct(m, se), P.fmt_pct(paper[key] / 100.0)
                                               if paper[key] is not None else "–",
                                               P.fmt_diff(m, paper[key])))
            print("  %s %s: %.3f" % (name, key, m), file=sys.stderr)
        print("| %s (K = %d) | %s |" % (LABEL.get(name, name), k, " | ".join(cells)))
    print("""
What agrees and what does not:
- The paper's central findings hold: boosting stumps with the error (M1) fails on glass's six
  classes while boosting with the pseudo-loss (M2) works (the paper's 51.1 vs 29.4); on the
  two-class sets boosted stumps are competitive with boosted trees; boosting and bagging the
  tree both beat the tree alone.
- Where we part from the paper: its boosted C4.5 beats its bagged C4.5 on glass, ionosphere and
  sonar (iris ties), ours are within about a point of each other on iris, glass and ionosphere and
  bagging is ahead on sonar; grove bags unpruned trees (lower bias, more variance for the vote to
  remove) where the paper bagged pruned ones, which is also why our bagged trees beat the paper's
  by 3-6 points on glass and sonar.
- Differences beyond the paper's spread come from the learners, not the protocol: grove's tree is
  CART-shaped (binary numeric splits, entropy here) without C4.5's pessimistic pruning, which is
  worse alone on ionosphere and glass (better on sonar) and matters less once boosted or bagged;
  grove's stump splits numeric features only by threshold where FindAttrTest may also test a
  single value; the UCI files of 1996 and these copies (mlbench) may differ in a few rows.
- Breast cancer, pima, house votes: the paper has these rows (breast-cancer-w, pima-indians-di,
  house-votes-84) but its numbers for them could not be read here: no copy of Table 2's text
  for these rows was found (the public reproduction notes quote only iris, glass, ionosphere,
  sonar, vehicle and segmentation), so "n/a" stands where the paper's number would be, and
  nothing is compared.  Our breast cancer is the Wisconsin *diagnostic* set (569 x 30), not the
  paper's original Wisconsin set (699 x 9); house votes has 16 categorical y/n/missing inputs
  (grove splits a category set in two and sends a missing value to the side with the larger gain).
- Bagged stumps on iris (ours far below the paper's 28.4, with a large spread between runs):
  FindAttrTest picks the test with the least training error, and on iris's three equal classes
  every two-way test ties at 1/3, so its bootstrap stumps keep drawing the same kind of split and
  the vote cannot name all three classes; grove's stump picks the gini-best split, the bootstrap
  samples alternate between the setosa boundary and the versicolor/virginica one, and the
  plurality vote combines them when both kinds are drawn often enough (the run-to-run spread).
Regenerate: `ONLY=freund_schapire_1996 bench/papers/run.sh` (REPS=3 for a quick look).""")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# The main job on bundled data: installs dependencies, builds grove, trains a depth-5 CART tree
# on the Wisconsin breast-cancer training split and evaluates it on the test split; then ID3 on
# the house-votes data (categorical features with missing values, no encoding needed); then
# AdaBoost with stumps on twonorm with its per-round bound log and margins.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh # the build scripts/test.sh uses too: running both builds once
# the Python package (scikit-learn estimators over libgrove) for Debian's /usr/bin/python3; on a
# PEP 668 system pip needs --break-system-packages to write to /usr/local (not apt's files)
pep668=; ls /usr/lib/python3*/EXTERNALLY-MANAGED >/dev/null 2>&1 && pep668=--break-system-packages
GROVE_LIB="$PWD/build/libgrove.so" /usr/bin/python3 -m pip install -q --no-index --no-build-isolation \
  $pep668 ./python >/dev/null
rm -rf python/build python/grove.egg-info
mkdir -p build/demo
set -x
build/grove train examples/data/breast_cancer_train.csv -o build/demo/breast_cancer.model --set max_depth=5 --seed 1
build/grove eval build/demo/breast_cancer.model examples/data/breast_cancer_test.csv
build/grove train examples/data/house_votes84_train.csv -o build/demo/votes.model --algo id3 --set max_depth=4
build/grove eval build/demo/votes.model examples/data/house_votes84_test.csv
# AdaBoost with stumps: the per-round log (training error <= prod Z <= exp(-2 sum gamma^2)),
# the test error, and the margins' distribution
build/grove train examples/data/twonorm_train.csv -o build/demo/ada.model --algo adaboost --rounds 100 \
  --log build/demo/ada_log.csv --valid examples/data/twonorm_test.csv -q
head -3 build/demo/ada_log.csv
tail -1 build/demo/ada_log.csv
build/grove eval build/demo/ada.model examples/data/twonorm_test.csv
build/grove margins build/demo/ada.model examples/data/twonorm_train.csv --cdf-only >build/demo/margins.csv
head -4 build/demo/margins.csv
# the same from Python: fit, predict_proba, the per-round log
top=$PWD; (cd /tmp && /usr/bin/python3 -c "
import grove, pandas as pd
tr = pd.read_csv('$top/examples/data/twonorm_train.csv')
ada = grove.AdaBoostClassifier(algorithm='adaboost', n_estimators=100).fit(tr.drop(columns='label'), tr['label'])
print('grove', grove.__version__, ada, 'train error', ada.log_['train_error'][-1], '<= prod Z', ada.log_['prod_Z'][-1])")

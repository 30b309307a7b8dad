"""scikit-learn's check_estimator for every grove estimator (scikit-learn 1.2's checks, through
parametrize_with_checks so that each check is one pytest item).

ctest runs this file in four entries, each with GROVE_CHECK_GROUP naming a group below, so the
groups run in parallel.  Ensembles get few members to keep the checks fast.  Checks an estimator
cannot pass are declared in its `_xfail_checks()` with the reason (scikit-learn then marks them
xfail): see README.md in python/ for the list.
"""
import os

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import grove as g


def _instances():
    small = dict(n_estimators=5)
    return {
        "trees": [g.DecisionTreeClassifier(), g.DecisionTreeClassifier(algorithm="id3"),
                  g.DecisionTreeRegressor(), g.PerceptronClassifier(), g.LogisticRegression(),
                  g.MLPClassifier(max_iter=50)],
        "boosting": [g.AdaBoostClassifier(**small), g.AdaBoostClassifier(algorithm="m2", **small),
                     g.AdaBoostClassifier(algorithm="samme.r", **small),
                     g.AdaBoostClassifier(algorithm="m1", mode="resample", **small),
                     g.AdaBoostRegressor(**small), g.FilterBoostClassifier(),
                     g.ConfidenceBoostClassifier(base=g.DecisionTreeClassifier(max_depth=3),
                                                 epsilon=0.999, delta=0.999),
                     g.GradientBoostingClassifier(**small), g.GradientBoostingRegressor(**small)],
        "bagging": [g.BaggingClassifier(**small), g.BaggingRegressor(**small),
                    g.RandomForestClassifier(**small), g.RandomForestRegressor(**small),
                    g.ExtraTreesClassifier(**small), g.ExtraTreesRegressor(**small)],
        "meta": [g.StackingClassifier(estimators=[g.DecisionTreeClassifier(),
                                                  g.LogisticRegression()], cv=3),
                 g.StackingRegressor(estimators=[g.DecisionTreeRegressor(),
                                                 g.RandomForestRegressor(n_estimators=5)], cv=3),
                 g.VotingClassifier(), g.VotingRegressor(), g.StackingClassifier()],
    }


_groups = os.environ.get("GROVE_CHECK_GROUP", "trees,boosting,bagging,meta").split(",")
_ests = [e for name in _groups for e in _instances()[name]]


@parametrize_with_checks(_ests)
def test_sklearn_compatible(estimator, check):
    check(estimator)

"""grove: ensemble learning (AdaBoost and its theory, bagging, forests, gradient boosting,
stacking, voting) as scikit-learn estimators, and Viola-Jones cascades (grove.Cascade), over libgrove (ctypes; the GIL is released while
the library trains and predicts)."""
from ._lib import version as _version, GroveError, LIB_PATH
from .core import Model
from .vision import Cascade
from .convert import ConvertedModel, from_sklearn, from_xgboost
from .estimators import (
    DecisionTreeClassifier, DecisionTreeRegressor, PerceptronClassifier, LogisticRegression,
    MLPClassifier, AdaBoostClassifier, AdaBoostRegressor, FilterBoostClassifier,
    ConfidenceBoostClassifier, GradientBoostingClassifier, GradientBoostingRegressor,
    GradientBoostingRanker, BaggingClassifier, BaggingRegressor, RandomForestClassifier,
    RandomForestRegressor, ExtraTreesClassifier, ExtraTreesRegressor, StackingClassifier,
    StackingRegressor, VotingClassifier, VotingRegressor, bias_variance)

__version__ = _version()

ALL_ESTIMATORS = [
    DecisionTreeClassifier, DecisionTreeRegressor, PerceptronClassifier, LogisticRegression,
    MLPClassifier, AdaBoostClassifier, AdaBoostRegressor, FilterBoostClassifier,
    ConfidenceBoostClassifier, GradientBoostingClassifier, GradientBoostingRegressor,
    BaggingClassifier, BaggingRegressor, RandomForestClassifier, RandomForestRegressor,
    ExtraTreesClassifier, ExtraTreesRegressor, StackingClassifier, StackingRegressor,
    VotingClassifier, VotingRegressor]

# the ranker fits query groups (fit(X, y, group=...)), which scikit-learn's generic checks
# do not give: not in ALL_ESTIMATORS (python/tests/test_ranker.py tests it)
__all__ = [c.__name__ for c in ALL_ESTIMATORS] + [
    "GradientBoostingRanker", "bias_variance", "Cascade", "ConvertedModel", "GroveError", "Model",
    "from_sklearn", "from_xgboost", "__version__"]

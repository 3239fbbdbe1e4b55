"""The two UCI medical data sets of the Bayesian transduction paper (seed 002, section 4).

* thyroid: "new thyroid" (Thyroid gland data, Stefan Aeberhard), 215 patients, 5 laboratory tests;
  class 1 normal (150), 2 hyper (35), 3 hypo (30).  The paper's two-class task is normal vs abnormal.
* heart: Statlog (Heart), 270 patients, 13 attributes; class 1 absence (150), 2 presence (120).

Both are shipped as plain CSV files in data/ (provenance and licence in data/README.md).  The loaders
return the raw features; standardise them on each training part only (`standardise`), never on the whole
table, or the test points leak into the training statistics.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_bool, as_generator, as_matrix, as_scalar, as_vector
from ._paths import DATA_DIR

__all__ = ["load_thyroid", "load_heart", "standardise", "random_split"]

THYROID_FEATURES = ("t3_resin_uptake", "total_thyroxin", "total_triiodothyronine", "basal_tsh",
                    "max_tsh_difference")
HEART_FEATURES = ("age", "sex", "chest_pain_type", "resting_blood_pressure", "serum_cholesterol",
                  "fasting_blood_sugar_over_120", "resting_ecg", "max_heart_rate", "exercise_angina",
                  "st_depression", "st_slope", "n_major_vessels", "thal")


def _read(name: str, features: tuple[str, ...]):
    path = DATA_DIR / name
    with open(path, encoding="ascii") as handle:
        header = handle.readline().strip().split(",")
    expected = list(features) + ["class"]
    if header != expected:
        raise ValueError(f"{path} has columns {header}, expected {expected}")
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1].astype(int)


def load_thyroid(return_classes: bool = False):
    """Thyroid, 215 x 5: y = +1 for abnormal (hyper- or hypothyroid, 65), -1 for normal (150).

    With return_classes=True also returns the UCI class codes (1 normal, 2 hyper, 3 hypo).
    Feature names are in `kgslab.data.uci.THYROID_FEATURES`.
    """
    return_classes = as_bool(return_classes, "return_classes")
    X, classes = _read("thyroid.csv", THYROID_FEATURES)
    y = np.where(classes == 1, -1.0, 1.0)
    return (X, y, classes) if return_classes else (X, y)


def load_heart():
    """Statlog heart, 270 x 13: y = +1 for presence of heart disease (120), -1 for absence (150).

    Feature names are in `kgslab.data.uci.HEART_FEATURES`.
    """
    X, classes = _read("heart.csv", HEART_FEATURES)
    return X, np.where(classes == 2, 1.0, -1.0)


def standardise(X_train, X_test):
    """Scale every feature to mean 0 and standard deviation 1 using the TRAINING part's statistics only.

    A feature that is constant on the training part is centred and left unscaled.
    Returns (X_train_std, X_test_std).
    """
    X_train = as_matrix(X_train, "X_train")
    X_test = as_matrix(X_test, "X_test")
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_test must have {X_train.shape[1]} columns like X_train, got shape {X_test.shape}")
    mean = X_train.mean(axis=0)
    spread = X_train.std(axis=0)
    spread[spread == 0] = 1.0
    return (X_train - mean) / spread, (X_test - mean) / spread


def random_split(X, y, train_fraction: float = 0.6, random_state=None):
    """A random train/test split (the paper's 60%:40%), features standardised on the training part.

    Returns (X_train, X_test, y_train, y_test).
    """
    X = as_matrix(X, "X")
    y = as_vector(y, "y", length=X.shape[0], length_of="X")
    train_fraction = as_scalar(train_fraction, "train_fraction", low=0.0, high=1.0, low_open=True,
                               high_open=True)
    order = as_generator(random_state).permutation(X.shape[0])
    n_train = int(round(train_fraction * X.shape[0]))
    train, test = order[:n_train], order[n_train:]
    X_train, X_test = standardise(X[train], X[test])
    return X_train, X_test, y[train], y[test]

"""Hypothesis strategies for the kit's argument kinds, and the bad values of each kind.

Used by tests/test_fuzz.py.  Every array a strategy draws is exactly representable
in float32 (small integers, or integers over a power of two), so handing the same
data over as a list, as float32 or as a pandas DataFrame must give the very same
answer: any difference is the kit's, not rounding's.

Kinds (the `kind` of an argument in a registration):

* "gram": a symmetric positive semi-definite (m, m) Gram matrix B B' + c I with an
  integer (m, d) B, so singular ones (c = 0, d < m) are drawn too;
* "cross": an (n, m) cross-kernel C B' between test points and the same B;
* "matrix" / "vector": finite float arrays of the caller's shape;
* "pm1": two-class labels in {-1, +1} with both classes present;
* "labels": any two labels (numbers or strings), for the estimators and EM;
* "positive", "nonneg", "probability", "half_open_probability": scalars;
* "count", "count0": integers >= 1, >= 0; "bool": True or False; "seed": None or an int.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# A value that a function must refuse, with what it is (for the report).
NAN_SCALAR = float("nan")


def exact_floats(low=-8, high=8, denominator=4):
    """Floats k / denominator: exact in float32 as well as float64."""
    return st.integers(low * denominator, high * denominator).map(lambda k: k / denominator)


def features(m, d):
    return hnp.arrays(float, (m, d), elements=exact_floats())


def sizes(low=3, high=8):
    return st.integers(low, high)


def pm1_labels(m):
    """m labels in {-1, +1}, both classes present."""
    return st.lists(st.booleans(), min_size=m, max_size=m).filter(lambda b: 0 < sum(b) < m).map(
        lambda b: np.where(np.array(b), 1.0, -1.0))


@st.composite
def gram_and_factor(draw, m=None, d=None, jitter=(0, 2)):
    """(K, B): K = B B' + c I with integer B (m, d) and c in `jitter`, scaled by a power of two."""
    m = draw(sizes()) if m is None else m
    d = draw(st.integers(1, 4)) if d is None else d
    factor = draw(hnp.arrays(float, (m, d), elements=st.integers(-3, 3).map(float)))
    c = draw(st.integers(*jitter))
    scale = 2.0 ** draw(st.integers(-2, 2))
    return scale * (factor @ factor.T + c * np.eye(m)), factor


@st.composite
def gram(draw, m=None, positive_definite=False):
    K, _ = draw(gram_and_factor(m=m, jitter=(1, 2) if positive_definite else (0, 2)))
    return K


@st.composite
def gram_with_cross(draw, m=None):
    """(K, K_test): a Gram matrix and the cross-kernel of n test points (the same feature map)."""
    K, factor = draw(gram_and_factor(m=m, jitter=(0, 0)))
    n = draw(st.integers(1, 4))
    test_factor = draw(hnp.arrays(float, (n, factor.shape[1]), elements=st.integers(-3, 3).map(float)))
    return K, test_factor @ factor.T


positive = st.sampled_from([0.125, 0.25, 0.5, 1.0, 2.0, 4.0])
nonneg = st.sampled_from([0.0, 0.125, 0.5, 1.0, 4.0])
probability = st.sampled_from([0.0, 0.125, 0.25, 0.375, 0.5, 0.75, 1.0])
half_open_probability = st.sampled_from([0.0, 0.125, 0.25, 0.375])
seed = st.one_of(st.none(), st.integers(0, 2**31 - 1))


# ---- bad values of each kind ----------------------------------------------------------------------
# Each entry: (label, function of the valid value -> a bad value).  Every one must be refused with a
# ValueError or TypeError whose message names the argument.

def _with_nan(value):
    array = np.array(value, dtype=float, copy=True)
    array.flat[array.size // 2] = np.nan
    return array


def _with_inf(value):
    array = np.array(value, dtype=float, copy=True)
    array.flat[0] = np.inf
    return array


def _asymmetric(K):
    K = np.array(K, dtype=float, copy=True)
    K[0, -1] += 1.0 + abs(K[0, -1])
    return K


def _indefinite(K):
    K = np.array(K, dtype=float, copy=True)
    return K - (np.max(np.abs(K)) + 1.0) * 3 * np.eye(len(K))


def _one_class(y):
    y = np.asarray(y)
    return np.full(y.shape, y[0])


def _three_classes(y):
    """A third label on a point whose class keeps another member (else only two classes would be left)."""
    y = np.array(y, dtype=float, copy=True)
    values, counts = np.unique(y, return_counts=True)
    y[np.flatnonzero(y == values[np.argmax(counts)])[0]] = 7.0
    return y


ARRAY_BAD = [
    ("NaN entry", _with_nan),
    ("infinite entry", _with_inf),
    ("None", lambda v: None),
    ("a string", lambda v: "1.0"),
    ("empty", lambda v: np.empty((0,) * np.ndim(v))),
    ("numbers as text", lambda v: np.asarray(v).astype(str)),
    ("complex", lambda v: np.asarray(v, dtype=float) + 1j),
]

BAD = {
    "gram": ARRAY_BAD + [
        ("one row dropped (not square)", lambda K: np.asarray(K)[1:]),
        ("not symmetric", _asymmetric),
        ("1-d", lambda K: np.asarray(K)[0]),
    ],
    "psd_gram": None,  # filled below: gram's bad values plus an indefinite matrix
    "cross": ARRAY_BAD + [("a column dropped", lambda C: np.asarray(C)[:, 1:]), ("1-d", lambda C: np.asarray(C)[0])],
    "matrix": ARRAY_BAD + [("1-d", lambda X: np.asarray(X)[:, 0]), ("3-d", lambda X: np.asarray(X)[None])],
    "vector": ARRAY_BAD + [("one entry short", lambda v: np.asarray(v)[1:]), ("2-d", lambda v: np.asarray(v)[:, None])],
    "pm1": [
        ("NaN label", _with_nan),
        ("one class only", _one_class),
        ("three classes", _three_classes),
        ("one label short", lambda y: np.asarray(y)[1:]),
        ("string labels", lambda y: np.where(np.asarray(y) > 0, "yes", "no")),
        ("None", lambda y: None),
    ],
    "labels": [
        ("one class only", _one_class),
        ("three classes", _three_classes),
        ("one label short", lambda y: np.asarray(y)[1:]),
        ("NaN label", _with_nan),
    ],
    "positive": [("0", lambda v: 0.0), ("-1", lambda v: -1.0), ("NaN", lambda v: NAN_SCALAR),
                 ("inf", lambda v: float("inf")), ("a string", lambda v: "1"), ("True", lambda v: True),
                 ("None", lambda v: None)],
    "nonneg": [("-1", lambda v: -1.0), ("NaN", lambda v: NAN_SCALAR), ("inf", lambda v: float("inf")),
               ("a string", lambda v: "1"), ("True", lambda v: True), ("None", lambda v: None)],
    "probability": [("-0.1", lambda v: -0.1), ("1.5", lambda v: 1.5), ("NaN", lambda v: NAN_SCALAR),
                    ("a string", lambda v: "0.1"), ("None", lambda v: None)],
    "count": [("0", lambda v: 0), ("-1", lambda v: -1), ("2.5", lambda v: 2.5), ("True", lambda v: True),
              ("a string", lambda v: "3"), ("None", lambda v: None)],
    "count0": [("-1", lambda v: -1), ("2.5", lambda v: 2.5), ("True", lambda v: True), ("a string", lambda v: "3")],
    "bool": [("the string 'False'", lambda v: "False"), ("1", lambda v: 1), ("None", lambda v: None),
             ("the string 'True'", lambda v: "True")],
    "seed": [("a string", lambda v: "seed"), ("-1", lambda v: -1), ("2.5", lambda v: 2.5)],
    "text": [("None", lambda v: None), ("a number", lambda v: 3.5), ("a list", lambda v: [v])],
    "docs": [("a single string", lambda v: "the law"), ("empty list", lambda v: []), ("None", lambda v: None),
             ("a number among the texts", lambda v: list(v[:-1]) + [7])],
    # a name among a few (a language, a kernel): a list holding the right name is still not a name
    "language": [("unknown language", lambda v: "klingon"), ("None", lambda v: None), ("a number", lambda v: 3),
                 ("a list", lambda v: [v])],
}
BAD["psd_gram"] = BAD["gram"] + [("indefinite", _indefinite)]
# Loop lengths: a count so large the run would look like a hang must be refused before it starts.
BAD["iterations"] = BAD["count"] + [("10**12", lambda v: 10**12)]
BAD["half_open_probability"] = BAD["probability"] + [("0.5", lambda v: 0.5)]

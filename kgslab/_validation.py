"""Input checks shared by every module of the kit.

Each function either returns a clean float array (or a number) or raises a
ValueError / TypeError that names the argument, says what was expected and
what came.  Nothing here guesses: a bad input never becomes a silent wrong
answer further down.
"""

from __future__ import annotations

import numbers
import os
from pathlib import Path

import numpy as np


def _describe(value) -> str:
    """A short description of a value for an error message."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_array(value, name: str, ndim: int | tuple[int, ...] | None = None, *, copy: bool = True) -> np.ndarray:
    """Return `value` as a finite float array with the expected number of dimensions.

    A new array unless copy=False, which returns a C-ordered float array as it came (for a caller that only
    reads it: a large one is not doubled in memory).

    Numbers written as text ("1.5"), complex numbers (numpy would drop the
    imaginary part with only a warning) and dates are refused: each would turn
    into a float silently.
    """
    if isinstance(value, (str, bytes, dict, set)) or value is None:
        raise TypeError(f"{name} must be an array of numbers, got {_describe(value)}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as err:  # ragged nested lists
        raise TypeError(f"{name} must be an array of numbers, got {_describe(value)}") from err
    refuse_non_real(raw, name)
    try:
        # C order whatever came (a DataFrame's values are Fortran-ordered): LAPACK's rounding depends on the
        # layout, and a chaotic sampler (the billiard) turns that into a different answer for the same numbers.
        array = raw.astype(float, order="C", copy=copy)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be an array of numbers, got {_describe(value)}") from err
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else ndim
        if array.ndim not in allowed:
            wanted = " or ".join(f"{d}-d" for d in allowed)
            raise ValueError(f"{name} must be a {wanted} array, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        bad = int(np.size(array) - np.count_nonzero(np.isfinite(array)))
        raise ValueError(f"{name} must contain only finite numbers, found {bad} NaN or infinite value(s)")
    return array


def refuse_non_real(array: np.ndarray, name: str) -> None:
    """TypeError for text (even "1.5"), complex numbers and dates, which a float conversion would hide."""
    if array.dtype.kind in "USVcmM" or (array.dtype.kind == "O" and any(
            isinstance(item, (str, bytes, complex)) for item in array.ravel().tolist())):
        raise TypeError(f"{name} must be an array of real numbers, got {_describe(array)}")


def as_matrix(value, name: str = "X") -> np.ndarray:
    """A finite (n, d) float matrix; a 1-d array is refused rather than guessed."""
    return as_float_array(value, name, ndim=2)


def as_vector(value, name: str = "y", length: int | None = None, length_of: str | None = None) -> np.ndarray:
    """A finite 1-d float vector, optionally of a given length (matching `length_of`).

    `length_of` names the argument the caller was given (K, features, X), so the
    message points at what the user passed; a length without it is a bug here.
    """
    if length is not None and not length_of:
        raise TypeError("as_vector: length_of must name the argument whose rows set the length")
    vector = as_float_array(value, name, ndim=1)
    if length is not None and vector.shape[0] != length:
        raise ValueError(
            f"{name} must have one entry per row of {length_of} ({length}), got {vector.shape[0]}"
        )
    return vector


def as_scalar(value, name: str, *, low: float | None = None, high: float | None = None,
              low_open: bool = False, high_open: bool = False) -> float:
    """A finite real number inside [low, high] (ends open where asked)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {_describe(value)}")
    number = float(value)
    if not np.isfinite(number):
        raise ValueError(f"{name} must be finite, got {number}")
    if low is not None and (number < low or (low_open and number == low)):
        sign = ">" if low_open else ">="
        raise ValueError(f"{name} must be {sign} {low}, got {number}")
    if high is not None and (number > high or (high_open and number == high)):
        sign = "<" if high_open else "<="
        raise ValueError(f"{name} must be {sign} {high}, got {number}")
    return number


def as_bool(value, name: str) -> bool:
    """True or False (numpy booleans accepted); the strings "False", 0 or None are refused.

    A truthy string such as "False" would otherwise switch an option on.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {_describe(value)}")


def as_probabilities(value, name: str, ndim: int | tuple[int, ...] | None = None) -> np.ndarray:
    """A finite float array with every entry in [0, 1]."""
    array = as_float_array(value, name, ndim=ndim)
    if np.any(array < 0) or np.any(array > 1):
        worst = float(array.flat[np.argmax(np.abs(array - 0.5))])
        raise ValueError(f"{name} must hold probabilities in [0, 1], got {worst:.6g}")
    return array


def as_positive_int(value, name: str, minimum: int = 1) -> int:
    """An integer >= minimum (numpy integers accepted, floats and bools refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_describe(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_work_budget(n_steps: float, budget: float, name: str, value, what: str) -> None:
    """Refuse, before it runs, a loop whose length an argument sets far beyond any useful run.

    n_steps is the number of steps `value` (the argument `name`) allows; budget is
    the kit's stated limit.  A run that long would look like a hang.
    """
    if n_steps > budget:
        raise ValueError(f"{name} = {value} allows {n_steps:.3g} {what}, above the kit's budget of "
                         f"{budget:.0e} (minutes of work): use a smaller {name}")


def as_gram(value, name: str = "K", *, psd: bool = True, rtol: float = 1e-8) -> np.ndarray:
    """A finite, square, symmetric and (when `psd`) positive semi-definite kernel matrix.

    Symmetry and definiteness are judged relative to the matrix's scale, so a
    Gram matrix computed in floating point passes while a wrong matrix does not.
    The error for an indefinite matrix reports its smallest eigenvalue.
    """
    gram = as_float_array(value, name, ndim=2)
    if gram.shape[0] != gram.shape[1]:
        raise ValueError(f"{name} must be a square kernel matrix, got shape {gram.shape}")
    scale = max(float(np.max(np.abs(gram))), 1e-300)
    asymmetry = float(np.max(np.abs(gram - gram.T)))
    if asymmetry > 1e-8 * scale:
        raise ValueError(
            f"{name} must be symmetric, but max |{name} - {name}'| = {asymmetry:.3g} "
            f"(relative {asymmetry / scale:.3g})"
        )
    if psd:
        require_psd(float(np.linalg.eigvalsh((gram + gram.T) / 2)[0]), gram, name, rtol=rtol)
    return gram


def require_psd(smallest: float, gram: np.ndarray, name: str = "K", *, rtol: float = 1e-8, note: str = "") -> None:
    """The kit's one rule for positive semi-definiteness, given the smallest eigenvalue of `gram`.

    Rounding leaves eigenvalues of order -eps * n * max|K| where the true ones are 0, so an eigenvalue is
    only called negative below -rtol * max|K| * n.  Raises a ValueError naming the matrix and the value.
    """
    scale = max(float(np.max(np.abs(gram))), 1e-300)
    if smallest < -rtol * scale * gram.shape[0]:
        raise ValueError(
            f"{name} must be positive semi-definite, but its smallest eigenvalue is {smallest:.3g}{note}"
        )


def as_cross_kernel(value, n_train: int, name: str = "K_test") -> np.ndarray:
    """A finite (n_test, n_train) cross-kernel matrix."""
    cross = as_float_array(value, name, ndim=2)
    if cross.shape[1] != n_train:
        raise ValueError(
            f"{name} must have one column per training point ({n_train}), got shape {cross.shape}"
        )
    return cross


def as_pm1_labels(value, name: str = "y", length: int | None = None, length_of: str | None = None) -> np.ndarray:
    """Two-class labels as a float vector of +1 / -1.

    Accepts labels that are already +-1, or {0, 1}, or booleans; anything else
    (one class, more than two, other values) is refused, because a silent
    mapping of arbitrary labels is how sign errors creep in.  Estimators that
    take any two labels map them with `binary_classes` first.
    """
    labels = value if isinstance(value, str) else np.asarray(value)
    if getattr(labels, "dtype", None) == bool:
        labels = labels.astype(float) * 2 - 1
    labels = as_vector(labels, name, length=length, length_of=length_of)
    values = set(np.unique(labels).tolist())
    if len(values) < 2:
        raise ValueError(f"{name} must contain two classes, got only {sorted(values)}")
    if values == {0.0, 1.0}:
        return labels * 2 - 1
    if values != {-1.0, 1.0}:
        raise ValueError(f"{name} must hold the labels -1 and +1 (or 0 and 1), got {sorted(values)[:5]}")
    return labels


def binary_classes(y, name: str = "y"):
    """Map any two labels to -1 / +1: returns (classes, y_pm1), classes sorted.

    classes[0] becomes -1 and classes[1] becomes +1.  More than two classes
    raise "Only binary classification is supported" (scikit-learn's wording).
    """
    labels = np.asarray(y)
    if labels.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array of labels, got shape {labels.shape}")
    if labels.dtype.kind in "fc" and not np.all(np.isfinite(labels)):
        raise ValueError(f"{name} must not contain NaN or infinite labels")
    if labels.dtype.kind == "O" and any(item is None or (isinstance(item, float) and not np.isfinite(item))
                                        for item in labels.tolist()):
        raise ValueError(f"{name} must not contain missing (None or NaN) labels")
    classes = np.unique(labels)
    if len(classes) > 2:
        raise ValueError(
            f"Only binary classification is supported. {name} has {len(classes)} classes: {classes[:5]}"
        )
    if len(classes) < 2:
        raise ValueError(f"{name} must contain two classes, but it has only one class: {classes.tolist()}")
    return classes, np.where(labels == classes[1], 1.0, -1.0)


def check_random_state_kind(random_state, name: str = "random_state") -> None:
    """Refuse what `as_generator` would refuse, without drawing from a RandomState."""
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)) or random_state is None:
        return
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"{name} must be a non-negative integer seed, got {random_state}")
        return
    raise TypeError(f"{name} must be None, an integer or a numpy Generator, got {_describe(random_state)}")


def as_generator(random_state, name: str = "random_state") -> np.random.Generator:
    """A numpy Generator from None, a seed, a Generator or a legacy RandomState (`name`: the caller's argument)."""
    check_random_state_kind(random_state, name)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        # Draw a seed from the legacy state so that it advances as sklearn expects.
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if random_state is None or (isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)):
        return np.random.default_rng(random_state)
    raise TypeError(f"{name} must be None, an integer or a numpy Generator, got {_describe(random_state)}")


def as_path(value, name: str) -> Path:
    """A file or folder given as a str or a path object (os.PathLike), expanded ("~").

    An int is refused although `open` takes one: there it is a file descriptor,
    which nobody passing a folder meant; so are bytes and everything else.
    """
    if isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes):
        path = Path(value).expanduser()
        if str(path) == "" or str(value) == "":
            raise ValueError(f"{name} must name a file or folder, got an empty string")
        return path
    raise TypeError(f"{name} must be a path (a str or pathlib.Path), got {_describe(value)}")


def as_flip_rate(q, allow_half: bool = False) -> float:
    """The assumed label flip rate q in [0, 0.5) (or [0, 0.5] where q = 0.5, a flat likelihood, is harmless)."""
    return as_scalar(q, "q (the assumed label flip rate)", low=0.0, high=0.5, high_open=not allow_half)


def as_unit_vector(value, rank: int, name: str = "coords") -> np.ndarray:
    """A unit vector of `rank` coordinates (a point of the sphere)."""
    vector = as_vector(value, name, length=rank, length_of="features' columns")
    if abs(float(vector @ vector) - 1.0) > 1e-6:
        raise ValueError(f"{name} must be a unit vector (a point of the sphere), got norm {np.linalg.norm(vector):.6g}")
    return vector


def as_signs(y, length: int | None = None, length_of: str = "the outputs") -> np.ndarray:
    """Labels in {-1, +1}, one class allowed (the circle's helpers work on any set of points; `as_pm1_labels`
    wants two classes)."""
    y = as_vector(y, "y", length=length, length_of=length_of if length is not None else None)
    if not np.all(np.abs(y) == 1):
        raise ValueError(f"y must hold the labels -1 and +1, got {np.unique(y)[:5].tolist()}")
    return y


def as_correct_flags(value, name: str, length: int) -> np.ndarray:
    """True / False per point (or 1 / 0): +-1 would count every point as correct once cast to bool."""
    array = np.asarray(value) if not isinstance(value, str) else value
    if getattr(array, "dtype", None) != bool:
        array = as_float_array(array, name)
        if not np.all((array == 0) | (array == 1)):
            raise ValueError(f"{name} must hold True / False (or 1 / 0) per point, got the values "
                             f"{np.unique(array)[:5].tolist()}")
    array = array.astype(bool)
    if array.ndim != 1 or array.shape[0] != length:
        raise ValueError(f"{name} must be 1-d with one entry per confidence ({length}), got shape {array.shape}")
    return array


def as_labelled_points_in_r3(X, y, name: str = ""):
    """(X, y): points of R^3, shape (m, 3), with a label +-1 each (the sphere data of the KGS paper's figures);
    `name` prefixes the arguments' names in an error."""
    prefix = f"{name} " if name else ""
    X = as_matrix(X, f"{prefix}X")
    if X.shape[1] != 3:
        raise ValueError(f"{prefix}X must hold points of R^3, shape (m, 3), got shape {X.shape}")
    return X, as_pm1_labels(y, f"{prefix}y", length=X.shape[0], length_of="X")

"""An estimator's constructor parameters, checked against the constraints its class declares.

scikit-learn's convention: an estimator class lists, in ``_parameter_constraints``, what each parameter of
``__init__`` may be, and ``fit`` checks them all before it does anything else, so a bad parameter fails at once
with an error naming it.  scikit-learn's own machinery for this lives in private modules that may move in any
release, so the kit has its own, in the same convention and with the same wording ("The 'C' parameter of
KernelAdatron must be a float in the range (0.0, inf). Got 0.0 instead.").

A constraint is one of:

* an `Interval` of integers or reals (stricter than scikit-learn's: True is not the number 1, and inf or NaN
  is not a rate or a regulariser);
* `Options`, a set of allowed strings;
* ``"boolean"`` (True or False), ``"random_state"`` (None, a seed, a RandomState or a Generator),
  ``"array-like"``, ``None`` (the value None), or a class (an instance of it);
* any object with ``is_satisfied_by(value)`` and a ``str`` saying what it allows.

A parameter is valid when one of its constraints is satisfied; otherwise `validate_parameters` raises an
`InvalidParameterError`, a ValueError and a TypeError at once (whichever a caller catches, it is caught).
"""

from __future__ import annotations

import functools
import math
from numbers import Integral, Real

import numpy as np
from sklearn import config_context, get_config


class InvalidParameterError(ValueError, TypeError):
    """A constructor parameter outside its declared constraints (both a ValueError and a TypeError)."""


def _is_boolean(value) -> bool:
    return isinstance(value, (bool, np.bool_))


class Interval:
    """Integers (type Integral) or reals (type Real) between left and right (None: unbounded).

    closed is "left", "right", "both" or "neither".  Booleans and infinite or NaN values never belong.
    """

    def __init__(self, type, left, right, *, closed):
        if type not in (Integral, Real):
            raise TypeError(f"Interval: type must be numbers.Integral or numbers.Real, got {type!r}")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"Interval: closed must be 'left', 'right', 'both' or 'neither', got {closed!r}")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, value) -> bool:
        if _is_boolean(value) or not isinstance(value, self.type):
            return False
        if not isinstance(value, Integral) and not math.isfinite(value):
            return False
        if self.left is not None and (value < self.left or (value == self.left and self.closed in ("right", "neither"))):
            return False
        if self.right is not None and (value > self.right or (value == self.right and self.closed in ("left", "neither"))):
            return False
        return True

    def __str__(self):
        def bound(value, infinite):
            if value is None:
                return infinite
            return value if self.type is Integral else float(value)
        opening = "[" if self.closed in ("left", "both") else "("
        closing = "]" if self.closed in ("right", "both") else ")"
        kind = "an int" if self.type is Integral else "a float"
        return f"{kind} in the range {opening}{bound(self.left, '-inf')}, {bound(self.right, 'inf')}{closing}"


class Options:
    """One of a fixed set of strings."""

    def __init__(self, options):
        self.options = frozenset(options)

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, str) and value in self.options

    def __str__(self):
        return "a str among {" + ", ".join(repr(option) for option in sorted(self.options)) + "}"


class _Named:
    """A constraint given by a test and the words that describe it."""

    def __init__(self, test, words: str):
        self._test, self._words = test, words

    def is_satisfied_by(self, value) -> bool:
        return self._test(value)

    def __str__(self):
        return self._words


def _is_seed(value) -> bool:
    return isinstance(value, Integral) and not _is_boolean(value) and 0 <= value <= 2**32 - 1


def _is_array_like(value) -> bool:
    # scikit-learn's reading of "array-like": something with a length, a shape or an __array__, and not a scalar.
    return ((hasattr(value, "__len__") or hasattr(value, "shape") or hasattr(value, "__array__"))
            and not np.isscalar(value))


_BY_NAME = {
    "boolean": _Named(_is_boolean, "an instance of 'bool' (True or False)"),
    "random_state": _Named(
        lambda value: value is None or _is_seed(value)
        or isinstance(value, (np.random.RandomState, np.random.Generator)),
        "None, an int in the range [0, 4294967295], a numpy.random.RandomState or a numpy.random.Generator"),
    "array-like": _Named(_is_array_like, "an array-like"),
}
_NONE = _Named(lambda value: value is None, "None")


def _as_constraint(constraint):
    """The constraint object behind one entry of a `_parameter_constraints` list."""
    if constraint is None:
        return _NONE
    if isinstance(constraint, str):
        if constraint not in _BY_NAME:
            raise ValueError(f"unknown parameter constraint {constraint!r}: expected one of {sorted(_BY_NAME)}")
        return _BY_NAME[constraint]
    if isinstance(constraint, type):
        name = constraint.__qualname__ if constraint.__module__ == "builtins" else \
            f"{constraint.__module__}.{constraint.__qualname__}"
        return _Named(lambda value: isinstance(value, constraint), f"an instance of {name!r}")
    if callable(getattr(constraint, "is_satisfied_by", None)):
        return constraint
    raise TypeError(f"unknown parameter constraint {constraint!r}: expected an Interval, Options, a name, None, "
                    f"a class, or an object with is_satisfied_by")


def validate_parameters(estimator) -> None:
    """Raise InvalidParameterError for the first parameter of `estimator` outside its class's constraints.

    Every parameter of ``get_params(deep=False)`` must have an entry in ``_parameter_constraints``
    (a missing one is a mistake in the class, reported as such).
    """
    constraints = type(estimator)._parameter_constraints
    for name, value in estimator.get_params(deep=False).items():
        if name not in constraints:
            raise TypeError(f"{type(estimator).__name__}._parameter_constraints has no entry for {name!r}")
        allowed = [_as_constraint(constraint) for constraint in constraints[name]]
        if any(constraint.is_satisfied_by(value) for constraint in allowed):
            continue
        words = [str(constraint) for constraint in allowed]
        expected = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
        raise InvalidParameterError(
            f"The {name!r} parameter of {type(estimator).__name__} must be {expected}. Got {value!r} instead.")


def checks_parameters(fit):
    """Decorate an estimator's `fit`: validate its parameters first, then fit.

    As scikit-learn's estimators do: scikit-learn's global switch ``set_config(skip_parameter_validation=True)``
    skips the check, and the scikit-learn functions that `fit` calls skip theirs (the estimator has checked
    what it passes them).
    """
    @functools.wraps(fit)
    def checked_fit(estimator, *args, **kwargs):
        if not get_config().get("skip_parameter_validation", False):
            validate_parameters(estimator)
        with config_context(skip_parameter_validation=True):
            return fit(estimator, *args, **kwargs)
    return checked_fit

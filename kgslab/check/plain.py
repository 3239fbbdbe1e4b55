"""Plain data across a process boundary: numbers, strings, arrays and containers of them, nothing that runs code.

The student's function runs in a child process (`kgslab.check.child`); what
comes back is read here.  Pickle would let the child hand the checker an
object whose unpickling, comparison or printing runs the student's code in
the checker, so values cross as JSON instead: None, bools, ints, floats,
complex numbers, strings, lists, tuples, dicts with string keys, numpy scalars
and numpy arrays of numbers, booleans or strings (as ``np.save`` bytes with
``allow_pickle=False``).  A NamedTuple crosses as a tuple.  Anything else is
`Unsendable`, which the checker reports as a result it cannot read.
"""

from __future__ import annotations

import base64
import io
import json
import numbers

import numpy as np

__all__ = ["Unsendable", "dumps", "loads"]


class Unsendable(TypeError):
    """A value that is not plain data (a function, a generator, an object of the student's class...)."""


def _encode(value, depth=0):
    if depth > 50:
        raise Unsendable("nested more than 50 levels deep")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        array = np.asarray(value)
        if array.dtype.kind not in "biufcUS":
            raise Unsendable(f"a numpy array of dtype {array.dtype}")
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        kind = "array" if isinstance(value, np.ndarray) else "scalar"
        return {"~": kind, "data": base64.b64encode(buffer.getvalue()).decode("ascii")}
    if isinstance(value, numbers.Integral):
        return {"~": "int", "value": str(int(value))}
    if isinstance(value, numbers.Real):
        return {"~": "float", "value": repr(float(value))}
    if isinstance(value, numbers.Complex):
        return {"~": "complex", "value": [repr(value.real), repr(value.imag)]}
    if isinstance(value, tuple):
        return {"~": "tuple", "items": [_encode(item, depth + 1) for item in value]}
    if isinstance(value, list):
        return {"~": "list", "items": [_encode(item, depth + 1) for item in value]}
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {"~": "dict", "items": {key: _encode(item, depth + 1) for key, item in value.items()}}
    raise Unsendable(f"{type(value).__name__}")


def _decode(data):
    if data is None or isinstance(data, (bool, str)):
        return data
    kind = data["~"]
    if kind in ("array", "scalar"):
        array = np.load(io.BytesIO(base64.b64decode(data["data"])), allow_pickle=False)
        return array if kind == "array" else array[()]
    if kind == "int":
        return int(data["value"])
    if kind == "float":
        return float(data["value"])
    if kind == "complex":
        return complex(float(data["value"][0]), float(data["value"][1]))
    if kind == "tuple":
        return tuple(_decode(item) for item in data["items"])
    if kind == "list":
        return [_decode(item) for item in data["items"]]
    if kind == "dict":
        return {key: _decode(item) for key, item in data["items"].items()}
    raise ValueError(f"not plain data: {kind!r}")


def dumps(value) -> str:
    """JSON text of a plain value; raises Unsendable naming what is not plain."""
    return json.dumps(_encode(value))


def loads(text: str):
    """The plain value of `dumps`' text (never runs code: JSON and np.load without pickle)."""
    return _decode(json.loads(text))

"""Plain data across a process boundary: numbers, strings, arrays and containers of them, nothing that runs code.

The student's function runs in a child process (`kgslab.check.child`); what
comes back is read here.  Pickle would let the child hand the checker an
object whose unpickling, comparison or printing runs the student's code in
the checker, so values cross as JSON instead: None, bools, ints, floats,
complex numbers, strings, lists, tuples, dicts with string keys, numpy scalars
and numpy arrays of numbers, booleans or strings (as ``np.save`` bytes with
``allow_pickle=False``).  A NamedTuple crosses as a tuple.  Anything else is
`Unsendable`, which the checker reports as a result it cannot read.

One direction carries more: a grading case (parent -> child) may hold the kit's
own objects, a kit function (the adatron a case passes in), a numpy Generator (08's step is given
one, sent as its PCG64 state) or a check's stand-in
(a class with ``_plain_fields``, e.g. 06's sleeping kernel), which cross as their
name and fields and are rebuilt in the child from the kit's code by
``loads(..., kit_objects=True)``. What comes back from the child is read with
the default, ``kit_objects=False``, which refuses them: nothing the student's
process writes can make the grader import or build anything.
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


def _encode(value, depth=0, kit_objects=False):
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
        return {"~": "tuple", "items": [_encode(item, depth + 1, kit_objects) for item in value]}
    if isinstance(value, list):
        return {"~": "list", "items": [_encode(item, depth + 1, kit_objects) for item in value]}
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {"~": "dict", "items": {key: _encode(item, depth + 1, kit_objects) for key, item in value.items()}}
    if kit_objects and isinstance(value, np.random.Generator) and isinstance(value.bit_generator, np.random.PCG64):
        return {"~": "generator", "state": _encode(value.bit_generator.state, depth + 1)}   # a case's rng, by state
    kit = _kit_name(value) if kit_objects else None
    if kit is not None:
        if hasattr(type(value), "_plain_fields"):
            fields = {name: _encode(getattr(value, name), depth + 1) for name in type(value)._plain_fields}
            return {"~": "standin", "class": kit, "fields": fields}
        return {"~": "kitfunction", "name": kit}
    raise Unsendable(f"{type(value).__name__}")


def _kit_name(value):
    """'module:qualname' of a kit function or of a check's stand-in object (its class), else None."""
    owner = type(value) if hasattr(type(value), "_plain_fields") else value
    module, qualname = getattr(owner, "__module__", None), getattr(owner, "__qualname__", None)
    if not (isinstance(module, str) and module.startswith("kgslab.") and isinstance(qualname, str)):
        return None
    if owner is value and not callable(value):
        return None
    return f"{module}:{qualname}"


def _kit_object(name):
    import importlib

    module, _, qualname = name.partition(":")
    if not module.startswith("kgslab.") or "<" in qualname:
        raise ValueError(f"not a kit object: {name!r}")
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _decode(data, kit_objects=False):
    if data is None or isinstance(data, (bool, str)):
        return data
    kind = data["~"]
    if kind == "generator":
        if not kit_objects:
            raise ValueError("not plain data: 'generator' (a case's generator crosses only from the grader to its "
                             "child)")
        state = _decode(data["state"])
        if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
            raise ValueError(f"not a PCG64 generator's state: {state!r:.80}")
        generator = np.random.Generator(np.random.PCG64())
        generator.bit_generator.state = state
        return generator
    if kind in ("standin", "kitfunction"):
        if not kit_objects:
            raise ValueError(f"not plain data: {kind!r} (kit objects cross only from the grader to its child)")
        if kind == "kitfunction":
            return _kit_object(data["name"])
        cls = _kit_object(data["class"])
        if not isinstance(cls, type) or not hasattr(cls, "_plain_fields"):
            raise ValueError(f"not a stand-in class: {data['class']!r}")
        return cls(**{name: _decode(item) for name, item in data["fields"].items()})   # its fields are its arguments
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
        return tuple(_decode(item, kit_objects) for item in data["items"])
    if kind == "list":
        return [_decode(item, kit_objects) for item in data["items"]]
    if kind == "dict":
        return {key: _decode(item, kit_objects) for key, item in data["items"].items()}
    raise ValueError(f"not plain data: {kind!r}")


def dumps(value, *, kit_objects: bool = False) -> str:
    """JSON text of a plain value; raises Unsendable naming what is not plain.

    ``kit_objects=True`` (the grader writing its cases, only) also sends kit functions and stand-ins by name.
    """
    return json.dumps(_encode(value, 0, kit_objects))


def loads(text: str, *, kit_objects: bool = False):
    """The plain value of `dumps`' text (never runs code: JSON and np.load without pickle).

    ``kit_objects=True`` (the grader's child reading its cases, only) also rebuilds kit functions and stand-ins.
    """
    return _decode(json.loads(text), kit_objects)

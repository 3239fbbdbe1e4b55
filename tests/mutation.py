"""Mutants of the solutions' exercise functions, of the kinds of mistakes students make, and the checks' verdicts.

    python tests/mutation.py [NN ...]       # the table of every notebook (or of notebooks NN), and the survivors

A mutant is the solution's function with one change to its syntax tree:

* an arithmetic operator swapped (+ -, * /, ** *, // /), a unary minus dropped;
* a comparison swapped (< <=, > >=, < >, == !=), `and` for `or` and back, a `not` dropped;
* a number constant off by one either way, or halved;
* a `.T` dropped; `[:, None]` for `[None, :]` and back;
* sum for mean and back, argmax for argmin, max for min, maximum for minimum, and back;
* a `range(n)` bound or a slice bound off by one either way;
* a statement dropped (an assignment, an augmented assignment, a call on its own line, an if);
* a call's first two arguments swapped, a keyword argument dropped, a call replaced by its first argument
  (``np.outer(u, u)`` -> ``u``, ``np.ix_(rows, rows)`` -> ``rows``; not for conversions such as np.asarray).

The check must catch it (✘), unless it computes the same function: those are listed in
`tests/mutation_equivalent.py` with the reason, and `tests/test_mutation.py` shows each one equal to the
solution on inputs beyond the check's cases (its grading cases drawn from other secrets).
"""

from __future__ import annotations

import ast
import copy
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from solution_code import STEMS, definition, exercise_functions, function  # noqa: E402

_BINARY = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Div], ast.Div: [ast.Mult],
           ast.Pow: [ast.Mult], ast.FloorDiv: [ast.Div], ast.MatMult: [ast.Mult]}
_COMPARE = {ast.Lt: [ast.LtE, ast.Gt], ast.LtE: [ast.Lt], ast.Gt: [ast.GtE, ast.Lt], ast.GtE: [ast.Gt],
            ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq]}
_NAMES = {"sum": "mean", "mean": "sum", "argmax": "argmin", "argmin": "argmax", "max": "min", "min": "max",
          "maximum": "minimum", "minimum": "maximum", "nanmax": "nanmin", "nanmin": "nanmax"}


@dataclass
class Mutant:
    key: str
    description: str
    source: str


def _docstring(body) -> bool:
    return bool(body) and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str)


def _changes(node, parent_field):
    """(description, replacement node or None to drop) for one node; the node itself is left untouched."""
    found = []
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        for other in _BINARY[type(node.op)]:
            found.append((f"{type(node.op).__name__} -> {other.__name__}",
                          ast.BinOp(left=node.left, op=other(), right=node.right)))
    if isinstance(node, ast.AugAssign) and type(node.op) in _BINARY:
        for other in _BINARY[type(node.op)]:
            found.append((f"{type(node.op).__name__}= -> {other.__name__}=",
                          ast.AugAssign(target=node.target, op=other(), value=node.value)))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        found.append((f"drop {type(node.op).__name__}", node.operand))
    if isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            for other in _COMPARE.get(type(op), []):
                ops = list(node.ops)
                ops[position] = other()
                found.append((f"{type(op).__name__} -> {other.__name__}",
                              ast.Compare(left=node.left, ops=ops, comparators=node.comparators)))
    if isinstance(node, ast.BoolOp):
        other = ast.Or if isinstance(node.op, ast.And) else ast.And
        found.append((f"{type(node.op).__name__} -> {other.__name__}", ast.BoolOp(op=other(), values=node.values)))
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        value = node.value
        for new, what in [(value + 1, "+1"), (value - 1, "-1"), (value / 2 if isinstance(value, float) else value // 2,
                                                                   "halved")]:
            if new != value and not (what == "halved" and value in (0, 1)):
                found.append((f"constant {value!r} {what}", ast.Constant(value=new)))
    if isinstance(node, ast.Attribute) and node.attr == "T":
        found.append(("drop .T", node.value))
    if isinstance(node, ast.Attribute) and node.attr in _NAMES:
        found.append((f".{node.attr} -> .{_NAMES[node.attr]}", ast.Attribute(value=node.value, attr=_NAMES[node.attr],
                                                                             ctx=node.ctx)))
    if isinstance(node, ast.Name) and node.id in ("max", "min") and parent_field == "func":
        found.append((f"{node.id} -> {_NAMES[node.id]}", ast.Name(id=_NAMES[node.id], ctx=node.ctx)))
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2:
        first, second = node.slice.elts
        if _is_none(second) and isinstance(first, ast.Slice) or _is_none(first) and isinstance(second, ast.Slice):
            found.append(("[:, None] <-> [None, :]", ast.Subscript(value=node.value, ctx=node.ctx,
                                                                   slice=ast.Tuple(elts=[second, first], ctx=ast.Load()))))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and node.args:
        bound = node.args[-1] if len(node.args) <= 2 else node.args[1]
        position = node.args.index(bound)
        for step, what in [(-1, "-1"), (1, "+1")]:
            args = list(node.args)
            args[position] = ast.BinOp(left=bound, op=ast.Add(), right=ast.Constant(value=step))
            found.append((f"range bound {what}", ast.Call(func=node.func, args=args, keywords=node.keywords)))
    if isinstance(node, ast.Slice):
        for side in ("lower", "upper"):
            bound = getattr(node, side)
            if bound is not None and not isinstance(bound, ast.Constant):
                for step, what in [(-1, "-1"), (1, "+1")]:
                    changed = copy.copy(node)
                    setattr(changed, side, ast.BinOp(left=bound, op=ast.Add(), right=ast.Constant(value=step)))
                    found.append((f"slice {side} {what}", changed))
    if isinstance(node, ast.Call) and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args):
        args = [node.args[1], node.args[0]] + list(node.args[2:])
        found.append(("swap the first two arguments", ast.Call(func=node.func, args=args, keywords=node.keywords)))
    if isinstance(node, ast.Call):
        for position, keyword in enumerate(node.keywords):
            if keyword.arg is not None:
                kept = node.keywords[:position] + node.keywords[position + 1:]
                found.append((f"drop the keyword {keyword.arg}=", ast.Call(func=node.func, args=node.args,
                                                                            keywords=kept)))
    if isinstance(node, ast.Call) and node.args and not isinstance(node.args[0], ast.Starred) and \
            _called_name(node) not in _CONVERSIONS:
        found.append((f"{_called_name(node)}(x, ...) -> x", node.args[0]))
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.If)) or \
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        found.append(("drop the statement", None))
    return found


_CONVERSIONS = {"asarray", "array", "float", "int", "list", "tuple", "bool", "str", "len", "range", "enumerate",
                "zip", "print", "sorted", "set", "dict", "ascontiguousarray", "atleast_1d", "copy"}


def _called_name(node) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "?"


def _is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


class _Replace(ast.NodeTransformer):
    def __init__(self, target, replacement):
        self.target, self.replacement = target, replacement

    def generic_visit(self, node):
        for field, old in ast.iter_fields(node):
            if isinstance(old, list):
                new = []
                for item in old:
                    if item is self.target:
                        if self.replacement is not None:
                            new.append(self.replacement)
                    elif isinstance(item, ast.AST):
                        new.append(self.visit(item))
                    else:
                        new.append(item)
                if not new and field in ("body", "orelse") and old:
                    new = [ast.Pass()] if field == "body" else []
                setattr(node, field, new)
            elif old is self.target:
                setattr(node, field, self.replacement)
            elif isinstance(old, ast.AST):
                setattr(node, field, self.visit(old))
        return node


def mutants(stem: str, key: str) -> list[Mutant]:
    """Every mutant of the solution's function of exercise `key` (its body, the docstring left alone)."""
    source = definition(stem, exercise_functions(stem)[key])
    tree = ast.parse(source)
    (function_node,) = tree.body
    body = function_node.body[1:] if _docstring(function_node.body) else function_node.body
    lines = source.splitlines()
    found, seen = [], set()
    for statement in body:
        for parent in ast.walk(statement):
            for field, value in ast.iter_fields(parent):
                children = value if isinstance(value, list) else [value]
                for child in children:
                    if not isinstance(child, ast.AST):
                        continue
                    for what, replacement in _changes(child, field):
                        mutated = _mutated(tree, child, replacement)
                        text = ast.unparse(mutated)
                        if text in seen or text == ast.unparse(tree):
                            continue
                        seen.add(text)
                        line = lines[child.lineno - 1].strip() if hasattr(child, "lineno") else ""
                        found.append(Mutant(key, f"line {getattr(child, 'lineno', 0)}: {what} in `{line[:90]}`",
                                            text))
        # the statement itself (a top-level statement of the body) may be dropped: handled in _changes
    return found


def _mutated(tree, target, replacement):
    """A copy of `tree` with `target` (a node of `tree`) replaced (or dropped when replacement is None)."""
    path = _path(tree, target)
    copied = copy.deepcopy(tree)
    node = copied
    for field, index in path[:-1]:
        node = getattr(node, field) if index is None else getattr(node, field)[index]
    field, index = path[-1]
    new = copy.deepcopy(replacement) if replacement is not None else None
    if index is None:
        setattr(node, field, new if new is not None else ast.Constant(value=None))
    else:
        items = getattr(node, field)
        if new is None:
            del items[index]
            if not items and field == "body":
                items.append(ast.Pass())
        else:
            items[index] = new
    return ast.fix_missing_locations(copied)


def _path(node, target, trail=()):
    if node is target:
        return list(trail)
    for field, value in ast.iter_fields(node):
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, ast.AST):
                    found = _path(item, target, trail + ((field, index),))
                    if found is not None:
                        return found
        elif isinstance(value, ast.AST):
            found = _path(value, target, trail + ((field, None),))
            if found is not None:
                return found
    return None


def verdict(stem: str, mutant: Mutant, exercise=None):
    """The check's verdict on the mutant (its own cases and time limit), or the error defining it raised."""
    from kgslab import check

    exercise = exercise or check.exercises()[mutant.key]
    try:
        student = function(stem, mutant.key, mutant.source)
    except Exception as err:  # noqa: BLE001 -- a mutant that does not even define is caught
        return f"does not define: {type(err).__name__}"
    return exercise.judge(student)


def run(stems=STEMS, out=print) -> dict:
    """{stem: (caught, equivalent, survivors, mutants, seconds)} and the survivors listed."""
    from mutation_equivalent import EQUIVALENT

    table = {}
    for stem in stems:
        started = time.perf_counter()
        caught = equivalent = 0
        survivors = []
        count = 0
        for key in exercise_functions(stem):
            for mutant in mutants(stem, key):
                count += 1
                found = verdict(stem, mutant)
                if isinstance(found, str) or not found.passed:
                    caught += 1
                elif mutant.description in EQUIVALENT.get(key, {}):
                    equivalent += 1
                else:
                    survivors.append(mutant)
        table[stem] = (caught, equivalent, survivors, count, time.perf_counter() - started)
        out(f"{stem}: {count} mutants, {caught} caught, {equivalent} equivalent, {len(survivors)} survive "
            f"({time.perf_counter() - started:.0f} s)")
        for mutant in survivors:
            out(f"    {mutant.key}: {mutant.description!r}")
    return table


def one_blas_thread():
    """One BLAS thread per process while mutants run: the checks' matrices are small, and on a busy machine
    OpenBLAS's spinning threads make a 400 x 400 eigh take seconds instead of milliseconds."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1)


if __name__ == "__main__":
    wanted = [stem for stem in STEMS if any(stem.startswith(arg) for arg in sys.argv[1:])] or STEMS
    with one_blas_thread():
        run(wanted)

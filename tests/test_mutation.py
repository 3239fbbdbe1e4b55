"""The mutation test of every check: mutants of each solution's exercise functions (`tests/mutation.py`) get ✘.

Every mutant the check ticks must be listed in `tests/mutation_equivalent.py` with the reason it computes the
same function, and each listed one is run against the solution on inputs beyond the check's cases (its grading
cases drawn from three other secrets): a mutant listed as equivalent that differs there fails the test.

Cost: the full run (every mutant of every notebook, about 880, each through its check with the check's own
cases and time limit) takes minutes: ``make mutation`` (``KGSLAB_MUTATION=full``).  `make unit` runs a fixed
eighth of the mutants of each notebook (chosen by a hash of the mutant, the same every run), and every listed
equivalent on the grading cases of one other secret (three in the full run): about 30-50 s on a loaded 2-core
machine.
"""

from __future__ import annotations

import copy
import hashlib
import os

import numpy as np
import pytest

from kgslab import check
from kgslab.check import hidden, values
from mutation import mutants, one_blas_thread, verdict
from mutation_equivalent import EQUIVALENT
from solution_code import STEMS, exercise_functions, function

FULL = os.environ.get("KGSLAB_MUTATION") == "full"
SAMPLE = 8          # outside the full run, one mutant in SAMPLE


def _sampled(mutant) -> bool:
    digest = hashlib.sha256(f"{mutant.key}|{mutant.description}".encode()).digest()
    return FULL or digest[0] % SAMPLE == 0


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with one_blas_thread():
        yield


@pytest.mark.parametrize("stem", STEMS)
def test_every_check_catches_the_mutants_of_its_solution(stem):
    survivors, tried, equivalent = [], 0, 0
    for key in exercise_functions(stem):
        found = mutants(stem, key)
        assert found, f"{key}: its solution has no mutants"              # every exercise function gets some
        for mutant in found:
            if not _sampled(mutant):
                continue
            tried += 1
            result = verdict(stem, mutant)
            if isinstance(result, str) or not result.passed:
                continue
            if mutant.description in EQUIVALENT.get(key, {}):
                equivalent += 1
            else:
                survivors.append(f"{key}: {mutant.description}")
    caught = tried - equivalent - len(survivors)
    assert not survivors, (f"{stem}: {len(survivors)} mutants ticked ({caught} caught of "
                           f"{tried - equivalent} not equivalent):\n" + "\n".join(survivors))


def _outputs_agree(exercise, mine, theirs, case) -> bool:
    with np.errstate(all="ignore"):     # each call its own copy: the stand-in kernels count their calls
        calls = [(function, copy.deepcopy(case.args), copy.deepcopy(case.kwargs)) for function in (theirs, mine)]
        # 06's stand-in kernels take their time on the check's timer (a case's argument): no measurement, no load
        expected, got = [function(*args, **kwargs) for function, args, kwargs in calls]
    return values.as_problem(values.compare_on(exercise.compare or values.allclose(), expected, got, case)) is None


@pytest.mark.parametrize("stem", [stem for stem in STEMS if set(exercise_functions(stem)) & set(EQUIVALENT)])
def test_mutants_listed_as_equivalent_equal_the_solution_beyond_the_checks_cases(stem):
    for key in set(exercise_functions(stem)) & set(EQUIVALENT):
        exercise = check.exercises()[key]
        by_description = {mutant.description: mutant for mutant in mutants(stem, key)}
        for description, reason in EQUIVALENT[key].items():
            assert reason, f"{key}: {description} is listed without a reason"
            assert description in by_description, f"{key}: no such mutant any more: {description}"
            mine = function(stem, key, by_description[description].source)
            solution = function(stem, key)
            for secret in ("another course", "a second secret", "a third one")[:3 if FULL else 1]:
                seed = hidden.grading_seed(secret, key, "mutation")
                cases = hidden.hidden_cases(exercise, secret, "mutation")
                with hidden.reseeded(seed):
                    for case in cases:
                        assert _outputs_agree(exercise, mine, solution, case), \
                            f"{key}: {description} differs from the solution on {case.label}"

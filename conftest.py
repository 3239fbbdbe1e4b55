"""The order pytest runs tests in, for every run in this repository (tests/, nbval of solutions/ and notebooks/,
`make claims`): the longest first.

pytest-xdist hands out work in collection order (`--dist loadscope`: whole modules and notebooks; `--dist load`:
single tests), so the longest one collected last runs alone on one core at the end while the other core waits.
Started first, the long ones run beside the many short ones. Only the order changes: every test still runs, and the
sort is stable, so each module keeps its own order and each notebook's cells stay in order in one kernel (nbval).
"""

LONGEST_FIRST = (
    # notebooks, by their one-core run time (benchmarks/notebooks.md): nbval's scopes and the claims' shifted reruns
    "08_", "10_", "09_", "06_",
    # unit modules of seconds to minutes: nbgrader autograding of 01, every solution graded outside the kernel,
    # the wheel's build, long sampler runs
    "test_grading_cheats.py", "test_grading.py", "test_grader_units.py", "test_wheel_contents.py", "test_kgs.py",
    "test_core.py", "test_fuzz.py",
)


def _name(item) -> str:
    """The notebook a test runs (a claims rerun's `path` parameter, nbval's file) or the test's module."""
    spec = getattr(item, "callspec", None)
    path = spec.params.get("path") if spec is not None else None
    return getattr(path, "name", None) or item.path.name


def _rank(item) -> int:
    name = _name(item)
    return next((place for place, prefix in enumerate(LONGEST_FIRST) if name.startswith(prefix)), len(LONGEST_FIRST))


def pytest_collection_modifyitems(items):
    items.sort(key=_rank)


def pytest_configure(config):
    # pytest-xdist 3.6 and later sort loadscope's modules by their number of tests, most first, unless told not to:
    # a module of one long test (test_grading_cheats) would start last and end alone. The oldest pin (3.4) has no
    # such option and keeps the collection order.
    if getattr(config.option, "loadscopereorder", None) is not None:
        config.option.loadscopereorder = False

# kgslab: the README's two commands are `make lab` and `make test`.
# Both create .venv (python3 -m venv + pip install -e ".[test]") when it is missing.

PYTHON ?= python3
# Python keeps the bytecode of every module it compiles (__pycache__, git-ignored; in .venv and the clone), so a
# module is compiled once, not at every start of a process. A machine that sets PYTHONDONTWRITEBYTECODE (the
# one this kit is built on does) would otherwise compile ipykernel, nbgrader, pytest's rewritten test modules and the
# rest from source in every kernel, worker and child: measured, the imports of 08's set-up cell took 6.1 CPU-s
# without bytecode and 2.2 s with it, and CI starts well over a hundred kernels, pytest workers and grader children.
# (pip --no-compile below leaves the compiling to the first import, of the modules that are imported.)
unexport PYTHONDONTWRITEBYTECODE
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NBVAL := --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# Two workers, one per core; loadscope keeps all cells of one notebook on one worker (nbval needs that).
XDIST := -n 2 --dist loadscope
# Each test process (a pytest worker, and every kernel and child process it starts) uses one BLAS thread: the
# targets already run one worker per core (and CI two targets at once), and OpenBLAS's extra threads only queue
# for the same cores, spinning while they wait. Measured on the 2 cores: the KGS engine's test on 810 points
# took 16 s with the default threads beside other work, 1.5 s on one thread.
TESTS_ON_ONE_THREAD := unit nbval-solutions nbval-portable nbval-notebooks claims browser wheel-test oldest \
	test-instructor
$(TESTS_ON_ONE_THREAD): export OPENBLAS_NUM_THREADS := 1
$(TESTS_ON_ONE_THREAD): export OMP_NUM_THREADS := 1
$(TESTS_ON_ONE_THREAD): export MKL_NUM_THREADS := 1

.PHONY: lab test test-cores test-grading test-readme wheel grade bench-grading assignments solutions-zip unit browser nbval-solutions nbval-portable nbval-notebooks notebooks check-notebooks bench bench-notebooks data run-solutions clean

# --no-compile: Python compiles a module when it is first imported (and keeps the .pyc); pip would compile every
# file of every dependency up front, most never imported (measured: 30 CPU-s against 16 for the runtime ones alone).
$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -e ".[test]"
	touch $(STAMP)

# Extra options for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port=8899"
LAB_ARGS ?=
# JupyterLab refuses to run as root (containers, CI) unless told.
AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# notebooks/ is a Python package (its __init__.py lets the wheel ship the notebooks): keep that file out of the
# students' file browser (jupyter_server's default hidden globs, plus __init__.py).
LAB_HIDE := '--ContentsManager.hide_globs=["__pycache__", "*.pyc", "*.pyo", ".DS_Store", "*.so", "*.dylib", "*~", "__init__.py"]'
lab: $(STAMP)
	$(BIN)/jupyter lab $(AS_ROOT) $(LAB_HIDE) $(LAB_ARGS) notebooks/

# `make test` runs the browser tests beside the rest, not after it. They are one JupyterLab, one Chromium and one
# kernel at a time, about one core (148 CPU-s in 152 s alone), so run last they left the other core idle for about
# three minutes at the end of a run. Their lines are marked [browser]. The exit status is 1 if either part failed.
test: SHELL := /bin/bash
test: .SHELLFLAGS := -o pipefail -c
test: $(STAMP)
	@{ $(MAKE) --no-print-directory browser 2>&1 | sed -u 's/^/[browser] /'; } & browser=$$!; \
	status=0; $(MAKE) --no-print-directory test-cores || status=1; \
	wait $$browser || status=1; \
	if [ $$status = 0 ]; then echo "make test: passed"; else echo "make test: FAILED (see above)"; fi; \
	exit $$status

# The part of `make test` that runs pytest on two workers (one per core), one target after another.
test-cores: $(STAMP) unit nbval-solutions nbval-portable nbval-notebooks claims

unit: $(STAMP)
	$(BIN)/python -m pytest $(XDIST) -m "not wheel and not claims" tests --ignore=tests/browser

# Every solution notebook that draws at random, rerun with its seeds shifted by 1-5: every verdict it stores
# (claims, checks) must hold, and no cell may fail; prints each claim's worst margin (about 3 minutes on a quiet
# 2-core machine).
# load, not loadscope: each (notebook, shift) is its own test. Three workers on two cores: each rerun starts and
# stops a kernel, and while a worker waits on that its core would idle (measured alone on the 2 cores: 177 s and
# 330 CPU-s with two workers, 163 s and 320 CPU-s with three; CI runs this target last, alone).
claims: $(STAMP)
	$(BIN)/python -m pytest -n 3 --dist load -m claims -p no:cacheprovider tests/test_claim_robustness.py

.PHONY: wheel-test oldest versions claims mutation

# The kit as a course installs it: build the wheel, install it (with its dependencies, from the package
# index) into a fresh virtual environment outside the clone, load every data set from there, copy the
# notebooks with `python -m kgslab.notebooks` and run a student notebook from the copy (under a minute with pip's
# cache warm).
wheel-test: $(STAMP)
	$(BIN)/python -m pytest -m wheel --durations=5 tests/test_wheel.py

# The oldest versions pyproject.toml allows (.ci/constraints-oldest.txt) in a second environment,
# .venv-oldest: the unit tests, and one student notebook as a smoke test of the Jupyter stack.
OLDEST := .venv-oldest
$(OLDEST)/.installed: pyproject.toml setup.py .ci/constraints-oldest.txt
	test -x $(OLDEST)/bin/python || $(PYTHON) -m venv $(OLDEST)
	$(OLDEST)/bin/python -m pip install --quiet --upgrade pip
	$(OLDEST)/bin/python -m pip install --quiet --no-compile -c .ci/constraints-oldest.txt -e ".[test]"
	touch $@

# numba keeps its compiled code (kgslab.hmc's flight) in kgslab/__pycache__ unless told otherwise, one index per
# function that holds one numba version: both environments install the same clone, so in CI, where .venv-oldest's
# tests run beside .venv's notebooks, each environment's numba found the other's index and compiled again
# (measured: 3.7 CPU-s to compile against 0.4 to load). The oldest environment keeps its numba cache to itself.
oldest: export NUMBA_CACHE_DIR := $(CURDIR)/$(OLDEST)/numba-cache
# The escapes (tests/test_grading_escapes.py) try the operating system's confinement, which no Python package's
# version changes; the grading machinery they go through is tried on these versions by test_grading and
# test_grading_cheats. They run once, in `make test`.
oldest: $(OLDEST)/.installed
	$(OLDEST)/bin/python .ci/versions.py
	$(OLDEST)/bin/python -m pytest $(XDIST) -m "not wheel and not claims" tests --ignore=tests/browser \
		--ignore=tests/test_grading_escapes.py
	$(OLDEST)/bin/python -m pytest --nbval-lax $(NBVAL) notebooks/01_duality.ipynb

# The versions of every dependency in .venv (the newest job's, in CI).
versions: $(STAMP)
	$(BIN)/python .ci/versions.py

# JupyterLab in headless Chromium: every solution notebook run in the page, every slider panel moved.
# One server and one browser for the session, notebooks one at a time. (On two xdist workers, --dist loadgroup, each
# with its own JupyterLab and Chromium, they took longer: 200 s against 174 s in a fresh-clone CI.) Skipped, with
# the reason and how to enable them, when /usr/bin/chromium or Playwright is missing.
browser: $(STAMP)
	$(BIN)/python -m pytest tests/browser

# Solutions: every stored output is compared (images and widget views excepted). nbval never compares images, so
# its kernels encode none (tests/no_figures.py: IPYTHONDIR, a kernel config, removed afterwards; 14 of 84 CPU-s).
NO_FIGURES = d=$$($(BIN)/python tests/no_figures.py) && trap 'rm -rf "$$d"' EXIT && IPYTHONDIR=$$d
nbval-solutions: $(STAMP)
	$(NO_FIGURES) $(BIN)/python -m pytest $(XDIST) --nbval $(NBVAL) solutions

# The same comparison on two simulated other CPUs: OpenBLAS picks its kernels by CPU, and each rounds in its own
# way, so a stored number that is the CPU's fingerprint (a Monte Carlo digit, or a draw whose count depends on
# rounding) fails here. Prescott is the generic SSE3 kernel; Haswell the AVX2 one, which most machines without
# AVX-512 use. NOTEBOOK_GUIDE.md, "Stochastic results", says how such numbers are printed.
PORTABLE_CORES ?= Prescott Haswell
nbval-portable: $(STAMP)
	$(NO_FIGURES) && export IPYTHONDIR && for core in $(PORTABLE_CORES); do echo "OPENBLAS_CORETYPE=$$core"; \
		OPENBLAS_CORETYPE=$$core $(BIN)/python -m pytest $(XDIST) -p no:cacheprovider --nbval $(NBVAL) solutions \
		|| exit 1; done

# Student copies have no outputs: they are run for errors, with every exercise blank.
nbval-notebooks: $(STAMP)
	$(BIN)/python -m pytest $(XDIST) --nbval-lax $(NBVAL) notebooks

notebooks: $(STAMP)
	$(BIN)/python -m kgslab.release --tag
	$(BIN)/python -m kgslab.release

check-notebooks: $(STAMP)
	$(BIN)/python -m kgslab.release --check

# Re-run the solutions and store their outputs (KGSLAB_FULL=1 for the paper-sized experiments).
run-solutions: $(STAMP)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace --ExecutePreprocessor.timeout=3600 solutions/[0-9][0-9]_*.ipynb

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Every student notebook blank and every solution, each in a fresh kernel pinned to one core (the script pins
# itself, as taskset -c 0 would) with one BLAS thread: wall time and peak kernel memory against a seat's budget
# (30 s, 512 MB), written to benchmarks/notebooks.md. A measurement, not a test (a few minutes; --cells: per cell).
bench-notebooks: $(STAMP)
	$(BIN)/python benchmarks/notebooks.py

data: $(STAMP)
	$(BIN)/python -m kgslab.data build

clean:
	rm -rf $(VENV) $(OLDEST) .pytest_cache

# nbgrader on all ten notebooks (generate, autograde blank/solved/one-wrong, validate, every cheat of
# tests/test_grading_cheats.py and every escape of tests/test_grading_escapes.py): an hour or more; and a
# synthetic class of 01 graded by kgslab.grade (--jobs 2, killed and rerun, a Dask LocalCluster) against serial
# nbgrader (tests/test_grade_class.py).
# `make test` grades a representative notebook only.
test-grading: $(STAMP)
	KGSLAB_GRADING_NOTEBOOKS=all KGSLAB_GRADE_CLASS=1 $(BIN)/python -m pytest -v -s --durations=0 \
		tests/test_grading.py tests/test_grading_cheats.py tests/test_grading_escapes.py tests/test_grade_class.py

# Grade every submission of an assignment in parallel and write the class report (README, "Grading a class"):
# make grade COURSE=course ASSIGNMENT=01_duality [GRADE_ARGS="--jobs 4"]
COURSE ?= course
ASSIGNMENT ?= 01_duality
GRADE_ARGS ?=
grade: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m kgslab.grade $(COURSE) $(ASSIGNMENT) --report $(GRADE_ARGS)

# 40 synthetic submissions of 01 graded serially (nbgrader autograde) and with --jobs 2: the speed-up and the
# projected time for 200 students x 10 notebooks (a benchmark, not a test; minutes).
bench-grading: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/grading.py

# The mutation test of every check (tests/test_mutation.py): every mutant of every solution's exercise functions
# through its check (about 880; minutes). `make unit` runs a fixed eighth of them.
mutation: $(STAMP)
	KGSLAB_MUTATION=full OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest -v --durations=10 tests/test_mutation.py

# An nbgrader course directory in course/ (source/ from solutions/, nbgrader_config.py).
assignments: $(STAMP)
	$(BIN)/python -m kgslab.assignments course

# The instructor artifact: the ten solution notebooks, which the wheel (what students install) does not carry.
solutions-zip: $(STAMP)
	mkdir -p dist
	cd solutions && ../$(BIN)/python -m zipfile -c ../dist/kgslab-solutions.zip [0-9][0-9]_*.ipynb
	@echo "dist/kgslab-solutions.zip: instructors only (unzip it into the course's source/ or anywhere)"

# The kit's wheel (what students install: notebooks and data, no solutions) in dist/, for pip or a hub image.
wheel: $(STAMP)
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .
	@ls dist/kgslab-*.whl

# The hub recipe (docs/jupyterhub.md, docs/hub/) under a real JupyterHub from PyPI with configurable-http-proxy from
# npm, on 127.0.0.1, with local users made and removed (tests/test_hub.py): as root, minutes; not in make test.
.PHONY: test-hub
test-hub: $(STAMP)
	KGSLAB_HUB_TEST=1 $(BIN)/python -m pytest -v -s --durations=0 -p no:cacheprovider tests/test_hub.py

# The instructor's path in CI (a few minutes): the README's instructor section end to end with 01 only, and a
# class of six submissions of 01 graded by kgslab.grade --jobs 2 against serial nbgrader (the long versions are
# make test-readme and make test-grading).
.PHONY: test-instructor
test-instructor: $(STAMP)
	KGSLAB_README_TEST=1 KGSLAB_README_ASSIGNMENTS=01 KGSLAB_GRADE_CLASS=short \
		$(BIN)/python -m pytest -v --durations=0 -p no:cacheprovider tests/test_readme.py tests/test_grade_class.py

# The README's instructor section, command by command, in a fresh clone of this working tree (its own .venv,
# a course, an exchange, three submissions of 01 and 08 graded, feedback, formgrader): tests/test_readme.py.
test-readme: $(STAMP)
	KGSLAB_README_TEST=1 $(BIN)/python -m pytest -v -s --durations=0 tests/test_readme.py

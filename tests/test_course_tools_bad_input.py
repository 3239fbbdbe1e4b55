"""Bad input to the course tools (release, grading layout, notebooks, assignments), as tests/test_fuzz.py does.

The course tools write into an instructor's or a student's folders, so a silent accept is worse
than in the library: ``copy_notebooks(dest, solutions="False")`` used to copy the ten solution
notebooks into the students' folder, and an int path was read as a file descriptor.  For every
public function and every argument: each bad value of the argument's kind raises TypeError or
ValueError naming the argument, and nothing is written; a path given as ``str`` or as ``Path``
gives the same answer.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgslab import assignments, grading_layout, notebooks, release
from kgslab._notebook_list import NOTEBOOKS

# Bad values by kind of argument: every one of them was accepted by some tool before (issue 26).
BAD_PATHS = st.one_of(st.integers(-3, 10), st.floats(allow_nan=True), st.none(), st.binary(min_size=1, max_size=8),
                      st.lists(st.text(max_size=3), max_size=2), st.just(""))
BAD_FLAGS = st.one_of(st.sampled_from(["False", "no", "", "True"]), st.integers(), st.none(), st.floats())
BAD_POINTS = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, "2", None]), st.floats(max_value=-1e-9),
                       st.integers(max_value=-1), st.just(True))
BAD_GRADE_IDS = st.one_of(st.text().filter(lambda t: not t or any(not (c.isascii() and (c.isalnum() or c in "-_"))
                                                                   for c in t)),
                          st.integers(), st.none())


def tree(folder: Path) -> dict:
    """Every file below folder with its bytes: what a refused call must leave as it was."""
    return {path.relative_to(folder): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def refused(call, name):
    """The call raises TypeError or ValueError whose message names `name` first."""
    with pytest.raises((TypeError, ValueError)) as caught:
        call()
    assert str(caught.value).startswith(name), f"message does not start with {name!r}: {caught.value}"


# ---- notebooks.copy_notebooks -------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(bad=BAD_PATHS)
def test_copy_notebooks_refuses_a_destination_that_is_not_a_path(bad, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dest")
    refused(lambda: notebooks.copy_notebooks(bad), "destination")
    assert tree(folder) == {}


@settings(max_examples=25, deadline=None)
@given(bad=BAD_FLAGS, which=st.sampled_from(["solutions", "force"]))
def test_copy_notebooks_refuses_flags_that_are_not_booleans(bad, which, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dest")
    refused(lambda: notebooks.copy_notebooks(folder, **{which: bad}), which)
    assert tree(folder) == {}, "a refused call must write nothing (solutions='False' used to copy the answers)"


def test_copy_notebooks_takes_str_and_path_alike(tmp_path):
    as_str = notebooks.copy_notebooks(str(tmp_path / "a"))
    as_path = notebooks.copy_notebooks(tmp_path / "b")
    assert as_str == as_path and len(as_str) == len(NOTEBOOKS)
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


# ---- release ------------------------------------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(bad=BAD_PATHS, which=st.sampled_from(["solutions_dir", "notebooks_dir"]),
       function=st.sampled_from(["plan", "check", "release"]))
def test_release_refuses_folders_that_are_not_paths(bad, which, function, tmp_path_factory):
    target = tmp_path_factory.mktemp("notebooks")
    arguments = {"solutions_dir": release.SOLUTIONS, "notebooks_dir": target, which: bad}
    refused(lambda: getattr(release, function)(**arguments), which)
    assert tree(target) == {}


@settings(max_examples=20, deadline=None)
@given(bad=BAD_PATHS, function=st.sampled_from(["tag", "student_state", "read_notebook"]))
def test_release_refuses_a_notebook_or_folder_that_is_not_a_path(bad, function):
    name = "solutions_dir" if function == "tag" else "path"
    refused(lambda: getattr(grading_layout if function == "tag" else release, function)(bad), name)


@settings(max_examples=20, deadline=None)
@given(bad=BAD_FLAGS)
def test_release_refuses_a_force_that_is_not_a_boolean(bad, tmp_path_factory):
    target = tmp_path_factory.mktemp("notebooks")
    refused(lambda: release.release(release.SOLUTIONS, target, force=bad), "force")
    assert tree(target) == {}


def test_release_takes_str_and_path_alike(tmp_path):
    assert release.release(str(release.SOLUTIONS), str(tmp_path / "a")) == 0
    assert release.release(release.SOLUTIONS, tmp_path / "b") == 0
    assert tree(tmp_path / "a") == tree(tmp_path / "b") and len(tree(tmp_path / "a")) == len(NOTEBOOKS)
    assert release.check(str(release.SOLUTIONS), str(tmp_path / "a")) == []


@settings(max_examples=40, deadline=None)
@given(bad=BAD_POINTS)
def test_nbgrader_metadata_refuses_points_that_are_not_finite_and_non_negative(bad):
    refused(lambda: grading_layout.nbgrader_metadata("nb-cell", grade=True, points=bad), "points")


@settings(max_examples=40, deadline=None)
@given(bad=BAD_GRADE_IDS)
def test_nbgrader_metadata_refuses_grade_ids_nbgrader_cannot_name_a_cell_by(bad):
    refused(lambda: grading_layout.nbgrader_metadata(bad), "grade_id")


@settings(max_examples=25, deadline=None)
@given(bad=BAD_FLAGS, which=st.sampled_from(["solution", "grade", "locked"]))
def test_nbgrader_metadata_refuses_flags_that_are_not_booleans(bad, which):
    refused(lambda: grading_layout.nbgrader_metadata("nb-cell", **{which: bad}, points=1), which)


def test_nbgrader_metadata_keeps_what_nbgrader_expects():
    assert grading_layout.nbgrader_metadata("nb-test", grade=True, locked=True, points=2) == {
        "grade": True, "grade_id": "nb-test", "locked": True, "schema_version": 3, "solution": False,
        "task": False, "points": 2}
    refused(lambda: grading_layout.nbgrader_metadata("nb-test", grade=True), "points")              # graded without points
    refused(lambda: grading_layout.nbgrader_metadata("nb-test", points=1), "points")                # points on an ungraded cell


# ---- assignments --------------------------------------------------------------------------------------

BAD_ONLY = st.one_of(st.integers(), st.none().map(lambda _: b"01"), st.lists(st.integers(), min_size=1, max_size=2),
                     st.sampled_from(["", ",", "01,", [], [""], ["01", 7], "99", ["01", "99"], "1_duality"]),
                     st.text(alphabet="abcxyz_-", min_size=1, max_size=4))


@settings(max_examples=30, deadline=None)
@given(bad=BAD_ONLY)
def test_build_course_refuses_an_only_that_is_not_notebook_prefixes(bad, tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    refused(lambda: assignments.build_course(course, only=bad), "only")
    assert tree(course) == {}, "a refused call must write nothing (only='01' used to build all ten)"


@settings(max_examples=20, deadline=None)
@given(bad=BAD_PATHS, which=st.sampled_from(["course_dir", "solutions_dir", "exchange"]),
       function=st.sampled_from(["build_course", "write_config"]))
def test_the_course_refuses_folders_that_are_not_paths(bad, which, function, tmp_path_factory):
    if which == "exchange" and bad is None:
        return                                      # None keeps the course's exchange setting
    if function == "write_config" and which == "solutions_dir":
        which = "course_dir"
    course = tmp_path_factory.mktemp("course")
    arguments = {"course_dir": course, **({"only": "01"} if function == "build_course" else {}), which: bad}
    refused(lambda: getattr(assignments, function)(**arguments), which)
    assert tree(course) == {}


@settings(max_examples=20, deadline=None)
@given(bad=BAD_FLAGS, function=st.sampled_from(["build_course", "write_config"]))
def test_the_course_refuses_a_force_that_is_not_a_boolean(bad, function, tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    extra = {"only": "01"} if function == "build_course" else {}
    refused(lambda: getattr(assignments, function)(course, force=bad, **extra), "force")
    assert tree(course) == {}


@settings(max_examples=10, deadline=None)
@given(bad=st.one_of(st.integers(), st.text(min_size=1, max_size=3), st.just([print])))
def test_build_course_refuses_a_report_that_is_not_a_function(bad, tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    refused(lambda: assignments.build_course(course, only="01", report=bad), "report")
    assert tree(course) == {}


def test_build_course_takes_only_as_a_list_or_a_comma_string_and_paths_as_str_or_path(tmp_path):
    as_list = assignments.build_course(tmp_path / "a", only=["01", "07"])
    as_text = assignments.build_course(str(tmp_path / "b"), only=" 01, 07")
    assert as_list == as_text == ["01_duality", "07_kernel_perceptron"]
    sources = {path.relative_to(tmp_path / "a") for path in (tmp_path / "a" / "source").rglob("*.ipynb")}
    assert sources == {path.relative_to(tmp_path / "b") for path in (tmp_path / "b" / "source").rglob("*.ipynb")}
    assert len(sources) == 2


def test_the_command_line_names_a_bad_only(tmp_path, capsys):
    assert assignments.main([str(tmp_path / "course"), "--only", "99"]) == 2
    assert "only names no solution notebook with '99'" in capsys.readouterr().err
    assert not (tmp_path / "course").exists()

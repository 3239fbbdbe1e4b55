"""The browser suite's own helpers, without a browser: reading a panel's report line, judging a slider move."""

from labdriver import parse_report, strip_ansi
from test_lab_notebooks import KNOWN_PANELS, falls, rises, stays


def test_parse_report_reads_names_with_spaces_and_keeps_text():
    line = ("q = 0.1 \xa0|\xa0 mean vote entropy (bits) = 0.3364 \xa0|\xa0 vote training errors = 0"
            " | error = no version space")
    assert parse_report(line) == {"q": 0.1, "mean vote entropy (bits)": 0.3364, "vote training errors": 0.0,
                                  "error": "no version space"}
    assert parse_report("") == {}


def test_expectations_hold_only_when_the_numbers_move_their_way():
    before = {"train_mse": 0.1, "thyroid trans rejection %": 5.0, "heart trans rejection %": 7.0, "best": 0.2}
    assert rises("train_mse").holds(before, {**before, "train_mse": 0.2})
    assert not rises("train_mse").holds(before, {**before, "train_mse": 0.1})
    assert not falls("train_mse").holds(before, {**before, "train_mse": 0.2})
    # A pattern must match at least one name, and every name it matches must move.
    assert rises(r".* rejection %").holds(before, {**before, "thyroid trans rejection %": 9.0,
                                                   "heart trans rejection %": 8.0})
    assert not rises(r".* rejection %").holds(before, {**before, "thyroid trans rejection %": 9.0})
    assert not rises("no such number").holds(before, before)
    assert stays("best").holds(before, {**before, "best": 0.20001})
    # A number that turned into text (an error message) fails the expectation instead of raising.
    assert not rises("train_mse").holds(before, {**before, "train_mse": "no version space"})


def test_every_known_panel_names_both_ends_of_each_slider():
    for labels, moves in KNOWN_PANELS.items():
        for label in labels:
            assert {(label, "End"), (label, "Home")} <= set(moves), f"{sorted(labels)}: {label} lacks an end"


def test_strip_ansi():
    assert strip_ansi("\x1b[0;31mValueError\x1b[0m: bad") == "ValueError: bad"

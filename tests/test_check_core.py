"""The check-and-fall-back mechanism and the panel shell shared by every notebook."""

import numpy as np

from kgslab.check import Case, allclose, run_exercise
from kgslab.widgets import Panel, float_slider


def reference(x, power=2):
    return np.asarray(x, dtype=float) ** power


CASES = [Case("three numbers", (np.array([1.0, 2.0, 3.0]),)), Case("cubes", (np.array([2.0]),), {"power": 3})]


def test_a_correct_function_is_returned(capsys):
    def student(x, power=2):
        return np.power(x, power)
    assert run_exercise("Demo", student, reference, CASES) is student
    assert "✔ correct on both tests" in capsys.readouterr().out


def test_a_blank_exercise_falls_back_kindly(capsys):
    def student(x, power=2):
        raise NotImplementedError()
    assert run_exercise("Demo", student, reference, CASES) is reference
    out = capsys.readouterr().out
    assert "not attempted yet" in out and "reference implementation" in out


def test_a_wrong_answer_names_the_case_and_gives_the_hint(capsys):
    def student(x, power=2):
        return np.asarray(x) * power
    assert run_exercise("Demo", student, reference, CASES, hint="use **") is reference
    out = capsys.readouterr().out
    assert "not yet right on test 1 (three numbers)" in out and "Hint: use **" in out


def test_a_crash_is_reported_not_raised(capsys):
    def student(x, power=2):
        return x.nonexistent
    assert run_exercise("Demo", student, reference, CASES) is reference
    assert "raised AttributeError on test 1" in capsys.readouterr().out


def test_wrong_shape_and_tuples_are_explained():
    compare = allclose()
    assert "expected shape (3,), got shape (2,)" in compare(np.zeros(3), np.zeros(2))
    assert "in part 2" in compare((1.0, np.ones(2)), (1.0, np.zeros(2)))
    assert compare((1.0, np.ones(2)), (1.0 + 1e-12, np.ones(2))) is None
    assert "NaN" in compare(np.ones(2), np.array([1.0, np.nan]))


def test_panel_redraws_and_reports_when_a_slider_moves():
    def draw(figure, a):
        ax = figure.subplots()
        x = np.linspace(0, 1, 50)
        ax.plot(x, np.sin(a * x))
        return {"twice a": 2 * a}

    panel = Panel({"a": float_slider("a", 1.0, 0.0, 5.0, 0.1)}, draw)
    first_png = panel.png
    assert panel.values == {"twice a": 2.0} and first_png.startswith(b"\x89PNG")
    panel.a.value = 3.0
    assert panel.values == {"twice a": 6.0}
    assert panel.png != first_png and panel.image.value == panel.png
    assert "twice a" in panel.report.value
    assert not panel.a.continuous_update

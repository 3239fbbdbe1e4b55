"""The rejection-threshold panel of notebook 09: moving theta moves both methods along their curves."""

import numpy as np
import pytest

from kgslab.widgets import rejection_panel


def fake_results(seed, n_splits=4, n_test=40):
    """Split results where confidence predicts correctness (as in Figure 2)."""
    rng = np.random.default_rng(seed)
    out = {}
    for method, scale in (("trans", 1.0), ("svm", 3.0)):
        confidence = rng.uniform(0, 1, (n_splits, n_test))
        confidence[:, :10] = 1.0
        out[f"{method}_confidence"] = scale * confidence
        out[f"{method}_correct"] = rng.uniform(0, 1, (n_splits, n_test)) < 0.6 + 0.4 * confidence
    return out


def test_moving_theta_moves_the_rejection_point():
    panel = rejection_panel({"thyroid": fake_results(0), "heart": fake_results(1)}, theta=0.0)
    first_png, first = panel.png, dict(panel.values)
    assert first["thyroid trans rejection %"] == 0.0 and first["heart svm rejection %"] == 0.0
    panel.theta.value = 0.8
    assert panel.png != first_png
    assert panel.values["theta"] == pytest.approx(0.8)
    for name in ("thyroid", "heart"):
        for method in ("trans", "svm"):
            assert panel.values[f"{name} {method} rejection %"] > 40
    # theta = 1: the transduction rejects every point short of full confidence (10 of 40 are certain)
    panel.theta.value = 1.0
    assert panel.values["thyroid trans rejection %"] == pytest.approx(75.0)
    # theta_max matches the SVM's rejection to the transduction's at theta = 1
    assert abs(panel.values["thyroid svm rejection %"] - 75.0) < 3


def test_needs_results():
    with pytest.raises(ValueError, match="experiments must map"):
        rejection_panel({})


# ---- Figure 1 and the flight, drawn by kgslab.papers.bt1999_figures (`figure1`, `flight_figure`) ----------------

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from kgslab.billiard import KernelBilliard  # noqa: E402
from kgslab.papers.bt1999_figures import figure1, flight_figure  # noqa: E402

X_TOY = np.array([[-1.6, 0.4], [-0.9, 1.3], [-1.2, -0.6], [1.1, -0.2], [1.5, 1.1], [0.7, -1.2]])
Y_TOY = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
TEST_TOY = np.array([[0.1, 1.6]])
LIFTED = np.column_stack([X_TOY, np.ones(6)])


def _inside(seed=0, n=40_000):
    sphere = np.random.default_rng(seed).standard_normal((n, 3))
    sphere /= np.linalg.norm(sphere, axis=1, keepdims=True)
    return sphere[np.all(sphere @ (Y_TOY[:, None] * LIFTED).T > 0, axis=1)]


def _points3d(collection):
    """The (n, 3) points of a 3-d scatter, as drawn."""
    return np.column_stack([np.asarray(np.ma.getdata(part), dtype=float) for part in collection._offsets3d])


def test_figure1_draws_separating_lines_and_version_space_split_by_the_test_point(tmp_path):
    inside = _inside()
    figure = figure1(X_TOY, Y_TOY, TEST_TOY, inside, 0.6, random_state=1)
    figure.savefig(tmp_path / "figure1.png", dpi=60)
    assert (tmp_path / "figure1.png").stat().st_size > 10_000
    left, right = figure.axes
    grey = [line for line in left.lines if len(line.get_xdata()) == 2]
    assert len(grey) == 12
    for line in grey:        # every drawn line has the +1 points on one side and the -1 points on the other
        (x0, x1), (y0, y1) = line.get_xdata(), line.get_ydata()
        side = np.sign((x1 - x0) * (X_TOY[:, 1] - y0) - (y1 - y0) * (X_TOY[:, 0] - x0))
        assert abs(np.sum(side * Y_TOY)) == 6
    green, purple = (c for c in right.collections if len(getattr(c, "_offsets3d", [[]])[0]) > 0
                     and c.get_label().startswith("$V^"))
    for collection, sign in ((green, 1), (purple, -1)):
        points = _points3d(collection)
        assert np.all(points @ (Y_TOY[:, None] * LIFTED).T > 0)                  # inside version space
        assert np.all(sign * (points @ np.append(TEST_TOY[0], 1.0)) > 0)         # on the test point's side
    assert len(_points3d(green)) + len(_points3d(purple)) == min(3000, len(inside))
    plt.close(figure)


def test_flight_figure_draws_the_flights_inside_version_space(tmp_path):
    inside = _inside()
    ball = KernelBilliard(LIFTED @ LIFTED.T, Y_TOY, refresh_rate=0.05, random_state=3)
    alphas, _ = ball.run(40, record=True)
    figure, path = flight_figure(X_TOY, Y_TOY, TEST_TOY, alphas, inside, title="a test", n_highlight=5)
    figure.savefig(tmp_path / "flight.png", dpi=60)
    assert np.allclose(np.linalg.norm(path, axis=1), 1.0)                        # on the sphere
    assert np.min(path @ (Y_TOY[:, None] * LIFTED).T) > -1e-10                    # never through a wall
    corners = alphas @ LIFTED
    assert np.allclose(path[0], corners[0] / np.linalg.norm(corners[0]))         # starts at the ball's start
    assert np.allclose(path[-1], corners[-1] / np.linalg.norm(corners[-1]))
    sphere, plane = figure.axes
    assert "a test" in figure._suptitle.get_text() and f"{len(alphas) - 1} flights" in [
        line.get_label() for line in plane.lines]
    plt.close(figure)


@pytest.mark.parametrize("change, match", [({"X": np.ones((6, 3))}, "X must be an"),
                                           ({"x_test": np.ones((2, 2))}, "x_test must be one point"),
                                           ({"inside": np.ones((4, 2))}, "inside must be")])
def test_the_figures_refuse_what_is_not_the_toy(change, match):
    arguments = {"X": X_TOY, "y": Y_TOY, "x_test": TEST_TOY, "inside": _inside(n=2000)}
    with pytest.raises(ValueError, match=match):
        figure1(**{**arguments, **change}, p_plus=0.5)
    with pytest.raises(ValueError, match="alphas must hold"):
        flight_figure(**arguments, alphas=np.ones((3, 5)))


def test_figure2_draws_the_committed_curves_with_the_given_curve_function(tmp_path):
    from kgslab.billiard import error_rejection_curve
    from kgslab.papers import bt1999
    from kgslab.papers.bt1999_figures import figure2

    committed = {"thyroid": bt1999.load_figure2("thyroid")[0]}
    calls = []

    def counted_curve(confidence, correct, thresholds):
        calls.append(len(confidence))
        return error_rejection_curve(confidence, correct, thresholds)

    figure, theta_max = figure2(committed, {"thyroid": committed["thyroid"]}, curve=counted_curve,
                                paper_theta_max={"thyroid": 2.15})
    figure.savefig(tmp_path / "figure2.png", dpi=60)
    lines, expected_theta = bt1999.study_curves(committed["thyroid"])
    assert theta_max["committed", "thyroid"] == pytest.approx(expected_theta)
    assert calls                                                   # the curve function given is the one used
    (ax,) = figure.axes
    assert "(paper 2.15)" in ax.get_title() and f"{expected_theta['svm']:.2f}" in ax.get_title()
    drawn = {line.get_label(): line for line in ax.lines}
    svm = drawn["SVM with bias, $|f(x)|$, this run (100 splits)"]
    assert np.allclose(svm.get_xdata(), 100 * lines["svm"]["rejection"])   # the study's curve, in percent
    labels = ax.get_legend().get_texts()
    assert "this run" in labels[-1].get_text() and "this run" not in labels[0].get_text()   # committed first
    plt.close(figure)
    with pytest.raises(ValueError, match="this_run must hold"):
        figure2(committed, {"heart": committed["thyroid"]})


def test_bounce_error_figure_draws_the_runs_against_hoeffdings_deviation():
    from kgslab.papers.bt1999_figures import bounce_error_figure

    checkpoints = np.array([10.0, 100.0, 1000.0, 10000.0])
    errors = np.random.default_rng(0).uniform(0.01, 0.3, (5, 4))
    figure = bounce_error_figure(checkpoints, errors, eta=0.01, epsilon=0.05)
    (ax,) = figure.axes
    mean_line, hoeffding_line, vertical = ax.lines
    assert np.allclose(mean_line.get_ydata(), errors.mean(axis=0))
    assert np.allclose(hoeffding_line.get_ydata(), [0.480, 0.152, 0.048, 0.015], atol=5e-4)   # sqrt(ln 100 / 2n)
    assert vertical.get_xdata()[0] == 922                       # eq. (8) at epsilon = 0.05, eta = 0.01
    plt.close(figure)


def test_confidence_scatter_marks_the_wrong_points():
    from kgslab.papers.bt1999_figures import confidence_scatter

    correct = np.array([True, True, False, True, False])
    figure = confidence_scatter(np.array([0.5, 1.0, 2.0, 4.0, 8.0]), np.array([1.0, 0.4, 0.2, 1.0, 0.9]), correct)
    (ax,) = figure.axes
    right, wrong = ax.collections
    assert len(right.get_offsets()) == 3 and np.allclose(wrong.get_offsets(), [[2.0, 0.2], [8.0, 0.9]])
    assert ax.get_xscale() == "log"
    plt.close(figure)
    with pytest.raises(ValueError, match="svm_confidence must be > 0"):
        confidence_scatter(np.array([0.0, 1.0]), np.array([1.0, 1.0]), np.array([True, False]))

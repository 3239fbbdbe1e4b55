"""The KGS paper's own computations (kgslab.papers.kgs2000)."""

import numpy as np
import pytest

from exact_posteriors import problem
from kgslab.kernels import linear_kernel
from kgslab.papers import kgs2000, kgs2000_studies



def test_quadratic_svm_satisfies_kkt():
    X, y, _ = problem(3, m=40, flips=3, seed=4)
    lam = 0.05
    K = linear_kernel(X)
    beta = kgs2000.quadratic_svm(K, y, lam)
    alpha = beta * y
    margins = y * ((K + lam * np.eye(len(y))) @ beta)
    assert np.all(alpha >= 0)
    assert np.all(margins > 1 - 1e-5)  # hard margin on K + lam I
    support = alpha > 1e-6
    np.testing.assert_allclose(margins[support], 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="lam must be > 0"):
        kgs2000.quadratic_svm(K, y, 0.0)


# ---- Figures 1-3 and the evidence figures of notebook 08 -------------------------------------------------------

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402

from kgslab import circle, data, evidence  # noqa: E402
from kgslab.kernels import rbf_kernel  # noqa: E402
from kgslab.versionspace import random_tangent  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _sphere_step(seed=3, m=10, q=0.2):
    rng = np.random.default_rng(seed)
    X, y, _ = data.sphere_data(m, flip_rate=q, random_state=rng)
    w = data.sphere_point(1.3, 2.4)
    v = random_tangent(w, rng)
    boundaries, errors = circle.arc_errors_by_sweep(circle.crossing_angles(X @ w, X @ v, y))
    theta = circle.sample_angle(boundaries, errors, q, rng)
    return X, y, w, v, np.cos(theta) * w + np.sin(theta) * v, boundaries, errors, theta


def test_figure1_draws_the_map_and_counts_what_it_shows(tmp_path):
    rng = np.random.default_rng(0)
    sets = {m: data.sphere_data(m, flip_rate=0.2, random_state=rng) for m in (10, 50)}
    figure, counts = kgs2000.figure1(sets, 0.2)
    panels = [ax for ax in figure.axes if ax.get_xlabel().startswith("latitude")]
    assert len(panels) == 2
    for (m, (X, y, _)), ax in zip(sets.items(), panels):
        # the fewest errors over an independent grid of directions, and the errors of w*
        longitude, latitude = np.meshgrid(np.linspace(0, np.pi, 91), np.linspace(0, 2 * np.pi, 181), indexing="ij")
        directions = np.stack([np.sin(longitude) * np.cos(latitude), np.sin(longitude) * np.sin(latitude),
                               np.cos(longitude)], axis=-1).reshape(-1, 3)
        fewest = int(np.min(np.count_nonzero(y * (directions @ X.T) <= 0, axis=1)))
        w_star = int(np.count_nonzero(y * (X @ data.KGS_W_STAR) <= 0))
        assert counts[m] == (fewest, w_star)
        assert f"fewest errors {fewest}, w* makes {w_star}" in ax.get_title()
        mesh = ax.collections[0].get_array()
        assert mesh.size == 91 * 181 and np.isclose(mesh.max(), (fewest * np.log(0.2) + (m - fewest) * np.log(0.8)) / m)
    figure.savefig(tmp_path / "figure1.png")
    assert (tmp_path / "figure1.png").stat().st_size > 10_000
    with pytest.raises(TypeError, match="sets"):
        kgs2000.figure1([sets[10]], 0.2)
    with pytest.raises(ValueError, match="R\\^3"):
        kgs2000.figure1({4: (np.ones((4, 2)), np.array([1.0, -1, 1, -1]))}, 0.2)


def test_figure2_draws_the_students_arcs_and_the_angle_of_the_step(tmp_path):
    X, y, w, v, w_next, boundaries, errors, theta = _sphere_step()
    figure = kgs2000.figure2(X, y, w, v, w_next, boundaries, errors, 0.2)
    left = figure.axes[0]
    right = [ax for ax in figure.axes if ax.get_title().startswith("Figure 2")][0]
    twin = [ax for ax in figure.axes if ax.get_ylabel().startswith("density")][0]
    crossings = [c for c in left.collections if c.get_label() == "crossing points"][0]
    assert len(crossings.get_offsets()) == 2 * len(y)                     # every crossing drawn
    staircase = [p for p in right.patches if p.get_label() == "training errors of the arc"][0]
    assert np.array_equal(staircase.get_data().values, errors[:-1])       # the student's errors, arc by arc
    drawn = [line for line in right.lines if line.get_label().startswith("drawn")][0]
    assert np.isclose(drawn.get_xdata()[0], theta)                        # the angle the step drew
    density = [p for p in twin.patches if p.get_label().startswith("density")][0].get_data()
    lengths = np.diff(boundaries)
    weight = density.values * lengths                                     # a density: arcs' masses as eq. (3)
    expected = lengths * 0.25 ** (errors[:-1] - errors.min())
    np.testing.assert_allclose(weight / weight[0], expected / expected[0])
    figure.savefig(tmp_path / "figure2.png")
    assert (tmp_path / "figure2.png").stat().st_size > 10_000
    with pytest.raises(ValueError, match="direction must be orthogonal"):
        kgs2000.figure2(X, y, w, w, w_next, boundaries, errors, 0.2)
    with pytest.raises(ValueError, match="boundaries must be the crossing angles sorted"):
        kgs2000.figure2(X, y, w, v, w_next, boundaries[::-1], errors, 0.2)
    with pytest.raises(ValueError, match="new_coords must lie on the great circle"):
        kgs2000.figure2(X, y, w, v, data.sphere_point(0.3, 0.3), boundaries, errors, 0.2)


def test_figure3_shades_the_given_vote_and_keeps_each_runs_samples(tmp_path):
    X, y = data.kgs_76_points()
    calls = []

    def votes(chain_alphas, K_test):            # an independent vote, counting its calls
        calls.append(K_test.shape)
        return (np.einsum("csm,tm->cst", chain_alphas, K_test) > 0).astype(float)

    figure, runs = kgs2000.figure3(X, y, votes, q_levels=(0.1,), n_lines=6, grid_size=30, dimension=69,
                                   random_state=0)
    assert list(runs) == [0.1] and calls and all(shape[1] == len(y) for shape in calls)
    run = runs[0.1]
    K = rbf_kernel(X, L=1.0)
    errors = np.count_nonzero(y * (run.alphas @ K) <= 0, axis=-1).mean(axis=1)
    np.testing.assert_allclose(run.errors, errors)                        # per chain, against the samples
    ax = figure.axes[0]
    shade = ax.images[0].get_array()
    x1 = np.linspace(X[:, 0].min() - 0.45, X[:, 0].max() + 0.45, 30)
    x2 = np.linspace(X[:, 1].min() - 0.45, X[:, 1].max() + 0.45, 30)
    K_plane = rbf_kernel(np.column_stack([np.tile(x1, 30), np.repeat(x2, 30)]), X, L=1.0)
    every = max(1, run.alphas.shape[1] // 100)
    p_plus = (run.alphas[:, ::every] @ K_plane.T > 0).mean(axis=(0, 1)).reshape(30, 30)
    np.testing.assert_allclose(shade, p_plus)
    assert len([c for c in ax.collections if isinstance(c, LineCollection)]) == 2   # samples, Bayes point
    assert "69 dimensions" in figure._suptitle.get_text()
    figure.savefig(tmp_path / "figure3.png")
    with pytest.raises(TypeError, match="vote_draws"):
        kgs2000.figure3(X, y, None, q_levels=(0.1,))


def test_the_evidence_figures_draw_the_run_they_are_given(tmp_path):
    rng = np.random.default_rng(1)
    X, y, _ = data.sphere_data(30, flip_rate=0.1, random_state=rng)
    q = np.array([0.05, 0.1, 0.2])
    run = evidence.evidence_run(linear_kernel(X), y, q, n_rungs=6, n_samples=8, burn_in=5, random_state=rng)
    figure = kgs2000_studies.evidence_figure(run, q, marked=0.1, truth=0.1)
    left, right = figure.axes[:2]
    np.testing.assert_allclose(left.lines[0].get_ydata(), run.mean_errors)
    assert left.lines[0].get_ydata()[0] == 15.0                           # the prior: m / 2, exact
    area = left.collections[-1].get_paths()[0].vertices
    assert np.isclose(area[:, 0].max(), np.log(0.9 / 0.1))               # integrated up to t = ln((1-q)/q)
    np.testing.assert_allclose(right.lines[0].get_ydata(), run.log_evidence)
    figure.savefig(tmp_path / "evidence.png")
    tempered = evidence.evidence_run(linear_kernel(X), y, q, n_rungs=6, n_samples=8, burn_in=5, tempered=True,
                                     random_state=rng)
    figure = kgs2000_studies.replica_exchange_figure({"a": run, "b": tempered}, q)
    assert len(figure.axes[1].lines) == 3                                 # two runs' R-hat, the 1.1 line
    np.testing.assert_allclose(figure.axes[1].lines[1].get_ydata(), tempered.rhat)
    assert "swaps" in figure.axes[1].get_legend().get_texts()[1].get_text()
    with pytest.raises(TypeError, match="run must be the EvidenceRun"):
        kgs2000_studies.evidence_figure({"log_evidence": q}, q)
    with pytest.raises(ValueError, match="q must be the flip rates"):
        kgs2000_studies.evidence_figure(run, q[:2])


def test_plot_figure4_draws_both_runs_on_one_axis_and_their_paired_difference(tmp_path):
    from kgslab.report import chain_mean
    small = kgs2000.figure4(3, q_levels=(0.05, 0.1), lambdas=(0.1, 1.0), n_train=30, n_test=40,
                            samples_per_chain=4, n_chains=2, random_state=0)
    small["rhat"] = np.ones_like(small["bpm"])        # (R-hat of 2 chains x 4 samples can be undefined: not drawn)
    other = {**small, "bpm": small["bpm"] * 0.9, "svm": small["svm"] * 1.1}
    figure = kgs2000.plot_figure4({"this run": small, "file": other})
    ax, right = figure.axes[:2]
    assert ax.get_xscale() == right.get_xscale() == "log"
    bars = [c for c in ax.containers]
    assert len(bars) == 4                                                 # BPM and SVM, two runs
    np.testing.assert_allclose(bars[2].lines[0].get_ydata(), chain_mean(other["bpm"])[0])
    np.testing.assert_allclose(bars[3].lines[0].get_xdata(), small["lambdas"])
    paired = chain_mean(other["bpm"][:, [0]] - other["svm"])[0]          # q = 0.05 is column 0
    np.testing.assert_allclose(right.containers[1].lines[0].get_ydata(), paired)
    figure.savefig(tmp_path / "figure4.png")
    with pytest.raises(ValueError, match="no BPM at q = true_q"):
        kgs2000.plot_figure4({"a": small}, true_q=0.2)
    with pytest.raises(TypeError, match="runs must be"):
        kgs2000.plot_figure4([small])


def test_the_exact_posterior_on_the_sphere_matches_an_independent_quadrature():
    from exact_posteriors import exact_posterior, exact_vote, sphere_grid
    X, y, X_test = problem(3, m=8, flips=1, seed=5)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    errors, p_plus = kgs2000_studies.exact_sphere_posterior(X, y, 0.2, X_test[:20], n_grid=50_000)
    grid = sphere_grid(200_000)                                           # another lattice, four times finer
    weights = exact_posterior(grid, X, y, 0.2)
    grid_errors = np.count_nonzero(y * (grid @ X.T) <= 0, axis=1)
    np.testing.assert_allclose(errors, np.bincount(grid_errors, weights=weights, minlength=9), atol=0.01)
    np.testing.assert_allclose(p_plus, exact_vote(grid, X, y, 0.2, X_test[:20]), atol=0.01)
    assert np.isclose(errors.sum(), 1.0)
    with pytest.raises(ValueError, match="X_test must hold points of R\\^3"):
        kgs2000_studies.exact_sphere_posterior(X, y, 0.2, X_test[:, :2])


def test_chains_of_a_step_function_sample_the_exact_vote():
    from exact_posteriors import exact_vote, sphere_grid
    X, y, X_test = problem(3, m=6, flips=1, seed=0)
    calls = []

    def step(features, y, coords, direction, q, rng):                     # the kit's step, counted
        calls.append(1)
        return circle.step_on_circle(features, y, coords, direction, q, rng)

    samples = kgs2000_studies.step_chains(step, X, y, 0.2, n_chains=3, n_samples=1500, thin=1, burn_in=50, random_state=1)
    assert samples.shape == (3, 1500, 3) and len(calls) == 3 * 1550
    np.testing.assert_allclose(np.linalg.norm(samples, axis=-1), 1.0)
    vote = (samples.reshape(-1, 3) @ X_test[:10].T > 0).mean(axis=0)
    assert np.max(np.abs(vote - exact_vote(sphere_grid(), X, y, 0.2, X_test[:10]))) < 0.06
    with pytest.raises(TypeError, match="step must be a function"):
        kgs2000_studies.step_chains(None, X, y, 0.2)


def test_plot_exact_check_draws_the_distributions_and_the_votes_it_is_given(tmp_path):
    exact = np.array([0.1, 0.6, 0.3])
    sampled = np.array([0, 1, 1, 1, 2, 2, 1, 1, 0, 1])
    figure = kgs2000_studies.plot_exact_check(exact, sampled, np.array([0.2, 0.9]), np.array([0.25, 0.85]), who="your", q=0.2)
    left, right = figure.axes
    heights = [patch.get_height() for patch in left.patches]
    np.testing.assert_allclose(heights[:3], exact)
    np.testing.assert_allclose(heights[3:], [0.2, 0.6, 0.2])
    np.testing.assert_allclose(right.lines[0].get_ydata(), [0.25, 0.85])
    assert "your KGS" in left.get_legend().get_texts()[1].get_text()
    figure.savefig(tmp_path / "exact.png")
    with pytest.raises(ValueError, match="sampled_errors must hold counts"):
        kgs2000_studies.plot_exact_check(exact, np.array([0, 3]), np.array([0.2]), np.array([0.2]))


def test_mixing_figure_draws_the_runs_traces_and_their_effective_sample_size(tmp_path):
    from kgslab.kgs import gibbs_run
    X, y, _ = data.sphere_data(12, flip_rate=0.1, random_state=np.random.default_rng(2))
    K = linear_kernel(X)
    problems = {"sphere": (K, y, 0.1, linear_kernel(X[:1] + 0.1, X))}
    figure, steps = kgs2000_studies.mixing_figure(problems, n_steps=600, burn_in=20, random_state=np.random.default_rng(3))
    run = gibbs_run(K, y, 0.1, 600, burn_in=20, thin=1, random_state=np.random.default_rng(3))   # the same run
    errors = np.count_nonzero(y * (run.alphas[0] @ K) <= 0, axis=1)                          # chain 0, by hand
    trace_axes, rho_axes = figure.axes[:2]
    np.testing.assert_allclose(trace_axes.lines[0].get_ydata(), errors[:500])
    assert set(steps) == {("sphere", "training errors"), ("sphere", "output on the test point")}
    assert all(value >= 0.5 for value in steps.values())
    legend = rho_axes.get_legend().get_texts()[0].get_text()
    assert f"n_eff = {1000 / steps['sphere', 'training errors']:.0f} per 1000 steps" in legend
    figure.savefig(tmp_path / "mixing.png")
    with pytest.raises(ValueError, match="k_probe must be one kernel row"):
        kgs2000_studies.mixing_figure({"a": (K, y, 0.1, K)})


def test_active_learning_records_both_strategies_and_the_committees_votes(tmp_path):
    rng = np.random.default_rng(4)
    X_pool, y_pool = data.kgs_76_points(random_state=rng)
    X_test, y_test = data.kgs_76_points(random_state=rng)
    calls = []

    def votes(chain_alphas, K_test):                 # an independent vote, counting its calls
        calls.append(chain_alphas.shape)
        return (np.einsum("csm,tm->cst", chain_alphas, K_test) > 0).astype(float)

    run = kgs2000_studies.active_learning(X_pool, y_pool, X_test, y_test, votes, n_start=2, n_queries=3, n_repeats=2,
                                  committee=4, random_state=rng)
    assert set(run.curves) == {"highest entropy", "random"}
    assert all(curve.shape == (2, 4) and np.all((curve >= 0) & (curve <= 1)) for curve in run.curves.values())
    assert len(calls) == len(run.chosen_rhat) == len(run.chosen_ess) == 2 * 3      # one vote per entropy query
    assert [shape[:2] for shape in calls] == [(4, 4)] * 6 and [shape[2] for shape in calls[:3]] == [4, 5, 6]
    figure = kgs2000_studies.plot_active_learning(np.zeros((5, 5)), (0, 1, 0, 1), X_pool, y_pool, run, n_start=2)
    right = figure.axes[1]
    np.testing.assert_allclose(right.containers[0].lines[0].get_ydata(), run.curves["highest entropy"].mean(axis=0))
    np.testing.assert_allclose(right.containers[0].lines[0].get_xdata(), [4, 5, 6, 7])   # labelled points
    figure.savefig(tmp_path / "active.png")
    with pytest.raises(TypeError, match="vote_draws"):
        kgs2000_studies.active_learning(X_pool, y_pool, X_test, y_test, None)
    with pytest.raises(ValueError, match="n_queries must leave candidates"):
        kgs2000_studies.active_learning(X_pool[:8], y_pool[:8], X_test, y_test, votes, n_start=2, n_queries=10)

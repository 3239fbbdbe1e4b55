"""Steps 3-8 on one great circle as the paper writes them (kgslab.circle): the references of notebook 08."""

import numpy as np
import pytest

from kgslab import circle, kgs
from kgslab.kernels import rbf_kernel



def random_step(m=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 2))
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    features, _ = kgs.kernel_coordinates(rbf_kernel(X, L=0.7))
    c = rng.standard_normal(features.shape[1])
    c /= np.linalg.norm(c)
    v = rng.standard_normal(features.shape[1])
    v -= (v @ c) * c
    v /= np.linalg.norm(v)
    return features @ c, features @ v, y


def test_crossing_angles_are_where_the_margin_changes_sign():
    w_out, v_out, y = random_step()
    m = len(y)
    angles = circle.crossing_angles(w_out, v_out, y)
    assert angles.shape == (2 * m,) and np.all((angles >= 0) & (angles < 2 * np.pi))

    def margins_at(thetas):
        """Margin of point i at thetas[i]."""
        return y * (np.cos(thetas) * w_out + np.sin(thetas) * v_out)

    eps = 1e-7
    np.testing.assert_allclose(margins_at(angles[:m]), 0, atol=1e-10)
    np.testing.assert_allclose(margins_at(angles[m:]), 0, atol=1e-10)
    assert np.all(margins_at(angles[:m] + eps) < 0)  # just after its first angle the point is an error
    assert np.all(margins_at(angles[m:] + eps) > 0)  # just after its second it is correct again
    np.testing.assert_allclose(np.mod(angles[m:] - angles[:m], 2 * np.pi), np.pi, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_sweep_equals_direct_evaluation(seed):
    w_out, v_out, y = random_step(m=60, seed=seed)
    boundaries, errors = circle.arc_errors_by_sweep(circle.crossing_angles(w_out, v_out, y))
    assert np.all(np.diff(boundaries) >= 0)
    direct = circle.arc_errors_direct(boundaries, w_out, v_out, y)
    lengths = np.diff(boundaries, append=boundaries[0] + 2 * np.pi)
    visible = lengths > 1e-9  # a midpoint of a vanishing arc is not resolvable in floating point
    np.testing.assert_array_equal(errors[visible], direct[visible])
    # The arc holding theta = 0 (the current point) has the current point's error count.
    assert errors[-1] == np.count_nonzero(y * w_out <= 0)


def test_sample_angle_follows_the_piecewise_uniform_density():
    boundaries = np.array([0.0, 1.0, 2.5, 4.0])
    errors = np.array([0, 1, 2, 1])
    q = 0.2
    rng = np.random.default_rng(0)
    thetas = np.array([circle.sample_angle(boundaries, errors, q, rng) for _ in range(40_000)])
    lengths = np.diff(boundaries, append=2 * np.pi)
    weights = lengths * (q / (1 - q)) ** errors
    expected = weights / weights.sum()
    got = np.histogram(thetas, bins=np.append(boundaries, 2 * np.pi))[0] / len(thetas)
    np.testing.assert_allclose(got, expected, atol=0.01)
    # q = 0: only error-free arcs; uniform inside the arc.
    zero = np.array([circle.sample_angle(boundaries, errors, 0.0, rng) for _ in range(2000)])
    assert np.all((zero >= 0) & (zero < 1.0))
    assert abs(zero.mean() - 0.5) < 0.02


def test_huge_error_counts_do_not_underflow():
    # 5000 errors on one half circle and 4990 on the other: q^e underflows to 0 in floating
    # point, the log-space weights do not; the odds are (q / (1-q))^10.
    boundaries = np.array([0.0, np.pi])
    q = 0.4
    rng = np.random.default_rng(1)
    thetas = np.array([circle.sample_angle(boundaries, np.array([5000, 4990]), q, rng) for _ in range(5000)])
    expected = 1 / (1 + (q / (1 - q)) ** 10)
    assert abs(np.mean(thetas >= np.pi) - expected) < 0.01

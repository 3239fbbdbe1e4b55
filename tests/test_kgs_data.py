"""Data of the KGS paper: the R^3 sphere data (Figures 1 and 4) and the 76-point set (Figure 3)."""

import numpy as np
import pytest
from scipy import stats

from kgslab import data


def test_sphere_angles_invert_sphere_point():
    rng = np.random.default_rng(0)
    longitude = rng.uniform(0.01, np.pi - 0.01, 50)
    latitude = rng.uniform(0, 2 * np.pi, 50)
    points = data.sphere_point(longitude, latitude)
    np.testing.assert_allclose(np.linalg.norm(points, axis=1), 1.0)
    back_longitude, back_latitude = data.sphere_angles(points)
    np.testing.assert_allclose(back_longitude, longitude, atol=1e-12)
    np.testing.assert_allclose(back_latitude, latitude, atol=1e-12)
    # The paper's w* at (pi/2, pi) is the point (-1, 0, 0).
    np.testing.assert_allclose(data.KGS_W_STAR, [-1.0, 0.0, 0.0], atol=1e-15)


def test_sphere_data_follows_the_papers_recipe():
    X, y, y_clean = data.sphere_data(20_000, flip_rate=0.05, random_state=1)
    longitude, latitude = data.sphere_angles(X)
    # longitude / pi ~ Beta(5, 5) and latitude / 2 pi ~ Beta(0.1, 0.1): Kolmogorov-Smirnov against them.
    assert stats.kstest(longitude / np.pi, stats.beta(5, 5).cdf).pvalue > 1e-3
    assert stats.kstest(latitude / (2 * np.pi), stats.beta(0.1, 0.1).cdf).pvalue > 1e-3
    np.testing.assert_array_equal(y_clean, np.where(X @ data.KGS_W_STAR > 0, 1.0, -1.0))
    assert np.mean(y != y_clean) == pytest.approx(0.05, abs=0.005)
    again = data.sphere_data(20_000, flip_rate=0.05, random_state=1)
    np.testing.assert_array_equal(again[0], X)


def test_kgs_76_points():
    X, y = data.kgs_76_points()
    assert X.shape == (76, 2) and np.count_nonzero(y > 0) == 38 and np.count_nonzero(y < 0) == 38
    np.testing.assert_array_equal(data.kgs_76_points()[0], X)  # seeded by default
    assert not np.allclose(data.kgs_76_points(random_state=1)[0], X)
    # Inside the window of the paper's Figure 3 (with a little room).
    assert X[:, 0].min() > -3.5 and X[:, 0].max() < 1.5 and X[:, 1].min() > -3 and X[:, 1].max() < 4
    # No straight line through the origin separates the classes (the RBF kernel is needed).
    angles = np.linspace(0, 2 * np.pi, 3600, endpoint=False)
    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    assert np.min(np.count_nonzero(y[None, :] * (directions @ X.T) <= 0, axis=1)) > 5


def test_bad_arguments():
    with pytest.raises(ValueError, match="flip_rate"):
        data.sphere_data(10, flip_rate=0.7)
    with pytest.raises(ValueError, match="m must be"):
        data.sphere_data(0)

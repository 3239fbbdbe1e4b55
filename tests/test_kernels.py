"""kgslab.kernels against independent references: explicit feature maps, sklearn, closed forms."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel as sklearn_rbf
from sklearn.preprocessing import KernelCenterer

from kgslab.kernels import centre, kernel_matrix, linear_kernel, normalise, rbf_kernel


@pytest.fixture
def points():
    rng = np.random.default_rng(0)
    return rng.normal(size=(12, 4)), rng.normal(size=(5, 4))


def test_rbf_matches_sklearn_with_gamma_one_over_two_L_squared(points):
    X, Z = points
    for L in (0.3, 1.0, 2.5):
        assert np.allclose(rbf_kernel(X, Z, L=L), sklearn_rbf(X, Z, gamma=1 / (2 * L**2)), rtol=1e-12)


def test_rbf_brute_force_entry(points):
    X, Z = points
    L = 0.7
    expected = np.exp(-np.sum((X[3] - Z[2]) ** 2) / (2 * L**2))
    assert rbf_kernel(X, Z, L=L)[3, 2] == pytest.approx(expected, rel=1e-12)
    assert np.allclose(np.diag(rbf_kernel(X, L=L)), 1.0)


def test_linear_kernel_is_inner_products(points):
    X, Z = points
    assert np.allclose(linear_kernel(X, Z), [[x @ z for z in Z] for x in X])
    assert np.allclose(kernel_matrix(X, Z, kernel="linear"), X @ Z.T)


def test_normalise_equals_kernel_of_unit_vectors(points):
    X, _ = points
    X_unit = X / np.linalg.norm(X, axis=1, keepdims=True)   # eq. (18) in input space
    K_n = normalise(linear_kernel(X))                         # eq. (19) from the kernel alone
    assert np.allclose(K_n, X_unit @ X_unit.T)
    assert np.allclose(np.diag(K_n), 1.0)


def test_centre_equals_kernel_of_centred_features(points):
    X, _ = points
    X_centred = X - X.mean(axis=0)                            # eq. (20)
    assert np.allclose(centre(linear_kernel(X)), X_centred @ X_centred.T)   # eq. (21)


def test_centre_matches_sklearn_kernel_centerer(points):
    X, _ = points
    K = rbf_kernel(X, L=1.3)
    assert np.allclose(centre(K), KernelCenterer().fit_transform(K))
    assert np.allclose(centre(K).sum(axis=0), 0, atol=1e-12)


def test_centre_follows_eq_21_literally(points):
    X, _ = points
    K = rbf_kernel(X, L=0.9)
    l = K.shape[0]
    J = np.ones((l, l)) / l
    assert np.allclose(centre(K), K - J @ K - K @ J + J @ K @ J)


@pytest.mark.parametrize("bad_L", [0, -1.0, np.inf, "wide"])
def test_rbf_rejects_bad_width(points, bad_L):
    with pytest.raises((ValueError, TypeError), match="L"):
        rbf_kernel(points[0], L=bad_L)


def test_mismatched_columns_are_named(points):
    X, _ = points
    with pytest.raises(ValueError, match="Z must have as many columns as X"):
        linear_kernel(X, np.ones((3, 2)))


def test_non_finite_input_is_refused(points):
    X, _ = points
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="X must contain only finite numbers"):
        rbf_kernel(X)


def test_normalise_refuses_zero_diagonal_and_asymmetry():
    with pytest.raises(ValueError, match="positive diagonal"):
        normalise(np.array([[1.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="symmetric"):
        centre(np.array([[1.0, 0.5], [0.1, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        centre(np.ones((2, 3)))


def test_unknown_kernel_name(points):
    with pytest.raises(ValueError, match="kernel must be"):
        kernel_matrix(points[0], kernel="poly")


def test_designs_kernels_normalise_and_centre_are_plain_names_of_kernels():
    # DESIGN.md's API: kgslab.kernels.normalise / .centre, defined in kernels itself (one module per idea: the
    # kernel and the transforms of its matrix), listed like its other names
    import kgslab.kernels as kernels

    assert {"normalise", "centre", "norms_and_means"} <= set(kernels.__all__)
    assert all(getattr(kernels, name).__module__ == "kgslab.kernels" for name in ("normalise", "centre"))
    assert not hasattr(kernels, "__getattr__")

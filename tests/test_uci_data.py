"""The shipped UCI tables: counts, a few rows checked against the UCI files, and the split helper."""

import numpy as np
import pytest

from kgslab.data import load_heart, load_thyroid, random_split, standardise


def test_thyroid_counts_and_rows():
    X, y, classes = load_thyroid(return_classes=True)
    assert X.shape == (215, 5)
    assert np.sum(y == -1) == 150 and np.sum(y == 1) == 65
    assert np.bincount(classes).tolist() == [0, 150, 35, 30]       # normal, hyper, hypo
    # rows as in UCI new-thyroid.data (class first there): 1,107,10.1,2.2,0.9,2.7
    np.testing.assert_array_equal(X[0], [107, 10.1, 2.2, 0.9, 2.7])
    assert classes[0] == 1 and classes[-1] == 3


def test_heart_counts_and_rows():
    X, y = load_heart()
    assert X.shape == (270, 13)
    assert np.sum(y == 1) == 120 and np.sum(y == -1) == 150
    # Statlog heart.dat, first two rows: ... 2 (presence) and ... 1 (absence)
    np.testing.assert_array_equal(X[0], [70, 1, 4, 130, 322, 0, 2, 109, 0, 2.4, 2, 3, 3])
    np.testing.assert_array_equal(X[1], [67, 0, 3, 115, 564, 0, 2, 160, 0, 1.6, 2, 0, 7])
    assert y[0] == 1 and y[1] == -1
    assert np.all(np.isfinite(X))


def test_standardise_uses_the_training_part_only():
    rng = np.random.default_rng(0)
    train, test = rng.normal(5, 2, (50, 3)), rng.normal(0, 1, (20, 3))
    train_std, test_std = standardise(train, test)
    np.testing.assert_allclose(train_std.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(train_std.std(axis=0), 1)
    np.testing.assert_allclose(test_std, (test - train.mean(axis=0)) / train.std(axis=0))
    with pytest.raises(ValueError, match="X_test must have 3 columns"):
        standardise(train, test[:, :2])


def test_random_split_is_60_40_and_seeded():
    X, y = load_thyroid()
    X_train, X_test, y_train, y_test = random_split(X, y, random_state=1)
    assert len(y_train) == 129 and len(y_test) == 86
    again = random_split(X, y, random_state=1)
    np.testing.assert_array_equal(X_test, again[1])
    with pytest.raises(ValueError, match="train_fraction"):
        random_split(X, y, train_fraction=1.0)

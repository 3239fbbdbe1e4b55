"""kgslab.data.kfd: the toy, the digits pair and the sky photographs, masks and features."""

import numpy as np
import pytest

from kgslab.data import (KFD_TOY, SKY_BLOCK_OFFSETS, SKY_PHOTOGRAPHS, digits_pair, kfd_toy_data, load_photograph,
                         load_sky_mask, role_of_columns, sky_block_features, sky_problem)


def test_toy_follows_the_paper_settings():
    X, y_observed, y_true = kfd_toy_data(40_000, random_state=0)
    assert X.shape == (40_000, 2) and set(np.unique(y_true)) == {1, 2}
    assert abs(np.mean(y_true == 1) - 0.8) < 0.01
    for label in (1, 2):
        assert abs(np.mean(y_observed[y_true == label] != label) - 0.2) < 0.015
    for k, label in enumerate((1, 2)):
        rows = X[y_true == label]
        factor = KFD_TOY["factors"][k]
        assert np.allclose(rows.mean(axis=0), KFD_TOY["means"][k], atol=0.15)
        assert np.allclose(np.cov(rows.T), factor @ factor.T, rtol=0.06, atol=0.4)


def test_toy_is_seeded_and_noise_free_on_request():
    first = kfd_toy_data(50, random_state=1)
    again = kfd_toy_data(50, random_state=1)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    _, y_observed, y_true = kfd_toy_data(500, noise_rate=0.0, random_state=2)
    assert np.array_equal(y_observed, y_true)
    with pytest.raises(ValueError, match="noise_rate must be <= 1"):
        kfd_toy_data(10, noise_rate=1.5)


def test_digits_pair_split_and_induced_noise():
    pair = digits_pair(4, 9, noise_rate=0.3, random_state=0)
    assert pair.X_train.shape[1] == 64 and 0 <= pair.X_train.min() and pair.X_train.max() <= 1
    assert set(np.unique(pair.y_test)) == {4, 9} and set(np.unique(pair.y_train)) == {4, 9}
    assert abs(len(pair.y_test) / (len(pair.y_test) + len(pair.y_train)) - 0.4) < 0.01
    assert 0.2 < pair.flipped.mean() < 0.4
    clean = digits_pair(4, 9, noise_rate=0.0, random_state=0)
    # the same split: the flipped labels are exactly the ones that changed
    assert np.array_equal(clean.X_train, pair.X_train)
    assert np.array_equal(clean.y_train != pair.y_train, pair.flipped)
    with pytest.raises(ValueError, match="different digits"):
        digits_pair(4, 4)


def test_block_features_pick_the_right_pixels():
    assert len(SKY_BLOCK_OFFSETS) == 17 and len({tuple(o) for o in SKY_BLOCK_OFFSETS}) == 17
    image = np.random.default_rng(0).random((20, 30, 3))
    X, rows, columns = sky_block_features(image, stride=1)
    assert X.shape == (600, 51)
    n = rows.tolist().index(10) + 12             # the pixel (10, 12): every block pixel lies inside
    assert rows[n] == 10 and columns[n] == 12
    for j, (dr, dc) in enumerate(SKY_BLOCK_OFFSETS):
        assert np.array_equal(X[n, 3 * j:3 * j + 3], image[10 + dr, 12 + dc])
    with pytest.raises(ValueError, match="3 colour channels"):
        sky_block_features(np.zeros((5, 5, 4)))


def test_masks_and_photographs():
    assert sum(SKY_PHOTOGRAPHS.values()) >= 2 and sum(not v for v in SKY_PHOTOGRAPHS.values()) >= 2
    for name, has_sky in SKY_PHOTOGRAPHS.items():
        image, mask = load_photograph(name), load_sky_mask(name)
        assert image.shape[:2] == mask.shape and image.shape[2] == 3 and 0 <= image.min() and image.max() <= 1
        assert (mask.mean() > 0.2) if has_sky else (mask.sum() == 0)
    # sky is in the upper part of a photograph and is bluer than the rest
    for name in ("china", "rocket"):
        image, mask = load_photograph(name), load_sky_mask(name)
        assert mask[: mask.shape[0] // 4].mean() > 0.75 and mask[-5:].mean() < 0.05
        blueness = image[..., 2] - image[..., 0]
        assert blueness[mask].mean() > blueness[~mask].mean()
    with pytest.raises(ValueError, match="name must be one of"):
        load_photograph("moon")


def test_sky_problem_roles_share_no_pixel():
    roles = role_of_columns(160, 3, 3)
    assert set(roles.tolist()) == {0, 1, 2} and abs(np.mean(roles == 0) - 1 / 3) < 0.01
    problem = sky_problem(stride=4)
    assert problem.X_train.shape[1] == 51
    # per-image labels: all pixels of a photograph with sky say "sky", and that label is noisy
    sky_labelled = problem.y_train_image == 1
    assert 0.2 < 1 - problem.y_train_pixel[sky_labelled].mean() < 0.8
    assert problem.y_train_pixel[~sky_labelled].sum() == 0
    train_rows = {tuple(row) for row in problem.X_train.round(6)}
    assert not any(tuple(row) in train_rows for row in problem.X_test.round(6)[problem.y_test_pixel == 1])
    assert set(problem.test_source) == {"china (test strips)", "rocket (test strips)", "chelsea"}


def test_shipped_masks_equal_a_fresh_run_of_the_procedure():
    import importlib.util

    from kgslab.data import DATA_DIR

    spec = importlib.util.spec_from_file_location("make_masks", DATA_DIR / "sky_masks" / "make_masks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("china", "rocket"):
        assert np.array_equal(module.make_mask(name), load_sky_mask(name))

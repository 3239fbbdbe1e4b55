"""kgslab.data.kfd: the toy, the digits pair and the sky photographs, masks and features."""

import numpy as np
import pytest

from kgslab.data import (KFD_TOY, SKY_BLOCK_OFFSETS, SKY_PHOTOGRAPHS, digits_pair, kfd_toy_data, load_photograph,
                         load_sky_mask, sky_block_features, sky_pixels)


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
    for name in ("china", "rocket", "camera"):
        image, mask = load_photograph(name), load_sky_mask(name)
        assert mask[: mask.shape[0] // 4].mean() > 0.75 and mask[-5:].mean() < 0.05
        blueness = image[..., 2] - image[..., 0]
        if name != "camera":
            assert blueness[mask].mean() > blueness[~mask].mean()
    grey = load_photograph("camera")      # a grey photograph becomes three equal channels
    assert np.array_equal(grey[..., 0], grey[..., 1]) and np.array_equal(grey[..., 0], grey[..., 2])
    with pytest.raises(ValueError, match="name must be one of"):
        load_photograph("moon")


def test_sky_pixels_grids_and_labels():
    image, mask = load_photograph("china"), load_sky_mask("china")
    pixels = sky_pixels("china", stride=4, offset=2)
    assert pixels.rows.min() == 2 and pixels.columns.min() == 2 and np.all(pixels.rows % 4 == 2)
    assert np.array_equal(pixels.y_pixel, mask[pixels.rows, pixels.columns])
    assert np.all(pixels.y_image == 1) and np.all(sky_pixels("coffee", 8).y_image == 0)
    whole, rows, columns = sky_block_features(image, stride=1)
    at = rows * image.shape[1] + columns
    assert np.array_equal(pixels.X, whole[pixels.rows * image.shape[1] + pixels.columns])
    assert len(at) == image.shape[0] * image.shape[1]
    on_grid_0 = set(zip(*[a.tolist() for a in (sky_pixels("china", 4).rows, sky_pixels("china", 4).columns)]))
    assert not on_grid_0 & set(zip(pixels.rows.tolist(), pixels.columns.tolist()))
    for bad in (4, -1, 1.5, True):
        with pytest.raises(ValueError, match="offset"):
            sky_pixels("china", stride=4, offset=bad)


def test_shipped_masks_equal_a_fresh_run_of_the_procedure():
    import importlib.util

    from kgslab.data import DATA_DIR

    spec = importlib.util.spec_from_file_location("make_masks", DATA_DIR / "sky_masks" / "make_masks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("china", "rocket", "camera"):
        assert np.array_equal(module.make_mask(name), load_sky_mask(name))

"""Data for notebook 10 (the noisy kernel Fisher discriminant, seed 003): the toy, the digits pair, the sky.

* `kfd_toy_data`: the paper's toy problem with the authors' settings (kgslab/papers/SETTINGS.md).
* `digits_pair`: two classes of scikit-learn's 8 x 8 digits, split into
  training and test points, with label noise induced in the training labels.
* `load_photograph`, `load_sky_mask`, `sky_block_features`, `sky_pixels`:
  the sky problem's photographs (they ship with scikit-learn and
  scikit-image), the kit's own pixel masks (data/sky_masks/) and the pixel
  features.  How photographs are split into training and test sets is the
  experiment's business: `kgslab.papers.kfd2001`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._validation import as_float_array, as_generator, as_positive_int, as_scalar
from ._paths import DATA_DIR

__all__ = [
    "KFD_TOY", "kfd_toy_data", "digits_pair", "SKY_PHOTOGRAPHS", "SKY_BLOCK_OFFSETS", "load_photograph",
    "load_sky_mask", "sky_block_features", "SkyPixels", "sky_pixels",
]

# ---- the toy problem ----------------------------------------------------------------------------

#: The toy's settings (from the authors' scripts, listed in kgslab/papers/SETTINGS.md).  Class 1 is the
#: weakly correlated Gaussian (correlation 0.45) and 4 times as likely as class 2,
#: the strongly correlated one (correlation 0.89); covariance = factor @ factor.T.
KFD_TOY = {
    "priors": (0.8, 0.2),
    "means": (np.array([1.0, -1.0]), np.array([-2.0, 1.0])),
    "factors": (np.array([[4.0, 0.0], [2.0, 4.0]]), np.array([[2.0, 0.0], [4.0, 2.0]])),
    "noise_rate": 0.2,
}


def kfd_toy_data(n: int = 200, *, noise_rate: float = KFD_TOY["noise_rate"], random_state=None):
    """The paper's toy problem: n points in R^2 from two Gaussians, labels 1 and 2, then label noise.

    Each point is class 1 with probability 0.8 and class 2 with 0.2, drawn from
    N(m_c, C_c C_c') with the settings in `KFD_TOY`; its observed label is the
    other class with probability `noise_rate` (0.2 in the paper, in both
    directions: the generative convention P(yhat != y | y)).
    Returns (X (n, 2), y_observed, y_true), labels in {1, 2}.
    """
    n = as_positive_int(n, "n")
    noise_rate = as_scalar(noise_rate, "noise_rate", low=0.0, high=1.0)
    rng = as_generator(random_state)
    y_true = np.where(rng.random(n) < KFD_TOY["priors"][0], 1, 2)
    standard = rng.standard_normal((n, 2))
    X = np.empty((n, 2))
    for label, mean, factor in zip((1, 2), KFD_TOY["means"], KFD_TOY["factors"]):
        rows = y_true == label
        X[rows] = standard[rows] @ factor.T + mean
    flipped = rng.random(n) < noise_rate
    y_observed = np.where(flipped, 3 - y_true, y_true)
    return X, y_observed, y_true


# ---- the digits pair ----------------------------------------------------------------------------

@dataclass
class DigitsPair:
    """Training points with (noisy) labels, clean test points, and which training labels were flipped."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    flipped: np.ndarray


@lru_cache(maxsize=1)
def _digits():
    """scikit-learn's digits (data, target), read once: reading the file costs more than a KFD fit."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    digits.data.flags.writeable = False
    digits.target.flags.writeable = False
    return digits.data, digits.target


def digits_pair(first: int = 4, second: int = 9, *, noise_rate: float = 0.0, test_fraction: float = 0.4,
                random_state=None) -> DigitsPair:
    """Two digits of scikit-learn's 8 x 8 set (about 180 images each), pixels scaled to [0, 1].

    A random `test_fraction` of the images is held out with their TRUE labels;
    each training label is replaced by the other digit with probability
    `noise_rate` (induced label noise, symmetric, as in the paper's digits
    experiment).  Labels are the digits themselves.
    """
    for name, digit in (("first", first), ("second", second)):
        if isinstance(digit, bool) or not isinstance(digit, (int, np.integer)) or not 0 <= digit <= 9:
            raise ValueError(f"{name} must be a digit 0..9, got {digit!r}")
    if first == second:
        raise ValueError(f"first and second must be different digits, got {first} twice")
    noise_rate = as_scalar(noise_rate, "noise_rate", low=0.0, high=1.0)
    test_fraction = as_scalar(test_fraction, "test_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
    rng = as_generator(random_state)
    images, targets = _digits()
    keep = np.isin(targets, (first, second))
    X, y = images[keep] / 16.0, targets[keep]
    order = rng.permutation(len(y))
    n_test = int(round(test_fraction * len(y)))
    test, train = order[:n_test], order[n_test:]
    flipped = rng.random(len(train)) < noise_rate
    y_train = np.where(flipped, first + second - y[train], y[train])
    return DigitsPair(X[train], y_train, X[test], y[test], flipped)


# ---- the sky problem ----------------------------------------------------------------------------

#: The photographs the kit uses, and whether each contains sky.  Every colour
#: photograph of a scene that ships with scikit-learn or scikit-image is here,
#: and the one grey scene with sky (camera, used as grey RGB).  Left out: the
#: other grey images (coins, moon, page...), hubble_deep_field, retina and the
#: microscopy images (not scenes), and stereo_motorcycle (an indoor scene whose
#: licence scikit-image does not state).
SKY_PHOTOGRAPHS = {
    "china": True,        # scikit-learn: a temple under a pale daylight sky
    "rocket": True,       # scikit-image: a launch pad under a dusk sky
    "camera": True,       # scikit-image: a cameraman on a lawn, grey sky and buildings behind (grey image)
    "flower": False,      # scikit-learn
    "coffee": False,      # scikit-image
    "chelsea": False,     # scikit-image: a cat
    "astronaut": False,   # scikit-image: portrait in front of a flag
}

#: The 17 pixels of a 9 x 9 block whose colours describe its centre pixel
#: (the paper used 17 pixels of a block; its exact arrangement is lost): the centre,
#: the 8 pixels at distance 2 and the 8 at distance 4 (rows, columns).
SKY_BLOCK_OFFSETS = np.array([(0, 0)] + [(r * s, c * s) for s in (2, 4)
                                         for r in (-1, 0, 1) for c in (-1, 0, 1) if (r, c) != (0, 0)])

WORKING_DOWNSAMPLE = 4


def load_photograph(name: str) -> np.ndarray:
    """One of `SKY_PHOTOGRAPHS` as floats in [0, 1], averaged over 4 x 4 pixel blocks (h, w, 3)."""
    from skimage.measure import block_reduce

    if not isinstance(name, str) or name not in SKY_PHOTOGRAPHS:   # a list would be unhashable here
        raise ValueError(f"name must be one of {sorted(SKY_PHOTOGRAPHS)}, got {name!r}")
    if name in ("china", "flower"):
        from sklearn.datasets import load_sample_image
        image = load_sample_image(f"{name}.jpg")
    else:
        import skimage.data
        image = getattr(skimage.data, name)()
    image = np.asarray(image, dtype=float) / 255.0
    image = np.repeat(image[..., None], 3, axis=2) if image.ndim == 2 else image[..., :3]   # grey -> RGB
    factor = WORKING_DOWNSAMPLE
    rows, columns = (image.shape[0] // factor) * factor, (image.shape[1] // factor) * factor
    return block_reduce(image[:rows, :columns], (factor, factor, 1), np.mean)


def load_sky_mask(name: str) -> np.ndarray:
    """The kit's pixel mask for a photograph (True = sky), at the working resolution.

    Photographs without sky have no file: their mask is all False.  The masks
    were made once by data/sky_masks/make_masks.py (see data/README.md).
    """
    if not isinstance(name, str) or name not in SKY_PHOTOGRAPHS:   # a list would be unhashable here
        raise ValueError(f"name must be one of {sorted(SKY_PHOTOGRAPHS)}, got {name!r}")
    shape = load_photograph(name).shape[:2]
    if not SKY_PHOTOGRAPHS[name]:
        return np.zeros(shape, dtype=bool)
    from skimage.io import imread

    path = DATA_DIR / "sky_masks" / f"{name}.png"
    if not path.exists():
        raise FileNotFoundError(f"the sky mask {path} is missing; run data/sky_masks/make_masks.py")
    mask = imread(path) > 127
    if mask.shape != shape:
        raise ValueError(f"the mask {path} has shape {mask.shape}, but the photograph has {shape}")
    return mask


def sky_block_features(image, stride: int = 1, offset: int = 0):
    """Pixel features as in the paper: the RGB values of the 17 block pixels around each centre pixel.

    image (h, w, 3) in [0, 1].  The image is padded by repeating its edge so
    every pixel has a block.  Centres are taken every `stride` pixels in both
    directions (stride > 1: the paper's uniform subsampling, which also makes
    the points more nearly independent), starting at row and column `offset`
    (0 <= offset < stride; grids with different offsets share no pixel).
    Returns (features (m, 51), rows, columns).
    """
    image = as_float_array(image, "image", ndim=3)
    if image.shape[2] != 3:
        raise ValueError(f"image must have 3 colour channels, got shape {image.shape}")
    stride = as_positive_int(stride, "stride")
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or not 0 <= offset < stride:
        raise ValueError(f"offset must be an integer in [0, stride) = [0, {stride}), got {offset!r}")
    reach = int(np.max(np.abs(SKY_BLOCK_OFFSETS)))
    padded = np.pad(image, ((reach, reach), (reach, reach), (0, 0)), mode="edge")
    rows, columns = np.meshgrid(np.arange(offset, image.shape[0], stride), np.arange(offset, image.shape[1], stride),
                                indexing="ij")
    rows, columns = rows.ravel(), columns.ravel()
    blocks = [padded[rows + reach + dr, columns + reach + dc] for dr, dc in SKY_BLOCK_OFFSETS]
    return np.concatenate(blocks, axis=1), rows, columns


@dataclass
class SkyPixels:
    """The sampled pixels of one photograph: features, the photograph's label and the true pixel labels.

    y_image: the per-image label (1 = "the photograph contains sky"), the paper's
    cheap, noisy label for every pixel of it; y_pixel: the true pixel label from
    the kit's mask (1 = sky).
    """

    X: np.ndarray
    y_image: np.ndarray
    y_pixel: np.ndarray
    rows: np.ndarray
    columns: np.ndarray


def sky_pixels(name: str, stride: int = 1, offset: int = 0) -> SkyPixels:
    """`sky_block_features` of photograph `name` on the grid offset + stride * (i, j), with both labels.

    Two grids with different offsets (0 <= offset < stride) share no pixel, so one
    photograph can give training pixels and labelled validation pixels.
    """
    if not isinstance(name, str) or name not in SKY_PHOTOGRAPHS:   # a list would be unhashable here
        raise ValueError(f"name must be one of {sorted(SKY_PHOTOGRAPHS)}, got {name!r}")
    image, mask = load_photograph(name), load_sky_mask(name)
    X, rows, columns = sky_block_features(image, stride, offset)
    return SkyPixels(X, np.full(len(X), int(SKY_PHOTOGRAPHS[name])), mask[rows, columns].astype(int), rows, columns)

"""Lawrence and Schölkopf, "Estimating a kernel Fisher discriminant in the presence of label noise", ICML 2001
(seed 003): the experiments behind notebook 10's tables and figures.

* `toy_table`: EM on the paper's toy problem for several N (its Table 1), with each sample's own
  statistics beside the estimates (an estimate is judged against what its sample holds, not only
  against the population value).
* `digits_experiment`: test error of the standard and the label-noise KFD against induced label
  noise (its digits figures), split by split so that differences are paired.
* `sky_split`, `sky_experiment`: the sky problem (its Table 2) with whole photographs held out for
  testing: every pair (a photograph with sky, one without) is a test set once, the model is trained
  on the other photographs, and the RBF width is chosen on labelled pixels of the TRAINING
  photographs (a grid of pixels disjoint from the training pixels).
* `load_result`: committed paper-sized runs in data/results/ (`python -m kgslab.papers.kfd2001 digits`
  and `... toy`).

The algorithms import nothing from here.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import data
from .._validation import (as_float_array, as_generator, as_matrix, as_positive_int, as_probabilities, as_scalar,
                           binary_classes, check_work_budget)
from ..kfd import KFD, LabelNoiseKFD
from ..label_noise import SingularCovarianceError
# Private: notebook 10 imports this module, and these are (or invert) the references of its Exercises 10.1 and 10.4.
from ..label_noise import flip_rates_from_noise_rates as _flip_rates
from ..label_noise import label_noise_em_as_tuple as _run_em
from ..label_noise import noise_rates_from_flip_rates as _noise_rates

__all__ = [
    "TOY_STATISTICS", "toy_statistics", "toy_table", "toy_likelihood_maximum",
    "DIGITS_SETTINGS", "DIGITS_NOISE_RATES", "DIGITS_NOISE_RATES_FULL", "digits_experiment",
    "SKY_METHODS", "sky_test_pairs", "sky_grids", "sky_split", "sky_experiment", "SkyResult", "RESULTS_DIR", "load_result",
]


# ---- Table 1: the toy ----------------------------------------------------------------------------

TOY_STATISTICS = ["m1[0]", "m1[1]", "m2[0]", "m2[1]", "C1[0,0]", "C1[0,1]", "C1[1,1]", "C2[0,0]", "C2[0,1]",
                  "C2[1,1]", "gamma_1", "gamma_2", "e_1 = P(yhat!=1|y=1)", "e_2 = P(yhat!=2|y=2)", "P(y=1)"]


def toy_statistics(means, covariances, flip_rates, noise_rates, prior_1):
    """The 15 numbers of `TOY_STATISTICS` in that order."""
    means = as_float_array(means, "means", ndim=2)
    covariances = as_float_array(covariances, "covariances", ndim=3)
    if means.shape != (2, 2) or covariances.shape != (2, 2, 2):
        raise ValueError(f"means must be (2, 2) and covariances (2, 2, 2) (two classes in R^2), got {means.shape} "
                         f"and {covariances.shape}")
    flip_rates = as_probabilities(flip_rates, "flip_rates", ndim=1)
    noise_rates = as_probabilities(noise_rates, "noise_rates", ndim=1)
    if flip_rates.shape != (2,) or noise_rates.shape != (2,):
        raise ValueError(f"flip_rates and noise_rates must hold two numbers each, got {flip_rates.shape} and "
                         f"{noise_rates.shape}")
    prior_1 = as_scalar(prior_1, "prior_1", low=0.0, high=1.0)
    return np.concatenate([means[0], means[1], covariances[0][[0, 0, 1], [0, 1, 1]],
                           covariances[1][[0, 0, 1], [0, 1, 1]], flip_rates, noise_rates, [prior_1]])


def _sample_statistics(X, y, y_true):
    """The statistics a sample holds: ML means and covariances by TRUE class, empirical flip and noise rates."""
    means = [X[y_true == c].mean(axis=0) for c in (1, 2)]
    covariances = [np.cov(X[y_true == c].T, bias=True) for c in (1, 2)]
    flip = [np.mean(y_true[y == k] != k) for k in (1, 2)]
    noise = [np.mean(y[y_true == j] != j) for j in (1, 2)]
    return toy_statistics(means, covariances, flip, noise, np.mean(y_true == 1))


def toy_table(sizes=(200, 1000, 5000), n_repeats=10, random_state=None, initial_flip_rates=(0.3, 0.3), em=None):
    """EM estimates of the toy's statistics, `n_repeats` samples per size.

    em: the EM to run, em(X, y_index, initial_flip_rates) -> (means (2, 2), covariances (2, 2, 2),
    flip_rates (2,), posterior, log_likelihoods) with y_index = 1 for label 2 (notebook 10 passes the
    student's `run_em`); default the kit's `label_noise_em`.
    Returns (population truth (15,), {N: estimates (n_repeats, 15)}, {N: sample values (n_repeats, 15)}).
    """
    if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
        raise TypeError(f"sizes must be a sequence of sample sizes, got {sizes!r}")
    sizes = [as_positive_int(n, "sizes", minimum=10) for n in sizes]   # EM needs a few points of each class
    if not sizes:
        raise ValueError("sizes must name at least one sample size")
    n_repeats = as_positive_int(n_repeats, "n_repeats")
    check_work_budget(sum(sizes) * n_repeats, 1e7, "sizes", sizes, "points drawn and fitted (times n_repeats)")
    if em is not None and not callable(em):
        raise TypeError(f"em must be a function em(X, y_index, initial_flip_rates) or None, got {type(em).__name__}")
    em = _run_em if em is None else em
    rng = as_generator(random_state)
    population = data.KFD_TOY
    true_covariances = [f @ f.T for f in population["factors"]]
    _, true_flip = _flip_rates([population["noise_rate"]] * 2, population["priors"])
    truth = toy_statistics(population["means"], true_covariances, true_flip, [population["noise_rate"]] * 2,
                           population["priors"][0])
    estimates, samples = {}, {}
    for n in sizes:
        rows, held = [], []
        for _ in range(n_repeats):
            X, y, y_true = data.kfd_toy_data(n, random_state=rng)
            y_index = (y == 2).astype(int)
            try:
                fitted = em(X, y_index, initial_flip_rates)
            except SingularCovarianceError as singular:
                # a small sample can leave EM a class of a few points and a singular covariance (about 1 sample
                # in 40 at N = 30-40, none in 300 at N = 50): name the argument that asked for it
                raise ValueError(f"sizes: a sample of {n} points left EM a class covariance that became singular "
                                 f"(too few points of a class); use samples of at least 50 points, got {n}") \
                    from singular
            means, covariances, flip_rates = (np.asarray(part, float) for part in fitted[:3])
            if means.shape != (2, 2) or covariances.shape != (2, 2, 2) or flip_rates.shape != (2,):
                raise ValueError(f"em must return means (2, 2), covariances (2, 2, 2) and flip rates (2,) first, got "
                                 f"shapes {means.shape}, {covariances.shape}, {flip_rates.shape}")
            observed_priors = np.bincount(y_index, minlength=2) / n
            true_priors, noise_rates = _noise_rates(flip_rates, observed_priors)
            rows.append(toy_statistics(means, covariances, flip_rates, noise_rates, true_priors[0]))
            held.append(_sample_statistics(X, y, y_true))
        estimates[n], samples[n] = np.array(rows), np.array(held)
    return truth, estimates, samples


def _toy_negative_log_likelihood(theta, X, y_index):
    """-ln p(X | Yhat) of the label-noise model with free Gaussians in R^2: the quantity EM maximises.

    theta: means (4), for each class a Cholesky factor [[e^a, 0], [b, e^d]] (3 + 3), logits of the two flip rates
    (2), so that every theta is a valid model and a general optimiser can roam freely.
    """
    means = theta[:4].reshape(2, 2)
    log_density = np.empty((len(X), 2))
    for c in (0, 1):
        a, b, d = theta[4 + 3 * c: 7 + 3 * c]
        centred = X - means[c]
        z1 = centred[:, 0] * np.exp(-a)                       # the factor's inverse applied to x - m
        z2 = (centred[:, 1] - b * z1) * np.exp(-d)
        log_density[:, c] = -0.5 * (z1 ** 2 + z2 ** 2) - a - d - np.log(2 * np.pi)
    rates = 1 / (1 + np.exp(-theta[10:12]))
    table = np.where(y_index[:, None] == np.arange(2), 1 - rates[y_index][:, None], rates[y_index][:, None])
    return -np.sum(np.logaddexp(*(log_density + np.log(table)).T))


def toy_likelihood_maximum(X, y, near_means, n_starts=4, random_state=None):
    """The largest log-likelihood of the toy's label-noise model that BFGS finds, and its flip rates.

    An independent check of EM (seed 003, section 3): the same likelihood, maximised by a general optimiser
    (scipy's BFGS on an unconstrained parameterisation) from `n_starts` starts scattered round `near_means`
    (2, 2), with round covariances and flip rates near 0.27.  X (n, 2) inputs, y the observed labels (two
    values, classes sorted).  Returns (log_likelihood, flip_rates (2,)) in the kit's convention
    gamma_k = P(y != k | yhat = k).
    """
    from scipy import optimize

    X = as_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must have two columns (the toy lives in R^2), got {X.shape[1]}")
    _, y_pm1 = binary_classes(y)
    if y_pm1.shape[0] != X.shape[0]:
        raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got {y_pm1.shape[0]}")
    near_means = as_float_array(near_means, "near_means", ndim=2)
    if near_means.shape != (2, 2):
        raise ValueError(f"near_means must be (2, 2) (one mean per class in R^2), got {near_means.shape}")
    n_starts = as_positive_int(n_starts, "n_starts")
    check_work_budget(n_starts * X.shape[0], 1e6, "n_starts", n_starts, "points times starts")
    rng = as_generator(random_state)
    y_index = (y_pm1 > 0).astype(int)
    spread = np.log(np.std(X, axis=0).mean())
    best = None
    for _ in range(n_starts):
        start = np.concatenate([near_means.ravel() + rng.normal(0, 0.5, 4), [spread, 0.0, spread] * 2,
                                rng.normal(-1.0, 0.5, 2)])
        found = optimize.minimize(_toy_negative_log_likelihood, start, args=(X, y_index), method="BFGS",
                                  options={"gtol": 1e-7, "maxiter": 5000})
        if best is None or found.fun < best.fun:
            best = found
    return -float(best.fun), 1 / (1 + np.exp(-best.x[10:12]))


# ---- the digits ----------------------------------------------------------------------------------

#: The kit's digits settings (notebook 10 says why each departs from the authors'): RBF width 2 for
#: 64 pixels in [0, 1], mu = 1 (about 215 training points), the paper's 200 basis points.
DIGITS_SETTINGS = dict(kernel="rbf", L=2.0, mu=1.0, n_basis=200)
DIGITS_NOISE_RATES = (0.0, 0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6)
#: The authors' grid (their scripts; kgslab/papers/SETTINGS.md).
DIGITS_NOISE_RATES_FULL = (0.0, 0.1, 0.2, 0.3, 0.4, 0.42, 0.44, 0.46, 0.48, 0.5, 0.52, 0.54, 0.56, 0.58, 0.6,
                           0.7, 0.8, 0.9, 1.0)


def digits_experiment(noise_rates=DIGITS_NOISE_RATES, n_splits=10, random_state=None, first=4, second=9,
                      max_iter=100, **settings):
    """Test errors of KFD and LabelNoiseKFD on `data.digits_pair` at each induced noise rate.

    Both models see the same split and basis at every (rate, split), so their errors pair.
    Returns a dict: noise_rates (r,), errors (2, r, n_splits) [standard, label-noise],
    estimated_noise (r, n_splits) (the label-noise model's mean noise rate), settings.
    """
    settings = {**DIGITS_SETTINGS, **settings}
    rng = as_generator(random_state)
    noise_rates = as_probabilities(noise_rates, "noise_rates", ndim=1)
    n_splits = as_positive_int(n_splits, "n_splits")
    check_work_budget(len(noise_rates) * n_splits, 10_000, "n_splits", n_splits, "fits (times the noise rates)")
    max_iter = as_positive_int(max_iter, "max_iter")
    errors = np.zeros((2, len(noise_rates), n_splits))
    estimated_noise = np.zeros((len(noise_rates), n_splits))
    for i, rate in enumerate(noise_rates):
        for s in range(n_splits):
            seed = int(rng.integers(2**31))
            pair = data.digits_pair(first, second, noise_rate=float(rate), random_state=seed)
            standard = KFD(random_state=seed, **settings).fit(pair.X_train, pair.y_train)
            robust = LabelNoiseKFD(random_state=seed, max_iter=max_iter, initial_flip_rates=(0.1, 0.1),
                                   **settings).fit(pair.X_train, pair.y_train)
            errors[0, i, s] = np.mean(standard.predict(pair.X_test) != pair.y_test)
            errors[1, i, s] = np.mean(robust.predict(pair.X_test) != pair.y_test)
            estimated_noise[i, s] = robust.noise_rates_.mean()
    return {"noise_rates": noise_rates, "errors": errors, "estimated_noise": estimated_noise,
            "settings": {**settings, "n_splits": n_splits, "max_iter": max_iter, "digits": [first, second],
                         "random_state": random_state}}


# ---- Table 2: the sky ----------------------------------------------------------------------------

#: (discriminant, training labels): FD = linear kernel, KFD = RBF kernel; labels per photograph
#: ("standard" and "label noise") or the true pixel labels ("labelled data", the bound).
SKY_METHODS = [(model, kind) for model in ("FD", "KFD") for kind in ("standard", "label noise", "labelled data")]


def sky_test_pairs():
    """Every (photograph with sky, photograph without) of `data.SKY_PHOTOGRAPHS`: one test set each."""
    with_sky = [name for name, has_sky in data.SKY_PHOTOGRAPHS.items() if has_sky]
    without = [name for name, has_sky in data.SKY_PHOTOGRAPHS.items() if not has_sky]
    return list(itertools.product(with_sky, without))


def _stack(pieces):
    return (np.vstack([p.X for p in pieces]), np.concatenate([p.y_image for p in pieces]),
            np.concatenate([p.y_pixel for p in pieces]))


def sky_grids(stride=8):
    """{photograph: its `data.sky_pixels` every `stride` pixels}, for all of `data.SKY_PHOTOGRAPHS`."""
    stride = as_positive_int(stride, "stride")
    return {name: data.sky_pixels(name, stride) for name in data.SKY_PHOTOGRAPHS}


def sky_split(test, grids):
    """Training and test pixels when the photographs `test` are held out; grids: `sky_grids(stride)`.

    Returns a dict: X_train, y_train_image, y_train_pixel (every other photograph),
    X_test, y_test_pixel (the photographs `test`), train (the training photographs' names).
    """
    if isinstance(test, str) or not hasattr(test, "__iter__"):
        raise TypeError(f"test must be a sequence of photograph names, e.g. ('china', 'flower'), got {test!r}")
    test = list(test)
    if not isinstance(grids, dict) or set(grids) != set(data.SKY_PHOTOGRAPHS):
        raise TypeError(f"grids must be sky_grids(stride): a dict with every photograph of data.SKY_PHOTOGRAPHS, "
                        f"got {type(grids).__name__}")
    unknown = [name for name in test if not isinstance(name, str) or name not in data.SKY_PHOTOGRAPHS]
    if unknown or not test:
        raise ValueError(f"test must name photographs among {sorted(data.SKY_PHOTOGRAPHS)}, got {unknown}")
    train = [name for name in data.SKY_PHOTOGRAPHS if name not in test]
    X_train, y_train_image, y_train_pixel = _stack([grids[name] for name in train])
    X_test, _, y_test_pixel = _stack([grids[name] for name in test])
    return dict(X_train=X_train, y_train_image=y_train_image, y_train_pixel=y_train_pixel,
                X_test=X_test, y_test_pixel=y_test_pixel, train=train)


def _validation_pair(train):
    """The first photograph with sky and the first without among `train`: the validation photographs."""
    return (next(n for n in train if data.SKY_PHOTOGRAPHS[n]), next(n for n in train if not data.SKY_PHOTOGRAPHS[n]))


@dataclass
class SkyResult:
    """Per test pair (split): accuracy of every method, the chosen RBF widths, learnt and true gamma_sky."""

    pairs: list
    accuracy: dict = field(default_factory=dict)        # (model, kind) -> (n_splits,)
    width: dict = field(default_factory=dict)           # kind -> (n_splits,) chosen L of the KFD
    gamma_sky: dict = field(default_factory=dict)       # model -> (n_splits,) learnt flip rate of "sky"
    true_gamma_sky: np.ndarray = None                   # (n_splits,) share of non-sky among sky-labelled
    sky_share: np.ndarray = None                        # (n_splits,) share of sky among the test pixels
    models: dict = field(default_factory=dict)          # (model, kind) -> the fit on the LAST split


def _sky_model(kind, **settings):
    if kind == "label noise":
        # the non-sky class is clean (its rate frozen at 0); the sky rate is learnt from 0.1
        return LabelNoiseKFD(n_basis=200, random_state=0, initial_flip_rates=(0.0, 0.1), max_iter=50, **settings)
    return KFD(n_basis=200, random_state=0, **settings)


def _as_pairs(pairs):
    """Test pairs (one photograph with sky, one without), as sky_test_pairs gives them."""
    if isinstance(pairs, str) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"pairs must be a list of (photograph with sky, photograph without), got {pairs!r}")
    pairs = [tuple(pair) if isinstance(pair, (tuple, list)) else pair for pair in pairs]
    valid = set(sky_test_pairs())
    wrong = [pair for pair in pairs if pair not in valid]
    if wrong or not pairs:
        raise ValueError(f"pairs must hold (photograph with sky, photograph without) pairs such as "
                         f"{sky_test_pairs()[0]}, got {wrong[:3] if wrong else 'none'}")
    return pairs


def sky_experiment(pairs=None, stride=8, widths=(0.3, 1.0, 3.0), progress=None) -> SkyResult:
    """The sky table over held-out photograph pairs (default: all of `sky_test_pairs`).

    FD: linear kernel, mu = 1e-6 (the paper's); KFD: RBF kernel, mu = 1e-3, its width chosen
    among `widths` as the paper did, on a labelled validation set of other photographs: within
    the training photographs, fit on all but one with sky and one without (`_validation_pair`),
    score the pixel labels of those two, then refit on all training photographs with the best
    width.  Both with 200 basis points; "label noise" freezes the non-sky rate at 0.
    Pixels are taken every `stride` pixels (the paper's uniform subsampling).
    """
    pairs = sky_test_pairs() if pairs is None else _as_pairs(pairs)
    stride = as_positive_int(stride, "stride")
    widths = as_float_array(widths, "widths", ndim=1)
    if np.any(widths <= 0):
        raise ValueError(f"widths must be RBF widths > 0, got {widths.tolist()}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a function of the test pair, got {progress!r}")
    result = SkyResult(pairs=pairs)
    accuracy = {method: [] for method in SKY_METHODS}
    width = {kind: [] for _, kind in SKY_METHODS[3:]}
    gamma = {"FD": [], "KFD": []}
    true_gamma, sky_share = [], []
    grids = sky_grids(stride)
    for pair in pairs:
        split = sky_split(pair, grids)
        validation = _validation_pair(split["train"])
        inner = sky_split(validation + tuple(pair), grids)          # trains on the rest
        X_validation, _, y_validation = _stack([grids[name] for name in validation])
        sky_labelled = split["y_train_image"] == 1
        true_gamma.append(1 - split["y_train_pixel"][sky_labelled].mean())
        sky_share.append(split["y_test_pixel"].mean())
        for model_name, kind in SKY_METHODS:
            labels = "y_train_pixel" if kind == "labelled data" else "y_train_image"
            if model_name == "FD":
                settings = dict(kernel="linear", mu=1e-6)
            else:
                scores = [np.mean(_sky_model(kind, kernel="rbf", L=L, mu=1e-3)
                                  .fit(inner["X_train"], inner[labels]).predict(X_validation) == y_validation)
                          for L in widths]
                settings = dict(kernel="rbf", L=widths[int(np.argmax(scores))], mu=1e-3)
                width[kind].append(settings["L"])
            model = _sky_model(kind, **settings).fit(split["X_train"], split[labels])
            accuracy[(model_name, kind)].append(np.mean(model.predict(split["X_test"]) == split["y_test_pixel"]))
            if kind == "label noise":
                gamma[model_name].append(model.flip_rates_[1])
            result.models[(model_name, kind)] = model
        if progress is not None:
            progress(pair)
    result.accuracy = {method: np.array(values) for method, values in accuracy.items()}
    result.width = {kind: np.array(values) for kind, values in width.items()}
    result.gamma_sky = {model: np.array(values) for model, values in gamma.items()}
    result.true_gamma_sky, result.sky_share = np.array(true_gamma), np.array(sky_share)
    return result


# ---- committed paper-sized runs ------------------------------------------------------------------

# data/results/ is found (and read) by kgslab.data.results, as for every committed result
RESULTS_DIR = data.RESULTS_DIR


def load_result(name: str):
    """The committed result `name` from data/results/ (kgslab.data.load_result), saying how to make a missing one."""
    try:
        return data.load_result(name)
    except FileNotFoundError as missing:
        raise FileNotFoundError(f"{missing}; make it with python -m kgslab.papers.kfd2001") from None


DIGITS_FULL_COMMAND = "python -m kgslab.papers.kfd2001 digits"


def _write_digits_full(path: Path):
    """The paper-sized digits run: the authors' grid of 19 noise rates, 10 splits, 200 basis points."""
    run = digits_experiment(DIGITS_NOISE_RATES_FULL, n_splits=10, random_state=2001)
    payload = {"command": DIGITS_FULL_COMMAND,
               "what": "test error of the standard and the label-noise KFD on digits 4 vs 9 (scikit-learn 8x8), "
                       "errors[model][rate][split], model 0 = standard, 1 = label-noise",
               "settings": run["settings"], "noise_rates": run["noise_rates"].tolist(),
               "errors": run["errors"].tolist(), "estimated_noise": run["estimated_noise"].tolist()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return path


TOY_CHECK_COMMAND = "python -m kgslab.papers.kfd2001 toy"


def _write_toy_check(path: Path):
    """Table 1's largest size with 100 samples: is EM's gamma_2 biased, or was the 10-sample table's gap chance?"""
    truth, estimates, samples = toy_table(sizes=(5000,), n_repeats=100, random_state=2001)
    payload = {"command": TOY_CHECK_COMMAND,
               "what": "EM (initial flip rates 0.3, 0.3) on 100 independent toy samples of N = 5000: the 15 "
                       "statistics of TOY_STATISTICS estimated by EM and held by each sample",
               "statistics": TOY_STATISTICS, "truth": truth.tolist(), "estimates": estimates[5000].tolist(),
               "samples": samples[5000].tolist()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return path


def main(argv=None):
    import argparse

    from . import OUT_HELP, output_path

    parser = argparse.ArgumentParser(prog="python -m kgslab.papers.kfd2001",
                                     description="Write a paper-sized run of notebook 10 (kfd2001_digits_full.json, "
                                                 "kfd2001_toy_5000.json).")
    parser.add_argument("run", choices=["digits", "toy"],
                        help="digits: the authors' 19 noise rates, 10 splits; toy: Table 1 at N = 5000, 100 samples")
    parser.add_argument("--out", help=OUT_HELP)
    arguments = parser.parse_args(argv)
    if arguments.run == "digits":
        print(_write_digits_full(output_path("kfd2001_digits_full.json", arguments.out)))
    if arguments.run == "toy":
        print(_write_toy_check(output_path("kfd2001_toy_5000.json", arguments.out)))


if __name__ == "__main__":
    main()

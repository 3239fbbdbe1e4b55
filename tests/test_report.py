"""kgslab.report: estimates print only the digits their error supports; claims say what holds; the nbval
sanitizer masks exactly the estimates, so a Monte Carlo digit can never fail (or pass) a notebook by luck."""
import configparser
import re
from pathlib import Path

import numpy as np
import pytest

from kgslab.report import chain_mean, claim, error_digits, estimate

SANITIZE = Path(__file__).parent / "nbval_sanitize.cfg"


@pytest.mark.parametrize("error, digits", [(0.3, 1), (0.02, 2), (0.0213, 2), (0.0156, 3), (0.0996, 2), (0.0094, 3),
                                           (1.4, 1), (3.2, 0), (25.0, 0), (0.0, 0)])
def test_error_digits_one_significant_digit_two_for_10_to_19(error, digits):
    assert error_digits(error) == digits


@pytest.mark.parametrize("value, error, text", [
    (0.5834, 0.0213, "0.58 ± 0.02"),
    (0.5834, 0.0156, "0.583 ± 0.016"),
    (-24.0831, 0.18, "-24.08 ± 0.18"),
    (0.0073, 0.0031, "0.007 ± 0.003"),
    (0.6048, 0.0996, "0.60 ± 0.10"),
    (123.4, 25.0, "123 ± 25"),
])
def test_estimate_rounds_value_to_the_place_of_its_error(value, error, text):
    assert estimate(value, error) == text


def test_estimate_signed_and_exact():
    assert estimate(0.0071, 0.003, signed=True) == "+0.007 ± 0.003"
    assert estimate(-0.0071, 0.003, signed=True) == "-0.007 ± 0.003"
    assert estimate(0.25, 0) == "0.25 ± 0"


def test_the_printed_digits_never_exceed_what_the_error_supports():
    # brute force over many magnitudes: the last printed digit of the value is at the place of the error's
    # first significant digit (or the second, for 10-19)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        error = 10 ** rng.uniform(-5, 1)
        text = estimate(rng.uniform(-1, 1), error)
        value_text, error_text = text.split(" ± ")
        decimals = len(value_text.split(".")[1]) if "." in value_text else 0
        assert decimals == (len(error_text.split(".")[1]) if "." in error_text else 0)
        assert abs(float(error_text) - error) <= 0.5 * 10.0 ** -decimals + 1e-12
        assert float(error_text) >= 10.0 ** -decimals          # the error has a significant digit printed


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.1])
def test_bad_errors_are_refused(bad):
    with pytest.raises(ValueError, match="standard_error"):
        estimate(0.5, bad)


def test_bad_value_is_refused():
    with pytest.raises(ValueError, match="value"):
        estimate(float("nan"), 0.1)


def test_chain_mean_is_mean_and_standard_error_over_repetitions():
    values = np.array([[0.1, 1.0], [0.3, 1.0], [0.2, 4.0]])
    mean, error = chain_mean(values)
    np.testing.assert_allclose(mean, [0.2, 2.0])
    np.testing.assert_allclose(error, [np.std([0.1, 0.3, 0.2], ddof=1) / np.sqrt(3), np.sqrt(3.0) / np.sqrt(3)])


@pytest.mark.parametrize("bad", [[0.5], 0.5, [[1.0, np.nan], [1.0, 2.0]]])
def test_chain_mean_needs_two_finite_repetitions(bad):
    with pytest.raises(ValueError, match="values"):
        chain_mean(bad)


def test_claim_prints_what_holds_and_what_does_not(capsys):
    assert claim("the sky is blue", True) is None
    claim("every point agrees", np.array([True, False]))
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["✔ the sky is blue", "✘ not supported by this run: every point agrees"]
    with pytest.raises(TypeError, match="statement"):
        claim("", True)


def _sanitize(text):
    parser = configparser.ConfigParser()
    parser.read(SANITIZE, encoding="utf-8")
    for section in parser.sections():
        text = re.sub(parser[section]["regex"], parser[section]["replace"], text)
    return text


def test_sanitizer_masks_estimates_and_nothing_else():
    # two runs on different CPUs: the estimates differ, the sentence and the claims must not
    run_a = f"vote error {estimate(0.0213, 0.004)}, difference {estimate(0.0071, 0.003, signed=True)}; 9 of 76 flipped"
    run_b = f"vote error {estimate(0.0188, 0.005)}, difference {estimate(-0.0012, 0.003, signed=True)}; 9 of 76 flipped"
    assert _sanitize(run_a) == _sanitize(run_b)
    # a bare Monte Carlo number is NOT masked: printing one would fail on another CPU, as it should
    assert _sanitize("vote error 0.021") != _sanitize("vote error 0.019")
    assert _sanitize("✔ the claim") != _sanitize("✘ not supported by this run: the claim")


def test_claim_logs_statement_verdict_and_margin_when_asked(tmp_path, monkeypatch, capsys):
    import json
    log = tmp_path / "claims.jsonl"
    monkeypatch.setenv("KGSLAB_CLAIM_LOG", str(log))
    claim("gain above 2 s.e.", True, margin=1.5)
    claim("exact difference", True, margin=float("inf"))
    claim("no margin given", False)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries == [{"statement": "gain above 2 s.e.", "holds": True, "margin": 1.5},
                       {"statement": "exact difference", "holds": True, "margin": float("inf")},
                       {"statement": "no margin given", "holds": False, "margin": None}]
    assert capsys.readouterr().out.splitlines()[-1] == "✘ not supported by this run: no margin given"


def test_claim_logs_nothing_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("KGSLAB_CLAIM_LOG", raising=False)
    monkeypatch.chdir(tmp_path)
    claim("quiet", True, margin=0.5)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("holds, margin", [(True, -0.1), (False, 0.1)])
def test_a_margin_on_the_wrong_side_of_zero_is_refused(holds, margin):
    # a margin that contradicts the verdict is a mis-written margin: it would report a close call as a safe one
    with pytest.raises(ValueError, match="margin must be >= 0 when the claim holds"):
        claim("contradiction", holds, margin=margin)


@pytest.mark.parametrize("bad", [float("nan"), "1.0", True, None.__class__])
def test_a_margin_that_is_not_a_number_is_refused(bad):
    with pytest.raises(TypeError, match="margin must be a real number"):
        claim("bad margin", True, margin=bad)

"""Test-session hooks: each test starts with no check run (the record of the last runs is put back after it), and
the claim-robustness summary (tests/test_claim_robustness.py, `make claims`)."""
import math

import pytest


@pytest.fixture(autouse=True)
def _check_runs_do_not_leak():
    """A check's last run decides later checks (a passed exercise's fall-back is closed to the next one), so a test
    that runs a check leaves it behind for whatever test runs next in its process: put the record back."""
    from kgslab.check import records
    saved = dict(records.LAST_RUNS)
    yield
    records.LAST_RUNS.clear()
    records.LAST_RUNS.update(saved)


def pytest_terminal_summary(terminalreporter):
    """Each claim's worst margin over the shifted reruns: the design's "a claim carries a margin" as a measurement.

    The reruns may run on xdist workers; their claims come back through each report's user_properties.
    """
    worst = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            for name, value in getattr(report, "user_properties", ()):
                if name != "claims":
                    continue
                for notebook, shift, entry in value:
                    key = (notebook, entry["statement"])
                    margin = entry["margin"]
                    margin = math.nan if margin is None else margin
                    held, low, shifts = worst.get(key, (True, math.inf, set()))
                    worst[key] = (held and entry["holds"], low if math.isnan(margin) else min(low, margin),
                                  shifts | {shift})
    if not worst:
        return
    terminalreporter.section("claims: the worst margin of each over the shifted reruns")
    terminalreporter.write_line("margin = how far the evidence lies beyond the claim's threshold (its own units, "
                                "mostly standard errors); - = the claim gives none")
    for (notebook, statement), (held, low, shifts) in sorted(worst.items()):
        text = "-" if math.isinf(low) else f"{low:.3g}"
        state = "" if held else "  (does not hold in some run: must be ✘ as stored)"
        terminalreporter.write_line(f"{notebook[:2]} {text:>8}  [{len(shifts)} shifts] {statement[:100]}{state}")

"""What every notebook's check tests do: the notebook's solutions pass, a blank falls back to the reference, an
exercise's worked reasoning opens only after the student's own pass."""

from kgslab import check


def blank(*args, **kwargs):
    raise NotImplementedError()


def solutions_pass(capsys, **functions):
    """check.KEY(function) adopts each function (a tick each) for every KEY=function given."""
    for key, function in functions.items():
        assert getattr(check, key)(function) is function, key
    out = capsys.readouterr().out
    assert out.count("✔") == len(functions), out


def blank_falls_back(key, capsys):
    """check.KEY on a blank function: not adopted, said to be not attempted; returns the fall-back."""
    returned = getattr(check, key)(blank)
    assert returned is not blank and "not attempted yet" in capsys.readouterr().out
    return returned


def worked_reasoning_opens_only_after_a_pass(key, right, wrongs, capsys, monkeypatch, words=None):
    """check.why's contract for one exercise: its worked text (holding `words`; its first 60 characters if None)
    stays closed after each of `wrongs` (a blank falls back, said to be not attempted), opens after `right` passes
    (the check offers it), is off while nbgrader grades, and closes again after the last wrong run.  Returns the
    worked text, for an exercise's own assertions about it."""
    import IPython
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)   # printed as text (another test may start a shell)
    checker = getattr(check, key)
    worked = checker._worked.strip()
    words = worked[:60] if words is None else words
    assert words in worked

    def closed_after(wrong):
        if wrong is blank:
            blank_falls_back(key, capsys)
        else:
            assert checker(wrong) is not wrong
            capsys.readouterr()
        check.why(key)
        out = capsys.readouterr().out
        assert "opens here once your own function passes" in out and words not in out and worked[:60] not in out

    for wrong in wrongs:
        closed_after(wrong)
    assert checker(right) is right
    assert f'check.why("{key}")' in capsys.readouterr().out
    check.why(key)
    assert worked[:60] in capsys.readouterr().out
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    check.why(key)
    out = capsys.readouterr().out
    assert "off while the notebook is graded" in out and words not in out
    monkeypatch.delenv("NBGRADER_EXECUTION")
    closed_after(wrongs[-1])             # wrong again: closed again (and a pass no longer closes the reference)
    return worked

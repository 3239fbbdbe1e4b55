"""What every notebook's check tests do first: the notebook's solutions pass, a blank falls back to the reference."""

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

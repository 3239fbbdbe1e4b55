"""The kit as a course deploys it: a wheel, installed into a fresh virtual environment outside the clone.

One module-scoped build (about two to three minutes, most of it pip installing the dependencies),
so it is marked `wheel`: `make unit` leaves it out, `make wheel-test` (and .ci/run) runs it.

The wheel is built from a copy of the repository with two extra result files under
data/results/, to show that whatever is saved there later ships without a change to the
build.  The fresh environment has no system site-packages and gets the wheel with its
dependencies from the package index, as `pip install kgslab` would.  Everything else runs
in that environment, from a folder outside the clone, and is compared with the same data
read here from the clone.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kgslab import data
from kgslab._notebook_list import NOTEBOOKS

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[1]
NOT_COPIED = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                    ".ipynb_checkpoints", "screenshots")
PROBE_JSON = {"probe": "a result file added under data/results/ ships in the wheel", "r_hat": 1.01}


def _run(command, *, cwd, env=None, timeout=900):
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of the fresh environment, environment variables, working folder outside the clone, wheel)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=NOT_COPIED)
    (source / "data" / "results" / "probe").mkdir(parents=True, exist_ok=True)
    (source / "data" / "results" / "_wheel_probe.json").write_text(json.dumps(PROBE_JSON))
    (source / "data" / "results" / "probe" / "_wheel_probe.csv").write_text("q,error\n0.02,0.058\n0.04,0.059\n")

    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", base / "dist", source],
         cwd=base)
    (wheel,) = (base / "dist").glob("kgslab-*.whl")
    _run([sys.executable, "-m", "venv", base / "venv"], cwd=base)
    python = base / "venv" / "bin" / "python"
    # --no-compile: Python compiles what the tests import when they import it (pip would compile every file of
    # every dependency first: half of this install's CPU); the installed files are the same
    _run([python, "-m", "pip", "install", "--quiet", "--no-compile", wheel], cwd=base)

    work = base / "work"
    work.mkdir()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "VIRTUAL_ENV", "JUPYTER", "KGSLAB", "PYTEST", "OPENBLAS_CORETYPE"))}
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    # Only the fresh environment's kernel: a user-wide "python3" kernelspec would start another Python.
    env["JUPYTER_PATH"] = str(base / "venv" / "share" / "jupyter")
    env["JUPYTER_DATA_DIR"] = str(base / "jupyter-data")
    env["JUPYTER_CONFIG_DIR"] = str(base / "jupyter-config")
    env["MPLBACKEND"] = "Agg"
    return python, env, work, wheel


def _digest(array) -> str:
    return hashlib.sha256(np.ascontiguousarray(np.asarray(array, dtype=float)).tobytes()).hexdigest()[:16]


# Run inside the fresh environment: every loader of kgslab.data, and what it reads, as digests.
PROBE = textwrap.dedent('''
    import hashlib, importlib, json, sys
    from pathlib import Path
    import numpy as np
    import kgslab
    from kgslab import data, release
    from kgslab._resources import kit_folder

    package = Path(kgslab.__file__).parent
    imported = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[1] in ("_files", "_solutions", "_notebooks") or parts[-1] == "__main__":
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if name == "kgslab.grader":       # instructor-side, inside nbgrader: a student's install says so clearly
            try:
                importlib.import_module(name)
            except ModuleNotFoundError as err:
                assert "pip install nbgrader" in str(err), err
                continue
        importlib.import_module(name)
        imported.append("/".join(parts))

    def digest(array):
        return hashlib.sha256(np.ascontiguousarray(np.asarray(array, dtype=float)).tobytes()).hexdigest()[:16]

    docs = data.load_docs()
    kernels = data.load_kernels()
    thyroid, heart = data.load_thyroid(), data.load_heart()
    pair = data.digits_pair(4, 9, noise_rate=0.2, random_state=0)
    sky = data.sky_pixels("china", stride=6)
    out = {
        "kgslab": kgslab.__file__, "prefix": sys.prefix,
        "folders": {name: str(kit_folder(name)) for name in ("data", "solutions", "notebooks")},
        "docs": {language: len(getattr(docs, language)) for language in docs._fields},
        "docs_first": docs.english[0][:60],
        "constitution": [len(data.read_constitution(language)) for language in data.LANGUAGES],
        "kernels": [digest(kernels.K_bow), digest(kernels.K_2mer)],
        "thyroid": [digest(thyroid[0]), digest(thyroid[1])],
        "heart": [digest(heart[0]), digest(heart[1])],
        "digits": [digest(pair.X_train), digest(pair.y_train)],
        "photographs": {name: digest(data.load_photograph(name)) for name in data.SKY_PHOTOGRAPHS},
        "masks": {name: digest(data.load_sky_mask(name)) for name in data.SKY_PHOTOGRAPHS},
        "sky": [digest(sky.X), digest(sky.y_pixel)],
        "generated": [digest(data.sinc_data(20, random_state=1)[1]), digest(data.linear_data(20, random_state=1)[1]),
                      digest(data.xor_data(20, random_state=1)[0]), digest(data.separable_data(20, random_state=1)[0]),
                      digest(data.sphere_data(20, random_state=1)[0]), digest(data.kgs_76_points()[0]),
                      digest(data.kfd_toy_data(20, random_state=1)[0])],
        "result_json": data.load_result("_wheel_probe.json"),
        "result_csv": {k: v.tolist() for k, v in data.load_result("probe/_wheel_probe.csv").items()},
        "solutions_folder_exists": release.SOLUTIONS.exists(),
        "imported": imported,
        "kfd2001_result": sorted(importlib.import_module("kgslab.papers.kfd2001").load_result("kfd2001_toy_5000.json")),
    }
    print(json.dumps(out))
''')


def test_the_wheel_holds_the_data_the_notebooks_and_the_licence(installed):
    import zipfile

    names = zipfile.ZipFile(installed[3]).namelist()
    for expected in ("kgslab/_files/Ks.mat", "kgslab/_files/docs.mat", "kgslab/_files/thyroid.csv",
                     "kgslab/_files/heart.csv", "kgslab/_files/README.md", "kgslab/_files/sky_masks/china.png",
                     "kgslab/_files/results/kfd2001_toy_5000.json",
                     "kgslab/_files/constitution/english.txt", "kgslab/_files/results/_wheel_probe.json",
                     "kgslab/_files/results/probe/_wheel_probe.csv"):
        assert expected in names, f"the wheel lacks {expected}"
    assert sum(name.startswith("kgslab/_notebooks/") and name.endswith(".ipynb") for name in names) == len(NOTEBOOKS)
    assert not [name for name in names if "_solutions" in name], "the student's wheel carries solutions"
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    # Every module of the package, also in a subfolder without __init__.py (kgslab/papers/).
    modules = {path.relative_to(ROOT).as_posix() for path in (ROOT / "kgslab").rglob("*.py")}
    assert modules - set(names) == set(), f"modules missing from the wheel: {sorted(modules - set(names))}"


def test_every_loader_works_from_the_installed_wheel(installed):
    python, env, work, _ = installed
    (work / "probe.py").write_text(PROBE)
    found = json.loads(_run([python, "probe.py"], cwd=work, env=env).strip().splitlines()[-1])

    prefix = Path(found["prefix"])
    assert Path(found["kgslab"]).is_relative_to(prefix), "the probe imported a kgslab outside the fresh environment"
    for name, folder in found["folders"].items():
        assert Path(folder).is_relative_to(prefix) and not Path(folder).is_relative_to(ROOT), (name, folder)

    # The same data as the clone's (read here through the editable install).
    assert found["docs"] == {"english": 195, "french": 195, "german": 195, "italian": 195}
    assert found["docs_first"] == data.load_docs().english[0][:60]
    assert found["constitution"] == [195] * 4
    kernels = data.load_kernels()
    assert found["kernels"] == [_digest(kernels.K_bow), _digest(kernels.K_2mer)]
    assert found["thyroid"] == [_digest(part) for part in data.load_thyroid()]
    assert found["heart"] == [_digest(part) for part in data.load_heart()]
    pair = data.digits_pair(4, 9, noise_rate=0.2, random_state=0)
    assert found["digits"] == [_digest(pair.X_train), _digest(pair.y_train)]
    assert found["photographs"] == {name: _digest(data.load_photograph(name)) for name in data.SKY_PHOTOGRAPHS}
    assert found["masks"] == {name: _digest(data.load_sky_mask(name)) for name in data.SKY_PHOTOGRAPHS}
    sky = data.sky_pixels("china", stride=6)
    assert found["sky"] == [_digest(sky.X), _digest(sky.y_pixel)]
    assert len(set(found["generated"])) == 7

    # Every module imports from the wheel, including those in subfolders without __init__.py.
    assert set(found["imported"]) >= {"kgslab/papers/kfd2001", "kgslab/notebooks", "kgslab/data/results",
                                      "kgslab/check/__init__", "kgslab/widgets/__init__"}
    assert found["kfd2001_result"], "kgslab.papers.kfd2001 cannot read its committed result from the wheel"
    assert found["result_json"] == PROBE_JSON
    assert found["result_csv"] == {"q": [0.02, 0.04], "error": [0.058, 0.059]}
    assert found["solutions_folder_exists"] is False, "the installed wheel has solutions"


def test_the_notebooks_command_copies_them_all_and_a_student_notebook_runs_from_the_copy(installed):
    python, env, work, _ = installed
    home = work / "home" / "kgslab"
    out = _run([python, "-m", "kgslab.notebooks", home], cwd=work, env=env)
    expected = sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert expected == [f"{notebook.stem}.ipynb" for notebook in NOTEBOOKS] and f"{len(NOTEBOOKS)} copied" in out
    assert sorted(path.name for path in home.glob("*.ipynb")) == expected
    asked = subprocess.run([python, "-m", "kgslab.notebooks", home, "--solutions"], cwd=work, env=env,
                           capture_output=True, text=True)
    assert asked.returncode == 2 and "make solutions-zip" in asked.stderr, asked.stderr
    for name in expected:
        assert (home / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes()
    assert f"{len(NOTEBOOKS)} current" in _run([python, "-m", "kgslab.notebooks", home], cwd=work, env=env)

    # A student notebook, exercises blank, run top to bottom from the copy in the fresh environment.
    # Notebook 04 reads docs.mat and Ks.mat, so it also shows the packaged data reach a kernel.
    # A last cell (added to a second copy, the student's copy is left as it was) records which kgslab ran.
    import nbformat
    from nbformat.v4 import new_code_cell

    notebook = nbformat.read(home / "04_normalise_centre.ipynb", as_version=4)
    notebook.cells.append(new_code_cell("import sys, kgslab\nprint(sys.prefix)\nprint(kgslab.__file__)"))
    nbformat.write(notebook, home / "run_04.ipynb")
    _run([python, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace",
          "--ExecutePreprocessor.timeout=600", "--ExecutePreprocessor.kernel_name=python3", home / "run_04.ipynb"],
         cwd=home, env=env)
    ran = nbformat.read(home / "run_04.ipynb", as_version=4)
    errors = [output for cell in ran.cells if cell.cell_type == "code" for output in cell.get("outputs", [])
              if output.get("output_type") == "error"]
    assert not errors, errors
    printed = "".join(output.get("text", "") for output in ran.cells[-1].outputs).split()
    venv = python.parent.parent
    assert Path(printed[0]).resolve() == venv.resolve(), "the notebook ran in another Python than the fresh one"
    assert Path(printed[1]).is_relative_to(venv)

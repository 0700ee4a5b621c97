"""The old module paths of 0.1.0's moves still import, as the moved modules, with a warning."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

import skitgubbe as sg
from skitgubbe._moved import MOVED_MODULES

OPTIONAL = {"skitgubbe.envs", "skitgubbe.openspiel"}  # need an extra (PettingZoo, OpenSpiel)


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_MODULES.items()))
def test_an_old_path_is_the_moved_module_and_warns(old: str, new: str) -> None:
    if old in OPTIONAL:
        pytest.importorskip({"skitgubbe.envs": "pettingzoo", "skitgubbe.openspiel": "pyspiel"}[old])
    code = (
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        "print(old is new, old.__name__, old.__spec__.name,\n"
        "      [str(w.message) for w in caught if w.category is DeprecationWarning])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    same, name, spec, messages = done.stdout.split(" ", 3)
    assert (same, name, spec) == ("True", new, new)
    assert f"{old} moved to {new}" in messages


def test_the_new_module_keeps_its_own_name_after_an_old_import() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module("skitgubbe.referee")
    assert old is sg.play.referee
    assert old.__spec__ is not None and old.__spec__.name == "skitgubbe.play.referee"


def test_an_old_module_name_read_from_the_package_warns() -> None:
    code = (
        "import warnings, skitgubbe as sg\n"
        "warnings.simplefilter('error')\n"
        "try:\n"
        "    sg.session\n"
        "except DeprecationWarning as warning:\n"
        "    print(warning)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "skitgubbe.session moved to skitgubbe.play.session" in done.stdout


def test_a_name_that_never_was_a_module_is_not_served() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("skitgubbe.no_such_module")

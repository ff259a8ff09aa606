"""What `pip install` puts in place: every subpackage of the source tree, with its data files.

The tests run from the source tree, where a subpackage left out of pyproject.toml still imports; an
installed copy would fail on it (`mathhammer_exact.units` once was: every command taking a unit name)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _declared() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_subpackage_is_installed() -> None:
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "mathhammer_exact").rglob("__init__.py")}
    declared = set(_declared()["packages"])
    assert found - declared == set(), "subpackages pip would leave out"
    assert declared - found == {"mathhammer_exact.rules"}, "listed packages with no source folder"


def test_rules_data_is_installed() -> None:
    """The rules folder installs inside the package, with every file the package reads from it."""
    setuptools = _declared()
    assert setuptools["package-dir"]["mathhammer_exact.rules"] == "rules"
    patterns = setuptools["package-data"]["mathhammer_exact.rules"]
    files = {p.relative_to(ROOT / "rules") for p in (ROOT / "rules").rglob("*") if p.is_file()}
    assert files and all(any(f.match(pattern) for pattern in patterns) for f in files), "rules files left out"

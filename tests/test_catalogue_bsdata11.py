"""The whole BSData 11th-edition set, when a local checkout is given:
MATHHAMMER_BSDATA11=/path/to/wh40k-11e pytest -s tests/test_catalogue_bsdata11.py

Indexes every JSON catalogue, turns every unit into a datasheet and prints the counts: units indexed,
weapon and model profiles parsed, what could not be read (by name), the catalogues the checkout links
but lacks, and how long indexing takes. Skipped without the variable: the data is the player's."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from mathhammer_exact.catalogue import build, index, library
from mathhammer_exact.units import by_name

CHECKOUT = os.environ.get("MATHHAMMER_BSDATA11")
pytestmark = pytest.mark.skipif(not CHECKOUT, reason="set MATHHAMMER_BSDATA11 to a local BSData wh40k-11e checkout")


def test_every_profile_of_the_real_eleventh_edition_data(tmp_path, monkeypatch):
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path))
    started = time.perf_counter()
    report = build.add_checkout(Path(str(CHECKOUT)))
    seconds = time.perf_counter() - started
    print()
    print("\n".join(report.lines()))
    print(f"indexing: {seconds:.2f} s")
    print("units not readable:", report.unreadable)
    print("catalogues linked but missing:", report.missing)

    assert report.edition == "11e" and report.path == tmp_path / "bsdata-11e.sqlite"
    assert report.units > 1000
    weapons, units = report.tally.weapons, report.tally.units
    assert weapons["parsed"] + weapons["failed"] == weapons["found"]
    assert weapons["parsed"] / weapons["found"] > 0.99
    assert units["model profiles failed"] / units["model profiles"] < 0.01
    assert len(report.unreadable) / (report.units + len(report.unreadable)) < 0.01
    assert seconds < 120  # seconds on a laptop; generous for a loaded test machine

    assert library.default_edition() == "11e"  # the only index here
    knight = by_name.datasheet("Knight Paladin")
    assert knight.edition == "11e"
    [model] = knight.models
    assert (model.profile.invulnerable, model.profile.invulnerable_ranged) == (None, 5)  # InSv 5+*: against ranged
    ghazghkull = {m.name: m.profile.invulnerable for m in by_name.datasheet("Ghazghkull Thraka").models}
    assert ghazghkull == {"Ghazghkull Thraka": 4, "Makari": 2}  # each model's own InSv column

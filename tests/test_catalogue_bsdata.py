"""The whole BSData set, when a local checkout is given: MATHHAMMER_BSDATA=/path/to/wh40k-10e pytest -s -k bsdata.

Indexes every catalogue, turns every unit into a datasheet (parsing every weapon and unit profile)
and prints the counts: profiles found, parsed, rules reported as unmodelled, failures by reason,
and how long indexing and a query by name take. Skipped without the variable: the data is the
player's, not the project's."""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest

from mathhammer_exact.catalogue import bsdata, build, index, library
from mathhammer_exact.catalogue.convert import Tally, parse_weapon, reason, to_datasheet
from mathhammer_exact.data import load
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.model import Weapon

CHECKOUT = os.environ.get("MATHHAMMER_BSDATA")
pytestmark = pytest.mark.skipif(not CHECKOUT, reason="set MATHHAMMER_BSDATA to a local BSData wh40k-10e checkout")


def test_every_profile_of_the_real_data(tmp_path, monkeypatch):
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path))
    started = time.perf_counter()
    report = build.add_checkout(Path(str(CHECKOUT)))
    seconds = time.perf_counter() - started

    records = [r for r, _, _ in bsdata.units(bsdata.load_checkout(Path(str(CHECKOUT)))) if r]
    distinct: dict[tuple[str, str], tuple[dict[str, str], bool]] = {}
    for record in records:
        for name, profiles in record["weapons"].items():
            for entry in profiles:
                key = (name, str(sorted(entry["chars"].items())))
                distinct[key] = (entry["chars"], entry["melee"])
    unique = Counter[str]()
    unique_failures = Counter[str]()
    unique_ignored = Counter[str]()
    for (name, _), (chars, melee) in distinct.items():
        try:
            weapon: Weapon = parse_weapon(chars, melee, name)
        except MathhammerError as exc:
            unique["failed"] += 1
            unique_failures[reason(exc)] += 1
            continue
        unique["parsed"] += 1
        unique_ignored.update(getattr(weapon, "ignored", ()))

    tally = Tally()
    for record in records:
        try:
            to_datasheet(record, tally)
        except MathhammerError:
            tally.units["units not convertible"] += 1

    started = time.perf_counter()
    for name in ("Intercessor Squad", "boyz", "Captain", "Leman Russ Battle Tank"):
        library.find_unit(name)
    query = (time.perf_counter() - started) / 4
    load._cached.cache_clear()  # the seed datasheets read from their TOML files, as on a first query
    started = time.perf_counter()
    load.datasheet("Incursor Squad")
    seed = time.perf_counter() - started

    print()
    print("\n".join(report.lines()))
    print(f"indexing: {seconds:.2f} s; a query by name: {query * 1000:.2f} ms (seed datasheet, cold: "
          f"{seed * 1000:.2f} ms)")
    print(f"distinct weapon profiles: {len(distinct)}: {unique['parsed']} parsed, {unique['failed']} not")
    print("distinct profiles not parsed, by reason:", unique_failures.most_common(20))
    print("distinct profiles with unmodelled rules, by rule:", unique_ignored.most_common(20))
    print("per unit:", dict(tally.weapons), dict(tally.units))

    assert report.units > 1000
    assert tally.weapons["found"] == tally.weapons["parsed"] + tally.weapons["failed"]
    assert query < 0.05

"""The committed probability tables are what `mathhammer tables` writes now, and their numbers hold."""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

from click.testing import CliRunner

from mathhammer_exact.cli import cli

COMMITTED = Path(__file__).resolve().parent.parent / "docs" / "tables"


def test_committed_tables_match_a_fresh_run(tmp_path):
    out = CliRunner().invoke(cli, ["tables", "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    fresh = sorted(p.name for p in tmp_path.iterdir())
    assert fresh == sorted(p.name for p in COMMITTED.iterdir())
    for name in fresh:
        assert (tmp_path / name).read_text() == (COMMITTED / name).read_text(), f"{name} is stale: mathhammer tables"
    again = tmp_path / "again"
    CliRunner().invoke(cli, ["tables", "--out", str(again)])
    assert all((again / n).read_text() == (tmp_path / n).read_text() for n in fresh)  # idempotent


def _rows(name):
    with (COMMITTED / f"{name}.csv").open() as handle:
        return list(csv.DictReader(handle))


def test_table_values_by_hand():
    hit = {(r["BS/WS"], r["modifier"]): r for r in _rows("hit")}
    assert Fraction(hit[("3+", "+0")]["re-roll none"]) == Fraction(2, 3)
    assert Fraction(hit[("3+", "+0")]["re-roll failed"]) == Fraction(2, 3) + Fraction(1, 3) * Fraction(2, 3)
    assert Fraction(hit[("6+", "-1")]["re-roll none"]) == Fraction(1, 6)  # a 6 always hits
    wound = {r["S \\ T"]: r for r in _rows("wound")}
    assert [Fraction(wound["S4"][f"T{t}"]) for t in (2, 3, 4, 5, 8)] == [Fraction(n, 6) for n in (5, 4, 3, 2, 1)]
    save = {(r["Sv"], r["invulnerable"]): r for r in _rows("save")}
    assert Fraction(save[("3+", "none")]["AP0 cover"]) == Fraction(1, 3)  # no cover bonus for 3+ against AP0
    assert Fraction(save[("4+", "none")]["AP-1 cover"]) == Fraction(1, 2)
    assert Fraction(save[("3+", "4+")]["AP-3"]) == Fraction(1, 2)  # the invulnerable save is better
    charge = {r["distance"]: r for r in _rows("charge")}
    assert (Fraction(charge['9"']["no re-roll"]), Fraction(charge['9"']["re-roll"])) == (Fraction(5, 18),
                                                                                       Fraction(155, 324))
    weapons = {(r["weapon"], r["target"]): r for r in _rows("weapons")}
    pistol = weapons[("Incursor Squad: bolt pistol", "GEQ")]
    assert Fraction(pistol["E[damage]"]) == Fraction(2, 3) ** 3  # hit 3+, wound T3 on 3+, Sv5+ fails 2/3

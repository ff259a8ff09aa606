"""Sweeps: the same rows whatever the engine (this process, a local pool, a Dask LocalCluster), a resumed
sweep equal to an uninterrupted one, hand-derived rows, and spec problems in one line."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import attrs
import pandas as pd
import pytest
from click.testing import CliRunner

from mathhammer_exact.catalogue import build, index
from mathhammer_exact.cli import cli
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.sweep.engines import Dask, InProcess, LocalPool
from mathhammer_exact.sweep.parts import MANIFEST, Output, part_name
from mathhammer_exact.sweep.queries import Attacker, Defender, Grid, answer
from mathhammer_exact.sweep.run import run
from mathhammer_exact.sweep.spec import SpecError, read_spec
from mathhammer_exact.units.by_name import datasheet

FIXTURES = Path(__file__).parent / "fixtures"

SPEC = """
chunk = 50
phases = ["shooting", "fight"]
distributions = ["models_destroyed"]

[attackers]
weapons = ["A2 BS3+ S4 AP-1 D1 [LETHAL HITS]", "A3 WS3+ S5 AP-2 D2"]
units = ["Incursor Squad", "Tempestus Command Squad"]
select = [{faction = "Gravel Host"}]

[targets]
standard = "all"
select = [{keyword = "VEHICLE"}]

[situations]
cover = [false, true]
hit_modifier = [0, 1]
"""


@pytest.fixture
def indexed(tmp_path, monkeypatch):
    """The fixture checkout indexed into a data directory of the test's own."""
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(FIXTURES / "bsdata")


@pytest.fixture
def spec(tmp_path, indexed):
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return path


def parts(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("part-*.parquet"))}


def test_the_grid_of_a_spec(spec):
    grid = read_spec(spec).grid
    # 2 weapons, 2 shipped datasheets, 3 Gravel Host units; 7 standard targets and 2 indexed vehicles
    assert grid.axes == (7, 9, 2, 1, 2, 2, 1)
    assert grid.size == 504 and grid.parts == 11
    assert [d.label for d in grid.defenders][-2:] == ["Scree Walker", "Dune Walker"]
    assert [d.faction for d in grid.defenders][-2:] == ["Gravel Host", "Sand Host"]


def test_every_engine_writes_the_same_parts(spec, tmp_path):
    grid = read_spec(spec).grid
    written = {}
    for name, make in [("here", lambda: InProcess(grid)), ("pool", lambda: LocalPool(grid, 2)),
                       ("dask", lambda: Dask(grid, "local", 2))]:
        folder = tmp_path / f"{name}.parquet"
        finished = run(Output(folder, grid, resume=False), make())
        assert finished.queries == 504 and finished.parts == 11
        written[name] = parts(folder)
    assert len(written["here"]) == 11
    assert written["pool"] == written["here"] and written["dask"] == written["here"]  # byte for byte
    table = pd.read_parquet(tmp_path / "here.parquet")
    assert list(table["query"]) == list(range(504))  # in query order, the manifest and hidden files skipped
    pd.testing.assert_frame_equal(table, pd.read_parquet(tmp_path / "dask.parquet"), check_exact=True)


class Interrupted(InProcess):
    """Ctrl-C while the third part is being worked out."""

    def submit(self, part: int):
        if part == 2:
            raise KeyboardInterrupt
        return super().submit(part)


def test_an_interrupted_sweep_leaves_whole_parts_and_resumes_to_the_same_table(spec, tmp_path):
    grid = read_spec(spec).grid
    whole = tmp_path / "whole.parquet"
    run(Output(whole, grid, resume=False), InProcess(grid))
    stopped = tmp_path / "stopped.parquet"
    with pytest.raises(MathhammerError, match="interrupted: 2 of 11 parts are written.*--resume"):
        run(Output(stopped, grid, resume=False), Interrupted(grid))
    assert sorted(p.name for p in stopped.iterdir()) == [".mathhammer.sha256", MANIFEST, part_name(0), part_name(1)]
    finished = run(Output(stopped, grid, resume=True), InProcess(grid))
    assert finished.skipped == 2
    assert parts(stopped) == parts(whole)
    finished = run(Output(stopped, grid, resume=True), InProcess(grid))  # nothing left to do
    assert finished.skipped == 11


def test_resume_carries_on_only_the_same_sweep(spec, tmp_path):
    grid = read_spec(spec).grid
    folder = tmp_path / "out.parquet"
    run(Output(folder, grid, resume=False), InProcess(grid))
    with pytest.raises(MathhammerError, match="exists; add --resume"):
        Output(folder, grid, resume=False)
    with pytest.raises(MathhammerError, match="holds another sweep"):
        Output(folder, read_spec(spec, chunk=60).grid, resume=True)
    (folder / part_name(3)).unlink()
    (folder / part_name(3)).write_bytes((folder / part_name(10)).read_bytes())  # a part that is not part 3
    with pytest.raises(MathhammerError, match="part-00003.parquet is not a whole part"):
        Output(folder, grid, resume=True).done()


# ------------------------------------------------------------------ the rows
def test_a_grid_is_named_alike_whatever_pythons_hash_seed():
    """A sweep names its grid by a digest of its repr (--resume carries on only that sweep); sets of wargear wrote
    themselves in the order of Python's hash seed, so a trial found --resume refusing its own folder half the time."""
    code = ("from mathhammer_exact.data.datasheet import ModelEntry, TargetUnit\n"
            "from mathhammer_exact.model import ModelProfile, Target\n"
            "p, gear = ModelProfile.parse('T4 Sv3+ W2'), frozenset({'axe', 'shield', 'banner', 'horn'})\n"
            "print(ModelEntry('m', p, 1, (), profiles={gear: p}))\n"
            "print(TargetUnit(Target.parse('T4 Sv3+ W2'), 'x', carried=gear))")
    written = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in range(1, 7)}
    assert len(written) == 1 and "['axe', 'banner', 'horn', 'shield']" in written.pop()


def test_rows_pinned_by_hand():
    """Ten A1 BS3+ S4 AP-1 D1 shots at MEQ (T4 Sv3+ W2 x5): 10 * 2/3 * 1/2 * 1/2 = 5/3 damage, and
    138805/236196 models destroyed (the engine's pinned value); in cover the save is 3+ again, so
    10 * 2/3 * 1/2 * 1/3 = 10/9 damage."""
    grid = Grid([Attacker.of_weapon("A1 BS3+ S4 AP-1 D1"), Attacker.of_weapon("A1 WS3+ S4 AP0 D1")],
                [Defender.of_profile("T4 Sv3+ W2 x5", "MEQ")], models=[10], situations={"cover": [False, True]},
                distributions=["damage"])
    open_ground, cover = answer(grid, 0), answer(grid, 1)
    assert math.isclose(open_ground["mean_damage"], 5 / 3, rel_tol=1e-12)
    assert math.isclose(open_ground["mean_models_destroyed"], float(Fraction(138805, 236196)), rel_tol=1e-12)
    assert cover["cover"] is True and math.isclose(cover["mean_damage"], 10 / 9, rel_tol=1e-12)
    assert math.isclose(open_ground["damage_pmf"][0], (5 / 6) ** 10, rel_tol=1e-12)  # each shot gets through with 1/6
    assert math.isclose(sum(open_ground["damage_pmf"]), 1, rel_tol=1e-12)
    melee = answer(grid, 2)  # a melee weapon does not shoot: NaN and the reason
    assert math.isnan(melee["mean_damage"]) and melee["reason"] == "a melee weapon attacks in the Fight phase"


def test_a_re_roll_is_swept_by_its_name(tmp_path):
    """docs/sweeps.md's example 'reroll_hits = ["none", "ones"]' was refused (a re-roll policy is an int and was read
    as one; a trial found no value accepted). Ten A1 BS3+ S4 AP-1 D1 shots at MEQ: 10 x 2/3 x 1/2 x 1/2 = 5/3, and
    with hit rolls of 1 re-rolled the hit is 2/3 + 1/6 x 2/3 = 7/9: 10 x 7/9 x 1/4 = 35/18."""
    path = tmp_path / "spec.toml"
    path.write_text('models = [10]\n[attackers]\nweapons = ["A1 BS3+ S4 AP-1 D1"]\n[targets]\nstandard = ["MEQ"]\n'
                    '[situations]\nreroll_hits = ["none", "ones"]\n')
    grid = read_spec(path).grid
    rows = [answer(grid, n) for n in range(grid.size)]
    assert [row["reroll_hits"] for row in rows] == ["none", "ones"]
    assert [row["mean_damage"] for row in rows] == pytest.approx([5 / 3, 35 / 18], rel=1e-12)


def test_each_row_is_answered_in_the_edition_asked_and_says_which(tmp_path, monkeypatch):
    """A trial found $MATHHAMMER_EDITION=11e answering weapon rows under the 10th's rules (and unit rows under the
    11th), nothing saying which, and '2023' rows of the 11th answered as its current printing."""
    path = tmp_path / "spec.toml"
    covered = ('models = [10]\n[attackers]\nweapons = ["A1 BS4+ S4 AP0 D1"]\n[targets]\nstandard = ["MEQ"]\n'
               '[situations]\ncover = [true]\n')
    path.write_text(covered)
    # in cover: the 10th's +1 to a 3+ save does not count against AP 0 (BS4+: 1/2, wounds 1/2, fails 1/3): 5/6;
    # the 11th's worsens BS to 5+ (1/3): 10 x 1/3 x 1/2 x 1/3 = 5/9
    for player, edition, mean in ((None, "10e", 5 / 6), ("11e", "11e", 5 / 9)):
        if player:
            monkeypatch.setenv("MATHHAMMER_EDITION", player)
        else:
            monkeypatch.delenv("MATHHAMMER_EDITION", raising=False)
        row = answer(read_spec(path).grid, 0)
        assert (row["edition"], row["mean_damage"]) == (edition, pytest.approx(mean, rel=1e-12))
    path.write_text(covered.replace("models = [10]", 'models = [10]\nrules = ["current", "2023"]')
                    + 'edition = ["11e"]\n')
    with pytest.raises(SpecError, match="rules: '2023' with edition '11e': the 11th edition has no rules printing"):
        read_spec(path)
    # an ability of one edition alone: the other's rows give the reason. BLAST 2 in the 11th at GEQ (T3 Sv5+ W1 x10):
    # 2 + 2 x 2 attacks, hits 2/3, wounds 2/3, the 5+ save fails 2/3: 6 x 8/27 = 16/9
    monkeypatch.delenv("MATHHAMMER_EDITION", raising=False)
    path.write_text('models = [1]\n[attackers]\nweapons = [\'24" A2 BS3+ S4 AP0 D1 [BLAST 2]\']\n[targets]\n'
                    'standard = ["GEQ"]\n[situations]\nedition = ["10e", "11e"]\n')
    grid = read_spec(path).grid
    tenth, eleventh = answer(grid, 0), answer(grid, 1)
    assert math.isnan(tenth["mean_damage"]) and tenth["reason"] == (
        "'24\" A2 BS3+ S4 AP0 D1 [BLAST 2]' has an ability the 10th edition does not have: its rows are answered in "
        "the 11th (situations.edition = ['11e'])")  # (not the command line's '--edition', which a sweep has not)
    assert (eleventh["edition"], eleventh["mean_damage"]) == ("11e", pytest.approx(16 / 9, rel=1e-12))


def test_two_datasheets_of_one_name_are_labelled_apart(indexed):
    # an index holds a faction's two Gretchin (of 11-22 models and of 1): a whole-game sweep was refused as naming
    # one unit twice (a review)
    from mathhammer_exact.sweep.spec import _whole
    wardens = datasheet("Gravel Wardens")
    other = attrs.evolve(wardens, sizes=(10,))
    labels = [a.label for a in _whole([Attacker.of_sheet(wardens), Attacker.of_sheet(other)], "spec", "attackers")]
    assert labels == ["Gravel Wardens", "Gravel Wardens (datasheet 2 of the name)"]


def test_an_army_lists_unit_is_named_by_its_place_in_the_list_too(tmp_path, indexed):
    # it may carry other wargear than the datasheet's unit of that name, so its rows must tell the two apart
    army = FIXTURES / "army.ros"
    path = tmp_path / "spec.toml"
    path.write_text(f"[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\n"
                    f"units = ['{army}#1', 'Gravel Wardens']\n")
    assert [d.label for d in read_spec(path).grid.defenders] == [f"Gravel Wardens ({army}#1)", "Gravel Wardens"]
    # a target's size after its name, as a matchup takes it (a trial found 'Boyz x20' refused)
    path.write_text("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\n"
                    "units = ['Gravel Wardens x10', 'Gravel Wardens']\n")
    assert [(d.label, d.target.model_count, d.points) for d in read_spec(path).grid.defenders] == [
        ("Gravel Wardens x10", 10, 180), ("Gravel Wardens", 5, 90)]
    path.write_text(f"[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nunits = ['{army}#1 x10']\n")
    assert [d.label for d in read_spec(path).grid.defenders] == [f"Gravel Wardens ({army}#1) x10"]  # its place kept


def test_an_editions_own_situation_values_are_swept_in_that_edition(tmp_path, monkeypatch):
    """Each value was checked in the 10th edition alone, so the 11th's Lethal Hits policies could not be swept (a
    review). Ten A1 BS3+ S4 AP0 D1 [LETHAL HITS] attacks at MEQ: rolling every wound, 10 x 2/3 x 1/2 x 1/3 = 10/9;
    wounding on a Critical Hit (best here), 10 x (1/6 + 1/2 x 1/2) x 1/3 = 25/18."""
    monkeypatch.delenv("MATHHAMMER_EDITION", raising=False)
    path = tmp_path / "spec.toml"
    spec = ('models = [5]\n[attackers]\nweapons = ["A2 BS3+ S4 AP0 D1 [LETHAL HITS]"]\n[targets]\nstandard = ["MEQ"]'
            '\n[situations]\nlethal_hits = ["never", "best"]\n')
    for edition, player in (('edition = ["11e"]\n', None), ("", "11e")):
        if player:
            monkeypatch.setenv("MATHHAMMER_EDITION", player)
        path.write_text(spec + edition)
        grid = read_spec(path).grid
        assert [answer(grid, n)["mean_damage"] for n in range(2)] == pytest.approx([10 / 9, 25 / 18], rel=1e-12)
    monkeypatch.delenv("MATHHAMMER_EDITION")
    path.write_text(spec)  # in the 10th, the policy is no choice
    with pytest.raises(SpecError, match=r"situations.lethal_hits\[0\]: Lethal Hits is not a choice in the 10th"):
        read_spec(path)


def test_a_weapon_meets_the_target_units_own_abilities(tmp_path, monkeypatch):
    """A trial found a weapon row ignoring its target's abilities (an Overlord's -1 Damage), where `attack` applies
    them. Three A1 BS3+ S9 AP-4 D=3 at the Crag Walker (T10 Sv3+ inv5+ W16, Slab Armour: -1 Damage): hits 2/3,
    wounds on 5+ 1/3, the invulnerable 5+ fails 2/3, Damage 3 less 1 is 2: 3 x 2/3 x 1/3 x 2/3 x 2 = 8/9 (not 4/3)."""
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(FIXTURES / "bsdata_abilities")
    grid = Grid([Attacker.of_weapon("A1 BS3+ S9 AP-4 D=3")], [Defender.of_sheet(datasheet("Crag Walker"))], models=[3])
    row = answer(grid, 0)
    assert math.isclose(row["mean_damage"], 8 / 9, rel_tol=1e-12)
    assert "target has Slab Armour (read from its text): Damage of attacks allocated to it -1 (not below 1)" in \
        row["notes"]


def test_a_unit_that_cannot_attack_gets_the_reason(indexed):
    """After Advancing only Assault weapons shoot: the Incursors' carbines are Assault, the Gravel
    Wardens' rifles are Heavy."""
    grid = Grid([Attacker.of_sheet(datasheet(name)) for name in ("Incursor Squad", "Gravel Wardens")],
                [Defender.of_profile("T4 Sv3+ W2 x5")], situations={"advanced": [False, True]})
    rows = [answer(grid, n) for n in range(grid.size)]
    assert [row["reason"] for row in rows] == [None, None, None,
                                               "Gravel Wardens: no ASSAULT weapons after Advancing to attack with"]
    assert [math.isnan(row["mean_damage"]) for row in rows] == [False, False, False, True]
    assert rows[3]["models"] == 5 and rows[3]["attacker_points"] == 90  # what the unit would have been


# ------------------------------------------------------------------ the command
def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_sweep_command_and_dry_run(spec, tmp_path):
    dry = invoke("sweep", str(spec), "--dry-run", "--workers", "2")
    assert dry.exit_code == 0, dry.output
    assert dry.output.startswith("504 queries in 11 parts of up to 50\nestimated time: ")
    assert "on 2 (from the engine's cost estimate of 500 sampled queries)" in dry.output
    out = tmp_path / "results.parquet"
    done = invoke("sweep", str(spec), "--out", str(out), "--workers", "0", "--chunk", "200")
    assert done.exit_code == 0, done.output
    assert done.output.startswith(f"504 queries in 3 parts: {out} (")
    assert len(pd.read_parquet(out)) == 504
    again = invoke("sweep", str(spec), "--out", str(out), "--workers", "0", "--chunk", "200", "--resume")
    assert again.output.startswith(f"504 queries in 3 parts (3 of them from before): {out} (")
    assert again.output.endswith(" s, in this process)\n")


@pytest.mark.parametrize("text, problem", [
    ("[attackers]\nweapons = ['A2 BS3+']\n[targets]\nstandard = 'all'\n", "attackers.weapons[0]: "),
    ("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n", "targets: missing: give [targets]"),
    ("[attackers]\nweapon = []\n[targets]\nstandard = 'all'\n", "attackers.weapon: unknown key (did you mean "),
    ("chunk = 0\n[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nstandard = 'all'\n", "chunk: at least 1"),
    ("phases = ['fighting']\n[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nstandard = 'all'\n",
     "phases[0]: 'fighting' is not allowed (allowed: shooting, fight)"),
    ("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nstandard = ['MEQ', 'XEQ']\n",
     "targets.standard[1]: unknown standard target 'XEQ'"),
    ("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nstandard = 'all'\n[situations]\ncover = ['yes']\n",
     "situations.cover[0]: a true or false, got 'yes'"),
    ("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nstandard = 'all'\n[situations]\nhit_modifer = [1]\n",
     "situations.hit_modifer: unknown key (did you mean 'hit_modifier'?)"),
    ("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nstandard = 'all'\n"
     "[situations]\nstationary = [true]\nadvanced = [false, true]\n",
     "situations: stationary = True, advanced = True: a unit that Advanced did not Remain Stationary"),
    ("[attackers]\nselect = [{faction = 'Gravel Hots'}]\n[targets]\nstandard = 'all'\n",
     "attackers.select[0].faction: no faction 'Gravel Hots' in the index (did you mean "),
    ("[attackers]\nunits = ['Incursor Squad', 'Incursor Squad']\n[targets]\nstandard = 'all'\n",
     "attackers.units: a value is given twice"),
    ("[attackers]\nunits = ['Incursor Squad x10']\n[targets]\nstandard = 'all'\n",
     "attackers.units[0]: an attacker's size is swept by models = [...], not written after its name"),
    ("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nunits = ['Incursor Squad x7']\n",
     "targets.units[0]: Incursor Squad comes in units of 5 or 10 models, not 7"),
    # two names of one unit (a trial found 'Boyz' and 'Ork Boyz' giving rows alike, told apart by nothing)
    ("[attackers]\nunits = ['Incursor Squad', 'incursor squads']\n[targets]\nstandard = 'all'\n",
     "attackers: Incursor Squad is named twice (by two names of it, or by a name and a selection)"),
    ("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nunits = ['Incursor Squad', 'Incursor Squad x5']\n",
     "targets: Incursor Squad is named twice"),  # its smallest size, named twice
    ("[attackers\n", "not valid TOML"),
])
def test_spec_problems_are_one_line(tmp_path, indexed, text, problem):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    result = invoke("sweep", str(path), "--dry-run")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith(f"error: {path}")
    assert problem in result.output, result.output


def test_the_other_commands_do_not_load_the_scale_extra():
    code = ("import sys; from mathhammer_exact.cli import cli; cli.main(['--help'], standalone_mode=False);"
            "print(sorted(m for m in ('pandas', 'pyarrow', 'dask', 'distributed') if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip().endswith("[]")

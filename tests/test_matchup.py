"""Matchups: each cell is the `unit` answer for that pair; armies from army lists, text files and names."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from mathhammer_exact.cli import cli
from mathhammer_exact.decide.unit_attack import unit_attack, with_best_profiles
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.model import Context, Target
from mathhammer_exact.present.matchups import _notes
from mathhammer_exact.sweep.matchup import matchup, read_army
from mathhammer_exact.units.by_name import datasheet, find_target, target_unit

ARMY = Path(__file__).parent / "fixtures" / "army.ros"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_cells_are_the_unit_answers_for_the_same_pairs():
    army = read_army(str(ARMY))
    assert army.name and [label for label, _ in army.units] == ["#1 Gravel Wardens", "#2 Warden Captain",
                                                                "#3 Rockbiter"]
    context = Context(cover=True)
    frame = matchup(army, army, ("shooting", "fight"), context)
    assert len(frame) == 3 * 3 * 2 and frame["reason"].notna().sum() == 3
    for row in frame.to_dict("records"):
        a, t = (int(row[key].split()[0][1:]) for key in ("attacker", "target"))
        target = find_target(f"{ARMY}#{t}")
        melee = row["phase"] == "fight"
        if pd.notna(row["reason"]):  # the unit refuses it the same way
            assert math.isnan(row["mean_damage"]) and row["reason"] == "Rockbiter: no melee weapons to attack with"
            with pytest.raises(MathhammerError, match=row["reason"]):
                unit_attack(f"{ARMY}#{a}", target, context=context, melee=melee)
            continue
        # each weapon of several profiles with its best against the target (`with_best_profiles`, tested below)
        report = with_best_profiles(datasheet(f"{ARMY}#{a}"), target_unit(f"{ARMY}#{t}"), context=context,
                                    melee=melee)
        asked = report.result
        # what the answer said of its units, without what every answer of the matchup shares (its situation, rules)
        assert row["notes"] == [line for line in report.situation if not line.startswith(("situation:", "rules:",
                                                                                          "weapons resolved"))]
        assert row["mean_damage"] == float(asked.damage.mean)
        assert row["mean_models_destroyed"] == float(asked.models_destroyed.mean)
        assert row["p_destroyed"] == float(asked.p_destroyed)
        points = datasheet(f"{ARMY}#{a}").points, datasheet(f"{ARMY}#{t}").points
        share = float(asked.models_destroyed.mean) / target.model_count
        assert math.isclose(row["points_destroyed_per_100"], share * sum(points[1].values()) * 100
                            / sum(points[0].values()), rel_tol=1e-12)


def test_a_weapon_of_several_profiles_fires_its_best_against_each_target():
    # a trial found a matchup firing an Impulsor's frag profile at a Land Fortress, its note pointing at a --profile
    # that matchup does not have. Gravel Wardens: 3 slingshots (pellet: D3 attacks, S4 AP0 D1 Blast; boulder: 1
    # attack, S9 AP-2 DD3) and 7 pebble rifles (2 attacks, S4 AP-1 D1), all hitting on 3+. Against T10 Sv3+ W40 (no
    # damage lost): the rifles 14 x 2/3 x 1/6 x 1/2 = 7/9; pellets 3 x 2 x 2/3 x 1/6 x 1/3 = 2/9; boulders
    # 3 x 2/3 x 1/3 (5+) x 2/3 (Sv5+) x 2 = 8/9: the boulder, 5/3 in all (the pellet, the first profile, 1)
    wardens = datasheet(f"{ARMY}#1")
    tank = with_best_profiles(wardens, Target.parse("T10 Sv3+ W40"))
    assert tank.result.damage.mean == pytest.approx(float(Fraction(7, 9) + Fraction(8, 9)), abs=1e-12)
    assert tank.situation[-1] == "profiles chosen for the most expected damage against this target: Slingshot (boulder)"
    assert unit_attack(wardens, Target.parse("T10 Sv3+ W40"), exact=True).result.damage.mean == 1  # the first's
    # against twenty W2 models the pellet's Blast (+4 attacks each) does more: it is kept
    horde = Target.parse("T4 Sv6+ W2 x20")
    crowd = with_best_profiles(wardens, horde)
    assert crowd.situation[-1].endswith(": Slingshot (pellet)")
    boulders = unit_attack(wardens, horde, profiles=["boulder"]).result.damage.mean
    assert crowd.result.damage.mean == unit_attack(wardens, horde).result.damage.mean > boulders


def test_the_tables_say_what_the_answers_said_of_their_units():
    # a trial found every per-unit caveat of `unit` (army rules, abilities not applied) dropped from a matchup: the
    # list's Gravel Oath is named once for every answer, and the json keeps each pair's notes
    out = invoke("matchup", str(ARMY), str(ARMY)).output
    assert "about #1 Gravel Wardens: not applied: Gravel Oath (an army rule not modelled)" in out  # each attack of it
    assert "about #2 Warden Captain against #1 Gravel Wardens: not applied: Gravel Oath (the target's; an army rule " \
           "not modelled)" in out
    assert out.count("invulnerable save 4+ inferred from the text of 'Stone Skin'") == 1  # the Captain's, once
    assert "about #2 Warden Captain as a target: invulnerable save 4+ inferred from the text of 'Stone Skin'" in out
    shared = invoke("matchup", f"{ARMY}#1, {ARMY}#1", "Incursor Squad").output  # every answer said it: once
    assert "every answer: not applied: Gravel Oath (an army rule not modelled)" in shared
    records = json.loads(invoke("matchup", str(ARMY), str(ARMY), "--format", "json").output)["rows"]
    assert all("not applied: Gravel Oath (an army rule not modelled)" in r["notes"] for r in records
               if r["reason"] is None and r["attacker"] == "#1 Gravel Wardens")


def test_armies_of_names_with_sizes(tmp_path):
    listed = tmp_path / "mine.txt"
    listed.write_text("# my list\nIncursor Squad x10\n\nTempestus Command Squad  # the command squad\n")
    mine = read_army(str(listed))
    assert mine.name == "mine"
    assert [(label, sum(sheet.counts().values())) for label, sheet in mine.units] == [
        ("#1 Incursor Squad", 10), ("#2 Militarum Tempestus Command Squad", 5)]
    theirs = read_army("Incursor Squad, Incursor Squad x10", "theirs")
    frame = matchup(mine, theirs, both=True)
    assert list(dict.fromkeys(frame["army"])) == ["mine", "theirs"]
    assert list(frame[frame["army"] == "mine"]["target_models"]) == [5, 10, 5, 10]
    with pytest.raises(MathhammerError, match="Incursor Squad comes in units of 5 or 10 models, not 7"):
        read_army("Incursor Squad x7")
    with pytest.raises(MathhammerError, match="names no units"):
        read_army(" , ")
    with pytest.raises(MathhammerError) as standard:  # not 'unknown unit (did you mean Mek?)'
        read_army("Incursor Squad, meq")
    assert str(standard.value).startswith("'meq' is a standard target (a profile), not a unit")


def test_a_unit_without_ranged_weapons_gets_the_reason():
    """The Advanced situation leaves only Assault weapons: the command squad has none."""
    frame = matchup(read_army("Tempestus Command Squad"), read_army("Incursor Squad"), context=Context(advanced=True))
    row = frame.iloc[0]
    assert math.isnan(row["mean_damage"])
    assert row["reason"].startswith("Militarum Tempestus Command Squad: no ASSAULT weapons after Advancing")


def test_matchup_command_formats_and_files(tmp_path, monkeypatch):
    army = str(ARMY)
    table = invoke("matchup", army, "Incursor Squad x10", "--figure", "mean_models_destroyed", "--cover")
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    assert lines[0].startswith("mean models destroyed: ") and lines[0].endswith("against army B, shooting phase")
    assert "target has the Benefit of Cover" in table.output
    assert [line.split()[0] for line in lines if line.startswith("#")] == ["#1", "#2", "#3"]
    records = json.loads(invoke("matchup", army, "Incursor Squad", "--format", "json", "--both").output)["rows"]
    assert len(records) == 6 and {r["army"] for r in records} == {"army B", records[0]["army"]}
    markdown = invoke("matchup", army, "Incursor Squad", "--format", "markdown", "--melee").output
    assert "fight phase" in markdown and "|---|---:|" in markdown
    out, plot = tmp_path / "m.parquet", tmp_path / "m.png"
    done = invoke("matchup", army, "Incursor Squad", "--out", str(out), "--plot", str(plot))
    assert done.exit_code == 0, done.output
    assert len(pd.read_parquet(out)) == 3 and plot.read_bytes().startswith(b"\x89PNG")
    # one colour scale for every panel: a trial found each panel scaled alone, 1.5% as yellow as 53.8%
    from mathhammer_exact.present import matchups
    drawn = []
    monkeypatch.setattr(matchups, "save_figure", lambda fig, _target: drawn.append(fig))
    invoke("matchup", army, "Incursor Squad", "--both", "--plot", str(tmp_path / "both.png"))
    scales = {(image.norm.vmin, image.norm.vmax) for ax in drawn[0].axes for image in ax.images}
    assert len(drawn[0].axes) >= 2 and len(scales) == 1
    again = invoke("matchup", army, "Incursor Squad", "--out", str(tmp_path / "m.txt"))
    assert again.exit_code == 2 and again.output == f"error: --out writes FILE.parquet or FILE.csv, got " \
                                                    f"'{tmp_path / 'm.txt'}'\n"


def test_the_options_the_notes_name_are_said_to_be_units():
    # a new player tried `matchup ... --with 'Oathband Bodyguard'` as a note said: the options are `unit`'s
    said = "not applied: Ward applies only while a CHARACTER model is leading the unit; attach one with --leader, " \
           "or --with 'Ward' assumes it"
    rows = [{"attacker": "#1 Breakers", "target": "#1 Wall", "notes": [said], "reason": None}]
    assert _notes(rows) == [f"every answer: {said}", "--leader, --with: options of `mathhammer unit`, which asks one "
                            "pair of these units (a unit of an army list is written FILE#N)"]
    quiet = [{"attacker": "#1 Breakers", "target": "#1 Wall", "notes": ["not applied: Oath (an army rule not "
                                                                         "modelled)"], "reason": None}]
    assert _notes(quiet) == ["every answer: not applied: Oath (an army rule not modelled)"]
    charged = "not applied: Fury applies only if the unit made a Charge move this turn; --charged assumes it"
    own = [{"attacker": "#1 Breakers", "target": "#1 Wall", "notes": [charged], "reason": None}]
    assert _notes(own) == [f"every answer: {charged}"]  # --charged is a matchup's option too


def test_a_folder_is_no_army(tmp_path):
    # a trial found a folder read as a unit's name: 'unknown unit ...'
    out = CliRunner().invoke(cli, ["matchup", str(ARMY), str(tmp_path)])
    assert out.exit_code == 2
    assert out.output.strip() == (f"error: {tmp_path}: a folder, not an army: give an army list (.json, .ros, .rosz), "
                                  "a .txt file of unit names, or unit names separated by commas")

"""`survive`: a unit against the standard attackers (rules/attackers.toml, validated and layered like
every rules file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mathhammer_exact import Context, Firing, attack
from mathhammer_exact.cli import cli
from mathhammer_exact.data import load as data
from mathhammer_exact.decide.compare import below_half
from mathhammer_exact.decide.survive import panel, survive
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.units.by_name import find_target


def run(args: list[str]):
    return CliRunner().invoke(cli, args)


def test_survive_rows_equal_single_queries():
    target = find_target("MEQ")
    attackers = panel()
    rows = survive(target, exact=True).rows
    assert len(rows) == len(attackers) >= 6
    for row, attacker in zip(rows, attackers.values()):
        single = attack(list(attacker.firings), target, exact=True)
        assert row.kills == single.models_destroyed.mean and row.p_destroyed == single.p_destroyed
        assert row.k == below_half(target) == 3  # 2 of 5 left is below half


def test_survive_command(tmp_path):
    out = run(["survive", "MEQ", "-a", "lasguns", "-a", "power fists", "--json"])
    assert out.exit_code == 0, out.output
    labels = [s["label"] for s in json.loads(out.output)["rows"]]
    assert labels == [panel()["lasguns"].description, panel()["power fists"].description]
    # a row's label can be typed back
    again = run(["survive", "MEQ", "-a", panel()["lasguns"].description, "-a", "Five power fists", "--json"])
    assert again.exit_code == 0, again.output
    assert [s["label"] for s in json.loads(again.output)["rows"]] == labels
    assert "kills_change" not in json.loads(out.output)["rows"][0]
    assert run(["survive", "MEQ", "--plot", str(tmp_path / "s.svg")]).exit_code == 0
    wrong = run(["survive", "MEQ", "-a", "lasgun"])
    assert wrong.exit_code == 2 and "did you mean 'lasguns'" in wrong.output


def test_panel_per_weapon_situation_is_kept():
    lasguns = panel()["lasguns"].firings[0]
    assert lasguns.models == 20 and lasguns.context == Context(half_range=True)
    assert isinstance(lasguns, Firing)


GOOD = '[a]\ndescription = "x"\nweapons = ["A1 BS3+ S4 AP0 D1"]\n'


def _folder(tmp: Path, text: str | bytes) -> Path:
    """A user's rules folder holding only attackers.toml."""
    path = tmp / "attackers.toml"
    path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text)
    return tmp


@pytest.mark.parametrize(("text", "fragment"), [
    # the file's shape, checked when the rules are loaded (every command that reads them)
    ('[a]\ndescription = "x"\n', "attackers.toml [a] weapons: missing (this field is required)"),
    (GOOD + 'colour = "red"\n', "attackers.toml [a]: unknown field colour (allowed: description, weapons)"),
    (GOOD.replace('["A1 BS3+ S4 AP0 D1"]', '"A1 BS3+ S4 AP0 D1"'),
     "attackers.toml [a] weapons: expected a list such as [\"A\", \"B\"], got 'A1 BS3+ S4 AP0 D1' (text)"),
    (GOOD.replace('"x"', "7"), "attackers.toml [a] description: expected text in quotes, got 7 (a whole number)"),
    (GOOD.replace('["A1 BS3+ S4 AP0 D1"]', "[7]"), "attackers.toml [a] weapons[0]: expected text in quotes, got 7"),
    (GOOD.replace('["A1 BS3+ S4 AP0 D1"]', "[]"), "attackers.toml [a]: weapons must list one or more weapons"),
    ("a = 3\n", "attackers.toml [a]: expected a table of fields, got 3 (a whole number)"),
    ("[a\n", "attackers.toml: not valid TOML"),
    (GOOD.replace("x", "\xf6").encode("latin-1"), "attackers.toml: not UTF-8 text (byte 0xf6 at position 19)"),
    # the weapons, written as for `attack -w`, read when the panel is built
    (GOOD.replace('D1"]', 'D1", "A1 BS7+ S4 AP0 D1"]'),
     "attackers.toml [a] weapons[1]: BS/WS must be 2+ to 6+, got 7+"),
    (GOOD.replace('"A1', '"2x A1').replace(' D1"', ' D1 @halfrange"'),
     "attackers.toml [a] weapons[0]: unknown situation flag @halfrange (allowed: cover, half-range"),
    (GOOD.replace('"A1', '"?x A1'), "attackers.toml [a] weapons[0]: a weapon written '?x' goes with `attack --need`"),
])
def test_invalid_attacker_files_name_the_file_entry_and_field(tmp_path, text, fragment):
    with pytest.raises(MathhammerError) as err:
        panel(_folder(tmp_path, text))
    assert fragment in str(err.value)
    assert str(tmp_path) in str(err.value)  # the user's file, by its full path
    out = run(["survive", "MEQ", "--rules-dir", str(tmp_path)])
    assert out.exit_code == 2 and fragment in out.output and len(out.output.strip().splitlines()) == 1


def test_the_shape_is_checked_with_the_other_rules_files(tmp_path):
    # a missing field stops every command that reads the rules, as a bad datasheet would; nothing half-loads
    folder = _folder(tmp_path, '[a]\ndescription = "x"\n')
    with pytest.raises(MathhammerError, match=r"attackers\.toml \[a\] weapons: missing"):
        data.library(folder)
    other = tmp_path / "other"
    (other / "attackers.toml").mkdir(parents=True)
    with pytest.raises(MathhammerError, match=r"attackers\.toml: is a folder; a TOML file belongs here"):
        data.library(other)


def test_a_users_attackers_are_layered_over_the_shipped_ones(tmp_path, monkeypatch):
    folder = _folder(tmp_path, '[lasguns]\ndescription = "Ten lasguns"\nweapons = [\'10x 24" A1 BS4+ S3 AP0 D1\']\n'
                               '[mine]\ndescription = "My bolters"\nweapons = [\'5x 24" A2 BS3+ S4 AP0 D1\']\n')
    shipped, mine = panel(), panel(folder)
    assert list(mine) == [*shipped, "mine"]  # replaced in place by name, added at the end, the rest kept
    assert mine["lasguns"].description == "Ten lasguns" and mine["lasguns"].firings[0].models == 10
    assert mine["power fists"] == shipped["power fists"]
    assert panel()["lasguns"].firings[0].models == 20  # the shipped panel is untouched
    out = run(["survive", "MEQ", "-a", "mine", "--rules-dir", str(folder), "--json"])
    assert out.exit_code == 0, out.output
    assert [row["label"] for row in json.loads(out.output)["rows"]] == ["My bolters"]
    monkeypatch.setenv("MATHHAMMER_RULES", str(folder))
    assert list(panel()) == list(mine)
    assert run(["survive", "MEQ", "-a", "mine"]).exit_code == 0


def test_survives_header_says_the_target_as_asked():
    # a trial found no target line: the unit's size showed only in the column 'P(>=k destroyed)'
    out = CliRunner().invoke(cli, ["survive", "T4 Sv3+ W2 x7"])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[1] == "  target: 7 models: Toughness 4 | Save 3+ | Wounds 2"

"""The command line through click's runner: output shapes, the JSON schema and clean errors."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from mathhammer_exact import Target, Weapon, attack
from mathhammer_exact.cli import cli

ISSUE_QUERY = ["attack", "--weapon", "A2 BS3+ S4 AP-1 D1 [SUSTAINED HITS 1, LETHAL HITS]", "--models", "5",
               "--target", "T4 Sv3+ inv5+ W2 x5 fnp6+ [INFANTRY]"]


def run(args: list[str]):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def test_table_output_lists_means_then_tables():
    out = run(ISSUE_QUERY + ["--cover", "--half-range", "--charged"])
    assert out.exit_code == 0
    text = out.output
    assert text.index("mean") < text.index("models destroyed\n")
    assert "P(unit destroyed)" in text and "#" in text


def test_json_matches_the_api_exactly():
    out = run(["attack", "-w", "A1 BS3+ S4 AP-1 D1", "-m", "10", "-t", "T4 Sv3+ W2 x5", "--exact", "--json"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert set(data) == {"attacks", "hits", "wounds", "unsaved", "damage", "models_destroyed", "p_destroyed",
                         "p_below_half", "groups"}
    assert data["models_destroyed"]["mean"] == "138805/236196"
    assert data["damage"]["mean"] == "5/3"
    assert data["models_destroyed"]["pmf"][0] == "9765625/20155392"
    assert sum(Fraction(p) for p in data["damage"]["pmf"]) == 1
    api = attack(Weapon.parse("A1 BS3+ S4 AP-1 D1"), Target.parse("T4 Sv3+ W2 x5"), 10, exact=True)
    assert Fraction(data["p_destroyed"]) == api.p_destroyed


def test_float_json_indexes_pmf_by_value():
    data = json.loads(run(["attack", "-w", "A1 BS3+ S4 AP0 D1", "-m", "3", "-t", "T4 Sv7+ W1 x5", "--json"]).output)
    assert len(data["attacks"]["pmf"]) == 4 and data["attacks"]["pmf"][3] == 1.0
    assert abs(sum(data["hits"]["pmf"]) - 1) < 1e-12


@pytest.mark.parametrize("options", [
    ["--reroll-hits", "failed", "--reroll-wounds", "ones", "--hit-mod", "-1", "--wound-mod", "1"],
    ["--rules", "launch", "--crit-hit", "5", "--stationary", "--overwatch", "--indirect"],
])
def test_options_are_accepted(options):
    assert run(ISSUE_QUERY + options).exit_code == 0


@pytest.mark.parametrize(("weapon", "target", "extra", "fragment"), [
    ("AD7 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", [], "D7"),
    ("A1 BS7+ S4 AP0 D1", "T4 Sv3+ W2 x5", [], "BS/WS must be 2+ to 6+, got 7+"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x0", [], "x0"),
    ("A1 BS3+ S4 AP+1 D1", "T4 Sv3+ W2 x5", [], "AP+1"),
    ("A1 BS3+ S4 AP0 D1 [WOBBLY]", "T4 Sv3+ W2 x5", [], "WOBBLY"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W0 x5", [], "W must be at least 1"),
    ("A2D BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", [], "2D"),
    ("A1 BS3+ S4 AP0", "T4 Sv3+ W2 x5", [], "missing D"),
    ("A1 BS3+ S4 AP0 D1", "T4 W2", [], "missing Sv"),
    ("A1 BS3+ S4 AP0 D1 [BLAST]", "T4 Sv3+ W2 x5", ["--engaged"], "BLAST"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["--models", "-1"], "at least 1"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["--reroll-hits", "twice"], "twice"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["--crit-hit", "1"], "critical hit"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["--rules", "2019"], "2019"),
])
def test_bad_input_exits_2_with_one_line(weapon, target, extra, fragment):
    out = CliRunner().invoke(cli, ["attack", "-w", weapon, "-t", target, *extra])
    assert out.exit_code == 2, out.output
    assert out.exception is None or isinstance(out.exception, SystemExit)
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], out.output


def test_missing_required_option_is_one_line():
    out = CliRunner().invoke(cli, ["attack", "-w", "A1 BS3+ S4 AP0 D1"])
    assert out.exit_code == 2
    assert out.output.strip().splitlines() == ["error: Missing option '--target' / '-t'."]


def test_help_works():
    assert "attack" in run(["--help"]).output
    assert "--reroll-hits" in run(["attack", "--help"]).output


def test_attack_on_a_mixed_or_attached_target_uses_the_unit_engine():
    out = run(["attack", "-w", "A1 BS2+ S5 AP-2 D=3 [PRECISION]", "-m", "4", "-t", "T4 Sv3+ W2 x5; T4 Sv3+ W3 leader",
               "--json", "--exact"])
    data = json.loads(out.output)
    assert set(data) == {"attacks", "hits", "damage", "models_destroyed", "p_destroyed", "groups", "p_below_half"}
    leader = data["groups"][1]
    assert leader["name"] == "leader" and Fraction(leader["p_destroyed"]) == 1 - Fraction(17, 27) ** 4
    # each shot gets through with 5/6 * 2/3 * 2/3 = 10/27 and kills one model (D3 against W2 or W3)
    assert Fraction(data["models_destroyed"]["mean"]) == 4 * Fraction(10, 27)


def test_attack_with_a_command_reroll():
    # two shots hitting on 4+, the first miss re-rolled: 0, 1, 2 hits with 1/8, 3/8, 1/2; each kills on 2+.
    data = json.loads(run(["attack", "-w", "A2 BS4+ S8 AP-6 D1", "-t", "T4 Sv2+ W1 x5", "--command-reroll", "hit",
                           "--json", "--exact"]).output)
    assert Fraction(data["models_destroyed"]["pmf"][0]) == Fraction(1, 8) + Fraction(3, 8) / 6 + Fraction(1, 2) / 36

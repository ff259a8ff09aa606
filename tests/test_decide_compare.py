"""`compare`: scenarios side by side."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from mathhammer_exact import Context, Reroll, Rules, Target, Weapon, attack
from mathhammer_exact.cli import cli
from mathhammer_exact.decide.compare import Scenario, compare
from mathhammer_exact.decide.unit_attack import unit_attack
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.units.by_name import find_target

BOLTERS = "-w '10x 24\" A2 BS3+ S4 AP0 D1' -t 'T4 Sv3+ W2 x5'"


def run(args: list[str]):
    return CliRunner().invoke(cli, args)


def test_a_scenario_against_itself_shows_no_difference_and_equals_the_single_query():
    out = run(["compare", "-s", BOLTERS, "-s", BOLTERS, "--exact", "--json"])
    assert out.exit_code == 0, out.output
    first, second = json.loads(out.output)["rows"]
    assert {second[f"{m}_change"] for m in ("damage", "kills", "p_destroyed", "p_at_least")} == {"0"}
    single = attack(Weapon.parse('24" A2 BS3+ S4 AP0 D1'), Target.parse("T4 Sv3+ W2 x5"), 10, exact=True)
    assert Fraction(first["damage"]) == single.damage.mean
    assert Fraction(first["kills"]) == single.models_destroyed.mean
    assert Fraction(first["p_destroyed"]) == single.p_destroyed
    assert first["k"] == 3 and Fraction(first["p_at_least"]) == single.models_destroyed.at_least(3)


def test_differences_are_to_the_first_scenario():
    target = Target.parse("T4 Sv3+ W2 x5")
    weapon = Weapon.parse('24" A2 BS3+ S4 AP0 D1')
    plain = attack(weapon, target, 10, exact=True)
    oath = attack(weapon, target, 10, Context(reroll_hits=Reroll.FAILED), exact=True)
    rows = compare([Scenario("plain", plain), Scenario("oath", oath)], at_least=2)
    assert rows[1].differences["kills"] == oath.models_destroyed.mean - plain.models_destroyed.mean > 0
    assert rows[1].differences["p_at_least"] == oath.models_destroyed.at_least(2) - plain.models_destroyed.at_least(2)
    assert rows[0].differences == {"damage": 0, "kills": 0, "p_destroyed": 0, "p_at_least": 0}
    with pytest.raises(MathhammerError, match="--at-least must be 1 to 5"):
        compare([Scenario("plain", plain)], at_least=6)


def test_rank_by_points_destroyed_per_100_points():
    target = Target.parse("T4 Sv7+ W1 x10")
    coin = Weapon.parse("A1 BS2+ S4 AP0 D1 [LETHAL HITS]")  # destroys a model with 1/2 each
    cheap = Scenario("cheap", attack(coin, target, 4, exact=True), points=20, target_points=100)  # 2 kills: 100/100
    dear = Scenario("dear", attack(coin, target, 10, exact=True), points=100, target_points=100)  # 5 kills: 50/100
    rows = compare([dear, cheap])
    assert [r.rank for r in rows] == [2, 1]
    assert rows[1].efficiency.points_destroyed_per_100 == 100
    unranked = compare([dear, Scenario("unknown", cheap.result)])
    assert [r.rank for r in unranked] == [None, None]
    alike = compare([dear, Scenario("also dear", dear.result, points=100, target_points=100), cheap])
    assert [r.rank for r in alike] == [2, 2, 1]


def test_labels_rules_wordings_and_named_rules():
    dev = "-w '5x 24\" A1 BS3+ S5 AP-1 DD3 [DEVASTATING WOUNDS]' -t 'T5 Sv2+ W3 x3'"
    out = run(["compare", "-s", f"current: {dev}", "-s", f"2023: {dev} --rules 2023", "--exact", "--json"])
    assert out.exit_code == 0, out.output
    current, older = json.loads(out.output)["rows"]
    assert (current["label"], older["label"]) == ("current", "2023")
    weapon, target = Weapon.parse('24" A1 BS3+ S5 AP-1 DD3 [DEVASTATING WOUNDS]'), Target.parse("T5 Sv2+ W3 x3")
    for row, rules in ((current, "current"), (older, "2023")):  # each scenario under the wording it names
        assert Fraction(row["kills"]) == attack(weapon, target, 5, Context(rules=Rules.named(rules)),
                                                exact=True).models_destroyed.mean
    assert current["kills"] != older["kills"]
    named = run(["compare", "--all", "-t MEQ", "-s", 'unit "Tempestus Command Squad"',
                 "-s", 'Take Aim: unit "Tempestus Command Squad" --with take-aim', "--exact", "--json"])
    assert named.exit_code == 0, named.output
    plain, aimed = json.loads(named.output)["rows"]
    with_rule = unit_attack("Tempestus Command Squad", find_target("MEQ"), modifiers=["take-aim"], exact=True)
    assert Fraction(aimed["kills"]) == with_rule.result.models_destroyed.mean > Fraction(plain["kills"])
    assert plain["points"] == 70 and plain["rank"] == 2 and aimed["rank"] == 1


def test_a_unit_scenarios_header_says_what_the_target_has_against_its_attacks():
    # a trial found a compared unit scenario's 'target has Stealth' unsaid (a profile's weapons' said it)
    target = "T4 Sv3+ W2 x5 stealth"
    out = run(["compare", "-s", f'unit "Tempestus Command Squad" -t "{target}"',
               "-s", f'unit "Tempestus Command Squad" -t "{target}" --with take-aim', "--json"])
    assert out.exit_code == 0, out.output
    assert "target has Stealth: -1 to the hit roll against ranged attacks" in json.loads(out.stdout)["header"]


def test_scenarios_of_one_label_are_told_apart_by_their_place():
    # a trial's API compare of a unit with and without Take Aim! showed two rows of one name
    plain = attack(Weapon.parse("A1 BS3+ S4 AP0 D1"), Target.parse("T4 Sv4+ W1 x5"), 10)
    rows = compare([Scenario("TCS -> MEQ", plain), Scenario("TCS -> MEQ", plain), Scenario("other", plain)])
    assert [r.scenario.label for r in rows] == ["TCS -> MEQ (scenario 1)", "TCS -> MEQ (scenario 2)", "other"]


def test_table_csv_and_markdown_show_the_rows():
    table = run(["compare", "-s", BOLTERS, "-s", f"{BOLTERS} --reroll-hits ones"]).output
    lines = table.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("scenario "))
    assert lines[head].split()[:3] == ["scenario", "mean", "damage"]
    assert "(+" in lines[head + 2]
    # under the title, what the answers assumed: a line both said once, the other after its scenario's label
    assert "  rules: 10th edition, current printing" in lines[1:head]
    assert f"  {BOLTERS} --reroll-hits ones: rolls: re-roll hit rolls of 1" in lines[1:head]
    rows = list(csv.DictReader(io.StringIO(run(["compare", "-s", BOLTERS, "-s", BOLTERS, "--format", "csv",
                                                "--exact"]).output)))
    assert len(rows) == 2 and rows[1]["kills_change"] == "0" and Fraction(rows[0]["kills"]) > 0
    markdown = run(["compare", "-s", BOLTERS, "--format", "markdown"]).output
    assert "| scenario | mean damage |" in markdown


def test_plot_overlays_the_scenarios(tmp_path):
    path = tmp_path / "compare.png"
    out = run(["compare", "-s", BOLTERS, "-s", f"{BOLTERS} --cover", "--plot", str(path)])
    assert out.exit_code == 0, out.output
    assert path.stat().st_size > 0


@pytest.mark.parametrize(("args", "message"), [
    ("-w 'A1 BS3+ S4 AP0 D1'", "scenario"),  # no target
    ("-w 'A1 BS3+ S4 AP0 D1' -t 'T4 Sv3+ W1' --need 0.5", "compared scenario"),
    ("-w 'A1 BS3+ S4 AP0 D1' -t 'T4 Sv3+ W1' --exact", "before the scenarios"),
    ("unit 'No Such Unit' -t MEQ", "unknown datasheet"),
    ("-w 'A1 BS3+ S4 AP0 D1 -t 'T4 Sv3+ W1'", "scenario"),  # unbalanced quote
])
def test_bad_scenarios_are_one_line_errors(args, message):
    out = run(["compare", "-s", args])
    assert out.exit_code == 2 and message in out.output and len(out.output.strip().splitlines()) == 1


@pytest.mark.parametrize(("target", "k"), [("x5", 3), ("x10", 6), ("x1", 1), ("x3/5", 1), ("x4/6", 2), ("x2/5", 1),
                                           ("x2/3; T4 Sv7+ W3 leader", 2)])
def test_the_default_k_is_the_models_destroyed_that_leave_it_below_half_strength(target, k):
    # 5 models: 2 left of 5 is below half (3 destroyed); 3 left of a Starting Strength of 5: 1 destroyed; 4 of 6:
    # 2 (2 of 6 left; 3 of 6 is exactly half); 2 left of 5 is below half already: the least, 1. With a leader, the
    # combined Starting Strength (3 and 1: 4): 2 destroyed leave 1 of its 4 models (the leader alone, if both were
    # bodyguards, is judged on its own wounds: the k is the one that usually matters, not Below Half-strength)
    result = attack(Weapon.parse("A1 BS3+ S4 AP0 D1"), Target.parse(f"T4 Sv7+ W1 {target}"), 1, exact=True)
    assert compare([Scenario("one", result)])[0].k == k


def test_a_compared_unit_scenario_says_its_target():
    # a trial found a unit scenario's target (a unit that had lost models, its Starting Strength) said nowhere
    out = CliRunner().invoke(cli, ["compare", "-s", "unit 'Tempestus Command Squad' -t 'Incursor Squad x3/5'",
                                   "-s", "unit 'Tempestus Command Squad' -t 'Incursor Squad'"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert any(line.endswith("-t 'Incursor Squad x3/5': target: 3 models: Toughness 4 | Save 3+ | Wounds 2 | "
                             "Leadership 6+ | keywords ADEPTUS ASTARTES, BLOOD ANGELS, IMPERIUM, INCURSOR SQUAD, "
                             "INFANTRY, PHOBOS, SMOKE; Starting Strength 5 (2 models lost before)") for line in lines)

"""Units by name in the decision tools: `turn` and `plan` take a unit for its weapons, `compare` shows the
attacker's Hazardous losses beside the damage."""

import json
from fractions import Fraction

from click.testing import CliRunner

from mathhammer_exact.cli import cli


def run(*args):
    out = CliRunner().invoke(cli, list(args))
    assert out.exit_code == 0, out.output
    return out.stdout


def test_turn_takes_units_by_name():
    by_name = json.loads(run("turn", "-t", "MEQ", "-s", "Incursor Squad", "-f", "Incursor Squad", "-d", "8", "--json",
                             "--exact"))
    # the Incursor Squad's default loadout, written out: 5 carbines shoot, 5 pairs of combat blades fight
    written = json.loads(run("turn", "-t", "MEQ", "-s", "5x 24\" A2 BS3+ S4 AP0 D1 [ASSAULT, IGNORES COVER]",
                             "-f", "5x Melee A3 WS3+ S4 AP0 D1 [SUSTAINED HITS 1]", "-d", "8", "--json", "--exact"))
    assert by_name["models_destroyed"] == written["models_destroyed"]
    text = run("turn", "-t", "MEQ", "-s", "Incursor Squad", "-f", "Incursor Squad", "-d", "8")
    assert "  Incursor Squad (Blood Angels) the weapons of its loadout (its datasheet's default, or as its army " \
           "list has it), attacking as `mathhammer unit` makes them attack" in text


def test_plan_takes_a_unit_by_name():
    text = run("plan", "-w", "Tempestus Command Squad", "-t", "MEQ", "--goal", "kills")
    assert "  weapon 1: 1 x [Militarum Tempestus Command Squad: bolt pistol]" in text
    assert "  weapon 2: 4 x [Militarum Tempestus Command Squad: hot-shot lasgun]" in text


def test_a_name_that_is_neither_weapon_nor_unit_is_refused():
    out = CliRunner().invoke(cli, ["plan", "-w", "Incursr Squad", "-t", "MEQ"])
    assert out.exit_code == 2 and out.output.startswith("error: 'Incursr Squad' is neither a weapon profile (")
    assert "nor a unit (unknown datasheet 'Incursr Squad' (did you mean 'Incursor Squad'?)" in out.output


def test_compare_shows_hazardous_losses():
    found = json.loads(run("compare", "--exact", "--json", "--all", "-t MEQ", "-s", 'unit "Tempestus Command Squad"',
                           "-s", 'unit "Tempestus Command Squad" --loadout "plasma gun" --profile supercharge'))
    # one W1 Scion fires a supercharged plasma gun (Hazardous): it is lost on a 1, so 1/6 on average
    assert [r["hazardous_models_lost"] for r in found["rows"]] == [None, str(Fraction(1, 6))]
    text = run("compare", "--all", "-t MEQ", "-s", 'unit "Tempestus Command Squad" --loadout "plasma gun" '
                                                   '--profile supercharge')
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("scenario "))
    assert "own models lost (Hazardous)" in lines[head] and "0.167" in lines[head + 1]

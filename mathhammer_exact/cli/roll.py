"""`mathhammer roll ...`: the dice tests outside the attack sequence."""

from __future__ import annotations

import click

from .. import rolls
from ..model import Hazardous, ModelProfile, Rules
from ..pmf import Number, Pmf
from ..present.report import Report
from ..rolls import PassFail
from .options import emit, output_options, rules_option


@click.group()
def roll() -> None:
    """Dice tests outside the attack sequence: charge, advance, battle-shock, desperate-escape, hazardous, grenade."""


def _test_report(title: str, test: PassFail, roll_label: str) -> Report:
    roll_pmf = {"roll": test.roll} if test.roll is not None else {}
    return Report(title, roll_pmf, {"p_success": test.p_success}, {"roll": roll_label})


def _count_report(title: str, key: str, pmf: Pmf, chances: dict[str, Number] | None = None) -> Report:
    return Report(title, {key: pmf}, chances or {}, flat=True)


@roll.command()
@click.option("--distance", "-d", required=True, type=int, help="Inches the charge must cover (9 after Deep Strike).")
@click.option("--reroll", is_flag=True, help="Re-roll the whole roll when it fails (e.g. Command Re-roll).")
@click.option("--modifier", default=0, type=int, help="Added to the roll, e.g. -2.")
@output_options
def charge(distance: int, reroll: bool, modifier: int, exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Charge roll: 2D6 (plus modifier) at least the distance."""
    test = rolls.charge(distance, reroll, modifier, exact)
    title = f"charge {distance}\"" + (f" with {modifier:+d}" if modifier else "") + (", re-rolled" if reroll else "")
    emit(_test_report(title, test, "charge roll"), fmt, as_json, plot)


@roll.command()
@output_options
def advance(exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Advance roll: D6 inches added to Move."""
    emit(_count_report("advance roll", "advance", rolls.advance(exact)), fmt, as_json, plot)


@roll.command(name="battle-shock")
@click.option("--ld", required=True, type=int, help="The unit's best Leadership, e.g. 7 for Ld7+.")
@click.option("--insane-bravery", is_flag=True, help="The stratagem: the test is passed.")
@output_options
def battle_shock(ld: int, insane_bravery: bool, exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Battle-shock test: 2D6 at least Leadership passes."""
    test = rolls.battle_shock_test(ld, insane_bravery, exact)
    emit(_test_report(f"Battle-shock test at Ld{ld}+", test, "2D6"), fmt, as_json, plot)


@roll.command(name="desperate-escape")
@click.option("--tests", required=True, type=int, help="Number of Desperate Escape tests.")
@output_options
def desperate_escape(tests: int, exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Desperate Escape: each test fails on a 1-2 and a model is destroyed."""
    pmf = rolls.desperate_escape(tests, exact)
    emit(_count_report(f"{tests} Desperate Escape tests", "models_lost", pmf), fmt, as_json, plot)


@roll.command()
@click.option("--weapons", required=True, type=int, help="Hazardous weapons used.")
@click.option("--bearer", default="T3 Sv4+ W1", show_default=True, help="Profile of the models carrying them.")
@rules_option("current: a failed test inflicts 3 mortal wounds on a bearer; 2023: it destroys one "
              "(CHARACTER, MONSTER, VEHICLE: 3 mortal wounds). Old names seed, launch.")
@output_options
def hazardous(weapons: int, bearer: str, rules: Rules, exact: bool, fmt: str, as_json: bool,
              plot: str | None) -> None:
    """Hazardous tests: one D6 per weapon, each 1 costs a model."""
    profile = ModelProfile.parse(bearer, name="bearer")
    pmf = rolls.hazardous(weapons, profile, rules, exact)
    title = f"Hazardous tests for {weapons} weapons"
    if rules.hazardous is Hazardous.DESTROY:
        title += " (2023 rules: a failed test destroys a model)"
    emit(_count_report(title, "models_lost", pmf), fmt, as_json, plot)


@roll.command()
@click.option("--target", "-t", required=True, help="The target unit, e.g. 'T3 Sv5+ W1 x10' or GEQ.")
@output_options
def grenade(target: str, exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Grenade stratagem: six D6, each 4+ is a mortal wound (spilling over, Feel No Pain applies)."""
    from ..data.load import find_target  # the rules data load only for a target given by name

    unit = find_target(target)
    pmf = rolls.grenade(unit, exact)
    report = _count_report(f"Grenade against {target.strip()}", "models_destroyed", pmf,
                           {"p_destroyed": pmf.p(unit.model_count)})
    emit(report, fmt, as_json, plot)



"""`mathhammer roll ...`: the dice tests outside the attack sequence."""

from __future__ import annotations

import click

from ..model import Rules
from ..present.rolls import (
    advance_report,
    battle_shock_report,
    charge_report,
    desperate_escape_report,
    grenade_report,
    hazardous_report,
)
from .command import Group
from .options import edition_option, emit, output_options, rules_option


@click.group(cls=Group)
def roll() -> None:
    """Dice tests outside the attack sequence: charge, advance, battle-shock, desperate-escape, hazardous, grenade."""


@roll.command()
@click.option("--distance", "-d", required=True, type=int, help="Inches the charge must cover (9 after Deep Strike).")
@click.option("--reroll", is_flag=True, help="Re-roll the whole roll when it fails (e.g. Command Re-roll).")
@click.option("--modifier", default=0, type=int, help="Added to the roll, e.g. -2.")
@edition_option
@output_options
def charge(distance: int, reroll: bool, modifier: int, exact: bool, fmt: str, as_json: bool, plot: str | None,
           edition: str | None) -> None:
    """Charge roll: 2D6 (plus modifier) at least the distance."""
    emit(charge_report(distance, reroll, modifier, exact), fmt, as_json, plot)


@roll.command()
@edition_option
@output_options
def advance(exact: bool, fmt: str, as_json: bool, plot: str | None, edition: str | None) -> None:
    """Advance roll: D6 inches added to Move."""
    emit(advance_report(exact), fmt, as_json, plot)


@roll.command(name="battle-shock")
@click.option("--ld", required=True, type=int, help="The unit's best Leadership, e.g. 7 for Ld7+.")
@click.option("--insane-bravery", is_flag=True, help="The stratagem: the test is passed.")
@edition_option
@output_options
def battle_shock(ld: int, insane_bravery: bool, exact: bool, fmt: str, as_json: bool, plot: str | None,
                 edition: str | None) -> None:
    """Battle-shock test: 2D6 at least Leadership passes."""
    emit(battle_shock_report(ld, insane_bravery, exact), fmt, as_json, plot)


@roll.command(name="desperate-escape")
@click.option("--tests", required=True, type=int, help="Number of Desperate Escape tests.")
@edition_option
@output_options
def desperate_escape(tests: int, exact: bool, fmt: str, as_json: bool, plot: str | None, edition: str | None) -> None:
    """Desperate Escape: each test fails on a 1-2 and a model is destroyed."""
    emit(desperate_escape_report(tests, exact), fmt, as_json, plot)


@roll.command()
@click.option("--weapons", required=True, type=int, help="Hazardous weapons used.")
@click.option("--bearer", default="T3 Sv4+ W1", show_default=True, help="Profile of the models carrying them.")
@rules_option("current: a failed test inflicts 3 mortal wounds on a bearer; 2023: it destroys one "
              "(CHARACTER, MONSTER, VEHICLE: 3 mortal wounds). Old names seed, launch.")
@edition_option
@output_options
def hazardous(weapons: int, bearer: str, rules: Rules, exact: bool, fmt: str, as_json: bool,
              plot: str | None, edition: str | None) -> None:
    """Hazardous tests: one D6 per weapon, each 1 costs a model."""
    emit(hazardous_report(weapons, bearer, rules, exact), fmt, as_json, plot)


@roll.command()
@click.option("--target", "-t", required=True, help="The target unit, e.g. 'T3 Sv5+ W1 x10' or GEQ.")
@edition_option
@output_options
def grenade(target: str, exact: bool, fmt: str, as_json: bool, plot: str | None, edition: str | None) -> None:
    """Grenade stratagem: six D6, each 4+ is a mortal wound (spilling over, Feel No Pain applies)."""
    emit(grenade_report(target, exact), fmt, as_json, plot)



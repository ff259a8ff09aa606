"""`mathhammer survive`: how a unit fares against the standard attackers of rules/attackers.toml."""

from __future__ import annotations

import click

from ..present.questions import survive_question
from ..units.by_name import target_unit
from .command import Command
from .options import LEADER, LEADER_LOADOUT, RULES_DIR, TARGET_MODELS, edition_option, emit, items, output_options


@click.command(cls=Command)
@click.argument("unit")
@TARGET_MODELS
@click.option("--loadout", "--target-loadout", "loadout", default="",
              help="The unit's wargear choices, comma separated, e.g. '3 brute shields'.")
@LEADER
@LEADER_LOADOUT
@click.option("--attacker", "-a", "attackers", multiple=True,
              help="Only these standard attackers, by name or as the rows name them ('bolt rifles', 'Ten bolt "
                   "rifles'; repeatable; default: all of them).")
@click.option("--at-least", type=int,
              help="k of P(at least k models destroyed) (default: the number that leaves it Below Half-strength).")
@RULES_DIR
@edition_option
@output_options
def survive(unit: str, target_models: int | None, loadout: str, leader: tuple[str, ...], leader_loadout: str,
            attackers: tuple[str, ...], at_least: int | None, rules_dir: str | None, edition: str | None, exact: bool,
            fmt: str, as_json: bool, plot: str | None) -> None:
    """How UNIT (a datasheet, a standard target or a profile) fares against each standard attacker
    (rules/attackers.toml, and your own rules folder's)."""
    found = target_unit(unit, target_models, leader, rules_dir, loadout=items(loadout),
                        leader_loadout=items(leader_loadout))
    emit(survive_question(found, attackers, at_least, exact, rules_dir), fmt, as_json, plot)

"""`mathhammer turn`: shoot, charge and fight one target in one turn, the target's state carried through."""

from __future__ import annotations

from typing import Any

import click

from ..decide.firings import led_turn, loadout, weapons_or_units
from ..decide.turn import Overwatch
from ..errors import MathhammerError
from ..model import ModelProfile
from ..present.questions import turn_question
from ..units.by_name import target_unit
from .command import Command
from .options import (
    LEADER,
    LEADER_LOADOUT,
    LED_BY,
    ORDER,
    RULES_DIR,
    TARGET_LOADOUT,
    TARGET_MODELS,
    context_from,
    emit,
    items,
    situation_options,
)


@click.command(cls=Command)
@click.option("--target", "-t", required=True, help="The target (a datasheet, a standard target or a profile).")
@TARGET_MODELS
@LEADER
@TARGET_LOADOUT
@LEADER_LOADOUT
@click.option("--shoot", "-s", "shooting", multiple=True,
              help="A ranged weapon fired first, with its models ('9x 24\" A2 BS3+ ...'), or a unit by name (its "
                   "ranged weapons); repeatable.")
@click.option("--fight", "-f", "fighting", required=True, multiple=True,
              help="A melee weapon of the charging unit, with its models ('5x Melee A3 WS3+ ...'), or a unit by name "
                   "(its melee weapons); repeatable.")
@click.option("--loadout", "unit_loadout", default="",
              help="The wargear choices of the first unit named (in each phase it attacks in), comma separated, e.g. "
                   "'plasma gun, meltagun'.")
@click.option("--distance", "-d", required=True, type=int, help="Charge distance needed, in inches (2D6 >= it).")
@click.option("--charge-reroll", is_flag=True, help="Re-roll the charge roll when it fails (e.g. Command Re-roll).")
@click.option("--charge-mod", default=0, type=int, help="Charge roll modifier, e.g. -2.")
@click.option("--fire-overwatch", "watching", multiple=True,
              help="The target's side fires Overwatch at the charger: weapons with their models ('10x ...'), or one "
                   "weapon without a count, fired by each model of the target left after the shooting.")
@click.option("--charger", help="One charging model's profile for Fire Overwatch, e.g. 'T4 Sv3+ W2'.")
@click.option("--with", "with_", multiple=True,
              help="A named ability, stratagem or Order, as `unit --with` takes it, applied in each phase where the "
                   "units named can use it (repeatable).")
@LED_BY
@ORDER
@RULES_DIR
@situation_options
def turn(target: str, target_models: int | None, leader: tuple[str, ...], target_loadout: str, leader_loadout: str,
         shooting: tuple[str, ...], fighting: tuple[str, ...], unit_loadout: str, distance: int, charge_reroll: bool,
         charge_mod: int, watching: tuple[str, ...], charger: str | None, with_: tuple[str, ...],
         led_by: tuple[str, ...],
         order: tuple[int, ...] | None, rules_dir: str | None, exact: bool, fmt: str, as_json: bool, plot: str | None,
         **situation: Any) -> None:
    """P(target destroyed by the end of the Fight phase), and Below Half-strength and Battle-shocked by
    then: the shooting, then the charge (its exact chance), then the fight from the state the shooting
    left, on any target (alike, mixed or Attached). The situation options hold for the shooting; in the
    fight its modifiers, re-rolls and the target's rules carry on (range, cover, movement and Fire
    Overwatch do not), and the fighting models have charged. Models lost to Fire Overwatch are taken
    from the last --fight weapon first."""
    context = context_from(situation)
    shots = weapons_or_units(shooting, 1, context, near=(*led_by, target)) if shooting else []
    shots, blows = led_turn(shots, weapons_or_units(fighting, melee=True, near=(*led_by, target)), led_by,
                            items(unit_loadout), context)
    watch = None
    if watching:
        weapons = loadout(watching)
        by_survivors = not any(w.counted for w in weapons)
        if not by_survivors and not all(w.counted for w in weapons):
            raise MathhammerError("write every Fire Overwatch weapon with its models ('10x ...'), or one weapon "
                                  "without a count for each of the target's surviving models")
        watch = Overwatch(tuple(w.firing for w in weapons), by_survivors)
    elif charger:
        raise MathhammerError("--charger goes with --fire-overwatch")
    named = target_unit(target, target_models, leader, rules_dir, near=(*leader, *shooting, *fighting),
                        loadout=items(target_loadout), leader_loadout=items(leader_loadout))
    emit(turn_question(named, shots, blows, distance, charge_reroll, charge_mod, watch,
                       ModelProfile.parse(charger) if charger else None, context, exact, order, with_), fmt, as_json,
         plot)

"""`mathhammer unit`: a datasheet unit, by name, attacks a target with its whole loadout."""

from __future__ import annotations

from typing import Any

import click

from ..data.datasheet import Datasheet, TargetUnit, in_edition
from ..data.load import label
from ..decide.compare import Scenario
from ..decide.need import wanted_chance
from ..decide.points import attached_points
from ..decide.unit_attack import UnitReport, allocation_order, led_sizes, unit_attack, with_better_profiles_said
from ..errors import MathhammerError
from ..model import Context
from ..present.decisions import assumed
from ..present.questions import unit_need
from ..present.report import unit_report
from ..units.by_name import Leaders, datasheet, matchup
from .command import Command
from .options import (
    LEADER,
    LEADER_LOADOUT,
    LED_BY,
    LED_BY_LOADOUT,
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
@click.argument("attacker")
@click.option("--loadout", "-l", default="", help="Wargear choices, comma separated, e.g. 'plasma gun, meltagun'.")
@click.option("--size", type=int, help="Models in the attacking unit (default: its smallest size).")
@click.option("--need", help="Find the smallest unit size its datasheet allows that reaches this chance, e.g. 0.9 or "
                             "90%.")
@click.option("--at-least", type=int, help="With --need: models destroyed that count (default: the whole target).")
@click.option("--target", "-t", required=True,
              help="A unit by name ('Incursor Squad', 'Intercessors', 'Rhino @ Space Marines'), a standard target "
                   "(MEQ, TEQ, ...) or a profile string.")
@TARGET_MODELS
@LEADER
@TARGET_LOADOUT
@LED_BY
@LED_BY_LOADOUT
@LEADER_LOADOUT
@click.option("--with", "with_", multiple=True,
              help="A named ability, stratagem or Order, or an ability read from either unit's datasheet whose "
                   "condition the query does not settle (repeatable).")
@click.option("--without", multiple=True, metavar="NAME",
              help="Leave out an ability of either unit read from its datasheet, or one of the attacker's own named "
                   "rules (repeatable).")
@click.option("--melee", is_flag=True, help="Fight with melee weapons instead of shooting.")
@click.option("--pistols", is_flag=True, help="Models shoot their Pistols instead of their other ranged weapons.")
@click.option("--profile", "profiles", multiple=True, help="Weapon profile to use, e.g. supercharge or krak.")
@ORDER
@click.option("--insane-bravery", is_flag=True, help="The target passes its Battle-shock test.")
@click.option("--half-range-for", "half_range_for", multiple=True, metavar="WEAPON",
              help="This weapon is within half range, the others are not (repeatable), e.g. meltagun.")
@click.option("--cover-for", "cover_for", multiple=True, metavar="GROUP",
              help="This target model group (numbered from 1 as the answer lists them, or its model name) has the "
                   "Benefit of Cover (repeatable).")
@click.option("--no-precision", "precision", flag_value=False, default=True,
              help="Decline Precision: wounds are allocated as for any other attack.")
@click.option("--precision-on", metavar="GROUP",
              help="Precision wounds go to this leader group (number or model name) first.")
@RULES_DIR
@situation_options
def unit(attacker: str, loadout: str, size: int | None, need: str | None, at_least: int | None, target: str,
         target_models: int | None, leader: tuple[str, ...],
         target_loadout: str, led_by: tuple[str, ...], led_by_loadout: str, leader_loadout: str,
         with_: tuple[str, ...], melee: bool, pistols: bool,
         profiles: tuple[str, ...], order: tuple[int, ...] | None,
         insane_bravery: bool, half_range_for: tuple[str, ...], cover_for: tuple[str, ...], precision: bool,
         precision_on: str | None, without: tuple[str, ...], rules_dir: str | None, exact: bool, fmt: str,
         as_json: bool, plot: str | None, **situation: Any) -> None:
    """A datasheet unit (by name) attacks a target with its whole loadout.

    Names are matched forgivingly (plurals, 'Squad', a faction in front: 'Ork Boyz'); a name that
    several factions use is taken from the faction of the other unit, or written 'NAME @ FACTION'.
    Each named rule (--with) is checked against the two units and the phase (--melee is the
    Fight phase); the answer's header says which situation each rule stands for. The abilities
    of both datasheets are read from their text: those whose condition the query settles are
    applied, and the header names each one, applied or not. With --need, the smallest unit size
    that reaches the chance."""
    def asked(models: int | None, chosen: tuple[str, ...] = profiles) -> tuple[UnitReport, str, Context, Datasheet,
                                                                              TargetUnit]:
        return run(attacker, loadout, models, target, target_models, leader, with_, melee, pistols, chosen, order,
                   insane_bravery, exact, half_range_for=half_range_for, cover_for=cover_for, precision=precision,
                   precision_on=precision_on, without=without, rules_dir=rules_dir, target_loadout=target_loadout,
                   led_by_loadout=led_by_loadout, leader_loadout=leader_loadout, led_by=led_by, **situation)

    def ask(models: int | None) -> tuple[UnitReport, str, Context]:
        return asked(models)[:3]

    if need is None:
        if at_least is not None:
            raise MathhammerError("--at-least goes with --need")
        report, title, context, sheet, _ = asked(size)
        if not profiles:  # the first profile of each weapon fired: say which others deal the target more
            report = with_better_profiles_said(report, sheet, lambda chosen: asked(size, tuple(chosen))[0], melee)
        emit(unit_report(report, title), fmt, as_json, plot, context)
        return
    if size is not None:
        raise MathhammerError("--need finds the unit's size: leave out --size")
    sheet = datasheet(attacker, rules_dir, near=(*led_by, target))
    emit(unit_need(lambda models: ask(models)[:2], led_sizes(sheet, led_by, rules_dir), wanted_chance(need), at_least,
                   in_edition(context_from(dict(situation)), sheet)[0]), fmt, as_json, plot)


def run(attacker: str, loadout: str, size: int | None, target: str, target_models: int | None, leader: Leaders,
        with_: tuple[str, ...], melee: bool, pistols: bool, profiles: tuple[str, ...], order: tuple[int, ...] | None,
        insane_bravery: bool, exact: bool, half_range_for: tuple[str, ...] = (), cover_for: tuple[str, ...] = (),
        precision: bool = True, precision_on: str | None = None, without: tuple[str, ...] = (),
        rules_dir: str | None = None, target_loadout: str = "", led_by: Leaders = None, led_by_loadout: str = "",
        leader_loadout: str = "",
        **situation: Any) -> tuple[UnitReport, str, Context, Datasheet, TargetUnit]:
    """The unit query the options describe, answered, its title, its situation, the attacker's datasheet and
    the target."""
    context = context_from(situation)
    sheet, found = matchup(attacker, target, target_models, leader, rules_dir, items(target_loadout), led_by,
                           items(leader_loadout))
    report = unit_attack(sheet, found, items(loadout), size, with_, context, melee, pistols, profiles, exact,
                         allocation_order(order, found.target), insane_bravery, half_range_for=half_range_for,
                         cover_for=cover_for, precision=precision, precision_on=precision_on, without=without,
                         rules_dir=rules_dir, led_by=led_by, led_by_loadout=items(led_by_loadout))
    return report, f"{label(sheet)}  ->  {found.label}", report.in_its_edition(context), sheet, found


def scenario(params: dict[str, Any], exact: bool, title: str | None = None) -> Scenario:
    """The unit query `params` describe as a compared scenario, with the points its datasheets give."""
    options = {key: value for key, value in params.items() if key not in ("exact", "fmt", "as_json", "plot")}
    report, asked, _, sheet, target = run(**options, exact=exact)
    return Scenario(title or asked, report.result,
                    attached_points(sheet, params["size"], report.leaders, items(params["loadout"])),
                    attached_points(target.sheet, target.size, target.leaders,
                                    items(params.get("target_loadout", ""))),
                    assumed(report), report.context)


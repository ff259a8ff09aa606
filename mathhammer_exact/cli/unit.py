"""`mathhammer unit`: a datasheet unit, by name, attacks a target with its whole loadout."""

from __future__ import annotations

from typing import Any

import attrs
import click

from ..data.load import find_target, target_notes
from ..data.query import UnitReport, allocation_order, unit_attack
from ..decide.compare import Scenario
from ..decide.points import named_points
from ..model import Context
from ..present.report import unit_report
from .options import ORDER, RULES_DIR, TARGET_MODELS, context_from, emit, situation_options


@click.command()
@click.argument("attacker")
@click.option("--loadout", "-l", default="", help="Wargear choices, comma separated, e.g. 'plasma gun, meltagun'.")
@click.option("--size", type=int, help="Models in the attacking unit (default: its smallest size).")
@click.option("--target", "-t", required=True,
              help="A datasheet ('Incursor Squad'), a standard target (MEQ, TEQ, ...) or a profile string.")
@TARGET_MODELS
@click.option("--leader", help="Attach a leader to the target: a CHARACTER unit by name, or a profile such as "
                                "'T4 Sv3+ inv4+ W4 Ld6+'.")
@click.option("--with", "with_", multiple=True, help="A named ability, stratagem or Order (repeatable).")
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
def unit(attacker: str, loadout: str, size: int | None, target: str, target_models: int | None, leader: str | None,
         with_: tuple[str, ...], melee: bool, pistols: bool, profiles: tuple[str, ...], order: tuple[int, ...] | None,
         insane_bravery: bool, half_range_for: tuple[str, ...], cover_for: tuple[str, ...], precision: bool,
         precision_on: str | None, rules_dir: str | None, exact: bool, fmt: str, as_json: bool, plot: str | None,
         **situation: Any) -> None:
    """A datasheet unit (by name) attacks a target with its whole loadout.

    Each named rule (--with) is checked against the two units and the phase (--melee is the
    Fight phase); the answer's header says which situation each rule stands for."""
    report, title, context = run(attacker, loadout, size, target, target_models, leader, with_, melee, pistols,
                                 profiles, order, insane_bravery, exact, half_range_for=half_range_for,
                                 cover_for=cover_for, precision=precision, precision_on=precision_on,
                                 rules_dir=rules_dir, **situation)
    emit(unit_report(report, title), fmt, as_json, plot, context)


def run(attacker: str, loadout: str, size: int | None, target: str, target_models: int | None, leader: str | None,
        with_: tuple[str, ...], melee: bool, pistols: bool, profiles: tuple[str, ...], order: tuple[int, ...] | None,
        insane_bravery: bool, exact: bool, half_range_for: tuple[str, ...] = (), cover_for: tuple[str, ...] = (),
        precision: bool = True, precision_on: str | None = None, rules_dir: str | None = None,
        **situation: Any) -> tuple[UnitReport, str, Context]:
    """The unit query the options describe, answered, its title, and its situation."""
    context = context_from(situation)
    target_unit = find_target(target, target_models, leader, rules_dir)
    items = [item for item in loadout.split(",") if item.strip()]
    report = unit_attack(attacker, target_unit, items, size, with_, context, melee, pistols, profiles, exact,
                         allocation_order(order, target_unit), insane_bravery, half_range_for=half_range_for,
                         cover_for=cover_for, precision=precision, precision_on=precision_on, rules_dir=rules_dir)
    report = attrs.evolve(report, situation=(*report.situation, *target_notes(target, leader, rules_dir)))
    return report, f"{report.name}  ->  {target.strip()}", context


def scenario(params: dict[str, Any], exact: bool, label: str | None = None) -> Scenario:
    """The unit query `params` describe as a compared scenario, with the points its datasheets give."""
    options = {key: value for key, value in params.items() if key not in ("exact", "fmt", "as_json", "plot")}
    report, title, _ = run(**options, exact=exact)
    return Scenario(label or title, report.result, named_points(params["attacker"], params["size"]),
                    named_points(params["target"], params["target_models"]))

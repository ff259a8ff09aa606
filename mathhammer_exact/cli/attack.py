"""`mathhammer attack`: weapon profiles written out, against a target written out."""

from __future__ import annotations

from typing import Any

import click

from ..engine.resolve import attack as resolve
from ..model import Target, Weapon
from ..present.report import attack_report
from .options import context_from, emit, situation_options


@click.command()
@click.option("--weapon", "-w", required=True, help="Weapon profile, e.g. 'A2 BS3+ S4 AP-1 D1 [LETHAL HITS]'.")
@click.option("--target", "-t", required=True, help="Target unit, e.g. 'T4 Sv3+ inv5+ W2 x5 fnp6+ [INFANTRY]'.")
@click.option("--models", "-m", default=1, show_default=True, type=int, help="Models attacking with the weapon.")
@situation_options
def attack(weapon: str, target: str, models: int, exact: bool, fmt: str, as_json: bool, plot: str | None,
           **situation: Any) -> None:
    """One weapon profile fired (or fought with) by MODELS models at one target unit.

    The target may mix models (groups separated by ';', an attached leader marked 'leader'):
    the answer then gives each group's losses. Wound and unsaved-wound counts are shown where
    they are defined (alike target models, no Command Re-roll)."""
    context = context_from(situation)
    profile, unit_target = Weapon.parse(weapon), Target.parse(target)
    title = f"{models} x [{weapon.strip()}]  ->  {target.strip()}"
    emit(attack_report(resolve(profile, unit_target, models, context, exact), title), fmt, as_json, plot, context)



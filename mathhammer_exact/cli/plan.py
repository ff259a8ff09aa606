"""`mathhammer plan`: the firing order (and split between two targets) that does best, and every alternative."""

from __future__ import annotations

from typing import Any

import click

from ..decide.firings import weapons_or_units
from ..decide.plan import GOALS
from ..present.questions import plan_question
from ..units.by_name import target_unit
from .command import Command
from .options import LED_BY, context_from, emit, situation_options


@click.command(cls=Command)
@click.option("--weapon", "-w", "weapons", required=True, multiple=True,
              help="A weapon profile of the attacking unit, with its models ('9x 24\" A2 BS3+ ...'), or a unit by name "
                   "(every ranged weapon it fires); repeat for each.")
@click.option("--target", "-t", "targets", required=True, multiple=True,
              help="The target (a datasheet, a standard target or a profile); give it twice to split between two.")
@click.option("--models", "-m", default=1, show_default=True, type=int,
              help="Models using each weapon written without a count.")
@click.option("--goal", default="destroy", show_default=True, type=click.Choice(GOALS, case_sensitive=False),
              help="destroy: P(the target destroyed; with two, both); kills: expected models destroyed.")
@click.option("--top", default=10, show_default=True, type=click.IntRange(1), help="Best alternatives shown.")
@LED_BY
@click.option("--with", "with_", multiple=True,
              help="A named ability, stratagem or Order of the units named, as `unit --with` takes it (repeatable).")
@situation_options
def plan(weapons: tuple[str, ...], targets: tuple[str, ...], models: int, goal: str, top: int, led_by: tuple[str, ...],
         with_: tuple[str, ...], exact: bool, fmt: str, as_json: bool, plot: str | None, **situation: Any) -> None:
    """Every firing order of the weapons (and every split of them between two targets), exactly,
    best first: how much the choice matters."""
    context = context_from(situation)
    written = weapons_or_units(weapons, models, context, led_by=led_by, near=(*led_by, *targets))
    units = [target_unit(t, near=weapons) for t in targets]
    emit(plan_question(written, units, goal, top, context, exact, with_), fmt, as_json, plot)

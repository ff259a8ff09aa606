"""`mathhammer attack`: weapon profiles written out, against a target written out."""

from __future__ import annotations

from typing import Any

import attrs
import click

from ..data.datasheet import TargetUnit, in_edition
from ..decide.compare import Scenario
from ..decide.firings import Written, describe, loadout
from ..decide.need import wanted_chance
from ..decide.points import Efficiency
from ..engine.resolve import attack as resolve
from ..errors import MathhammerError
from ..model import Context
from ..present.decisions import with_efficiency
from ..present.profiles import header
from ..present.report import attack_report
from .command import Command
from .options import context_from, emit, named_target, situation_options


@click.command(cls=Command)
@click.option("--weapon", "-w", "weapons", required=True, multiple=True,
              help="Weapon profile, e.g. 'A2 BS3+ S4 AP-1 D1 [LETHAL HITS]'. Repeat for several weapons, fired in "
                   "order: a leading '9x ' gives a weapon's models, a trailing '@half-range,cover' its own situation.")
@click.option("--target", "-t", required=True,
              help="Target unit, e.g. 'T4 Sv3+ inv5+ W2 x5 fnp6+ [INFANTRY]', or a standard target (MEQ) by name.")
@click.option("--models", "-m", default=1, show_default=True, type=int,
              help="Models attacking with each weapon written without a count.")
@click.option("--need", help="Find the fewest models that reach this chance, e.g. 0.9 or 90%: of the one weapon, "
                             "or of the weapon written '?x'.")
@click.option("--at-least", type=int, help="With --need: models destroyed that count (default: the whole unit).")
@click.option("--points", type=int, help="The attacker's points: report kills and points destroyed per 100 points.")
@click.option("--target-points", type=int, help="The target's points (each model an equal share).")
@situation_options
def attack(**params: Any) -> None:
    """Weapon profiles fired (or fought with) by MODELS models each, in order, at one target unit.

    The target may mix models (groups separated by ';', an attached leader marked 'leader'):
    the answer then gives each group's losses. Wound and unsaved-wound counts are shown where
    they are defined (no Command Re-roll; unsaved wounds where every target model saves alike)."""
    if params["need"] is None:
        if params["at_least"] is not None:
            raise MathhammerError("--at-least goes with --need")
        found = scenario(params)
        report = attrs.evolve(attack_report(found.result, found.label), preface=found.asked)
        if found.points is not None:
            report = with_efficiency(report, Efficiency.of(found.result, found.points, found.target_points))
        emit(report, params["fmt"], params["as_json"], params["plot"], found.context)
        return
    if params["points"] is not None or params["target_points"] is not None:
        raise MathhammerError("--points goes with a single answer, not with --need")
    from ..present.questions import attack_need  # the decision layer loads the rules data: not for a single answer

    written, unit, context, _ = _read(dict(params))
    emit(attack_need(written, _sought(written), unit, wanted_chance(params["need"]), params["at_least"], context,
                     params["exact"]), params["fmt"], params["as_json"], params["plot"])


def scenario(params: dict[str, Any], exact: bool | None = None, label: str | None = None) -> Scenario:
    """The answer to the attack the options `params` describe (`compare` runs one per scenario)."""
    if params["need"] is not None or params["at_least"] is not None:
        raise MathhammerError("--need and --at-least find a number of models: not in a compared scenario")
    if params["target_points"] is not None and params["points"] is None:
        raise MathhammerError("--target-points needs the attacker's --points")
    written, found, context, title = _read(dict(params), sought=False)
    firings, target, lines = [w.firing for w in written], found.target, list[str]()
    if found.sheet is not None:  # a unit by name: its abilities read from text change the attacks against it
        from ..decide.unit_attack import defended

        firings, target, lines = defended(found, firings, context)
    result = resolve(list(firings), target, context=context, exact=params["exact"] if exact is None else exact)
    asked = (*header(firings, target, context), *(f"  {line}" for line in (*lines, *found.notes)))
    return Scenario(label or title, result, params["points"], params["target_points"], asked, context)


def _read(params: dict[str, Any], sought: bool = True) -> tuple[list[Written], TargetUnit, Context, str]:
    """The weapons, target, situation and title the options describe (the situation's are taken out)."""
    found = named_target(params["target"])
    context, notes = in_edition(context_from(params), found.sheet)
    written = loadout(params["weapons"], params["models"], context, sought)
    found = attrs.evolve(found, notes=(*found.notes, *notes))
    return written, found, context, f"{describe(written)}  ->  {found.label}"


def _sought(written: list[Written]) -> int:
    """The weapon whose models --need looks for: the one written '?x', or the only one."""
    marked = [i for i, w in enumerate(written) if w.sought]
    if len(marked) > 1:
        raise MathhammerError("--need looks for one weapon's models: write only one weapon '?x'")
    if marked:
        return marked[0]
    if len(written) > 1:
        raise MathhammerError("with several weapons, write the one whose models --need looks for as '?x ...'")
    if written[0].counted:
        raise MathhammerError("--need looks for the number of models: leave out the weapon's 'Nx' (or write '?x')")
    return 0

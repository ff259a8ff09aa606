"""The decision questions, from their inputs as read to their reports: `attack --need`, `unit --need`, `plan`,
`turn` and `survive` on the command line and the server's API both call these, so that an answer has one
shape (and one header) whichever way it is asked, as `rolls` does for the dice tests.

Each report's header says what was asked, as understood (the weapons, the target, what a unit named
stands for) and ends with the situation assumed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from ..data.datasheet import TargetUnit, in_edition
from ..data.load import find
from ..decide.firings import Written, attacking, describe, unit_lines
from ..decide.need import need, need_size
from ..decide.plan import plan
from ..decide.survive import panel, survive
from ..decide.turn import Overwatch, charging, in_the_fight, whole_turn
from ..decide.unit_attack import UnitReport, allocation_order, defended, order_line
from ..editions import answered_in, asked_edition
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Firing, ModelProfile
from ..pmf import Number
from .decisions import comparison_report, need_report, plan_report, plan_title, turn_report
from .profiles import header
from .report import Report, assuming, unit_report


def attack_need(written: Sequence[Written], sought: int, found: TargetUnit, wanted: Number, at_least: int | None,
                context: Context, exact: bool) -> Report:
    """The fewest models of weapon `written[sought]` that reach P(at least `at_least` destroyed) >= `wanted`; the
    target's abilities read from its datasheet change the weapons, as in `attack` (`defended`)."""
    context, notes = in_edition(context, found.sheet)
    firings, target, lines = defended(found, [w.firing for w in written], context)
    result = need(firings, sought, target, wanted, at_least, context, exact)
    answer = attrs.evolve(written[sought], firing=attrs.evolve(written[sought].firing, models=result.models),
                          sought=False)
    title = f"{describe([*written[:sought], answer, *written[sought + 1:]])}  ->  {found.label}"
    report = need_report(result, title)
    said = tuple(f"  {line}" for line in (*lines, *found.notes, *notes))
    return assuming(attrs.evolve(report, preface=(*report.preface, *said)), context)


def unit_need(ask: Callable[[int], tuple[UnitReport, str]], sizes: Sequence[int], wanted: Number,
              at_least: int | None, context: Context) -> Report:
    """The smallest of a unit's `sizes` that reaches the chance; `ask(size)` answers the unit question (its
    report and title) at that size."""
    answered: dict[int, tuple[UnitReport, str]] = {}

    def answer(models: int) -> AttackResult:
        answered[models] = ask(models)
        return answered[models][0].result

    found = need_size(answer, sizes, wanted, at_least)
    report, title = answered[found.models]
    shown, needed = unit_report(report, title), need_report(found, title)
    return assuming(attrs.evolve(shown, preface=(*needed.preface, *shown.preface),
                                 details={**shown.details, "need": needed.details["need"]}), context)


def plan_question(written: Sequence[Written], units: Sequence[TargetUnit], goal: str, top: int, context: Context,
                  exact: bool) -> Report:
    """Every firing order of the weapons (and split between two targets), best first; each target's abilities read
    from its datasheet change the weapons that meet it, as in `attack` (`defended`), and the header says so."""
    context, notes = in_edition(context, *(u.sheet for u in units))
    firings = [w.firing for w in written]
    met = [attacking(written, u, context, one_each=True) for u in units]  # a unit named: as `unit` makes it attack
    found = plan(firings, [target for _, target, _ in met], goal.lower(), context, exact,
                 at=[[f for part in own for f in part if isinstance(f, Firing)] for own, _, _ in met])  # one each
    names = [f"{w.firing.models} x [{w.text}]" for w in written]
    report = plan_report(found, names, plan_title(found, "  |  ".join(u.label for u in units)), top)
    whose = (lambda t: f"target {t + 1}: ") if len(units) > 1 else (lambda t: "")
    lines = [f"  {whose(t)}{line}" for t, (u, (_, _, said)) in enumerate(zip(units, met)) for line in (*said, *u.notes)]
    return attrs.evolve(report, preface=(*report.preface, *lines, *unit_lines(written, applied=True),
                                         *(f"  {note}" for note in notes)))


def turn_question(named: TargetUnit, shots: Sequence[Written], blows: Sequence[Written], distance: int,
                  charge_reroll: bool, charge_mod: int, watch: Overwatch | None, charger: ModelProfile | None,
                  context: Context, exact: bool, order: Sequence[int] | None) -> Report:
    """The shooting, the charge and the fight against one target; `order` is the defender's allocation
    order of its groups, numbered from 1."""
    context, notes = in_edition(context, named.sheet)
    named = attrs.evolve(named, notes=(*named.notes, *notes))
    # the units named attack as `unit` makes them, the weapons alone meet the target's abilities, each phase in
    # its own situation (the fight's: having charged)
    shot, shot_at, lines = attacking(shots, named, context)
    charged = [attrs.evolve(w, firing=f) for w, f in zip(blows, charging([w.firing for w in blows], context))]
    fought, unit, fight_lines = attacking(charged, named, in_the_fight(context), melee=True)
    shooting, fighting = [f for part in shot for f in part], [f for part in fought for f in part]
    if shots and shot_at != unit:
        raise MathhammerError(f"the abilities of {named.label} change its models in one phase only: ask about the "
                              "shooting and the fight apart")
    lines += [line for line in fight_lines if line not in lines]
    firings = [*shooting, *fighting]
    groups = allocation_order(order, unit)
    found = whole_turn(unit, shooting, fighting, distance, charge_reroll, charge_mod, watch, charger, context, exact,
                       groups)
    title = (f"{describe(shots) + ', then ' if shots else ''}charge {distance}\", then {describe(blows)}"
             f"  ->  {named.label}")
    asked = header([f for f in firings if isinstance(f, Firing)], unit, context)
    asked += tuple(f"  {line}" for line in (*lines, *order_line(unit, groups), *named.notes)) + unit_lines(
        [*shots, *blows], applied=True)
    return assuming(attrs.evolve(turn_report(found, title), preface=asked), context)


def survive_question(found: TargetUnit, attackers: Sequence[str], at_least: int | None, exact: bool,
                     rules_dir: str | Path | None = None) -> Report:
    """The unit against each standard attacker named (default: all of them), in the edition of the question
    (`editions.answered_in`), else the unit's, as the header says."""
    context, notes = in_edition(Context(edition=answered_in(asked_edition())), found.sheet)
    known = panel(rules_dir, context)
    written = {a.description: key for key, a in known.items()}  # as the rows name them: 'Ten bolt rifles'
    chosen = [find(name, known, "standard attacker", written) for name in attackers] or list(known.values())
    found_rows = survive(found, chosen, at_least, exact, context=context)
    report = comparison_report(found_rows.rows, f"{found.label} against the standard attackers", differences=False)
    lines = (*found_rows.header, *found.notes, *notes)
    return assuming(attrs.evolve(report, preface=tuple(f"  {line}" for line in lines)), context)

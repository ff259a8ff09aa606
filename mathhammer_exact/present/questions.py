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

from ..data.datasheet import ChargeRoll, TargetUnit, in_edition
from ..data.load import find
from ..data.names import loose
from ..decide.firings import Attacking, Said, Written, attacking, describe, said
from ..decide.need import need, need_size
from ..decide.plan import plan
from ..decide.survive import panel, survive
from ..decide.turn import Overwatch, charging, in_the_fight, whole_turn
from ..decide.unit_attack import UnitReport, allocation_order, defended, order_line
from ..editions import TENTH, answered_in, asked_edition
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Firing, ModelProfile
from ..pmf import Number
from ..stages.hit import stealth_said
from .decisions import comparison_report, need_report, plan_report, plan_title, turn_report
from .profiles import header, model_summary, readings, target_summary, weapon_summary
from .report import Report, assuming, unit_report


def attack_need(written: Sequence[Written], sought: int, found: TargetUnit, wanted: Number, at_least: int | None,
                context: Context, exact: bool) -> Report:
    """The fewest models of weapon `written[sought]` that reach P(at least `at_least` destroyed) >= `wanted`; the
    target's abilities read from its datasheet change the weapons, as in `attack` (`defended`)."""
    context, notes = in_edition(context, found.sheet)
    firings, target, lines = defended(found, [w.firing for w in written], context)
    result = need(firings, sought, target, wanted, at_least, context, exact)
    assert result.models is not None  # a weapon's models are searched up to `need.LIMIT`, refused beyond
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
    report, title = answered[found.models if found.models is not None else found.tried or 0]
    shown, needed = unit_report(report, title), need_report(found, title)
    return assuming(attrs.evolve(shown, preface=(*needed.preface, *shown.preface),
                                 details={**shown.details, "need": needed.details["need"]}), context)


def plan_question(written: Sequence[Written], units: Sequence[TargetUnit], goal: str, top: int, context: Context,
                  exact: bool, modifiers: Sequence[str] = ()) -> Report:
    """Every firing order of the weapons (and split between two targets), best first: each weapon as it meets each
    target (`attacking`: a unit named attacks as `unit` makes it, weapon by weapon, under the rules `modifiers` names;
    the target's abilities read from its datasheet change the weapons), and the header says so."""
    context, notes = in_edition(context, *(u.sheet for u in units))
    firings = [w.firing for w in written]
    met = [attacking(written, u, context, one_each=True, modifiers=modifiers) for u in units]
    found = plan(firings, [target for _, target, _ in met], goal.lower(), context, exact,
                 at=[[f for part in own for f in part if isinstance(f, Firing)] for own, _, _ in met])  # one each
    names = [f"{w.firing.models} x [{w.text}]" for w in written]
    report = plan_report(found, names, plan_title(found, "  |  ".join(u.label for u in units)), top)
    whose = (lambda t: f"against target {t + 1}: ") if len(units) > 1 else (lambda t: "")  # its attackers' too
    lines = [f"  {whose(t)}{line}" for t, (u, (_, _, its)) in enumerate(zip(units, met))
             for line in (*said(its), *u.notes)]
    targets = [line for t, (_, target, _) in enumerate(met)  # and the situation, as every answer says them
               for line in (f"  target{f' {t + 1}' if len(met) > 1 else ''}: {target_summary(target)}",
                            *(f"  {whose(t)}{said.strip()}" for said in readings(firings, target, context)))]
    return assuming(attrs.evolve(report, preface=(*report.preface, *targets, *lines,
                                                  *(f"  {note}" for note in notes))), context)


def turn_question(named: TargetUnit, shots: Sequence[Written], blows: Sequence[Written], distance: int,
                  charge_reroll: bool, charge_mod: int, watch: Overwatch | None, charger: ModelProfile | None,
                  context: Context, exact: bool, order: Sequence[int] | None, modifiers: Sequence[str] = ()) -> Report:
    """The shooting, the charge and the fight against one target; `order` is the defender's allocation
    order of its groups, numbered from 1; `modifiers` names rules (`unit --with`), each applied in every phase of the
    turn where it can be used (`_in_phases`)."""
    context, notes = in_edition(context, named.sheet)
    named = attrs.evolve(named, notes=(*named.notes, *notes))
    # the units named attack as `unit` makes them, the weapons alone meet the target's abilities, each phase in
    # its own situation (the fight's: having charged)
    charged = [attrs.evolve(w, firing=f) for w, f in zip(blows, charging([w.firing for w in blows], context))]
    in_shooting, in_fight, rule_lines = _in_phases(modifiers, shots, charged, named, context)
    shot, shot_at, shot_lines = attacking(shots, named, context, modifiers=in_shooting)
    fought, unit, fight_lines = attacking(charged, named, in_the_fight(context), melee=True, modifiers=in_fight)
    if shots and shot_at != unit:
        one = [f"--with {rule!r} applies in the {'shooting' if rule in in_shooting else 'fight'} only"
               for rule in modifiers if (rule in in_shooting) != (rule in in_fight)]  # (a review: unsaid)
        which = f" ({'; '.join(one)})" if one else ""
        raise MathhammerError(f"the abilities of {named.label} or of the units attacking it change its models in one "
                              f"phase only{which}: a turn resolves one target for both phases; ask about the shooting "
                              "and the fight apart")
    shooting, fighting = _weapons(shot), _weapons(fought)
    lines = said(_phased(shot_lines, fight_lines))
    firings = [*shooting, *fighting]
    groups = allocation_order(order, unit)
    rolls, unsettled = _charge_abilities(blows)
    reroll = charge_reroll or any(r.reroll for r in rolls)
    found = whole_turn(unit, shooting, fighting, distance, reroll, charge_mod + sum(r.add for r in rolls), watch,
                       charger, context, exact, groups)
    title = (f"{describe(shots) + ', then ' if shots else ''}charge {distance}\", then {describe(blows)}"
             f"  ->  {named.label}")
    asked = header(firings, unit, context) + _charge_lines(distance, charge_reroll, charge_mod, rolls, watch, charger)
    asked += tuple(f"  not applied: {r.ability} (read from its text): {r.describe()}"
                   + (" in place of the above" if r.instead else "")
                   + f", only where its condition holds ({r.condition!r}); " + (
                       "--charge-reroll assumes it" if r.reroll else
                       f"--charge-mod {charge_mod + r.add - (_given(rolls, r.ability) if r.instead else 0)} assumes it")
                   for r in unsettled)
    asked += tuple(f"  {line}" for line in (*rule_lines, *lines, *order_line(unit, groups), *named.notes))
    return assuming(attrs.evolve(turn_report(found, title), preface=asked), context)


def _in_phases(modifiers: Sequence[str], shots: Sequence[Written], blows: Sequence[Written], named: TargetUnit,
               context: Context) -> tuple[list[str], list[str], list[str]]:
    """The rules `modifiers` names that the shooting and the fight of a turn apply: each in every phase where its
    units can use it as `mathhammer unit --with` uses it there (all together where they can, else each alone and then
    beside those: one may settle another's condition, a Dark Pact's choice Despoilers'; a stratagem of either phase,
    used in both, is used twice), refused where it can be used in neither, with each phase's reason; and the header's
    line of each."""
    taken: dict[str, list[str]] = {}
    why: dict[str, dict[str, str]] = {rule: {} for rule in modifiers}
    for phase, written, situation, melee in (("shooting", shots, context, False),
                                             ("fight", blows, in_the_fight(context), True)):
        if not written or not modifiers or _refusal(written, named, situation, melee, modifiers) is None:
            taken[phase] = list(modifiers) if written else []
            for rule in modifiers if not written else ():
                why[rule][phase] = "nothing attacks in it"
            continue
        taken[phase] = []
        for rule in modifiers:  # each alone, then those refused alone beside the others taken (Despoilers)
            if (alone := _refusal(written, named, situation, melee, [rule])) is None:
                taken[phase].append(rule)
            else:
                why[rule][phase] = alone
        for rule in [rule for rule in modifiers if phase in why[rule]]:
            if _refusal(written, named, situation, melee, [*taken[phase], rule]) is None:
                taken[phase].append(rule)
                del why[rule][phase]
        taken[phase] = [rule for rule in modifiers if rule in taken[phase]]  # in the order given
    lines = []
    for rule in modifiers:
        used = [phase for phase in taken if rule in taken[phase]]
        if not used:
            shooting, fight = why[rule]["shooting"], why[rule]["fight"]
            raise MathhammerError(f"--with {rule!r} applies in no phase of this turn: " + (
                shooting if shooting == fight else f"shooting: {shooting}; fight: {fight}"))
        lines.append(f"--with {rule!r}: applied in the {' and the '.join(used)}" + ("" if len(used) > 1 else " only"))
    return taken["shooting"], taken["fight"], lines


def _refusal(written: Sequence[Written], named: TargetUnit, context: Context, melee: bool,
             rules: Sequence[str]) -> str | None:
    """Why the weapons `written` cannot attack `named` under `rules` in the phase of `context`, or None if they can."""
    try:
        attacking(written, named, context, melee, modifiers=rules)
    except MathhammerError as refused:
        return str(refused)
    return None


def _charge_abilities(blows: Sequence[Written]) -> tuple[list[ChargeRoll], list[ChargeRoll]]:
    """The abilities of the charging unit and its Leaders that change its Charge rolls (read from their text: a trial
    found Death Company's re-roll and Ruststalkers' +1 left out, and said nowhere): those in force, and those that
    wait on a condition the question does not settle. A Leader's for the unit it leads count where it leads one; a
    piece of wargear's where the unit carries it."""
    found: dict[tuple[str, ChargeRoll], ChargeRoll] = {}
    for w in blows:
        if w.unit is None:
            continue
        leads = bool(w.leaders) or w.leading  # a Leader attacking with the unit it leads, or a unit led
        for sheet in (w.unit, *w.leaders):
            equipped = sheet.equip(w.loadout if sheet is w.unit else ())
            gear = {item for _, pieces in equipped for item in pieces}
            kinds = {loose(entry.name) for entry, _ in equipped}
            for roll in sheet.charge_rolls:  # (a review found a Sacred Banner's re-roll given to a unit without it)
                if (not roll.leading or leads and (sheet is not w.unit or w.leading)) \
                        and (not roll.piece or roll.piece in gear) and (not roll.model or loose(roll.model) in kinds):
                    found.setdefault((sheet.name, roll), roll)
    rolls = list(found.values())
    if len({w.unit.name for w in blows if w.unit is not None and not w.leading}) > 1:  # one roll for several units
        rolls = [attrs.evolve(r, condition=r.condition or "the only unit charging") for r in rolls]
    return [r for r in rolls if not r.condition], [r for r in rolls if r.condition]


def _given(rolls: Sequence[ChargeRoll], ability: str) -> int:
    """What the abilities in force called `ability` add to the Charge roll."""
    return sum(r.add for r in rolls if r.ability == ability)


def _charge_lines(distance: int, reroll: bool, modifier: int, rolls: Sequence[ChargeRoll], watch: Overwatch | None,
                  charger: ModelProfile | None) -> tuple[str, ...]:
    """The charge as asked, with the abilities that change it (a trial found its re-roll, modifier and Fire Overwatch
    said nowhere but in the answer's numbers)."""
    added = modifier + sum(r.add for r in rolls)
    roll = f"2D6{added:+d}" if added else "2D6"
    why = [*(["asked"] if modifier else []),
           *(f"{r.ability} (read from its text): +{r.add}" for r in rolls if r.add)]
    again = [*(["a Command Re-roll"] if reroll else []),
             *(f"{r.ability} (read from its text)" for r in rolls if r.reroll)]
    lines = [f"  charge: {distance}\" on {roll}" + (f" ({', '.join(why)})" if why and why != ['asked'] else "")
             + (f", re-rolled if it fails ({', '.join(again)})" if again else "")]
    if watch is not None:
        fired = ", ".join(f"{f.models} x {weapon_summary(f.weapon)}" for f in watch.firings)
        by = " by each model of the target left after the shooting" if watch.by_survivors else ""
        lines.append(f"  Fire Overwatch at the charger{by}: {fired}"
                     + (f"; the charger's models: {model_summary(charger)}" if charger is not None else ""))
    return tuple(lines)


def _phased(shooting: Sequence[Said], fight: Sequence[Said]) -> list[Said]:
    """A turn's header lines: each once, a unit's said in one phase only tagged with it where units attack in both
    (what the shooting and the fight share first, then each phase's own)."""
    tagged = any(who for who, _ in shooting) and any(who for who, _ in fight)
    shared = [line for line in dict.fromkeys([*shooting, *fight]) if not tagged or not line[0]
              or line in shooting and line in fight]
    return shared + [(f"{who}, {phase}", text) for phase, own, other in (("shooting", shooting, fight),
                                                                         ("fight", fight, shooting))
                     for who, text in own if tagged and who and (who, text) not in other]


def _weapons(parts: Sequence[Sequence[Attacking]]) -> list[Firing]:
    """The weapons' attacks of a phase of a turn, refusing mortal wounds a rule of a unit inflicts (no ability of a
    unit's own gives them: a stratagem given with --with does, the Grenade)."""
    if any(not isinstance(f, Firing) for part in parts for f in part):
        raise MathhammerError("a unit here inflicts mortal wounds by a rule (a Grenade), which a turn does not "
                              "resolve: ask `mathhammer unit` about that phase")
    return [f for part in parts for f in part if isinstance(f, Firing)]


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
    stealth = stealth_said(found.target, context, melee=False)  # against the ranged attackers
    definition = context.rules.definition
    panel_edition = [] if definition is TENTH else [  # (a trial found it unsaid)
        f"attackers: the standard attackers (rules/attackers.toml) are weapons as the 10th edition prints them, here "
        f"under the {definition.ordinal} edition's rules"]
    lines = (f"target: {target_summary(found.target)}", *stealth, *found_rows.header, *found.notes, *notes,
             *panel_edition)  # as asked
    return assuming(attrs.evolve(report, preface=tuple(f"  {line}" for line in lines)), context)

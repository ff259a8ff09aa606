"""Each API question answered as the CLI's JSON text (`present.report.to_json`).

These run in a worker process (see `workers`): they take a validated request and return the
answer's text, or raise `MathhammerError` with the CLI's one-line message. `answered` runs one with
the army list the question carries, read from the request's bytes (never from a file) and kept for that
question alone.
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import attrs
from pydantic import BaseModel

from ..data import load
from ..data.datasheet import Datasheet, TargetUnit, in_edition
from ..decide.compare import Scenario, compare
from ..decide.firings import Written, describe, led_turn, unit_weapons, with_leader
from ..decide.need import wanted_chance
from ..decide.points import Efficiency, attached_points
from ..decide.turn import Overwatch
from ..decide.unit_attack import (
    UnitReport,
    allocation_order,
    defended,
    led_sizes,
    unit_attack,
    with_better_profiles_said,
)
from ..editions import asked
from ..engine.resolve import attack
from ..errors import MathhammerError
from ..model import Context, Firing, ModelProfile, MortalWounds, Weapon
from ..present.decisions import assumed, comparison_report, with_efficiency
from ..present.profiles import header
from ..present.questions import attack_need, plan_question, survive_question, turn_question, unit_need
from ..present.report import Report, assuming, attack_report, unit_report
from ..present.report import to_json as cli_json
from ..units import by_name, lookup
from .keys import in_keys
from .matchups import MatchupArmy, MatchupQuery
from .questions import AttackNeedQuery, PlanQuery, SurviveQuery, TurnQuery, UnitNeedQuery, UnitWeapons
from .schemas import (
    AttackQuery,
    Catalogue,
    CompareQuery,
    DatasheetInfo,
    FiringQuery,
    RollQuery,
    RuleInfo,
    Situation,
    TargetInfo,
    UnitQuery,
)
from .units import ArmyQuery, DatasheetQuery

if TYPE_CHECKING:
    from ..catalogue.roster import Roster
    from ..sweep.matchup import Army

SENT = "the army list"  #: how messages name an army list sent with a question


# --------------------------------------------------------------------- the army list a question carries

def to_json(report: Report, query: BaseModel) -> str:
    """The command's `--json` of `report`, the option names of its header (and of a unit's situation lines) written
    as the keys of the request `query` (a trial found an answer saying "--with 'Oath of Moment' assumes it" to a
    program that sends "with")."""
    def words(line: str) -> str:
        return in_keys(line, type(query))

    details = report.details
    if "situation" in details:
        details = {**details, "situation": [words(line) for line in details["situation"]]}
    return cli_json(attrs.evolve(report, preface=tuple(words(line) for line in report.preface), details=details))

def _roster(text: str) -> Roster:
    """The army list `text` (its file's bytes in base64), read from the request's bytes."""
    from ..catalogue.battlescribe import unpacked  # the army-list reader, only for a question with a list
    from ..catalogue.roster import roster_of

    return roster_of(unpacked(base64.b64decode(text), SENT), SENT)


@contextlib.contextmanager
def _army(text: str | None) -> Iterator[Roster | None]:
    """Within the block, '#3' and '#NAME' name the units of the army list `text`, if any (yielded)."""
    if text is None:
        yield None
        return
    from ..catalogue.roster import sent

    roster = _roster(text)
    with sent(roster):
        yield roster


def answered(job: tuple[Callable[[Any], str], Any]) -> str:
    """`function(query)` for a job (function, query), with the army list the query carries, if any, and the units
    it names looked up in the edition its situation asks for."""
    function, query = job
    situation = getattr(query, "situation", None)
    with _army(getattr(query, "army", None)), asked(getattr(situation, "edition", None)):
        return function(query)


# --------------------------------------------------------------------- weapons
def _written(weapon: FiringQuery, base: Situation | None = None, context: Context | None = None) -> Written:
    """One weapon as written, with its models; its own situation over `base` (the question's, if any), else
    `context`; `counted` when its models were given."""
    own = (weapon.situation.over(base) if base else weapon.situation).context() if weapon.situation else context
    edition = (own or base.context() if base else own or Context()).rules.edition  # its abilities: the edition's
    return Written(Firing(Weapon.parse(weapon.weapon, edition=edition), weapon.models, own), weapon.weapon.strip(),
                   counted="models" in weapon.model_fields_set)


def _weapons(query: AttackQuery) -> list[Written]:
    """The query's weapons as written, each with its models and its own situation over the query's."""
    return [attrs.evolve(_written(f, query.situation), counted=True) for f in query.weapons]


def _armament(items: Sequence[FiringQuery | UnitWeapons], base: Situation | None, melee: bool = False,
              led_by: by_name.Leaders = None, near: by_name.Nears = None) -> list[Written]:
    """Weapons as written, or units by name (the weapons of their default loadouts), as `plan` and `turn` take
    them (`decide.firings.weapons_or_units`); `led_by` the Leaders joining the first unit named they can lead; a
    name several factions use settled by `near`, the question's other units."""
    context = base.context() if base else None
    found: list[Written] = []
    for item in items:
        if isinstance(item, UnitWeapons):
            found += unit_weapons(by_name.datasheet(item.unit, near=near), context, melee)
        else:
            found.append(_written(item, base, context))
    return found if not led_by else with_leader(found, led_by, context, melee)


def _units(items: Sequence[FiringQuery | UnitWeapons]) -> tuple[str, ...]:
    """The units named among `items` (to settle the question's other names by)."""
    return tuple(item.unit for item in items if isinstance(item, UnitWeapons))


# --------------------------------------------------------------------- attacks


def _attack(query: AttackQuery, exact: bool, label: str | None = None) -> Scenario:
    """The attack answered, as `mathhammer attack` answers it: its title (or `label`), the header lines of
    what was asked, as understood, and the points given."""
    if query.target_points is not None and query.points is None:
        raise MathhammerError("target_points needs the attacker's points")
    written = _weapons(query)
    found = by_name.target_unit(query.target, query.target_models, query.leader)
    context, notes = in_edition(query.situation.context(), found.sheet)
    found = attrs.evolve(found, notes=(*found.notes, *notes))
    shots, target, lines = defended(found, [w.firing for w in written], context)  # the target's own abilities
    firings: list[Firing | MortalWounds] = list(shots)
    result = attack(firings, target, context=context, exact=exact, order=allocation_order(query.order, target))
    asked = (*header(shots, target, context), *(f"  {line}" for line in (*lines, *found.notes)))
    return Scenario(label or f"{describe(written)}  ->  {found.label}", result, query.points, query.target_points,
                    asked, context)


def _unit(query: UnitQuery, exact: bool, size: int | None = None,
          better: bool = False) -> tuple[UnitReport, str, Datasheet, TargetUnit]:
    """The unit query answered (at `size` models, if given), its title, the attacker's datasheet and the
    target; with `better`, where it gives no profiles, a line naming those that deal the target more."""
    sheet, found = by_name.matchup(query.attacker, query.target, query.target_models, query.leader,
                                   loadout=query.target_loadout, led_by=query.led_by,
                                   leader_loadout=query.leader_loadout)

    def answer(profiles: Sequence[str]) -> UnitReport:
        return unit_attack(sheet, found, query.loadout, size or query.size, query.named_rules,
                           query.situation.context(), query.melee, query.pistols, profiles, exact,
                           allocation_order(query.order, found.target), query.insane_bravery,
                           half_range_for=query.half_range_for, cover_for=query.cover_for,
                           precision=query.precision, precision_on=query.precision_on,
                           led_by=query.led_by, led_by_loadout=query.led_by_loadout, without=query.without)

    report = answer(query.profiles)
    if better and not query.profiles:
        report = with_better_profiles_said(report, sheet, answer, query.melee)
    return report, f"{load.label(sheet)}  ->  {found.label}", sheet, found


def attack_answer(query: AttackQuery) -> str:
    """Weapon profiles fired in turn at the target: `mathhammer attack --json`, with `--points` if given."""
    found = _attack(query, query.exact)
    report = attrs.evolve(attack_report(found.result, found.label), preface=found.asked)
    if found.points is not None:
        report = with_efficiency(report, Efficiency.of(found.result, found.points, found.target_points))
    return to_json(assuming(report, found.context or query.situation.context()), query)


def unit_answer(query: UnitQuery) -> str:
    """A datasheet unit's whole loadout: `mathhammer unit --json`."""
    report, title, _, _ = _unit(query, query.exact, better=True)
    return to_json(assuming(unit_report(report, title), report.in_its_edition(query.situation.context())), query)


def compare_answer(query: CompareQuery) -> str:
    """Scenarios side by side: `mathhammer compare --json`. An attack scenario's points are its own;
    a unit scenario's come from the datasheets, as on the command line."""
    scenarios = []
    for s in query.scenarios:
        question = s.attack or s.unit
        assert question is not None  # the request's model asks for one
        with asked(getattr(question.situation, "edition", None)):  # its names looked up in its own edition
            if s.attack is not None:
                scenarios.append(_attack(s.attack, query.exact, s.label))
            elif s.unit is not None:
                report, title, sheet, target = _unit(s.unit, query.exact)
                scenarios.append(Scenario(s.label or title, report.result,
                                          attached_points(sheet, s.unit.size, report.leaders, s.unit.loadout),
                                          attached_points(target.sheet, target.size, target.leaders,
                                                          s.unit.target_loadout), assumed(report), report.context))
    return to_json(comparison_report(compare(scenarios, query.at_least), "Scenarios compared"), query)


def attack_need_answer(query: AttackNeedQuery) -> str:
    """The fewest models of one weapon that reach the chance: `mathhammer attack --need --json`."""
    if query.points is not None or query.target_points is not None or query.order is not None:
        raise MathhammerError('"points", "target_points" and "order" go with a single attack, not with "need"')
    written = _weapons(query)
    if query.weapon is not None and not 1 <= query.weapon <= len(written):
        raise MathhammerError(f'"weapon" numbers the weapons from 1 to {len(written)}, got {query.weapon}')
    if query.weapon is None and len(written) > 1:
        raise MathhammerError('with several weapons, "weapon" says whose models "need" looks for (numbered from 1)')
    sought = (query.weapon or 1) - 1
    if "models" in query.weapons[sought].model_fields_set:
        raise MathhammerError(f'"need" looks for the models of weapon {sought + 1}: leave out its "models"')
    found = by_name.target_unit(query.target, query.target_models, query.leader)
    return to_json(attack_need(written, sought, found, wanted_chance(str(query.need)), query.at_least,
                               query.situation.context(), query.exact), query)


def unit_need_answer(query: UnitNeedQuery) -> str:
    """The smallest unit size that reaches the chance: `mathhammer unit --need --json`."""
    if query.size is not None:
        raise MathhammerError("--need finds the unit's size: leave out --size")
    sheet = by_name.datasheet(query.attacker, near=(*by_name.written_leaders(query.led_by), query.target))
    return to_json(unit_need(lambda size: _unit(query, query.exact, size)[:2], led_sizes(sheet, query.led_by),
                             wanted_chance(str(query.need)), query.at_least,
                             in_edition(query.situation.context(), sheet)[0]), query)


def plan_answer(query: PlanQuery) -> str:
    """The best firing order (and split): `mathhammer plan --json`."""
    written = _armament(query.weapons, query.situation, led_by=query.led_by,
                        near=(*by_name.written_leaders(query.led_by), *query.targets))
    units = [by_name.target_unit(target, near=_units(query.weapons)) for target in query.targets]
    return to_json(plan_question(written, units, query.goal, query.top, query.situation.context(), query.exact,
                                 query.named_rules), query)


def turn_answer(query: TurnQuery) -> str:
    """Shooting, charge and fight: `mathhammer turn --json`."""
    near = (*by_name.written_leaders(query.led_by), query.target)
    shots = _armament(query.shoot, query.situation, near=near) if query.shoot else []
    shots, blows = led_turn(shots, _armament(query.fight, None, melee=True, near=near), query.led_by,
                            query.loadout, query.situation.context())
    watch = None
    if query.overwatch:
        weapons = [_written(w) for w in query.overwatch]
        by_survivors = not any(w.counted for w in weapons)
        if not by_survivors and not all(w.counted for w in weapons):
            raise MathhammerError('give every "overwatch" weapon its "models", or one weapon without "models", fired '
                                  "by each of the target's surviving models")
        watch = Overwatch(tuple(w.firing for w in weapons), by_survivors)
    elif query.charger:
        raise MathhammerError('"charger" goes with "overwatch"')
    named = by_name.target_unit(query.target, query.target_models, query.leader,
                                near=(*by_name.written_leaders(query.leader), *_units(query.shoot),
                                      *_units(query.fight)), loadout=query.target_loadout,
                                leader_loadout=query.leader_loadout)
    charger = ModelProfile.parse(query.charger) if query.charger else None
    return to_json(turn_question(named, shots, blows, query.distance, query.charge_reroll, query.charge_modifier,
                                 watch, charger, query.situation.context(), query.exact, query.order,
                                 query.named_rules), query)


def _edition_alone(situation: Situation, question: str, why: str) -> None:
    """Refuse a situation that gives more than its edition, for a question that takes no other."""
    if others := sorted(situation.model_fields_set - {"edition"}):
        raise MathhammerError(f'"situation.{others[0]}": {question} takes its edition alone ({why})')


def survive_answer(query: SurviveQuery) -> str:
    """The unit against the standard attackers: `mathhammer survive --json`, in the edition its situation names
    (a trial found '"situation.edition" 11e' advised, and no way to give it)."""
    _edition_alone(query.situation, "survive", "each standard attacker attacks in its own situation")
    found = by_name.target_unit(query.unit, query.target_models, query.leader, loadout=query.loadout,
                                leader_loadout=query.leader_loadout)
    return to_json(survive_question(found, query.attackers, query.at_least, query.exact), query)


def _matchup_army(side: MatchupArmy, name: str, other: Army | Sequence[str]) -> Army:
    """One army of a matchup: its units by name (those of its army list by number), a name several factions use
    settled by the `other` army's units; or every unit of its list."""
    from ..sweep.matchup import army_of_roster, facing

    with _army(side.army) as roster:
        if side.units is None:
            assert roster is not None  # the request's model asks for one of them
            return army_of_roster(roster, side.name)
        return facing(side.units, side.name or (roster.name if roster else name), other)


def matchup_answer(query: MatchupQuery) -> str:
    """Army against army: `mathhammer matchup --format json`."""
    from ..present.matchups import matchup_json, preface
    from ..sweep.matchup import PHASES_OF, records

    context = query.situation.context()
    if query.army_a.units is not None and query.army_b.units is None:  # B's list first: A's names face its units
        army_b = _matchup_army(query.army_b, "army B", ())
        army_a = _matchup_army(query.army_a, "army A", army_b)
    else:  # as `sweep.matchup.read_armies`: A's names face B's, and B's names face A's units
        army_a = _matchup_army(query.army_a, "army A", query.army_b.units or ())
        army_b = _matchup_army(query.army_b, "army B", army_a)
    found = records(army_a, army_b, PHASES_OF[query.phase], context, query.both)
    return matchup_json(found, preface(context))


def roll_answer(query: RollQuery) -> str:
    """One of the dice tests outside the attack sequence: `mathhammer roll ... --json`, in the edition its situation
    names (`answered` looks it up)."""
    _edition_alone(query.situation, "a dice test", "its dice are all it rolls")
    return to_json(query.report(), query)


def catalogue() -> Catalogue:
    """The datasheets, standard targets and named rules in rules/, for the page's controls."""
    return Catalogue(
        datasheets=[DatasheetInfo(name=s.name, faction=s.faction, sizes=list(s.sizes), weapons=list(s.weapons))
                    for s in load.datasheets().values()],
        targets=[TargetInfo(name=t.name, description=t.description) for t in load.standard_targets().values()],
        rules=[RuleInfo(key=key, name=m.name, kind=m.kind, side=m.side, phase=m.phase, summary=m.summary)
               for key, m in load.modifiers().items()],
        attackers=[TargetInfo(name=a.name, description=a.description) for a in load.standard_attackers().values()],
    )


# --------------------------------------------------------------------- the player's units
def found_units(search: tuple[str, int, str | None]) -> str:
    """The units (of the rules data and the index of the edition `named`, by default the player's) whose names hold
    the words typed, at most `limit` of them."""
    from ..catalogue import library  # the index, only for a search

    text, limit, named = search
    with asked(named):
        edition = library.default_edition()

    def found_in(edition: str) -> list[tuple[str, str, dict[int, int]]]:
        sheets = [s for s in load.datasheets().values() if s.edition == edition]
        return lookup.search(text, sheets, load.library().names, edition)[1]

    found = found_in(edition)
    units = [{"name": name, "faction": faction, "points": {str(n): cost for n, cost in points.items()}}
             for name, faction, points in found[:limit]]
    elsewhere = [] if found else [other for other in library.editions() if other != edition and found_in(other)]
    return json.dumps({"units": units, "more": len(found) > limit, "elsewhere": elsewhere}, indent=2)


def datasheet_answer(query: DatasheetQuery) -> str:
    """One unit's sizes, models, wargear and weapons, for the page's controls."""
    from ..present.cards import datasheet_json

    _edition_alone(query.situation, "a datasheet", "it is looked up, not answered")
    return json.dumps(datasheet_json(by_name.datasheet(query.name, near=query.near)), indent=2)


def army_answer(query: ArmyQuery) -> str:
    """The units of the army list sent: `mathhammer roster --json`."""
    from ..present.cards import army_json

    return json.dumps(army_json(_roster(query.army)), indent=2)

"""Each API question answered as the CLI's JSON text (`present.report.to_json`).

These run in a worker process (see `workers`): they take a validated request and return the
answer's text, or raise `MathhammerError` with the CLI's one-line message.
"""

from __future__ import annotations

import attrs

from ..data import load
from ..data.datasheet import Datasheet
from ..data.query import UnitReport, allocation_order, unit_attack
from ..decide.compare import Scenario, compare
from ..decide.firings import Written, describe
from ..decide.points import Efficiency, named_points
from ..engine.resolve import attack
from ..errors import MathhammerError
from ..model import Firing, MortalWounds, Weapon
from ..present.decisions import comparison_report, with_efficiency
from ..present.profiles import header
from ..present.report import assuming, attack_report, to_json, unit_report
from .schemas import (
    AttackQuery,
    Catalogue,
    CompareQuery,
    DatasheetInfo,
    RollQuery,
    RuleInfo,
    TargetInfo,
    UnitQuery,
)


def _weapons(query: AttackQuery) -> list[Written]:
    """The query's weapons as written, each with its models and its own situation over the query's."""
    return [Written(Firing(Weapon.parse(f.weapon), f.models,
                           f.situation.over(query.situation).context() if f.situation else None),
                    " ".join(f.weapon.split()), counted=True) for f in query.weapons]


def _attack(query: AttackQuery, exact: bool, label: str | None = None) -> Scenario:
    """The attack answered, as `mathhammer attack` answers it: its title (or `label`), the header lines of
    what was asked, as understood, and the points given."""
    if query.target_points is not None and query.points is None:
        raise MathhammerError("target_points needs the attacker's points")
    written = _weapons(query)
    found = load.target_unit(query.target, query.target_models, query.leader)
    context = query.situation.context()
    firings: list[Firing | MortalWounds] = [w.firing for w in written]
    result = attack(firings, found.target, context=context, exact=exact,
                    order=allocation_order(query.order, found.target))
    asked = (*header([w.firing for w in written], found.target, context), *(f"  {note}" for note in found.notes))
    return Scenario(label or f"{describe(written)}  ->  {found.label}", result, query.points, query.target_points,
                    asked)


def _unit(query: UnitQuery, exact: bool) -> tuple[UnitReport, str, Datasheet, Datasheet | None]:
    """The unit query answered, its title, and the datasheets of the attacker and the target (if any)."""
    sheet, found = load.matchup(query.attacker, query.target, query.target_models, query.leader,
                                loadout=query.target_loadout)
    report = unit_attack(sheet, found.target, query.loadout, query.size, query.named_rules,
                         query.situation.context(), query.melee, query.pistols, query.profiles, exact,
                         allocation_order(query.order, found.target), query.insane_bravery,
                         half_range_for=query.half_range_for, cover_for=query.cover_for,
                         precision=query.precision, precision_on=query.precision_on, defender=found.sheet,
                         led_by=query.led_by, without=query.without)
    report = attrs.evolve(report, situation=(*report.situation, *found.notes))
    return report, f"{load.label(sheet)}  ->  {found.label}", sheet, found.sheet


def attack_answer(query: AttackQuery) -> str:
    """Weapon profiles fired in turn at the target: `mathhammer attack --json`, with `--points` if given."""
    found = _attack(query, query.exact)
    report = attrs.evolve(attack_report(found.result, found.label), preface=found.asked)
    if found.points is not None:
        report = with_efficiency(report, Efficiency.of(found.result, found.points, found.target_points))
    return to_json(assuming(report, query.situation.context()))


def unit_answer(query: UnitQuery) -> str:
    """A datasheet unit's whole loadout: `mathhammer unit --json`."""
    report, title, _, _ = _unit(query, query.exact)
    return to_json(assuming(unit_report(report, title), report.context))


def compare_answer(query: CompareQuery) -> str:
    """Scenarios side by side: `mathhammer compare --json`. An attack scenario's points are its own;
    a unit scenario's come from the datasheets, as on the command line."""
    scenarios = []
    for s in query.scenarios:
        if s.attack is not None:
            scenarios.append(_attack(s.attack, query.exact, s.label))
        elif s.unit is not None:
            report, title, sheet, target_sheet = _unit(s.unit, query.exact)
            scenarios.append(Scenario(s.label or title, report.result, named_points(sheet, s.unit.size),
                                      named_points(target_sheet, s.unit.target_models)))
    return to_json(comparison_report(compare(scenarios, query.at_least), "Scenarios compared"))


def roll_answer(query: RollQuery) -> str:
    """One of the dice tests outside the attack sequence: `mathhammer roll ... --json`."""
    return to_json(query.report())


def catalogue() -> Catalogue:
    """The datasheets, standard targets and named rules in rules/, for the page's controls."""
    return Catalogue(
        datasheets=[DatasheetInfo(name=s.name, faction=s.faction, sizes=list(s.sizes), weapons=list(s.weapons))
                    for s in load.datasheets().values()],
        targets=[TargetInfo(name=t.name, description=t.description) for t in load.standard_targets().values()],
        rules=[RuleInfo(key=key, name=m.name, kind=m.kind, side=m.side, phase=m.phase, summary=m.summary)
               for key, m in load.modifiers().items()],
    )

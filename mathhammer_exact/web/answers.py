"""Each API question answered as the CLI's JSON text (`present.report.to_json`).

These run in a worker process (see `workers`): they take a validated request and return the
answer's text, or raise `MathhammerError` with the CLI's one-line message.
"""

from __future__ import annotations

from ..data import load
from ..data.query import unit_attack
from ..engine.resolve import attack
from ..model import Firing, MortalWounds, Target, Weapon
from ..present.report import attack_report, to_json, unit_report
from .schemas import AttackQuery, Catalogue, DatasheetInfo, RollQuery, RuleInfo, TargetFields, TargetInfo, UnitQuery


def _target(query: TargetFields) -> Target:
    return load.find_target(query.target, query.target_models, query.leader)


def attack_answer(query: AttackQuery) -> str:
    """Weapon profiles fired in turn at the target: `mathhammer attack --json`, for several weapons."""
    context = query.situation.context()
    firings: list[Firing | MortalWounds] = [
        Firing(Weapon.parse(f.weapon), f.models, f.situation.context() if f.situation else None)
        for f in query.weapons]
    return to_json(attack_report(attack(firings, _target(query), context=context, exact=query.exact,
                                        order=query.order)))


def unit_answer(query: UnitQuery) -> str:
    """A datasheet unit's whole loadout: `mathhammer unit --json`."""
    report = unit_attack(query.attacker, _target(query), query.loadout, query.size, query.named_rules,
                         query.situation.context(), query.melee, query.pistols, query.profiles, query.exact,
                         query.order, query.insane_bravery)
    return to_json(unit_report(report))


def roll_answer(query: RollQuery) -> str:
    """One of the dice tests outside the attack sequence: `mathhammer roll ... --json`."""
    return to_json(query.report())


def catalogue() -> Catalogue:
    """The datasheets, standard targets and named rules in rules/, for the page's controls."""
    return Catalogue(
        datasheets=[DatasheetInfo(name=s.name, faction=s.faction, sizes=list(s.sizes), weapons=list(s.weapons))
                    for s in load.datasheets().values()],
        targets=[TargetInfo(name=t.name, description=t.description) for t in load.standard_targets().values()],
        rules=[RuleInfo(key=key, name=m.name, kind=m.kind, side=m.side, summary=m.summary)
               for key, m in load.modifiers().items()],
    )

"""Reports of the dice tests outside the attack sequence, one function per test.

`mathhammer roll ...` and the server's `/api/roll/...` both call these, so a test's answer has
one shape (see docs/json.md) whichever way it is asked. Each is answered in the edition the question asks
for (`editions.asked`), else the player's; under another edition than the 10th, whose rules for these tests
the data does not give, the header says the test is taken as the 10th edition has it.
"""

from __future__ import annotations

import attrs

from .. import rolls
from ..editions import TENTH, answered_edition
from ..model import Hazardous, ModelProfile, Rules
from ..pmf import Number, Pmf
from .profiles import target_summary
from .report import Report


def _as_in_the_tenth(report: Report, test: str) -> Report:
    """`report`, its header saying that `test` is taken as in the 10th edition where another edition is asked for."""
    asked = answered_edition()
    if asked is TENTH:
        return report
    line = f"  rules: {asked.ordinal} edition; {test} taken as in the 10th edition (docs/rules.md)"
    return attrs.evolve(report, preface=(*report.preface, line))


def _test_report(title: str, test: rolls.PassFail, roll_label: str) -> Report:
    roll_pmf = {"roll": test.roll} if test.roll is not None else {}
    return Report(title, roll_pmf, {"p_success": test.p_success}, {"roll": roll_label})


def _count_report(title: str, key: str, pmf: Pmf, chances: dict[str, Number] | None = None) -> Report:
    return Report(title, {key: pmf}, chances or {}, flat=True)


def charge_report(distance: int, reroll: bool = False, modifier: int = 0, exact: bool = False) -> Report:
    """Charge roll: 2D6 (plus modifier) at least the distance, the whole roll re-rolled if asked."""
    test = rolls.charge(distance, reroll, modifier, exact)
    title = f"charge {distance}\"" + (f" with {modifier:+d}" if modifier else "") + (", re-rolled" if reroll else "")
    return _as_in_the_tenth(_test_report(title, test, "charge roll"), "the charge roll")


def advance_report(exact: bool = False) -> Report:
    """Advance roll: D6 inches added to Move."""
    return _as_in_the_tenth(_count_report("advance roll", "advance", rolls.advance(exact)), "the Advance roll")


def battle_shock_report(ld: int, insane_bravery: bool = False, exact: bool = False) -> Report:
    """Battle-shock test: 2D6 at least Leadership passes."""
    report = _test_report(f"Battle-shock test at Ld{ld}+", rolls.battle_shock_test(ld, insane_bravery, exact), "2D6")
    return _as_in_the_tenth(report, "the Battle-shock test")


def desperate_escape_report(tests: int, exact: bool = False) -> Report:
    """Desperate Escape: models lost to `tests` tests, each failed on a 1-2."""
    pmf = rolls.desperate_escape(tests, exact)
    return _as_in_the_tenth(_count_report(f"{tests} Desperate Escape tests", "models_lost", pmf),
                            "the Desperate Escape test")


def hazardous_report(weapons: int, bearer: str = "T3 Sv4+ W1", rules: Rules | None = None,
                     exact: bool = False) -> Report:
    """Hazardous tests: models lost when `weapons` Hazardous weapons carried by `bearer` models are used."""
    rules = (rules or Rules()).in_edition(answered_edition().name)  # (a printing the edition lacks is refused)
    pmf = rolls.hazardous(weapons, ModelProfile.parse(bearer, name="bearer"), rules, exact)
    title = f"Hazardous tests for {weapons} weapons"
    if rules.hazardous is Hazardous.DESTROY:
        title += " (2023 rules: a failed test destroys a model)"
    return _as_in_the_tenth(_count_report(title, "models_lost", pmf), "the Hazardous test")


def grenade_report(target: str, exact: bool = False) -> Report:
    """Grenade stratagem against `target` (a profile or a name, as its label says it): the mortal wounds it loses
    and the models destroyed, and P(unit destroyed); what the header says of a unit named."""
    from ..units.by_name import target_unit  # the rules data load only for a target given by name

    unit = target_unit(target)
    result = rolls.grenade(unit.target, exact)
    report = Report(f"Grenade against {unit.label}", {"damage": result.damage,
                                                      "models_destroyed": result.models_destroyed},
                    {"p_destroyed": result.p_destroyed},
                    preface=(f"  target: {target_summary(unit.target)}", *(f"  {note}" for note in unit.notes)))
    return _as_in_the_tenth(report, "the Grenade stratagem")

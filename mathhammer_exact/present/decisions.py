"""Reports of the decision commands: compare, survive, attack --need, plan and turn.

Scenarios side by side are a `Report` with rows (`grid`): one row per scenario, the numbers that
decide; each scenario's models-destroyed distribution goes along for JSON and the overlaid plot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..pmf import Number
from .profiles import readings, target_summary
from .report import Report, attack_report, equals, number, percent, pmf_json
from .situation import situation

if TYPE_CHECKING:  # annotations only: the present layer does not need the decisions to load
    from ..decide.compare import Row
    from ..decide.need import Need
    from ..decide.plan import Plan
    from ..decide.points import Efficiency
    from ..decide.turn import Turn
    from ..decide.unit_attack import UnitReport


def _mean(value: Number, change: Number | None = None) -> str:
    return f"{float(value):.3f}" + ("" if change is None else f" ({float(change):+.3f})")


def _chance(value: Number, change: Number | None = None) -> str:
    return percent(value) + ("" if change is None else f" ({100 * float(change):+.2f})")


def efficiency_json(found: Efficiency | None) -> dict[str, Any]:
    """Points, and kills and points destroyed per 100 points (None where not known)."""
    if found is None:
        return dict.fromkeys(("points", "target_points", "kills_per_100_points", "points_destroyed_per_100_points"))
    destroyed = found.points_destroyed_per_100
    return {"points": found.points, "target_points": found.target_points,
            "kills_per_100_points": number(found.kills_per_100),
            "points_destroyed_per_100_points": None if destroyed is None else number(destroyed)}


def efficiency_lines(found: Efficiency) -> list[str]:
    """Efficiency for people, one line each."""
    lines = [f"kills per 100 points = {float(found.kills_per_100):.3f} (at {found.points} points)"]
    if found.points_destroyed_per_100 is not None:
        lines.append(f"points destroyed per 100 points = {float(found.points_destroyed_per_100):.3f} "
                     f"(target {found.target_points} points)")
    return lines


def with_efficiency(report: Report, found: Efficiency) -> Report:
    """An attack's report with its efficiency per 100 points."""
    return attrs.evolve(report, notes=(*report.notes, *efficiency_lines(found)),
                        details={**report.details, **efficiency_json(found)})


def comparison_report(rows: Sequence[Row], title: str = "", differences: bool = True) -> Report:
    """One row per scenario (with its differences to the first, if `differences`), ranked by
    efficiency where every scenario's points are known; under the title, what each answer assumed (its
    header's lines: the rules, what was not applied), a line every scenario said once (`_assumed`)."""
    ks = {r.k for r in rows}
    common = len(ks) == 1
    head = ["scenario", "mean damage", "mean kills", "P(destroyed)",
            f"P(>={next(iter(ks))} destroyed)" if common else "P(>=k destroyed)"]
    head += [] if common else ["k"]
    hazardous = any(r.hazardous is not None for r in rows)
    head += ["own models lost (Hazardous)"] if hazardous else []
    points = any(r.efficiency is not None for r in rows)
    if points:
        head += ["points", "kills/100pts", "pts destroyed/100pts", "rank"]
    grid = [tuple(head)]
    for i, r in enumerate(rows):
        diff = r.differences if differences and i else {}
        cells = [r.scenario.label, _mean(r.damage, diff.get("damage")), _mean(r.kills, diff.get("kills")),
                 _chance(r.p_destroyed, diff.get("p_destroyed")), _chance(r.p_at_least, diff.get("p_at_least"))]
        cells += [] if common else [str(r.k)]
        if hazardous:
            lost = r.hazardous
            cells.append("-" if lost is None else _mean(lost))
        if points:
            e = r.efficiency
            destroyed = None if e is None else e.points_destroyed_per_100
            cells += ["-" if e is None else str(e.points), "-" if e is None else _mean(e.kills_per_100),
                      "-" if destroyed is None else _mean(destroyed), "-" if r.rank is None else str(r.rank)]
        grid.append(tuple(cells))
    notes = ["(differences to the first scenario in brackets; chances in percentage points)"] \
        if differences and len(rows) > 1 else []
    if points and rows[0].rank is None:
        notes.append("(not ranked: some scenarios' points are not known)")
    keys = [f"models_destroyed_{i + 1}" for i in range(len(rows))]
    records = [{"label": r.scenario.label, "k": r.k, "damage": number(r.damage), "kills": number(r.kills),
                "p_destroyed": number(r.p_destroyed), "p_at_least": number(r.p_at_least),
                "hazardous_models_lost": None if r.hazardous is None else number(r.hazardous),
                **({f"{m}_change": number(v) for m, v in r.differences.items()} if differences else {}),
                **(efficiency_json(r.efficiency) if points else {}), **({"rank": r.rank} if points else {})}
               for r in rows]
    return Report(title, {key: r.scenario.result.models_destroyed for key, r in zip(keys, rows)},
                  labels={key: r.scenario.label for key, r in zip(keys, rows)}, notes=tuple(notes), tables=(),
                  grid=tuple(grid), records=tuple(records), plotted=tuple(keys), preface=_assumed(rows))


def assumed(report: UnitReport) -> tuple[str, ...]:
    """What a unit answer assumed, as its header says it, its target as understood first (a compared scenario's
    `asked`; `_assumed` adds the rules and situation of its context; a trial found a unit scenario's target, its
    Starting Strength, unsaid)."""
    return (f"  target: {target_summary(report.result.target)}",
            *readings(report.firings, report.result.target, report.context),
            *(f"  {line}" for line in report.situation))


def _assumed(rows: Sequence[Row]) -> tuple[str, ...]:
    """The header lines of the compared answers (and the situation and rules each was answered in): one every
    scenario said, once; the others under their scenario's label ('unit "Termagants": rules: 11th edition, ...')."""
    said = [[line.strip() for line in (*r.scenario.asked, *(situation(r.scenario.context) if r.scenario.context
                                                            else ()))] for r in rows]
    every = [line for line in dict.fromkeys(said[0]) if all(line in lines for lines in said)]
    own = [f"  {r.scenario.label}: {line}" for r, lines in zip(rows, said) for line in dict.fromkeys(lines)
           if line not in every]
    return (*(f"  {line}" for line in every), *own)


def queries(count: int) -> str:
    """How many exact queries a search took, in words (a trial read '(1 exact queries)').

    >>> queries(1), queries(8)
    ('1 exact query', '8 exact queries')
    """
    return f"{count} exact {'query' if count == 1 else 'queries'}"


def need_report(found: Need, title: str = "") -> Report:
    """The attack at the fewest models that reach the wanted chance, with that chance and the one below."""
    base = attack_report(found.result, title)
    what = f"P(at least {found.at_least} destroyed)"
    if found.models is None:  # no size reaches it: the largest's chance, and its answer below
        which = "the only size it comes in here" if found.only else "the largest unit its datasheet allows"
        lines = [f"no unit size reaches it: {found.tried} models ({which}) give {what} {equals(found.p)} < "
                 f"{percent(found.wanted)}"]
    else:
        lines = [f"fewest models: {found.models}  ({what} {equals(found.p)} >= {percent(found.wanted)})"]
    if found.p_below is not None:
        lines.append(f"with {found.below}: {what} {equals(found.p_below)}")
    lines.append(f"({queries(found.queries)})")
    need = {"models": found.models, "at_least": found.at_least, "wanted": number(found.wanted),
            "p": number(found.p), "p_below": None if found.p_below is None else number(found.p_below),
            **({"largest": found.tried} if found.models is None else {})}
    return attrs.evolve(base, preface=tuple(lines), details={**base.details, "need": need})


def _alike(one: Number, other: Number) -> bool:
    """Two values of the goal that are the same (float rounding is no difference)."""
    return abs(float(one - other)) < 1e-12


def ranks(found: Plan) -> list[int]:
    """Each alternative's rank: 1 + how many are better, so alternatives that tie share one."""
    out: list[int] = []
    for i, alt in enumerate(found.alternatives):
        tied = i and _alike(alt.value, found.alternatives[i - 1].value)
        out.append(out[-1] if tied else i + 1)
    return out


def plan_title(found: Plan, targets: str) -> str:
    """'best order (and split)  ->  TARGETS', or, where every alternative ties, no 'best'."""
    what = f"order{' and split' if len(found.targets) > 1 else ''}"
    every = ranks(found)[-1] == 1 and len(found.alternatives) > 1
    return f"{'every ' + what + ' alike' if every else 'best ' + what}  ->  {targets}"


def plan_report(found: Plan, names: Sequence[str], title: str = "", top: int = 10) -> Report:
    """The best alternatives first (at most `top`, and the worst), each with its difference to the best, ties
    sharing a rank; where they tie for the best, the notes say so (and, where nothing is destroyed whatever the
    order, that --goal kills tells the alternatives apart)."""
    many = len(found.targets) > 1
    value = (lambda v: percent(v)) if found.goal == "destroy" else (lambda v: f"{float(v):.3f}")
    what = ("P(both destroyed)" if many else "P(destroyed)") if found.goal == "destroy" else "mean kills"
    head = ["rank", *(f"at target {t + 1}" for t in range(len(found.targets))), what, "vs best"]
    best = found.best.value
    ranked = ranks(found)

    def line(rank: int) -> tuple[str, ...]:
        alt = found.alternatives[rank]
        orders = [", ".join(str(i + 1) for i in order) or "-" for order in alt.orders]
        change = 0.0 if _alike(alt.value, best) else float(alt.value - best)
        gap = f"{100 * change:+.2f}" if found.goal == "destroy" else f"{change:+.3f}"
        return (str(ranked[rank]), *orders, value(alt.value), gap)

    shown = list(range(min(top, len(found.alternatives))))
    if len(found.alternatives) > len(shown):
        shown.append(len(found.alternatives) - 1)
    preface = [f"  weapon {i + 1}: {name}" for i, name in enumerate(names)]  # the numbers the orders are written in
    notes = [f"{len(found.alternatives)} alternatives considered ({queries(found.queries)})"
             + (f"; the best {top} and the worst shown" if len(shown) < len(found.alternatives) else "")]
    if found.goal == "destroy":
        notes.append("(vs best in percentage points)")
    first = ranked.count(1)
    if first == len(found.alternatives) > 1:
        kills = "; --goal kills ranks them by the models they destroy" if found.goal == "destroy" else ""
        notes.append(f"all {first} alternatives tie at {value(best)}: no order or split is better here{kills}")
    elif first > 1:
        notes.append(f"the first {first} alternatives tie for the best")
    records = [{"rank": ranked[rank], **{f"target_{t + 1}": ", ".join(str(i + 1) for i in order)
                                     for t, order in enumerate(alt.orders)}, "value": number(alt.value)}
               for rank, alt in enumerate(found.alternatives)]
    results = found.results(found.best)
    distributions = {f"models_destroyed_{t + 1}": r.models_destroyed for t, r in enumerate(results) if r is not None}
    labels = {f"models_destroyed_{t + 1}": f"models destroyed (target {t + 1}, best plan)" for t in range(len(results))}
    return Report(title, distributions, labels=labels, preface=tuple(preface), notes=tuple(notes),
                  details={"goal": found.goal, "weapons": list(names), "queries": found.queries},
                  grid=(tuple(head), *(line(i) for i in shown)), records=tuple(records), plotted=tuple(distributions))


def turn_report(turn: Turn, title: str = "") -> Report:
    """The target's losses by the end of the Fight phase (Below Half-strength and Battle-shock too), the
    charge's chance and the shooting's share."""
    chances: dict[str, Number] = {"p_destroyed": turn.p_destroyed, "p_below_half": turn.p_below_half}
    if turn.p_battle_shocked is not None:
        chances["p_battle_shocked"] = turn.p_battle_shocked
    chances |= {"p_destroyed_by_shooting": turn.p_destroyed_by_shooting, "p_charge": turn.p_charge}
    labels = {"p_destroyed": "P(unit destroyed by the end of the Fight phase)",
              "p_below_half": "P(target Below Half-strength by then, not destroyed)",
              "p_battle_shocked": "P(target then fails its Battle-shock test)",
              "p_destroyed_by_shooting": "P(destroyed by the shooting alone)", "p_charge": "P(charge succeeds)",
              "models_destroyed": "models destroyed (shooting and fight)",
              "damage": "damage dealt (shooting and fight)"}
    notes = [f"models left to fight after Fire Overwatch: {float(turn.fighters.mean):.3f} on average"] \
        if turn.fighters.min != turn.fighters.max else []
    details = {"fighters": pmf_json(turn.fighters), "fights": turn.fights}
    return Report(title, {"damage": turn.damage, "models_destroyed": turn.models_destroyed}, chances,
                  labels=labels, details=details, notes=tuple(notes), tables=("models_destroyed",))

"""The queries of a sweep or a matchup: a grid of attackers, targets, phases, unit sizes, situations
and rules printings, numbered in one fixed order, and each query's answer as one row of a table.

The grid is resolved before anything is computed: every attacker is a parsed weapon or a datasheet,
every target a `Target`, so a query is only arithmetic, and a worker (another process, another
machine) needs no data files. Queries are numbered with the attacker varying slowest, then the
target, the phase, the unit size, each swept situation field in the order given, and the rules
printing fastest; query n's answer depends on the grid and n alone, so any split of the numbers
into chunks, on any number of workers, gives the same rows.

Ten shots hitting on 3+, wounding on 4+ and saved on 4+ (AP-1 against Sv3+) deal 10 * 2/3 * 1/2 * 1/2
= 5/3 damage on average; against T4 Sv3+ W2 x5 that destroys 138805/236196 = 0.5877 models. Five
shots get K ~ Binomial(5, 1/6) wounds through and destroy K // 2 models: P(K >= 2) + P(K >= 4) = 97/486:

>>> grid = Grid([Attacker.of_weapon("A1 BS3+ S4 AP-1 D1")], [Defender.of_profile("T4 Sv3+ W2 x5")], models=[10, 5])
>>> [(row["models"], round(row["mean_damage"], 4), round(row["mean_models_destroyed"], 4))
...  for row in rows(grid, 0, grid.size)]
[(10, 1.6667, 0.5877), (5, 0.8333, 0.1996)]
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

import attrs

from ..data.datasheet import Datasheet, TargetUnit, in_edition
from ..data.load import equipped
from ..decide.points import Efficiency
from ..decide.unit_attack import defended, with_best_profiles
from ..editions import EDITIONS, TENTH, edition
from ..engine import limits
from ..engine.resolve import attack
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Firing, Rules, Target, Weapon
from ..units.by_name import target_notes

PHASES = ("shooting", "fight")
FIGURES = ("mean_damage", "mean_models_destroyed", "p_destroyed", "points_destroyed_per_100")
DISTRIBUTIONS = ("damage", "models_destroyed")  #: may be added to each row as P(X = k) for k = 0, 1, ...


@attrs.frozen
class Attacker:
    """One attacker of the grid: a weapon profile (used by `models` models) or a datasheet unit
    (attacking with its whole loadout, at `models` models or its smallest size)."""

    label: str
    weapons: tuple[tuple[str, Weapon], ...] = ()  #: a weapon profile as each edition that has its abilities reads it
    sheet: Datasheet | None = None
    faction: str | None = None
    #: a unit as each edition a grid sweeps prints it, or why that edition's rows are refused (`as_printed`)
    printed: tuple[tuple[str, Attacker | str], ...] = ()

    @classmethod
    def of_weapon(cls, text: str) -> Attacker:
        """A weapon profile, read in each edition whose abilities it has (in none: refused, as the 10th reads it)."""
        read = []
        for name in EDITIONS:
            with contextlib.suppress(MathhammerError):
                read.append((name, Weapon.parse(text, edition=name)))
        return cls(text.strip(), weapons=tuple(read) or ((TENTH.name, Weapon.parse(text)),))

    def weapon_in(self, edition: str) -> Weapon:
        """The weapon profile as `edition` reads it (one with an ability the edition lacks is refused, saying so)."""
        read = dict(self.weapons)
        if edition not in read:
            theirs = " or ".join(EDITIONS[name].ordinal for name in read)
            raise MathhammerError(f"{self.label!r} has an ability the {EDITIONS[edition].ordinal} edition does not "
                                  f"have: its rows are answered in the {theirs} (situations.edition = {list(read)})")
        return read[edition]

    @classmethod
    def of_sheet(cls, sheet: Datasheet, label: str | None = None) -> Attacker:
        return cls(label or sheet.name, sheet=sheet, faction=sheet.faction)

    @property
    def kind(self) -> str:
        return "weapon" if self.weapons else "unit"


@attrs.frozen
class Defender:
    """One target of the grid, with its points when it is a datasheet unit that has them, and its datasheet
    (`unit.sheet`), whose abilities read from text apply to a unit's attacks against it as in `unit_attack`."""

    label: str
    unit: TargetUnit
    faction: str | None = None
    points: int | None = None
    #: a unit as each edition a grid sweeps prints it, or why that edition's rows are refused (`as_printed`)
    printed: tuple[tuple[str, Defender | str], ...] = ()

    @property
    def target(self) -> Target:
        return self.unit.target

    @classmethod
    def of_target(cls, target: Target, label: str) -> Defender:
        """A target given by its models alone (a standard target, a profile): no abilities read from text."""
        return cls(label, TargetUnit(target, label))

    @classmethod
    def of_profile(cls, text: str, label: str | None = None) -> Defender:
        return cls.of_target(Target.parse(text), label or text.strip())

    @classmethod
    def of_sheet(cls, sheet: Datasheet, label: str | None = None, size: int | None = None) -> Defender:
        """The unit at `size` models (default: its smallest size) with its wargear's protective rules."""
        target, label = equipped(sheet, size), label or sheet.name
        return cls(label, TargetUnit(target, label, sheet, target_notes(sheet, (), size)), sheet.faction,
                   sheet.points_at(target.model_count))


Side = TypeVar("Side", Attacker, Defender)


def as_printed(side: Side, edition: str) -> Side:
    """The attacker or target as `edition` prints it: in a grid that sweeps several editions, a unit is looked up in
    each (`printed`), and its rows of an edition it is not in are refused, saying so; else `side` itself."""
    if not side.printed:
        return side
    found = dict(side.printed).get(edition)
    if found is None:
        theirs = " and ".join(EDITIONS[name].ordinal for name, _ in side.printed)
        raise MathhammerError(f"{side.label} is not a unit of the {EDITIONS[edition].ordinal} edition's index "
                              f"(it is of the {theirs})")
    if isinstance(found, str):
        raise MathhammerError(found)
    return found


def _tuple(values: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(values)


def _situation(fields: Any) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    return tuple((name, tuple(values)) for name, values in (fields.items() if isinstance(fields, Mapping) else fields))


@attrs.frozen
class Query:
    """One query of a grid, decoded from its number."""

    number: int
    attacker: Attacker
    defender: Defender
    phase: str
    models: int | None
    situation: dict[str, Any]
    rules: str


@attrs.frozen(eq=False)
class Grid:
    """Every combination of the axes, one query each. `models` None: a weapon used by one model, a
    unit at its smallest size. `situations` are the swept `Context` fields, each with its values;
    `context` holds the fields that are not swept. `distributions` adds those distributions to each
    row. `chunk` queries make one part of a sweep's output."""

    attackers: tuple[Attacker, ...] = attrs.field(converter=_tuple)
    defenders: tuple[Defender, ...] = attrs.field(converter=_tuple)
    phases: tuple[str, ...] = attrs.field(default=("shooting",), converter=_tuple)
    models: tuple[int | None, ...] = attrs.field(default=(None,), converter=_tuple)
    situations: tuple[tuple[str, tuple[Any, ...]], ...] = attrs.field(default=(), converter=_situation)
    rules: tuple[str, ...] = attrs.field(default=("current",), converter=_tuple)
    context: Context = Context()
    distributions: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    chunk: int = 2000

    def situation_of(self, query: Query) -> Context:
        """The situation `query` is asked in: the grid's, its own fields, its printing of the rules in the edition its
        situation names, else the grid's (the player's $MATHHAMMER_EDITION); a printing that edition lacks is refused
        ('2023' in the 11th). With neither, a unit attacks in its own edition at the current printing (at another, in
        the 10th's, as `mathhammer unit --rules` has it)."""
        named = query.situation.get("edition") or self.context.edition
        rules = Rules.named(query.rules, edition(named).name if named else TENTH.name)
        context = attrs.evolve(self.context, rules=rules, **query.situation)
        return in_edition(context, query.attacker.sheet)[0]

    def __attrs_post_init__(self) -> None:
        for phase in self.phases:
            if phase not in PHASES:
                raise MathhammerError(f"a phase is one of {', '.join(PHASES)}, got {phase!r}")
        for name in self.distributions:
            if name not in DISTRIBUTIONS:
                raise MathhammerError(f"a distribution is one of {', '.join(DISTRIBUTIONS)}, got {name!r}")
        if self.chunk < 1:
            raise MathhammerError(f"a chunk is at least 1 query, got {self.chunk}")

    @property
    def axes(self) -> tuple[int, ...]:
        """The length of each axis, slowest first."""
        return (len(self.attackers), len(self.defenders), len(self.phases), len(self.models),
                *(len(values) for _, values in self.situations), len(self.rules))

    @property
    def size(self) -> int:
        return math.prod(self.axes)

    @property
    def parts(self) -> int:
        return -(-self.size // self.chunk)

    def span(self, part: int) -> range:
        """The query numbers of one part."""
        return range(part * self.chunk, min((part + 1) * self.chunk, self.size))

    def query(self, number: int) -> Query:
        if not 0 <= number < self.size:
            raise MathhammerError(f"query {number} is not in this grid of {self.size} queries")
        digits, rest = [], number
        for length in reversed(self.axes):
            rest, digit = divmod(rest, length)
            digits.append(digit)
        a, t, p, m, *s, r = reversed(digits)
        situation = {name: values[i] for (name, values), i in zip(self.situations, s)}
        return Query(number, self.attackers[a], self.defenders[t], self.phases[p], self.models[m], situation,
                     self.rules[r])

    def columns(self) -> list[tuple[str, str]]:
        """(name, kind) of every column of the rows, in order; kind is int, float, str, bool, floats
        (a list of probabilities) or strs (the notes: a list of lines)."""
        situation = [(name, _kind(values)) for name, values in self.situations]
        return [("query", "int"), ("attacker", "str"), ("attacker_kind", "str"), ("attacker_faction", "str"),
                ("phase", "str"), ("models", "int"), ("target", "str"), ("target_faction", "str"),
                ("target_models", "int"), *situation, *([] if "edition" in dict(self.situations) else
                                                        [("edition", "str")]),
                ("rules", "str"), *((f, "float") for f in FIGURES),
                ("attacker_points", "int"), ("target_points", "int"), ("reason", "str"), ("notes", "strs"),
                *((f"{name}_pmf", "floats") for name in self.distributions)]


def _kind(values: Sequence[Any]) -> str:
    if all(isinstance(v, bool) for v in values):
        return "bool"
    return "int" if all(isinstance(v, int) for v in values) else "str"


def _probabilities(result: AttackResult, name: str) -> list[float]:
    pmf = getattr(result, name)
    return [0.0] * pmf.min + [float(p) for p in pmf.probabilities()]


def answer(grid: Grid, number: int) -> dict[str, Any]:
    """Query `number` of the grid as one row: its inputs, then the figures (NaN, with the reason,
    where the attacker cannot attack in that phase or the query is refused)."""
    q = grid.query(number)
    printed = bool(q.defender.printed)  # its models, points and faction are those of the row's edition, found below
    row: dict[str, Any] = {
        "query": number, "attacker": q.attacker.label, "attacker_kind": q.attacker.kind,
        "attacker_faction": None if q.attacker.printed else q.attacker.faction, "phase": q.phase, "models": q.models,
        "target": q.defender.label, "target_faction": None if printed else q.defender.faction,
        "target_models": None if printed else q.defender.target.model_count,
        **q.situation, "edition": q.situation.get("edition") or grid.context.edition, "rules": q.rules,
        **dict.fromkeys(FIGURES, math.nan), "attacker_points": None,
        "target_points": None if printed else q.defender.points, "reason": None, "notes": [],
        **{f"{name}_pmf": None for name in grid.distributions}}
    melee = q.phase == "fight"
    try:
        context = grid.situation_of(q)
        row["edition"] = context.rules.edition
        attacker, defender = as_printed(q.attacker, row["edition"]), as_printed(q.defender, row["edition"])
        row.update(attacker_faction=attacker.faction, target_faction=defender.faction,
                   target_models=defender.target.model_count, target_points=defender.points)
        if attacker.weapons:
            row["models"] = q.models or 1
            weapon = attacker.weapon_in(context.rules.edition)
            if weapon.melee != melee:
                raise MathhammerError(f"a {'melee' if weapon.melee else 'ranged'} weapon attacks in the "
                                      f"{'Fight' if weapon.melee else 'Shooting'} phase")
            # the target's own abilities act on the weapon, as `mathhammer attack` has them (a trial found an
            # Overlord's -1 Damage left out)
            firings, target, lines = defended(defender.unit, [Firing(weapon, row["models"])], context)
            result, row["notes"] = attack(firings, target, context=context), _notes(lines)
        else:
            assert attacker.sheet is not None
            row["models"] = sum(attacker.sheet.counts(q.models).values())
            row["attacker_points"] = attacker.sheet.points_at(row["models"])
            report = with_best_profiles(attacker.sheet, defender.unit, size=q.models, context=context, melee=melee)
            result, row["notes"], row["edition"] = report.result, _notes(report.situation), report.context.rules.edition
    except MathhammerError as exc:
        if isinstance(exc, limits.TooLarge) and limits.partial():
            raise  # too large for this place's share of the limits (the server's light lane): asked elsewhere
        row["reason"] = str(exc)
        return row
    row.update(mean_damage=float(result.damage.mean), mean_models_destroyed=float(result.models_destroyed.mean),
               p_destroyed=float(result.p_destroyed))
    if row["attacker_points"] and defender.points is not None:
        found = Efficiency.of(result, row["attacker_points"], defender.points).points_destroyed_per_100
        row["points_destroyed_per_100"] = float(found) if found is not None else math.nan
    for name in grid.distributions:
        row[f"{name}_pmf"] = _probabilities(result, name)
    return row


#: header lines every answer of a grid shares (its situation, rules and order of weapons), not a pair's notes
_SHARED = ("situation:", "rules:", "rolls:", "weapons resolved in the order listed")


def _notes(header: Sequence[str]) -> list[str]:
    """What a unit answer's header says of its units (abilities applied or not, weapons not fired, notes of the
    catalogue), without the lines every answer of the grid shares."""
    return [line for line in header if not line.startswith(_SHARED)]


def rows(grid: Grid, start: int, stop: int) -> list[dict[str, Any]]:
    """The rows of queries `start` to `stop - 1`, in order."""
    return [answer(grid, number) for number in range(start, stop)]

"""A sweep's spec: a TOML file naming the grid, read and checked whole before anything runs. Each
problem is one line naming the file, the key and what is allowed.

```toml
chunk = 2000                      # queries per Parquet part
phases = ["shooting", "fight"]    # default ["shooting"]
models = [5, 10]                  # attacking models (a weapon) or unit sizes (a unit); default: 1, smallest
rules = ["current", "2023"]       # rules printings; default ["current"]
distributions = ["damage"]        # add P(X = k) lists: damage, models_destroyed

[attackers]                       # one or more of:
weapons = ["A2 BS3+ S4 AP-1 D1"]  # weapon profiles, as for `mathhammer attack -w`
units = ["Intercessor Squad", "army.rosz#2"]   # datasheets, indexed units, army-list units
select = ["all", {faction = "Orks"}, {keyword = "VEHICLE"}, {faction = "Necrons", keyword = "INFANTRY"}]

[targets]                         # the same kinds (select: whole units at their smallest size), and
standard = ["MEQ", "TEQ"]         # standard targets by name, or "all"
profiles = ["T4 Sv3+ W2 x10"]     # target profiles, as for `mathhammer attack -t`

[situations]                      # any situation field of the API's Context, each a list of values
cover = [false, true]
hit_modifier = [0, 1]
```
"""

from __future__ import annotations

import enum
import itertools
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs

from ..catalogue.convert import to_datasheet
from ..catalogue.index import normalise
from ..catalogue.library import current_index
from ..data.datasheet import Datasheet
from ..data.load import find, standard_targets
from ..editions import answered_in, edition
from ..editions import asked as editions_asked
from ..errors import MathhammerError, did_you_mean
from ..model import Context, Rules
from ..units.by_name import datasheet, sized, unit_named, whole
from .queries import DISTRIBUTIONS, PHASES, Attacker, Defender, Grid, Side

T = TypeVar("T")
TOP = ("attackers", "targets", "situations", "phases", "models", "rules", "chunk", "distributions")
SIDES = {"attackers": ("weapons", "units", "select"), "targets": ("standard", "profiles", "units", "select")}
_KINDS = {str: "string", int: "whole number", bool: "true or false"}
SITUATION_FIELDS = tuple(f.name for f in attrs.fields(Context) if f.name != "rules")  #: rules is an axis of its own


class SpecError(MathhammerError):
    """A problem in a spec: `where` is 'FILE KEY'."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")


@attrs.frozen
class Spec:
    """A spec read from `path`, checked, with its grid resolved (attackers, targets, situations)."""

    path: Path
    grid: Grid


def read_spec(path: Path, chunk: int | None = None) -> Spec:
    """The spec at `path`; `chunk` (the command line's) overrides the file's."""
    label = str(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MathhammerError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise MathhammerError(f"{label}: is a folder; a sweep spec is a TOML file") from None
    except UnicodeDecodeError:
        raise MathhammerError(f"{label}: not UTF-8 text; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise MathhammerError(f"{label}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise MathhammerError(f"{label}: cannot be read: {exc.strerror}") from None
    return Spec(path, grid_of(raw, label, chunk))


def grid_of(raw: dict[str, Any], label: str, chunk: int | None = None) -> Grid:
    """The grid a spec's tables describe; `label` names the spec in each problem."""
    _known(raw, TOP, label, "")
    for side in SIDES:
        if side not in raw:
            raise SpecError(f"{label} {side}", f"missing: give [{side}] with one or more of {', '.join(SIDES[side])}")
    situations = _situations(raw, label)
    asked = [answered_in(None)] if "edition" not in dict(situations) else dict(situations)["edition"]
    editions: list[str | None] = [*dict.fromkeys(edition(name).name for name in asked if name)] or [None]
    attackers = _attackers(_table(raw, "attackers", label), label, editions)
    defenders = _defenders(_table(raw, "targets", label), label, editions)
    top = f"{label} "
    phases = _list(raw, "phases", top, str, ["shooting"], lambda v: v in PHASES, ", ".join(PHASES))
    models: list[int | None] = list(_list(raw, "models", top, int, [None], lambda v: v >= 1, "at least 1"))
    printings = _list(raw, "rules", top, str, ["current"], lambda v: _rules(v), ", ".join(Rules.PRESETS))
    shown = _list(raw, "distributions", top, str, [], lambda v: v in DISTRIBUTIONS, ", ".join(DISTRIBUTIONS))
    chunk = chunk if chunk is not None else _number(raw, "chunk", label, 2000)
    if chunk < 1:
        raise SpecError(f"{label} chunk", f"at least 1 query a part, got {chunk}")
    for printing, named in itertools.product(printings, (name for name in asked if name)):  # refused at once
        try:
            Rules.named(printing, edition(named).name)
        except MathhammerError as exc:
            whose = "" if "edition" in dict(situations) else " ($MATHHAMMER_EDITION)"
            raise SpecError(f"{top}rules", f"{printing!r} with edition {named!r}{whose}: {exc}") from None
    return Grid(attackers, defenders, phases, models, situations, printings, Context(edition=answered_in(None)),
                shown, chunk)


# ------------------------------------------------------------------ shapes
def _known(table: dict[str, Any], allowed: Iterable[str], label: str, prefix: str) -> None:
    for key in table:
        if key not in allowed:
            hint = did_you_mean([key], {name: name for name in allowed})
            raise SpecError(f"{label} {prefix}{key}", f"unknown key{hint}; allowed: {', '.join(allowed)}")


def _table(raw: dict[str, Any], key: str, label: str) -> dict[str, Any]:
    table = raw[key]
    if not isinstance(table, dict):
        raise SpecError(f"{label} {key}", f"a table ([{key}]), got {type(table).__name__}")
    return table


def _list(raw: dict[str, Any], key: str, where: str, kind: type[T], default: list[Any],
          check: Callable[[Any], bool] = lambda _: True, allowed: str = "") -> list[Any]:
    """A list of values of one kind, each passing `check`; `default` when the key is left out.
    `where` is the file and the key's table ('spec.toml ', 'spec.toml targets.')."""
    if key not in raw:
        return default
    values = raw[key]
    if not isinstance(values, list) or not values:
        raise SpecError(f"{where}{key}", f"a list of one or more values, got {values!r}")
    for i, value in enumerate(values):
        if not isinstance(value, kind) or isinstance(value, bool) is not (kind is bool):
            raise SpecError(f"{where}{key}[{i}]", f"a {_KINDS[kind]}, got {value!r}")
        if not check(value):
            raise SpecError(f"{where}{key}[{i}]", f"{value!r} is not allowed (allowed: {allowed})")
    if len(set(map(repr, values))) < len(values):
        raise SpecError(f"{where}{key}", "a value is given twice")
    return values


def _number(raw: dict[str, Any], key: str, label: str, default: int) -> int:
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SpecError(f"{label} {key}", f"a whole number, got {value!r}")
    return value


def _rules(name: str) -> bool:
    try:
        Rules.named(name)
    except MathhammerError:
        return False
    return True


def _each(side: dict[str, Any], key: str, where: str, make: Callable[[str], T]) -> list[T]:
    """Each string of `side[key]` made into an attacker or target; a problem names its entry."""
    out = []
    for i, text in enumerate(_list(side, key, where, str, [])):
        try:
            out.append(make(text))
        except MathhammerError as exc:
            raise SpecError(f"{where}{key}[{i}]", str(exc)) from None
    return out


# ------------------------------------------------------------------ attackers and targets
def _attackers(side: dict[str, Any], label: str, editions: Sequence[str | None]) -> list[Attacker]:
    where = f"{label} attackers."
    _known(side, SIDES["attackers"], label, "attackers.")
    found = _each(side, "weapons", where, Attacker.of_weapon)
    found += _each(side, "units", where, lambda name: _unit(_unsized(name), Attacker.of_sheet, editions))
    found += _chosen(side, where, Attacker.of_sheet, editions)
    return _whole(found, label, "attackers")


def _defenders(side: dict[str, Any], label: str, editions: Sequence[str | None]) -> list[Defender]:
    _known(side, SIDES["targets"], label, "targets.")
    where = label + " targets."
    found = []
    if "standard" in side:
        known = standard_targets()
        names = list(known) if side["standard"] == "all" else \
            _each(side, "standard", where, lambda name: find(name, known, "standard target").name)
        found += [Defender.of_target(known[name].target, name) for name in names]
    found += _each(side, "profiles", where, Defender.of_profile)
    found += _each(side, "units", where, lambda name: _target(name, editions))
    found += _chosen(side, where, Defender.of_sheet, editions)
    return _whole(found, label, "targets")


def _unsized(name: str) -> str:
    """An attacker's name, which gives no size: its sizes are the grid's `models`."""
    if sized(name)[1] is not None:
        raise MathhammerError(f"an attacker's size is swept by models = [...], not written after its name ({name!r})")
    return name


def _target(name: str, editions: Sequence[str | None]) -> Defender:
    """A target unit by name, at the size written after it ('Boyz x20', as a matchup takes it), else its smallest."""
    unit, size = whole(name, "a sweep names a unit whole, at its size ('Boyz x20'); one that has lost models is "
                              "written as a profile ('T4 Sv3+ W2 x3/5')")
    if size is None:
        return _unit(name, Defender.of_sheet, editions)
    return _unit(unit, lambda sheet, label: Defender.of_sheet(sheet, f"{label or sheet.name} x{size}", size), editions)


def _unit(name: str, make: Callable[[Datasheet, str | None], Side], editions: Sequence[str | None]) -> Side:
    """The attacker or target a unit's name gives, named in its rows by its datasheet's name, and an army list's unit
    also by its place in the list ('Boyz (orks.rosz#1)': it may carry other wargear than the datasheet's Boyz). Under
    several editions it is looked up in each: one that has no unit of the name leaves it out (its rows say so), and a
    problem there (a name several of its units take, a size its unit does not come in) is its rows' reason (a review
    found each said to be 'not a unit of' that edition); refused where no edition answers it."""
    found: dict[str | None, Side | str] = {}
    for one in editions:
        with editions_asked(one):
            try:
                sheet = unit_named(name)  # None: no unit of that name in its index
                if sheet is not None:
                    found[one] = make(sheet, f"{sheet.name} ({name.strip()})" if "#" in name else None)
            except MathhammerError as exc:
                if len(editions) == 1:
                    raise
                found[one] = str(exc)
    if not found:
        with editions_asked(editions[0]):
            datasheet(name)  # refused, with the names it may mean
    reasons = [side for side in found.values() if isinstance(side, str)]
    if len(reasons) == len(found):
        raise MathhammerError(reasons[0])
    return _printed(found, editions)


def _chosen(side: dict[str, Any], where: str, make: Callable[[Datasheet], Side],
            editions: Sequence[str | None]) -> list[Side]:
    """The attackers or targets a side's selections pick in each edition, a unit of several editions once (told
    apart by its name, faction and place among the datasheets of that name)."""
    joined: dict[tuple[str, str, int], dict[str | None, Side]] = {}
    if len(editions) > 1:  # a faction no edition's index has is refused as in one edition
        indexes = [index for name in editions if (index := current_index(name)) is not None]
        known = {normalise(r["faction"]): r["faction"] for index in indexes for r in index.records()}
        for i, selection in enumerate(side.get("select", []) if isinstance(side.get("select"), list) else []):
            if _faction_absent(selection, known):
                _selection(selection, f"{where}select[{i}]", known)
    for name, sheets in _in_each(editions, lambda: _selected(side, where, several=len(editions) > 1)).items():
        seen: Counter[tuple[str, str]] = Counter()
        for sheet in sheets:
            seen[sheet.name, sheet.faction] += 1
            joined.setdefault((sheet.name, sheet.faction, seen[sheet.name, sheet.faction]), {})[name] = make(sheet)
    return [_printed(found, editions) for found in joined.values()]


def _in_each(editions: Sequence[str | None], find: Callable[[], T]) -> dict[str | None, T]:
    """What `find` finds in each edition the grid asks for, its units looked up in that edition's index (as
    `mathhammer unit --edition` looks them up); refused where no edition has it."""
    found: dict[str | None, T] = {}
    problems = []
    for name in editions:
        with editions_asked(name):
            try:
                found[name] = find()
            except MathhammerError as exc:
                problems.append(exc)
    if not found:
        raise problems[0]
    return found


def _printed(found: Mapping[str | None, Side | str], editions: Sequence[str | None]) -> Side:
    """The attacker or target found in each edition, as one of the grid: under several editions, that of the first
    that has it, holding each edition's, or why that edition's rows are refused (`queries.as_printed`)."""
    first = next(side for side in found.values() if not isinstance(side, str))
    return first if len(editions) == 1 else attrs.evolve(first, printed=tuple((str(e), s) for e, s in found.items()))


def _whole(found: list[Side], label: str, side: str) -> list[Side]:
    """The attackers or targets found, each once: one unit named twice (a trial found 'Boyz' and 'Ork Boyz' giving
    rows alike) is refused; two datasheets of one name (a faction's two Gretchin) are labelled apart."""
    if not found:
        raise SpecError(f"{label} {side}", f"selects nothing: give one or more of {', '.join(SIDES[side])}")
    seen: dict[str, str] = {}
    labels: Counter[tuple[str, str | None]] = Counter()
    out = []
    for one in found:
        key = repr(one.sheet) if isinstance(one, Attacker) and one.sheet else \
            repr((one.unit.sheet, one.unit.target)) if isinstance(one, Defender) and one.unit.sheet else one.label
        if key in seen:
            raise SpecError(f"{label} {side}", f"{seen[key]} is named twice (by two names of it, or by a name and a "
                                               "selection): give each unit once")
        seen[key] = one.label
        labels[one.label, one.faction] += 1
        same = labels[one.label, one.faction]  # the nth datasheet of this name and faction
        out.append(one if same == 1 else attrs.evolve(one, label=f"{one.label} (datasheet {same} of the name)"))
    return out


def _selected(side: dict[str, Any], where: str, several: bool = False) -> list[Datasheet]:
    """The indexed units any of the selections picks, each once, in the index's order; with `several` editions swept
    (this one's index open), a selection of a faction this one lacks picks nothing here (a trial's Chaos Space
    Marines, which the 11th's checkout lacks, lost every 11th-edition row of the Necrons beside them)."""
    if "select" not in side:
        return []
    selections = side["select"]
    if not isinstance(selections, list) or not selections:
        raise SpecError(f"{where}select", f"a list of selections (\"all\", {{faction = ...}}, {{keyword = ...}}), "
                                          f"got {selections!r}")
    index = current_index()
    if index is None:
        raise SpecError(f"{where}select", "selections pick units of the BSData index, and there is none: run "
                                          "`mathhammer data add PATH` first")
    records = list(index.records())
    factions = {normalise(r["faction"]): r["faction"] for r in records}
    tests = [_selection(selection, f"{where}select[{i}]", factions) for i, selection in enumerate(selections)
             if not (several and _faction_absent(selection, factions))]
    picked = [r for r in records if any(test(r) for test in tests)]
    if not picked:
        raise SpecError(f"{where}select", "selects no indexed unit")
    return [to_datasheet(r) for r in picked]


def _faction_absent(selection: Any, factions: Mapping[str, str]) -> bool:
    """Whether a selection names a faction these factions (an index's) do not hold."""
    faction = selection.get("faction") if isinstance(selection, dict) else None
    return isinstance(faction, str) and bool(faction.strip()) and normalise(faction) not in factions


def _selection(selection: Any, where: str, factions: dict[str, str]) -> Callable[[dict[str, Any]], bool]:
    """A test of a unit record: "all", or a table of a faction (as the index names it) and/or a keyword."""
    if selection == "all":
        return lambda _record: True
    if not isinstance(selection, dict) or not selection:
        raise SpecError(where, f"\"all\", or a table such as {{faction = \"Orks\"}} or {{keyword = \"VEHICLE\"}}, "
                               f"got {selection!r}")
    _known(selection, ("faction", "keyword"), where, ".")
    for key, value in selection.items():
        if not isinstance(value, str) or not value.strip():
            raise SpecError(f"{where}.{key}", f"a name, got {value!r}")
    faction, keyword = selection.get("faction"), selection.get("keyword")
    if faction is not None and normalise(faction) not in factions:
        hint = did_you_mean([normalise(faction)], factions)
        raise SpecError(f"{where}.faction", f"no faction {faction!r} in the index{hint}; factions: "
                                            f"{', '.join(sorted(factions.values()))}")

    def test(record: dict[str, Any]) -> bool:
        words = {normalise(k) for k in [*record["keywords"], *record["faction_keywords"]]}
        return ((faction is None or normalise(record["faction"]) == normalise(faction))
                and (keyword is None or normalise(keyword) in words))
    return test


# ------------------------------------------------------------------ situations
def _situations(raw: dict[str, Any], label: str) -> list[tuple[str, tuple[Any, ...]]]:
    """Each swept situation field with its values, each value checked, and every combination too."""
    if "situations" not in raw:
        return []
    table = _table(raw, "situations", label)
    _known(table, SITUATION_FIELDS, label, "situations.")
    defaults = Context()
    player = {"edition": answered_in(None)}  # the edition of a grid that sweeps none ($MATHHAMMER_EDITION, or none)
    swept_editions = table.get("edition")
    editions: list[Any] = swept_editions if isinstance(swept_editions, list) else [player["edition"]]
    swept = []
    for name, values in table.items():
        default = getattr(defaults, name)
        kind: type = bool if isinstance(default, bool) else str if isinstance(default, enum.Enum) else \
            int if isinstance(default, int) else str  # (a re-roll policy is an int too: written by its name)
        values = _list(table, name, f"{label} situations.", kind, [])
        for i, value in enumerate(values):  # a value of some edition asked (the 11th's Lethal Hits policies)
            tried = editions if name != "edition" else [None]
            problems = []
            for asked in tried:
                try:
                    Context(**{"edition": asked, name: value})
                except (MathhammerError, ValueError, TypeError) as exc:
                    problems.append(str(exc))
            if len(problems) == len(tried):
                raise SpecError(f"{label} situations.{name}[{i}]", problems[0])
        swept.append((name, tuple(values)))
    names = [name for name, _ in swept]
    for combination in itertools.product(*(values for _, values in swept)):
        try:
            Context(**{**player, **dict(zip(names, combination))})
        except MathhammerError as exc:
            chosen = ", ".join(f"{n} = {v!r}" for n, v in zip(names, combination))
            raise SpecError(f"{label} situations", f"{chosen}: {exc}") from None
    return swept

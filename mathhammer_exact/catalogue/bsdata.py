"""Reading a BSData checkout (a .gst game system and its .cat catalogues) into plain unit records.

A record keeps the characteristics as printed (strings), so the index can be built once and the
parsers can improve without re-reading the XML. What is inferred from rules text (invulnerable
saves, Feel No Pain, which units a Leader joins) is marked with where it came from.

The data model: a unit is a `selectionEntry` of type "unit" (or a single "model") defined at the
top of a catalogue; its models are the "model" entries below it, reached through
`selectionEntryGroups` and `entryLinks` (links to shared entries anywhere in the data set, with
their own constraints). A model's wargear is the entries below it that carry "Ranged Weapons" or
"Melee Weapons" profiles; a group's `defaultSelectionEntryId` is the default choice (or, where it names
none, the choices it marks with a `defaultAmount`, each taken so many times).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Container, Iterable, Iterator
from pathlib import Path
from xml.etree.ElementTree import Element

import attrs

from ..data.names import loose, normalise
from ..errors import MathhammerError
from ..sizes import MAX_TARGET_MODELS
from .abilities import (
    WEAPON_ABILITIES,
    Record,
    bearer_characteristics,
    best,
    feel_no_pain,
    invulnerable,
    leader_units,
    per_copy,
    with_conversion_range,
)
from .battlescribe import (
    MAX_DEPTH,
    characteristics,
    check_edition,
    hidden,
    is_weapon,
    kids,
    named_once,
    profile_label,
    tag,
    whole,
)
from .convert import main_kind
from .factions import Catalogues
from .newrecruit import read_document

Span = tuple[int, int | None]  #: the fewest and most models (None: no most)


@attrs.frozen
class Link:
    """An entry reached from a parent: the entry itself (a link resolved) and the constraints that apply."""

    entry: Element
    minimum: int
    maximum: int | None
    link_id: str
    link: Element | None = None  #: the entryLink that reached `entry`, if any (its modifiers count too)

    def most_by_size(self, high: int, models: set[str], unit: str) -> list[list[int]] | None:
        """The most selections as steps of the unit's size ([[0, 1], [20, 2]]: 1, and 2 from 20 models),
        where the catalogue raises or lowers it with the number of models in the unit; else None."""
        if self.maximum is None:
            return None
        wanted = {c.get("id") for e in (self.link, self.entry) for c in kids(e, "constraints", "constraint")
                  if c.get("type") == "max" and c.get("field") == "selections" and c.get("scope") == "parent"}
        changes = self.changes(wanted)
        if not changes:
            return None
        steps = _steps(self.maximum, changes, high, models, unit)
        return steps if len(steps) > 1 or steps[0][1] != self.maximum else None

    def changes(self, fields: Container[str | None]) -> list[Element]:
        """The modifiers of the link and its entry of one of `fields` (a constraint's id)."""
        return [m for e in (self.link, self.entry) for m in _modifiers(e) if m.get("field") in fields]


def _steps(most: int, changes: list[Element], high: int, models: set[str], unit: str) -> list[list[int]]:
    """`most` after `changes` as steps of the size of the unit (of id `unit`), up to `high` models
    (`Link.most_by_size`)."""
    steps: list[list[int]] = []
    for size in range(1, high + 1):
        value = most
        for modifier in changes:
            value = _changed(value, modifier, size, models, unit)
        if not steps or steps[-1][1] != value:
            steps.append([size if steps else 0, value])
    return steps


def _modifiers(element: Element | None) -> Iterator[Element]:
    """The modifiers of an entry or link, those of its modifier groups included."""
    yield from (modifier for modifier, _ in _grouped(element))


def _grouped(element: Element | None,
             around: tuple[Element, ...] = ()) -> Iterator[tuple[Element, tuple[Element, ...]]]:
    """Each modifier of an entry or link, with the modifier groups around it (whose conditions hold for it too)."""
    if element is None:
        return
    yield from ((modifier, around) for modifier in kids(element, "modifiers", "modifier"))
    for group in kids(element, "modifierGroups", "modifierGroup"):
        yield from _grouped(group, (*around, group))


def _in_place(links: Iterator[Link]) -> set[str]:
    """The ids of the kinds of model that join in place of another: those whose selection lowers another
    kind's most ('Sanctifier w/ two hand flamers' takes the place of a 'Sanctifier w/ hand flamer'), so that
    they add no model to the unit."""
    found: set[str] = set()
    for link in links:
        most = {c.get("id") for e in (link.link, link.entry) for c in kids(e, "constraints", "constraint")
                if c.get("type") == "max" and c.get("field") == "selections"}
        for modifier in (m for e in (link.link, link.entry) for m in _modifiers(e)):
            if modifier.get("type") == "decrement" and modifier.get("field") in most:
                found.update(c.get("childId", "") for c in modifier.iter() if tag(c) in ("condition", "repeat"))
    return found


_ARMY_SCOPES = ("force", "roster", "primary-catalogue")  #: conditions that count more than the unit's models
_SIZE_TESTS = {"atLeast": int.__ge__, "greaterThan": int.__gt__, "atMost": int.__le__, "lessThan": int.__lt__,
               "equalTo": int.__eq__}


def _size_test(condition: Element, size: int, models: set[str]) -> bool | None:
    """Whether a condition on the number of models in the unit holds for `size` models; None for a
    condition of another kind (the army, other selections, a repeat). It counts models where it counts
    'model' or a group of the unit's models (ids in `models`)."""
    if tag(condition) != "condition" or condition.get("childId") not in models \
            or condition.get("field") != "selections" or condition.get("scope") in _ARMY_SCOPES \
            or condition.get("type") not in _SIZE_TESTS:
        return None
    return bool(_SIZE_TESTS[condition.get("type", "")](size, whole(condition.get("value"), "a number of models")))


def _changed(value: int, modifier: Element, size: int, models: set[str], unit: str) -> int:
    """`value` after `modifier` in a unit of `size` models, where every condition it has counts the
    unit's models (any other condition, such as the army's detachment, leaves the value as it is), and
    where it is repeated, as many times as the unit's models hold its number ('+1 for every 10 models':
    `_repeated`)."""
    tests = [_size_test(c, size, models) for c in modifier.iter() if tag(c) == "condition"]
    repeats = [c for c in modifier.iter() if tag(c) == "repeat"]
    times = _repeated(repeats, size, unit) if repeats else 1
    if times is None or not tests and not repeats or not all(tests):  # nothing counts the unit, or it fails
        return value
    amount = whole(modifier.get("value"), "a modifier's number of selections") * times
    kind = modifier.get("type")
    return value + amount if kind == "increment" else max(value - amount, 0) if kind == "decrement" \
        else amount if kind == "set" and not repeats else value


def _repeated(repeats: list[Element], size: int, unit: str) -> int | None:
    """How many times a modifier with these repeats applies in a unit of `size` models: for one repeat
    counting every model of the unit (of id `unit`), `repeats` times each whole `value` of them (or each
    started one, if it rounds up); None for any other (one counting a group of its models: 'one fewer
    Berzerker for each with alternate weapons'), which is not read."""
    repeat = repeats[0]
    if len(repeats) > 1 or repeat.get("childId") != "model" or repeat.get("field") != "selections" \
            or repeat.get("scope") not in ("unit", unit):
        return None
    every = whole(repeat.get("value"), "a repeat's number of models")
    if every == 0:
        return None
    wholes = -(-size // every) if repeat.get("roundUp") == "true" else size // every
    return wholes * whole(repeat.get("repeats"), "a repeat's number of times", default=1)


def _filled(models: list[Record], size: int, high: int) -> dict[int, int]:
    """The models of each kind (by `id` of its record) in a unit of `size`: each at its least, and the kind whose
    number follows the size (its group's default, else the one that can be most numerous) taking the rest first,
    as `convert` fields the unit."""
    main = main_kind(models, high)
    variable = [m for m in models if m["max"] != m["min"]]
    counts = {id(m): m["min"] for m in models}
    extra = size - sum(counts.values())
    for m in sorted(variable, key=lambda m: m is not main):
        added = max(min(extra, (m["max"] or high) - m["min"]), 0)
        counts[id(m)] += added
        extra -= added
    return counts


_CONDITION_PARTS = ("conditions", "conditionGroups")  #: what `_holds` reads of a modifier or condition group


def _holds(modifier: Element, test: Callable[[Element], bool | None]) -> bool:
    """Whether a modifier applies: each of its conditions, and each of its condition groups ('and', 'or', nested),
    holds by `test`; never where `test` cannot tell (None)."""
    if any(True for _ in kids(modifier, "repeats", "repeat")):
        return False
    return _group_holds(modifier, test, True, True) is True


def _group_holds(element: Element, test: Callable[[Element], bool | None], every: bool, top: bool) -> bool | None:
    """`_holds` of a modifier (`top`) or of one of its condition groups: all (`every`) or any of its parts.
    (A function of its own, not one nested in `_holds`: a nested function that calls itself is a reference
    cycle, which kept each unit's reader, and with it the whole parsed checkout, until the collector ran.)"""
    if any(tag(c) not in _CONDITION_PARTS for c in element if tag(c).startswith(("condition", "local"))):
        return None  # a form not read ('localConditionGroups': the 11th edition's second copy of a unit)
    found = [test(c) for c in kids(element, "conditions", "condition")]
    found += [_group_holds(g, test, g.get("type") != "or", False)
              for g in kids(element, "conditionGroups", "conditionGroup")]
    if any(f is None for f in found) or (not top and not found):
        return None  # a group that tests nothing it can tell
    return all(found) if every else any(found)


def _ways(element: Element, every: bool = True) -> list[list[Element]]:
    """The ways the conditions of a modifier (or of a condition group: all of it, or any part if not
    `every`) hold: lists of conditions that hold together, its 'or' groups spread out."""
    parts = [[[c]] for c in kids(element, "conditions", "condition")]
    parts += [_ways(group, group.get("type") != "or") for group in kids(element, "conditionGroups", "conditionGroup")]
    if not every:
        return [way for part in parts for way in part]
    ways: list[list[Element]] = [[]]
    for part in parts:
        ways = [way + more for way in ways for more in part]
    return ways


def _around(holder: Element, modifier: Element) -> list[list[Element]]:
    """The ways a modifier of `holder` holds (`_ways`), with the conditions of the modifier groups around it."""
    ways = _ways(modifier)
    for group in (g for g in holder.iter() if tag(g) == "modifierGroup" and modifier in g.iter()):
        ways = [outer + inner for outer in _ways(group) for inner in ways]
    return ways


def _limits(*elements: Element | None) -> tuple[int, int | None]:
    """min and max selections per parent from the constraints of a link and of its target (the link's win), each
    as the modifiers of the target and then of the link that always apply leave it (`_always_set`: a War Walker's
    link to its Heavy Weapons sets their group's 1 to 2). A negative number is BattleScribe's "no limit", and so is
    a maximum beyond the largest unit the engine takes (MAX_TARGET_MODELS; no real entry has one); a minimum beyond
    it is refused."""
    low: int | None = None
    high: int | None = None
    changes: list[tuple[Element, tuple[Element, ...]]] | None = None  # the modifiers, read once a constraint is met
    for element in elements:
        for c in kids(element, "constraints", "constraint"):
            if c.get("field") != "selections" or c.get("scope") != "parent":
                continue
            changes = [m for e in reversed(elements) for m in _grouped(e)] if changes is None else changes
            value = _always_set(c, whole(c.get("value"), "a constraint's number of selections", signed=True),
                                changes, model=elements[-1] is not None and elements[-1].get("type") == "model")
            if c.get("type") == "min" and low is None:  # (a piece of wargear's only raised: `_always_set`)
                low = value
            elif c.get("type") == "max" and high is None:
                high = value
    if low is not None and low > MAX_TARGET_MODELS:
        name = next((e.get("name") for e in reversed(elements) if e is not None), "")
        raise MathhammerError(f"a constraint asks for at least {low} of {name!r}, more than a unit may have here "
                              f"(at most {MAX_TARGET_MODELS} models: MAX_TARGET_MODELS)")
    return max(low or 0, 0), None if high is None or not 0 <= high <= MAX_TARGET_MODELS else high


def _always_set(constraint: Element, value: int, changes: list[tuple[Element, tuple[Element, ...]]],
                model: bool) -> int:
    """A constraint's `value` after those of `changes` (the modifiers of a link's target, then of the link, with
    the modifier groups around each: `_grouped`) that change it and always apply: with no condition, no repeat
    and in no modifier group that has one. The others (that count the unit's models: `Link.most_by_size`) are
    read where the unit's size is known. The least of a piece of wargear (not a `model`) is only raised: BSData
    writes the pieces a unit comes with as a least that a modifier sets to 0, so that they can be given up (a Deff
    Dread's 2 big shootas and 2 dread klaws), and the least as written is what the unit is fielded with. A kind of
    model's is lowered too: so many of its models may take other weapons (3 of a Pathfinder Team's 9 carbines)."""
    written = value
    for modifier, around in changes:
        if modifier.get("field") != constraint.get("id") or any(
                tag(part) in _CONDITIONAL for holder in (modifier, *around) for part in holder):
            continue
        amount = whole(modifier.get("value"), "a modifier's number of selections", signed=True)
        kind = modifier.get("type")
        value = value + amount if kind == "increment" else max(value - amount, 0) if kind == "decrement" \
            else amount if kind == "set" else value
    return max(value, written) if constraint.get("type") == "min" and not model else value


_CONDITIONAL = frozenset({"conditions", "conditionGroups", "repeats", "localConditionGroups"})  #: what makes a
#: modifier (or a modifier group) apply only sometimes


#: what a unit's entry links to that is no wargear its models carry (an army's Warlord, a review found an Epic Hero
#: refused for it)
_NO_WARGEAR = frozenset({"warlord"})

#: groups that only Crusade play uses: left out ('Crusade', 'Crusade: Battle Honours', 'Crusade Relics'); not a unit
#: whose name starts alike (the Black Templars' Crusader Squad and its group 'Crusaders', a Crusade Ancient)
_CRUSADE = re.compile(r"(?:crusade(?:$|:| relics?\b| relic upgrades\b| points\b| faction\b)|weapon modifications)",
                      re.I)


def _wanted(*elements: Element, shown: Callable[[Element], bool] = lambda e: False) -> bool:
    """Neither Crusade-only nor hidden, unless `shown` tells that a hidden one is shown (`Data.shown`)."""
    return not any((hidden(e) and not shown(e)) or _CRUSADE.match(e.get("name", "").strip()) for e in elements)


def _shows(element: Element) -> Iterator[list[Element]]:
    """For each modifier of `element` that sets hidden to false, its conditions with those of the modifier
    groups around it (each a 'condition' or a 'conditionGroup': all must hold)."""
    def walk(holder: Element, around: list[Element]) -> Iterator[list[Element]]:
        tests = [*around, *(c for box in holder if box.tag in ("conditions", "conditionGroups") for c in box)]
        for modifier in kids(holder, "modifiers", "modifier"):
            if (modifier.get("field"), modifier.get("type"), modifier.get("value")) == ("hidden", "set", "false"):
                yield [*tests, *(c for box in modifier if box.tag in ("conditions", "conditionGroups") for c in box)]
        for group in kids(holder, "modifierGroups", "modifierGroup"):
            yield from walk(group, tests)
    yield from walk(element, [])


_LINKED = frozenset({"selectionEntry", "selectionEntryGroup", "profile", "rule", "infoGroup"})  #: what links name


class Data:
    """Every file of a checkout, with an index of ids so links resolve across files. Two files with the
    same catalogue, or defining one entry each, are refused: their units would be listed twice, and
    which file is the current one cannot be told. A catalogue linked but not among the files (a snapshot
    without its largest files) is named in `missing`; what is linked from it reads as absent."""

    def __init__(self, roots: list[tuple[Path, Element]], edition: str):
        self.roots = roots
        self.edition = edition  #: "10e" or "11e" (battlescribe.EDITIONS)
        present = {root.get("id") for _, root in roots}
        self.missing: dict[str, list[str]] = {}  #: a catalogue linked but not read -> the catalogues linking it
        for _, root in roots:
            for link in kids(root, "catalogueLinks", "catalogueLink"):
                if link.get("targetId") not in present:
                    name = link.get("name") or f"id {link.get('targetId')!r}"
                    self.missing.setdefault(name, []).append(root.get("name", ""))
        self.ids: dict[str, Element] = {}
        self.files: dict[str, Path] = {}  #: the file of each entry, by id
        self._children: dict[Element, tuple[Link, ...]] = {}
        self._profiles: dict[Element, tuple[tuple[Element, str], ...]] = {}
        self._hidden: dict[tuple[Element, str], bool] = {}  #: `shown_in`'s answers
        self._homes: dict[str, frozenset[str]] = {}  #: `catalogues_of`'s answers
        self._unresolved: dict[Element, frozenset[str]] = {}
        self.weapons: dict[Element, list[Record]] = {}  #: `weapon_profiles` of each entry asked about
        self._checked: set[Element] = set()  #: entries whose links and numbers are checked
        self._shown: dict[Element, bool] = {}  #: hidden entries, and whether the default unit shows them (`shown`)
        self._raised: dict[Element, tuple[list[tuple[Element | None, Element, list[list[Element]]]], set[str]]] = {}
        self.points_types = {c.get("id", "") for _, root in roots for c in kids(root, "costTypes", "costType")
                             if c.get("name") == "pts"}
        catalogues: dict[str, tuple[Path, Element]] = {}
        for path, root in roots:
            first, other = catalogues.setdefault(root.get("id", ""), (path, root))
            if first != path:
                raise MathhammerError(f"{path}: the same catalogue (id {root.get('id')!r}) as {first.name}, revision "
                                      f"{root.get('revision')} here and {other.get('revision')} there: its units "
                                      "would be listed twice; keep one of the two files")
            for element in root.iter():  # below the root, a tag is its bare name (`parse_xml`)
                ident = element.tag in _LINKED and element.get("id")
                if ident:
                    self.ids.setdefault(ident, element)
                    first = self.files.setdefault(ident, path)
                    if first is not path and element.tag in ("selectionEntry", "selectionEntryGroup"):
                        raise MathhammerError(f"{path}: defines {element.get('name')!r} (id {ident!r}) again, as "
                                              f"{first.name} does: its units would be listed twice; keep one of "
                                              "the two files")
        self.catalogues = Catalogues.read(root for _, root in roots)  #: which give each unit its faction

    def shown(self, element: Element) -> bool:
        """True for a hidden entry that a modifier shows in the unit as its datasheet gives it: unconditionally,
        or where each condition counts selections of the unit's default wargear and models (a sergeant's
        weapon shown while the unit's models carry it, as Einhyr Hearthguard's Hesyr). What depends on the
        army (the detachment, other units) is unknown here: the entry stays hidden."""
        found = self._shown.get(element)
        if found is None:
            found = self._shown[element] = any(all(self._holds(c) for c in tests) for tests in _shows(element))
        return found

    def raised(self, group: Element) -> tuple[list[tuple[Element | None, Element, list[list[Element]]]], set[str]]:
        """The choices of `group` whose least a modifier raises (a link, or None, its entry, and every way the
        conditions of those modifiers hold, with the modifier groups' around them: `_ways`), and the ids of all its
        choices (worked out once per group: groups are shared among units)."""
        found = self._raised.get(group)
        if found is None:
            choices: list[tuple[Element | None, Element]] = [
                *((None, entry) for entry in kids(group, "selectionEntries", "selectionEntry")),
                *((link, self.ids[link.get("targetId", "")]) for link in kids(group, "entryLinks", "entryLink")
                  if link.get("targetId") in self.ids)]
            raised = []
            for link, entry in choices:
                holders = [e for e in (link, entry) if e is not None]
                sets = [(h, m) for h in holders for m in _modifiers(h)
                        if m.get("type") == "set" and m.get("value", "0").strip() not in ("0", "0.0")]
                least = {c.get("id") for h in holders for c in kids(h, "constraints", "constraint")
                         if c.get("type") == "min"} if sets else set()
                ways = [way for h, m in sets if m.get("field") in least for way in _around(h, m)]
                if tag(entry) == "selectionEntry" and ways:
                    raised.append((link, entry, ways))
            found = self._raised[group] = raised, {e.get("id", "") for pair in choices for e in pair if e is not None}
        return found

    def _holds(self, test: Element) -> bool:
        """Whether a condition (or condition group) holds for the default selections of the unit it names."""
        if tag(test) == "conditionGroup":
            inner = [c for box in test for c in box]
            return (any if test.get("type") == "or" else all)(self._holds(c) for c in inner)
        scope = self.ids.get(test.get("scope", ""))
        if tag(test) != "condition" or scope is None or test.get("field") != "selections" \
                or test.get("type") not in _SIZE_TESTS or test.get("childId") not in self.ids:
            return False
        count = self._by_default(scope, test.get("childId", ""), MAX_DEPTH)
        return bool(_SIZE_TESTS[test.get("type", "")](count, whole(test.get("value"), "a condition's number")))

    def _by_default(self, element: Element, wanted: str, depth: int, least: int = 0) -> int:
        """How many selections of the entry `wanted` the default choices below `element` (of `least`
        selections, if a group) make: each entry its least, a group's default what the group's least leaves
        (at least 1), each counting what is below it; hidden ones none."""
        if depth <= 0:
            return 0
        below = [(child, child) for child in [*kids(element, "selectionEntries", "selectionEntry"),
                                              *kids(element, "selectionEntryGroups", "selectionEntryGroup")]]
        below += [(link, self.ids[link.get("targetId", "")]) for link in kids(element, "entryLinks", "entryLink")
                  if link.get("targetId", "") in self.ids]
        visible = [(link, target, _limits(*dict.fromkeys((link, target)))[0]) for link, target in below
                   if not hidden(link) and not hidden(target)]
        default = element.get("defaultSelectionEntryId")
        total = 0
        for link, target, times in visible:
            if default in (link.get("id"), target.get("id")):
                times = max(times, least - sum(n for *_, n in visible) + times, 1)
            if tag(target) == "selectionEntryGroup":
                total += self._by_default(target, wanted, depth - 1, times)
            elif times:
                total += times * ((target.get("id") == wanted) + self._by_default(target, wanted, depth - 1))
        return total

    def children(self, entry: Element) -> Iterator[Link]:
        """The entries and groups directly below `entry`, links resolved, hidden ones left out (worked out
        once per entry: the walk asks again and again)."""
        found = self._children.get(entry)
        if found is None:
            found = self._children[entry] = tuple(self._links(entry))
        return iter(found)

    def _links(self, entry: Element) -> Iterator[Link]:
        for child in kids(entry, "selectionEntries", "selectionEntry"):
            if _wanted(child, shown=self.shown):
                yield Link(child, *_limits(child), child.get("id", ""))
        for child in kids(entry, "selectionEntryGroups", "selectionEntryGroup"):
            if _wanted(child, shown=self.shown):
                yield Link(child, *_limits(child), child.get("id", ""))
        for link in kids(entry, "entryLinks", "entryLink"):
            target = self.ids.get(link.get("targetId", ""))
            if target is not None and _wanted(link, target, shown=self.shown):
                yield Link(target, *_limits(link, target), link.get("id", ""), link)

    def unresolved(self, entry: Element) -> list[str]:
        """The names of the links on or below `entry` whose target is in none of the files read (in a catalogue
        the checkout lacks: `missing`). Of a checked entry (`check`: no cycle, bounded depth)."""
        return sorted(self._lost(entry))

    def _lost(self, element: Element) -> frozenset[str]:
        """`unresolved` of `element`, unsorted; worked out once per entry, as `children` is (the entries a
        faction shares sit below many of its units)."""
        found = self._unresolved.get(element)
        if found is None:
            names = {link.get("name", "").strip() for container, kind in (("entryLinks", "entryLink"),
                                                                            ("infoLinks", "infoLink"))
                     for link in kids(element, container, kind)
                     if link.get("targetId", "") not in self.ids and _wanted(link)}
            for link in self.children(element):
                names |= self._lost(link.entry)
            found = self._unresolved[element] = frozenset(names)
        return found

    def check(self, entry: Element, path: Path) -> None:
        """Refuse, naming the file, a unit (`entry`, defined in `path`) whose links lead back into an entry
        they are inside (reading it would never end), nested beyond MAX_DEPTH, or with a number of selections
        that cannot be read. Walks what `children` gives, without recursion; each entry is checked once."""
        trail: list[Element] = []  # the entries from the unit down to the one being looked below
        below: list[Iterator[Link]] = [iter([Link(entry, 1, 1, "")])]  # the unit itself, then what is below each
        while below:
            step = next(below[-1], None)
            if step is None:
                below.pop()
                if trail:
                    self._checked.add(trail.pop())
                continue
            child = step.entry
            where = self.files.get(child.get("id", ""), path)
            if child in trail:
                loop = " -> ".join(repr(e.get("name", "")) for e in [*trail[trail.index(child):], child])
                raise MathhammerError(f"{self.files.get(trail[-1].get('id', ''), path)}: a link cycle among entries, "
                                      f"{loop} (an entryLink leads back to an entry it is inside); reading it would "
                                      "never end")
            if child in self._checked:
                continue
            if len(trail) >= MAX_DEPTH:
                raise MathhammerError(f"{where}: entries nested more than {MAX_DEPTH} levels deep below "
                                      f"{entry.get('name')!r} (a real unit has about 10)")
            try:
                below.append(self.children(child))
            except MathhammerError as exc:
                raise MathhammerError(f"{where}: {exc}") from None
            trail.append(child)

    def profiles(self, entry: Element) -> Iterator[tuple[Element, str]]:
        """The profiles of `entry` (its own, through infoLinks and infoGroups) with a name suffix
        appended by a link's modifier (how BSData writes 'Feel No Pain 5+'); worked out once per entry,
        as `children` is (a shared entry is asked about by every unit that links it)."""
        found = self._profiles.get(entry)
        if found is None:
            found = self._profiles[entry] = tuple(self._own_profiles(entry))
        return iter(found)

    def _own_profiles(self, entry: Element) -> Iterator[tuple[Element, str]]:
        for profile in kids(entry, "profiles", "profile"):
            if not hidden(profile):
                yield profile, ""
        for group in kids(entry, "infoGroups", "infoGroup"):
            yield from self.profiles(group)
        for link in kids(entry, "infoLinks", "infoLink"):
            target = self.ids.get(link.get("targetId", ""))
            if target is not None and tag(target) in ("profile", "rule") and not hidden(link) and not hidden(target):
                yield target, _appended(link)

    def shown_in(self, faction: str, found: Iterable[tuple[Element, str]]) -> Iterator[tuple[Element, str]]:
        """The profiles and rules of `found` an army of `faction` is shown: not those a modifier hides where the
        army's own catalogue is, or is not, a given one (Templar Vows outside Black Templars armies, Voice of
        Command outside Astra Militarum ones). A modifier with a condition on anything else is not read."""
        for element, suffix in found:
            if not self._hidden_in(element, faction):
                yield element, suffix

    def _hidden_in(self, element: Element, faction: str) -> bool:
        key = (element, faction)
        if key not in self._hidden:
            own = self.catalogues_of(faction)
            self._hidden[key] = any(
                all(c.get("scope") == "primary-catalogue" and c.get("type") in ("instanceOf", "notInstanceOf")
                    and (c.get("childId") in own) == (c.get("type") == "instanceOf") for c in conditions)
                for modifier in kids(element, "modifiers", "modifier")
                if (modifier.get("field"), modifier.get("type"), modifier.get("value")) == ("hidden", "set", "true")
                and not any(kids(modifier, "conditionGroups", "conditionGroup"))
                for conditions in [list(kids(modifier, "conditions", "condition"))] if conditions)
        return self._hidden[key]

    def catalogues_of(self, faction: str) -> frozenset[str]:
        """The ids of the catalogues whose own faction is `faction`."""
        if faction not in self._homes:
            self._homes[faction] = frozenset(i for i in self.catalogues.names if self.catalogues.home(i) == faction)
        return self._homes[faction]

    @functools.cached_property
    def _fielders(self) -> dict[str, list[str]]:
        relations = self.catalogues.relations()
        names = {normalise(name): name for name in relations.names}
        found: dict[str, list[str]] = {}
        for other, drawn in sorted(relations.army.items()):
            for faction in drawn - {other}:
                if other in names:
                    found.setdefault(faction, []).append(names[other])
        return found

    def fielders(self, faction: str) -> list[str]:
        """The other factions whose armies field the units of `faction` (Black Templars, for Space Marines)."""
        return self._fielders.get(normalise(faction), [])

    def rules(self, entry: Element, faction: str) -> Iterator[tuple[str, str, str]]:
        """(name, appended value, text) of the rules and abilities linked to or written on `entry` that an army
        of `faction` is shown (`shown_in`)."""
        for rule, _ in self.shown_in(faction, ((r, "") for r in kids(entry, "rules", "rule"))):
            yield rule.get("name", ""), "", _text(rule)
        for profile, suffix in self.shown_in(faction, self.profiles(entry)):
            if tag(profile) == "rule":
                yield profile.get("name", ""), suffix, _text(profile)
            elif profile.get("typeName") == "Abilities":
                yield profile.get("name", ""), suffix, characteristics(profile).get("Description", "")


    def army_choice(self, element: Element) -> str:
        """The name of the selection an army list makes (a detachment, Shadow Legion) without which `element` is hidden,
        where that is all its one hiding modifier says (a Khorne daemon's Murderer's Cowl, in Shadow Legion armies
        alone); "" otherwise."""
        for modifier in kids(element, "modifiers", "modifier"):
            conditions = kids(modifier, "conditions", "condition")
            if (modifier.get("field"), modifier.get("type"), modifier.get("value")) != ("hidden", "set", "true") \
                    or kids(modifier, "conditionGroups", "conditionGroup") or len(conditions) != 1:
                continue
            test = conditions[0]
            chosen = self.ids.get(test.get("childId", ""))
            if (chosen is not None and test.get("field") == "selections" and test.get("scope") in ("roster", "force")
                    and (test.get("type"), test.get("value")) in (("lessThan", "1"), ("equalTo", "0"))):
                return chosen.get("name", "").strip()
        return ""

    def army_rules(self, entry: Element, faction: str) -> Iterator[str]:
        """The names of the rules `entry` links that a catalogue shares, not the game system: its army rules
        (Oath of Moment, Martial Ka'tah), where core rules (Deep Strike) are the game system's; those an army of
        `faction` is shown."""
        system = self.roots[0][0]
        for profile, _ in self.shown_in(faction, self.profiles(entry)):
            if tag(profile) == "rule" and self.files.get(profile.get("id", "")) != system:
                yield profile.get("name", "")


def _appended(link: Element) -> str:
    values = [m.get("value", "") for m in kids(link, "modifiers", "modifier")
              if m.get("field") == "name" and m.get("type") == "append"]
    return " ".join(v for v in values if v)


def _text(rule: Element) -> str:
    return " ".join((d.text or "") for d in rule if tag(d) == "description")


def checkout_files(folder: Path) -> list[Path]:
    """The data files of a checkout: its .gst game system and .cat catalogues (XML, as BSData's 10th-edition
    repository writes them), else its .json files (as BSData/wh40k-11e writes them, in New Recruit's form)."""
    if not folder.is_dir():
        raise MathhammerError(f"{folder}: not a folder (give the path of a BSData checkout)")
    systems = sorted(folder.glob("*.gst"))
    files = systems + sorted(folder.glob("*.cat")) if systems else sorted(folder.glob("*.json"))
    if not files:
        raise MathhammerError(f"{folder}: no game system file here (a .gst, or .json files as BSData/wh40k-11e "
                              "writes them; is this a BSData checkout?)")
    return files


_KINDS = {".gst": ("gameSystem",), ".cat": ("catalogue",)}  #: what a file of each ending must be; .json: either


def load_checkout(folder: Path, progress: Callable[[Path], None] | None = None) -> Data:
    """Parse the one game system (of an edition read here) and every catalogue (of that game system) of a
    checkout, XML or JSON (`checkout_files`), calling `progress` after each file."""
    roots = []
    for path in checkout_files(folder):
        roots.append((path, read_document(path, _KINDS.get(path.suffix.lower(), ("gameSystem", "catalogue")))))
        if progress:
            progress(path)
    systems = [(path, root) for path, root in roots if tag(root) == "gameSystem"]
    if len(systems) != 1:
        raise MathhammerError(f"{folder}: {len(systems)} game system files here "
                              f"({', '.join(p.name for p, _ in systems) or 'none among the .json files'}); "
                              "a checkout has one")
    where, system = systems[0]
    edition = check_edition(system.get("id", ""), system.get("name", ""), str(where))
    for path, root in roots:
        if root is not system and root.get("gameSystemId") != system.get("id"):
            raise MathhammerError(f"{path}: a catalogue of another game system (id {root.get('gameSystemId')!r}; "
                                  f"{where.name} is {system.get('id')!r})")
    return Data([systems[0], *(pair for pair in roots if pair[1] is not system)], edition)


# --------------------------------------------------------------------- units


def weapon_profiles(data: Data, entry: Element) -> list[Record]:
    """The weapon profiles an entry carries itself: [{"profile": label, "melee": ..., "chars": {...}}]; worked
    out once per entry (a piece of wargear is carried by many units; the records share them, read only)."""
    found = data.weapons.get(entry)
    if found is None:
        name = entry.get("name", "")
        rules = [(rule.get("name", ""), _text(rule)) for rule in kids(entry, "rules", "rule")]
        rules += [(rule.get("name", ""), _text(rule)) for rule, _ in data.profiles(entry) if tag(rule) == "rule"]
        copies = per_copy(name, rules)  # (a Deff Dread's dread klaws: each beyond the first adds an attack)
        found = data.weapons[entry] = [
            {"profile": profile_label(name, profile.get("name", "")),
             "melee": profile.get("typeName") == "Melee Weapons",
             "chars": with_conversion_range(characteristics(profile), rules),
             **({"per_copy": copies} if copies else {})}
            for profile, _ in data.profiles(entry) if tag(profile) == "profile" and is_weapon(profile)]
    return found


def _alike(profiles: list[Record]) -> list[tuple[str, bool, list[tuple[str, str]]]]:
    """What tells two weapons' profiles apart: each profile's label and characteristics, case, spacing and order
    aside (a plasma pistol's two profiles listed the other way round, 'Anti-vehicle 2+' and 'Anti-Vehicle 2+')."""
    def plain(text: str) -> str:
        return " ".join(str(text).lower().split())

    return sorted((plain(p["profile"]), p["melee"], sorted((k, plain(v)) for k, v in p["chars"].items()))
                  for p in profiles)


class UnitReader:
    """Turns one unit entry into a record, collecting its weapons as it goes."""

    def __init__(self, data: Data, entry: Element, faction: str, source: str):
        self.data = data
        self.source = source
        self.entry = entry
        self.faction = faction
        self.weapons: dict[str, list[Record]] = {}
        self.notes: list[str] = []
        self.defence_notes: list[str] = []  #: what was read of its models' defences: said where the unit is the target
        self.span: Span | None = None  #: the fewest and most models the unit's selections count
        self.bundle_size = 0  #: the size of the unit-composition bundle read ('1 X and 9 Y': 10), if any
        self.bundles: set[str] = set()  #: the ids of the unit-composition bundles read (a condition may name one)
        self.pools: list[tuple[Link, list[Record]]] = []  #: groups of model kinds with a most, and their kinds
        #: groups of model kinds whose least is more than their kinds' leasts: the group's name, least and kinds
        self.short: list[tuple[str, int, list[Record]]] = []
        self.groups: set[str] = {"model"}  #: ids that count the unit's models in a condition
        self.kinds: dict[str, list[Record]] = {}  #: the kinds of model an id counts in a condition (a model, a group)
        self.items: dict[str, tuple[int, str | None, Link]] = {}  #: a piece of wargear's most in the unit, its
        #: constraint's id (which modifiers change) and the link that reaches it, by name
        self.capped: list[tuple[str, int, list[Element]]] = []  #: wargear, its most, the unit sizes it holds at
        #: the same of kinds of model (one, or a group's), with the name a refusal gives them
        self.capped_kinds: list[tuple[list[Record], str, int, list[Element]]] = []
        self.pieces: dict[str, Element] = {}  #: the entry of each piece of wargear given by name (`_own`)
        self.costs: dict[str, int] = {}  #: the points of each piece of wargear that costs some, by name
        self.alike: list[set[str]] = []  #: wargear of which a unit carries one only (`_alike`)
        self.compositions: list[Record] = []  #: the unit compositions other than the default (`_find_models`)
        self.bundled = 0  #: the kinds of model read from the default unit composition
        self.lost: list[str] = []  #: default wargear whose links lead to entries in none of the files read

    def read(self) -> Record:
        entry = self.entry
        models = self._models()
        size_low, size_high = self._size(models)
        record: Record = {
            "id": entry.get("id"), "name": entry.get("name", "").strip(), "faction": self.faction,
            "source": self.source, "edition": self.data.edition,
            "keywords": [], "faction_keywords": [], "abilities": [], "models": models,
            "weapons": self.weapons, "sizes": [], "points": {}, "wargear_points": self.costs, "leader_of": [],
            "invulnerable": None, "feel_no_pain": None, "notes": self.notes, "defence_notes": self.defence_notes,
            "ability_texts": [],  #: [name, text, model kind or ""] of each Abilities profile (catalogue.ability_text)
            "ability_needs": {},  #: an ability's name -> the selection its army needs for it (`Data.army_choice`)
            "army_rules": [],  #: the names of `abilities` that are army rules (`Data.army_rules`)
            "army_rules_for": {},  #: another army that fields the unit -> its army rules there, where they differ
        }
        for link in kids(entry, "categoryLinks", "categoryLink"):
            keyword = link.get("name", "").strip()
            if keyword.lower().startswith("faction:"):
                record["faction_keywords"].append(keyword.partition(":")[2].strip().upper())
            elif keyword:
                record["keywords"].append(keyword.upper())
        self._abilities(record, models)
        lost = record["unresolved"] = self.data.unresolved(entry)
        lacks = f" (the checkout lacks {', '.join(sorted(self.data.missing))})" if self.data.missing else ""
        if lost:
            self.notes.append(f"links to entries in none of the files read{lacks}, so not in this datasheet: "
                              f"{', '.join(lost)}")
        record["incomplete"] = f"the default wargear of its models links to entries in none of the files read" \
            f"{lacks}: {', '.join(sorted(set(self.lost)))}" if self.lost else ""
        record["sizes"], record["points"] = self._points(size_low, size_high, models)
        record["limits"] = self._size_limits(models, size_high)
        record["leasts"] = [{"what": name, "least": least, "kinds": [m["name"] for m in kinds],
                             "fills": next((m["name"] for m in kinds if m.get("default")), None)}
                            for name, least, kinds in self.short]
        for modifier in _modifiers(entry):
            if modifier.get("field") == "error" and modifier.get("type") == "add":
                self._alike(modifier)
        record["alike"] = [sorted(names) for names in self.alike]
        for composition in self.compositions:  # a kind's saves as the default composition's kind of that name
            for model in composition["models"]:
                same = next((m for m in models if m["name"] == model["name"]), {})
                model.update({k: same[k] for k in ("invulnerable", "feel_no_pain") if k in same})
        record["compositions"] = self.compositions
        for model in models:
            del model["_entry"], model["_link"]
        return record

    def _size_limits(self, models: list[Record], high: int) -> list[Record]:
        """The most models of a group of kinds ('Special Weapons: 1, and 2 from 20 models'), of a kind whose most
        follows the unit's size, and of a piece of wargear, a kind or a group of kinds where an error says it
        (`_caps`: Plague Marines' 'Special weapons', 'Max 1 per 5 models')."""
        limits = []
        ids, unit = self.groups, self.entry.get("id", "")
        for link, kinds in self.pools:
            steps = link.most_by_size(high, ids, unit) or [[0, link.maximum or 0]]
            group = link.entry.get("name", "").strip()
            limits.append({"what": group, "kinds": [m["name"] for m in kinds], "most": steps})
            for modifier in (m for e in (link.link, link.entry) for m in _modifiers(e)):  # 'Max 1 per 5 models'
                if modifier.get("field") == "error" and modifier.get("type") == "add":
                    self.capped_kinds += [(kinds, group, most, sizes)
                                          for most, sizes in self._caps(modifier, {link.link_id, link.entry.get("id")})]
        for model in models:
            steps = model["_link"].most_by_size(high, ids, unit)
            if steps:  # the kind's most is the most of any size; the limit keeps it to its size's
                limits.append({"what": model["name"], "kinds": [model["name"]], "most": steps})
                model["max"] = max(most for _, most in steps)
        capped = [(name, "items", [name.lower()], most, sizes) for name, most, sizes in self.capped]
        capped += [(what, "kinds", [model["name"] for model in kinds], most, sizes)
                   for kinds, what, most, sizes in self.capped_kinds]
        for name, field, what, most, sizes in capped:
            if any(_size_test(c, 1, ids) is None for c in sizes):
                continue
            steps = []
            for size in range(1, high + 1):
                value = most if all(_size_test(c, size, ids) for c in sizes) else size
                if not steps or steps[-1][1] != value:
                    steps.append([size if steps else 0, value])
            limits.append({"what": name, field: what, "most": steps})
        for name, (most, ident, link) in self.items.items():  # '+1 for every 10 models' read by size
            steps = _steps(most, link.changes({ident}), high, ids, unit)
            limits.append({"what": name, "items": [name.lower()], "most": steps})
        return limits

    # ---- models and their wargear
    def _models(self) -> list[Record]:
        if self.entry.get("type") == "model":
            self.span = (1, 1)
            return [self._model(Link(self.entry, 1, 1, self.entry.get("id", "")))]
        found: list[Record] = []
        self.span = self._find_models(self.entry, found)
        if not found:
            raise MathhammerError("no model entries")
        if self.bundle_size and len(found) != self.bundled and self.span:  # models beside the bundle count too:
            self.bundle_size += self.span[0]  # a Pack Leader and a Dishonoured beside Jakhals' '8 chainblades'
        if self.compositions and len(found) != self.bundled:  # models beside the bundles: their sizes not known
            self.notes.append("unit compositions not read, so their sizes cannot be asked for: " + ", ".join(
                repr(c["name"]) for c in self.compositions))
            self.compositions = []
        named_once(found)
        self._associated(found)
        unit_gear, _ = self._wargear(self.entry)
        if unit_gear:  # none in the BSData set today: a model would have to be chosen to carry it
            self.notes.append(f"wargear of the whole unit not given to any model: {', '.join(unit_gear)}")
        return found

    def _find_models(self, element: Element, found: list[Record]) -> Span | None:
        """Model entries below `element`, and the fewest and most models its selections count (None where
        they count none: no models, or models only inside a bundle). A group counts the models of its kinds
        and of the groups inside it, within its own least and most ('9 Kasrkin Troopers' beside one
        Sergeant: 10 models). Where the unit composition is a choice of bundles ('1 Spanner and 4 Burna
        Boyz' or '2 Spanners and 8 Burna Boyz'), the default bundle's models (the bundle's selection counts
        bundles, not models: its size is in its name, `bundle_size`)."""
        default_id = element.get("defaultSelectionEntryId") if tag(element) == "selectionEntryGroup" else None
        bundles = []
        spans: list[Span] = []
        instead = _in_place(self.data.children(element))
        for link in self.data.children(element):
            if tag(link.entry) == "selectionEntry" and link.entry.get("type") == "model":
                found.append(self._model(link, default_id in (link.link_id, link.entry.get("id"))))
                for key in {link.link_id, link.entry.get("id", "")}:
                    self.kinds.setdefault(key, []).append(found[-1])
                spans.append((link.minimum, link.minimum if link.entry.get("id") in instead else found[-1]["max"]))
            elif tag(link.entry) == "selectionEntryGroup":
                before = len(found)
                inner = self._find_models(link.entry, found)
                if inner is None:
                    continue
                self.groups.add(link.entry.get("id", ""))
                self.kinds.setdefault(link.entry.get("id", ""), []).extend(found[before:])
                if link.maximum is not None:
                    self.pools.append((link, found[before:]))
                if link.minimum > inner[0]:  # '4-8 Neophytes': at least 4 of its kinds
                    self.short.append((link.entry.get("name", "").strip(), link.minimum, found[before:]))
                most = inner[1] if link.maximum is None else link.maximum if inner[1] is None \
                    else min(inner[1], link.maximum)
                spans.append((max(inner[0], link.minimum), most))
            elif self._holds_models(link.entry):
                bundles.append(link)
        if bundles:
            chosen = next((b for b in bundles if default_id in (b.link_id, b.entry.get("id"))), bundles[0])
            self.bundle_size = _bundle_size(chosen.entry)
            self.bundles.add(chosen.entry.get("id", ""))
            before = len(found)
            counts = _fits(self._find_models(chosen.entry, found), self.bundle_size) \
                and tag(element) == "selectionEntryGroup"  # a choice of bundles whose names count their models
            self.bundled = len(found) - before
            unread = [b for b in bundles if b is not chosen and not (counts and self._composition(b.entry))]
            if unread:
                self.notes.append(f"unit composition {chosen.entry.get('name', '')!r} read; not read, so its sizes "
                                  f"cannot be asked for: {', '.join(repr(b.entry.get('name', '')) for b in unread)}")
        if not spans:
            return None
        highs = [high for _, high in spans]
        return sum(low for low, _ in spans), None if None in highs else sum(h for h in highs if h is not None)

    def _associated(self, models: list[Record]) -> None:
        """Optional wargear of the unit's own (not of a model's) that the catalogue associates with a kind of its
        `models` (or with any model), the one that carries it (an Infiltrator's Helix Gauntlet, a Scarab Occult
        Terminator's Hellfyre missile rack, a Berzerker's Icon of Khorne): offered to that kind as wargear it may
        take as well, at most as many in the unit as the entry's own constraint allows."""
        for link in self.data.children(self.entry):
            entry = link.entry
            carriers = [a.get("childId", "") for e in (link.link, entry)
                        for a in kids(e, "associations", "association")]
            if tag(entry) != "selectionEntry" or entry.get("type") == "model" or link.minimum or not carriers:
                continue
            kinds = {id(model): model for carrier in carriers for model in self._carriers(carrier, models)}
            gear = (self._weapon(link, self.entry) or next(iter(self._offered(self.entry, link)), None)) \
                if kinds else None
            if gear is None:
                continue
            for c in (c for e in (link.link, link.entry) for c in kids(e, "constraints", "constraint")):
                if (c.get("type"), c.get("field"), c.get("scope")) == ("max", "selections", "parent"):  # the unit's
                    self.items.setdefault(gear, (whole(c.get("value"), "a unit's most of a piece of wargear"),
                                                 c.get("id"), link))
            for model in kinds.values():
                if not any(option["with"] == [gear] for option in model["options"]):
                    model["options"].append({"replaces": [], "with": [gear], "gives": {}})

    def _carriers(self, carrier: str, models: list[Record]) -> list[Record]:
        """The kinds of `models` an association names: by a kind's or a group's id, any model ('model'), or a
        category its kinds have (Jakhals' 'Jakhal')."""
        if carrier == "model":
            return models
        return self.kinds.get(carrier) or [
            model for model in models if any(c.get("targetId") == carrier
                                             for e in (model["_link"].link, model["_entry"])
                                             for c in kids(e, "categoryLinks", "categoryLink"))]

    def _composition(self, bundle: Element) -> bool:
        """Read a unit composition other than the default ('2 Shock Trooper Sergeants and 18 Shock Troopers'):
        its models and limits, at its size (from its name), kept in `compositions`; False where it has no
        size of its own or no model to read."""
        size = _bundle_size(bundle)
        if not size or size == self.bundle_size or any(c["size"] == size for c in self.compositions):
            return False
        other = UnitReader(self.data, self.entry, self.faction, self.source)
        models: list[Record] = []
        other.bundle_size, other.bundles = size, {bundle.get("id", "")}
        if not _fits(other._find_models(bundle, models), size) or not models:
            return False
        named_once(models)
        self.weapons.update({k: v for k, v in other.weapons.items() if k not in self.weapons})
        limits = other._size_limits(models, size)
        for model in models:
            del model["_entry"], model["_link"]
        self.compositions.append({"size": size, "models": models, "limits": limits, "notes": other.notes,
                                  "name": bundle.get("name", "").strip()})
        return True

    def _in_bundle(self, link: Link) -> int | None:
        """A kind's most, as the unit composition read changes it: a modifier whose conditions are that the kind is
        inside that composition ('+1 in 2 Shock Trooper Sergeants and 18 Shock Troopers': instanceOf an ancestor)."""
        if link.maximum is None:
            return None
        wanted = {c.get("id") for e in (link.link, link.entry) for c in kids(e, "constraints", "constraint")
                  if c.get("type") == "max" and c.get("field") == "selections" and c.get("scope") == "parent"}
        value = link.maximum
        for modifier in link.changes(wanted):
            tests = [c for c in modifier.iter() if tag(c) in ("condition", "repeat")]
            if tests and all(tag(c) == "condition" and (c.get("type"), c.get("scope")) == ("instanceOf", "ancestor")
                             and c.get("childId") in self.bundles for c in tests):
                amount = whole(modifier.get("value"), "a modifier's number of selections")
                value = {"increment": value + amount, "decrement": max(value - amount, 0),
                         "set": amount}.get(modifier.get("type", ""), value)
        return value

    def _holds_models(self, element: Element, depth: int = 3) -> bool:
        return depth > 0 and any(c.entry.get("type") == "model" or self._holds_models(c.entry, depth - 1)
                                 for c in self.data.children(element))

    def _model(self, link: Link, default: bool = False) -> Record:
        """One kind of model: its profile, wargear, least and most (the most per unit where the catalogue
        writes it so: 'max 2 of this kind in the unit'), and whether it is its group's default choice (the
        kind whose number follows the unit's size)."""
        entry = link.entry
        stats = [p for p, _ in self.data.profiles(entry) if p.get("typeName") == "Unit"]
        if not stats:  # a profile written on the unit, or on another of its models
            stats = self._unit_profiles
            named = [p for p in stats if p.get("name", "").lower() == entry.get("name", "").lower()]
            stats = named or stats
        mark = len(self.notes)
        equipment, options = self._wargear(entry, model=True)
        notes = self.notes[mark:]  # about this kind's wargear: said where a unit of the question has this kind
        del self.notes[mark:]
        per_unit = [whole(c.get("value"), "a unit's most of a kind of model", signed=True)
                    for e in (link.link, entry) for c in kids(e, "constraints", "constraint")
                    if c.get("type") == "max" and c.get("field") == "selections"
                    and c.get("scope") in ("unit", self.entry.get("id"))]
        most = min([n for n in (self._in_bundle(link), *per_unit) if n is not None and 0 <= n <= MAX_TARGET_MODELS],
                   default=None)
        record = {"name": entry.get("name", "").strip(), "min": link.minimum, "max": most,
                  "stats": characteristics(stats[0]) if stats else {}, "equipment": equipment, "options": options,
                  "notes": notes, "_entry": entry, "_link": link}
        for modifier in (m for e in (link.link, entry) for m in _modifiers(e)):  # 'no more than 2 below 20 models'
            if modifier.get("field") == "error" and modifier.get("type") == "add":
                for most, sizes in self._caps(modifier, {link.link_id, entry.get("id")}):
                    self.capped_kinds.append(([record], entry.get("name", "").strip(), most, sizes))
        if default:
            record["default"] = True
        own = [c.get("name", "").strip().upper() for e in (entry, link.link) for c in kids(e, "categoryLinks",
                                                                                         "categoryLink")]
        if own := [k for k in dict.fromkeys(own) if k and not k.startswith("FACTION:")]:
            record["keywords"] = own  # this kind's own (a Scarab Occult Sorcerer's PSYKER), beside the unit's
        return record

    @functools.cached_property
    def _unit_profiles(self) -> list[Element]:
        """The Unit profiles on or below the unit, for its models with none of their own (worked out once: 570
        such models of 10th-edition BSData are in 147 units)."""
        return [p for element in self.entry.iter() for p, _ in self.data.profiles(element)
                if p.get("typeName") == "Unit"]

    def _weapon(self, link: Link, holder: Element) -> str | None:
        """Register an entry's weapon profiles and the most of it a unit may have; its name, or None if it
        carries no weapon. A weapon of the name of another of the unit's with other profiles (a Missile Drone's
        missile pod at BS 5+ beside its battlesuit's at BS 4+) is named after its `holder` as well."""
        profiles = weapon_profiles(self.data, link.entry)
        if not profiles:
            return None
        name = link.entry.get("name", "").strip()
        kept = self.weapons.get(name, profiles)
        if kept is not profiles and kept != profiles and _alike(kept) != _alike(profiles):
            # the one of that name named so already, else named after its holder (a review found three Neophyte
            # autopistols alike named apart)
            held = f"{name} ({' '.join(holder.get('name', '').split())})"
            name = next((other for other, theirs in self.weapons.items() if other.startswith(f"{name} (")
                         and _alike(theirs) == _alike(profiles)), held)
        self.weapons.setdefault(name, profiles)
        self.pieces.setdefault(name, link.entry)
        self._priced(link, name)
        for element in (link.link, link.entry):
            for c in kids(element, "constraints", "constraint"):
                if c.get("type") == "max" and c.get("field") == "selections" \
                        and c.get("scope") in ("unit", self.entry.get("id")):
                    self.items.setdefault(name, (whole(c.get("value"), "a unit's most of a weapon"), c.get("id"), link))
            for modifier in _modifiers(element):
                if modifier.get("field") == "error" and modifier.get("type") == "add":
                    for most, sizes in self._caps(modifier, {link.entry.get("id"), link.link_id}):
                        if (name, most, sizes) not in self.capped:  # the same error, reached by two kinds of model
                            self.capped.append((name, most, sizes))
                    self._alike(modifier)
        return name

    def _caps(self, modifier: Element, ids: set[str | None]) -> list[tuple[int, list[Element]]]:
        """An error a catalogue raises ('Max 1 per 5 models') when a unit of some sizes has more than K of a piece
        of wargear, a kind of model or a group of kinds (of `ids`): (K, the conditions on the unit's size where it
        holds); one raised in either of several cases ('fewer than 15 models and more than 2, or fewer than 20 and
        more than 3') as each case's, and a case that counts them in the unit whatever its size ('or more than 2')
        as a most at every size (no condition)."""
        if any(tag(c) == "repeat" for c in modifier.iter()):
            return []
        found = []
        for conditions in _ways(modifier):
            counted = [c for c in conditions
                       if c.get("childId") in ids and c.get("type") in ("greaterThan", "atLeast")]
            sizes = [c for c in conditions if c not in counted]
            if len(counted) == 1 and (sizes or counted[0].get("scope") in ("unit", self.entry.get("id"))):
                most = whole(counted[0].get("value"), "a number of selections") - (counted[0].get("type") == "atLeast")
                found.append((most, sizes))
        return found

    def _alike(self, modifier: Element) -> None:
        """An error a catalogue raises where a unit holds two kinds of some wargear ('All models must be equipped
        identically': at least 1 gauss blaster and at least 1 tesla carbine): read as those kinds, of which a
        unit carries one only, its models all alike; kinds that share one are one such set."""
        tests = [c for c in modifier.iter() if tag(c) in ("condition", "repeat")]
        top = [c for box in modifier if box.tag in ("conditions", "conditionGroups") for c in box]
        ids = {c.get("childId", "") for c in tests}
        if len(ids) < 2 or (len(top) == 1 and top[0].get("type") == "or") or any(
                tag(c) != "condition" or c.get("field") != "selections" or c.get("childId") not in self.data.ids
                or (c.get("type"), whole(c.get("value"), "a condition's number")) not in (("atLeast", 1),
                                                                                       ("greaterThan", 0))
                for c in tests):
            return
        self._join_alike({self.data.ids[i].get("name", "").strip() for i in ids})

    def _join_alike(self, names: set[str]) -> None:
        """Wargear of which the unit carries one only, its models all alike: one set with those it shares one with."""
        joined = [kinds for kinds in self.alike if kinds & names]
        self.alike = [kinds for kinds in self.alike if not kinds & names] + [names.union(*joined)]

    def _followers(self, group: Element) -> list[Link]:
        """The choices of a model's group that the catalogue makes it take where the unit's models carry them: each
        one's least is set to 1 while the unit holds one of some entry ('Volkanite disintegrator': a Hesyr's ranged
        weapon is the one his Einhyr Hearthguard carry), shown or hidden, each as a choice of at most 1."""
        raised, ids = self.data.raised(group)
        return [Link(entry, 0, 1, (link if link is not None else entry).get("id", ""), link)
                for link, entry, ways in raised
                if all(_counts_unit(way, self.entry.get("id"), ids) and self._holds_same(way, entry) for way in ways)]

    def _holds_same(self, way: list[Element], entry: Element) -> bool:
        """Whether what a way of conditions counts in the unit (`_counts_unit`) is wargear of `entry`'s name: the
        model follows its unit's choice of that piece, not some other selection."""
        counted = [c for c in way if (c.get("type"), c.get("value", "").strip()) in (("greaterThan", "0"),
                                                                                     ("atLeast", "1"))]
        name = normalise(entry.get("name", ""))
        return all(c.get("childId") in self.data.ids and normalise(self.data.ids[c.get("childId", "")].get("name", ""))
                   == name for c in counted)

    def _wargear(self, element: Element, model: bool = False) -> tuple[list[str], list[Record]]:
        """The default equipment below `element` (not below its models) and the swaps its choice groups allow.
        A `model`'s own wargear with no weapon but an ability of its name (a storm shield) is carried too
        (`_worn`), so that a loadout can name the kind of model that carries it."""
        equipment: list[str] = []
        options: list[Record] = []
        self.lost += self._lost_defaults(element)
        for link in self.data.children(element):
            entry = link.entry
            if tag(entry) == "selectionEntry":
                if entry.get("type") == "model":
                    continue
                name = self._weapon(link, element)
                mark = len(self.lost)
                inner, inner_options = self._wargear(entry, model)
                options += inner_options
                if not link.minimum:  # what an entry not taken by default holds is no default
                    del self.lost[mark:]
                if link.minimum >= 1:
                    worn = self._worn(link) if model and not name and not inner else []
                    equipment += [name] * link.minimum if name else (inner or worn) * link.minimum
                elif model and name and link.maximum and _taken_as_well(element, link):
                    options.append({"replaces": [], "with": [name], "gives": {}})
            else:
                self._group(link, equipment, options, model)
        return equipment, options

    def _lost_defaults(self, element: Element, default: str | None = None) -> list[str]:
        """The names of the links below `element` to entries in none of the files read that its models carry by
        default: each taken at least once, or the one its `default` id names (a group's default choice)."""
        return [link.get("name", "").strip() for link in kids(element, "entryLinks", "entryLink")
                if link.get("targetId", "") not in self.data.ids and _wanted(link)
                and link.get("name", "").strip().lower() not in _NO_WARGEAR
                and (_limits(link)[0] >= 1 or default is not None and link.get("id") == default)]

    def _group(self, link: Link, equipment: list[str], options: list[Record], model: bool = False) -> None:
        """A choice group's default wargear (added to `equipment`) and its other choices as a swap (a `model`'s:
        a choice that is a bundle carries its worn wargear too, 'Thunder Hammer & Storm Shield')."""
        group = link.entry
        default_id = group.get("defaultSelectionEntryId")
        self.lost += self._lost_defaults(group, default_id)
        choices: list[tuple[Link, str | None, list[str]]] = []
        #: each choice's own swaps, notes and default wargear lost, by id of its link
        within: dict[int, tuple[list[Record], list[str], list[str]]] = {}
        followers = self._followers(group) if model else []
        listed = self._choices(link)
        shown = {id(child.entry) for child, _ in listed}
        for child, apart in [*listed, *((c, False) for c in followers if id(c.entry) not in shown)]:
            if apart:
                self._group(child, equipment, options, model)
                continue
            name = self._weapon(child, group)
            mark, lost = len(self.notes), len(self.lost)
            inner, inner_options = self._wargear(child.entry, model)
            within[id(child)] = inner_options, self.notes[mark:], self.lost[lost:]
            del self.notes[mark:], self.lost[lost:]  # said only for a choice taken (below)
            choices.append((child, name, [name] if name else inner))
        if not choices:
            return
        if followers:  # the model carries what the unit's models carry: they are all alike in it
            self._join_alike({child.entry.get("name", "").strip() for child in followers})
        default = named = next((c for c in choices if default_id in (c[0].link_id, c[0].entry.get("id"))), None)
        if default is None and default_id not in (None, "", "none") and any(
                other.get("targetId", "") not in self.data.ids for other in kids(group, "entryLinks", "entryLink")):
            self.lost.append(f"the default choice of {group.get('name', '').strip()!r}")  # most likely one of those
        amounts = [(c, max(_default_amount(c[0]), c[0].minimum)) for c in choices] if default is None else []
        if any(_default_amount(c[0]) for c, _ in amounts):  # each choice the catalogue takes by default, so many
            # times ('Weapons': two of plasma rifle and missile pod, one of each by default); a choice taken beyond
            # its least may be swapped for another choice
            for (child, _, gear), n in amounts:
                if not n:
                    continue
                equipment += (gear or self._worn(child)) * n
                options += within[id(child)][0]
                self.notes += within[id(child)][1]
                self.lost += within[id(child)][2]
                if n > child.minimum and (swap := _swap(choices, child)):
                    options.append(swap)
            return
        if default is None and link.minimum >= 1:  # the one the group is named after ('Twin Battle Cannon'), else
            # the first that is wargear, rather than a system with no profile
            titled = [c for c in choices if loose(c[0].entry.get("name", "")) == loose(group.get("name", ""))]
            named = titled[0] if len(titled) == 1 else None
            default = named or next((c for c in choices if c[2]), choices[0])
            given = _any_of(link, [c[0] for c in choices]) and sum(c[0].minimum for c in choices) == link.minimum
            if len(choices) > 1 and (default[2] or named) and not given:  # (not where each choice's least fills it)
                said = "names no default choice" if default_id in (None, "", "none") else \
                    f"names as its default choice an entry that is none of these (id {default_id!r})"
                why = ", the choice the group is named after" if named else ""
                self.notes.append(f"{group.get('name', '').strip()!r}: the catalogue {said}; "
                                  f"read as {default[0].entry.get('name', '').strip()}{why} (also offered: "
                                  + ", ".join(c[0].entry.get("name", "").strip() for c in choices
                                              if c is not default) + ")")
        required = [(child, gear) for child, _, gear in choices
                    if child.minimum >= 1 and child is not (default[0] if default else None)]
        for child, gear in required:  # each as many times as its least ('2 fusion blasters')
            equipment += (gear or self._worn(child)) * child.minimum
        for child in [c for c, _ in required] + ([default[0]] if default else []):  # what a choice taken holds
            options += within[id(child)][0]
            self.notes += within[id(child)][1]
            self.lost += within[id(child)][2]
        if default is None:  # a group that asks for no choice: wargear a model may take ('Sponsons'), an ability's too
            if link.minimum or required:
                return
            offered = [(child, name, gear or self._offered(group, child)) for child, name, gear in choices]
            for pick in range(1, (link.maximum or 1) + 1):  # 'Drones (0-2)': a second pick of the choices that allow
                # two (a Strike Team's Shas'ui: two missile drones, or a gun drone and a marker drone)
                if addition := _swap([c for c in offered if c[0].maximum is None or c[0].maximum >= pick], None):
                    options.append(addition)
            return
        # the default fills the group's least that the required choices leave ('Weapons: 2 of ...')
        picks = max(link.minimum - sum(child.minimum for child, _ in required), default[0].minimum, 1)
        worn = self._worn(default[0]) if named and not default[2] else []  # a default the catalogue names (or titles)
        filled = min(picks, default[0].maximum or picks)
        equipment += (default[2] or worn) * filled
        if _any_of(link, [child for child, _, _ in choices]):  # each piece taken by default may be swapped for any
            # other choice, as many as the group holds ('4 of big shoota, dread klaw, ...': a Deff Dread's weapons)
            for child in [c for c, _ in required for _ in range(c.minimum)] + [default[0]] * filled:
                if swap := _swap(choices, child):
                    options.append(swap)
            return
        if worn:  # wargear with an ability alone ('Slabshield', a Wraithknight's scattershield), swapped for another
            # choice ('Brute shield', a heavy wraithcannon): its ability goes with it (`_abilities`: in force where
            # carried)
            choices = [(child, name, worn if child is default[0] else gear or self._offered(group, child))
                       for child, name, gear in choices]
        if swap := _swap(choices, default[0]):
            options.append(swap)

    def _choices(self, link: Link) -> list[tuple[Link, bool]]:
        """A choice group's choices, each with whether it is a group read on its own (True). A group that asks
        for a choice and holds only groups that ask for none and name no default, not even one absent from the
        files read ('Weapon': one of the groups 'Special Weapons' and 'Heavy Weapons'), is a choice among all of
        their choices. Models and unit compositions are left to `_find_models`."""
        def wargear(group: Element) -> list[Link]:
            return [child for child in self.data.children(group)
                    if child.entry.get("type") != "model" and not self._holds_models(child.entry)]
        below = wargear(link.entry)
        if link.minimum >= 1 and below and all(tag(c.entry) == "selectionEntryGroup" and c.minimum == 0
                                               and c.entry.get("defaultSelectionEntryId", "none") == "none"
                                               for c in below):
            below = [choice for group in below for choice in wargear(group.entry)]
        return [(c, tag(c.entry) == "selectionEntryGroup") for c in below]

    def _worn(self, link: Link) -> list[str]:
        """A choice of a group that is no weapon and holds none, but is wargear with an ability of its name (a
        Weavefield crest): itself, so that its bearer is equipped with it, its ability is the bearer's (`_own`)
        and a loadout may name it; else nothing. What it gives its bearer goes with it (`_bearers`)."""
        entry = link.entry
        name = entry.get("name", "").strip()
        if not any(p.get("typeName") == "Abilities" and p.get("name", "").strip().lower() == name.lower()
                   for p, _ in self.data.profiles(entry)):
            return []
        self.pieces.setdefault(name, entry)
        self._priced(link, name)
        return [name]

    def _offered(self, group: Element, link: Link) -> list[str]:
        """A choice of a group a model may take from that is wargear with an ability alone (a Guardian Drone:
        `_worn`), where it is the unit's wargear (not the army list's or Crusade play's: `_not_wargear`) and its
        ability is shown to the unit's army and in this unit (not a Mark of Chaos whose ability is hidden unless
        the unit is Accursed Cultists)."""
        name = link.entry.get("name", "").strip().lower()
        shown = any(p.get("typeName") == "Abilities" and p.get("name", "").strip().lower() == name
                    and not self._hidden_outside(p)
                    for p, _ in self.data.shown_in(self.faction, self.data.profiles(link.entry)))
        return self._worn(link) if shown and not _not_wargear(group, link) else []

    def _hidden_outside(self, element: Element) -> bool:
        """Whether a modifier hides `element` except below another unit ('hidden unless an ancestor is an Accursed
        Cultists unit', and this unit is not one)."""
        return any(all(c.get("type") == "notInstanceOf" and c.get("scope") == "ancestor"
                       and c.get("childId") != self.entry.get("id") for c in conditions)
                   for modifier in kids(element, "modifiers", "modifier")
                   if (modifier.get("field"), modifier.get("type"), modifier.get("value")) == ("hidden", "set", "true")
                   and not any(kids(modifier, "conditionGroups", "conditionGroup"))
                   for conditions in [list(kids(modifier, "conditions", "condition"))] if conditions)

    def _priced(self, link: Link, name: str) -> None:
        """The points of a piece of wargear, where it costs some (the 11th edition's missile pods, 5 each): its
        link's cost where the link gives one, else its entry's."""
        cost = (_cost(link.link) if link.link is not None else 0) or _cost(link.entry)
        if cost:
            self.costs.setdefault(name, cost)

    # ---- unit size and points
    def _size(self, models: list[Record]) -> tuple[int, int]:
        """Smallest and largest unit: what the unit's selections count (`_find_models`), or its unit
        compositions' sizes; where no most is given, the fixed models plus the most of the kind that can be
        most numerous."""
        if self.bundle_size:
            sizes = [self.bundle_size, *(c["size"] for c in self.compositions)]
            return min(sizes), max(sizes)
        low, high = self.span or (0, None)
        if high is None:
            fixed = sum(m["min"] for m in models if m["max"] == m["min"])
            high = fixed + max((m["max"] or m["min"] for m in models if m["max"] != m["min"]), default=0)
        return max(low, 1), max(high, low, 1)

    def _points(self, low: int, high: int, models: list[Record]) -> tuple[list[int], dict[str, int]]:
        """Unit sizes and their points. The unit costs its base cost; a 'set points' modifier sets it at the
        sizes its conditions hold for (`_priced_at`: 'at least 6 models', 'exactly 2', 'fewer than 10'). Between
        `low` and `high` each size where the price changes ends a bracket, whose size is its largest (5 models:
        80, 10 models: 160). Where every model has one price and the unit none of its own, each size is its own."""
        per_model = [m for m in models if m["_entry"] is not self.entry and _cost(m["_entry"])]
        each = {_cost(m["_entry"]) for m in per_model}
        if len(each) == 1 and len(per_model) == len(models) and low < high:  # every model the same price: any size
            return list(range(low, high + 1)), {str(n): _cost(self.entry) + n * min(each) for n in range(low, high + 1)}
        base = _cost(self.entry) + sum(_cost(m["_entry"]) * m["min"] for m in per_model)
        setters = [(m, around) for m, around in _grouped(self.entry)
                   if m.get("type") in ("set", "increment", "decrement") and m.get("field") in self.data.points_types]
        price = {n: self._priced_at(base, setters, n, models, high) for n in range(low, high + 2)}
        ends = [n for n in range(low, high + 1) if n == high or price[n] != price[n + 1]]
        if len(ends) > 1 and ends[0] == low and price[low] == price[low + 1]:
            ends = ends[1:]
        if len(ends) == 1 and low != high:  # one price at every size
            ends = [low, high]
        if self.bundle_size:  # unit compositions: their sizes, and none between ('5 models' or '10 models')
            ends = sorted({self.bundle_size, *(c["size"] for c in self.compositions)})
        if per_model and len(set(price.values())) == 1 and low != high:
            self.notes.append(f"points: {base} for {low} model{'' if low == 1 else 's'}, more models cost more")
            return [low, high], {str(low): base}
        if not base and len(set(price.values())) == 1:
            return ends, {}
        return ends, {str(size): price[size] for size in ends}

    def _priced_at(self, base: int, setters: list[tuple[Element, tuple[Element, ...]]], size: int,
                   models: list[Record], high: int) -> int:
        """The unit's points at `size` models: its points modifiers ('set', 'increment') whose conditions, and those
        of the modifier groups around them, hold there, in order, with its models of each kind as its datasheet
        fields them at that size (`_filled`), and nothing else taken (a condition on an upgrade holds as with
        none); one that counts the army changes nothing."""
        counts = _filled(models, size, high)
        price = base
        for modifier, around in setters:  # in the catalogue's order: 'set 150', or 'increment 70' (Tactical Drones)
            if all(_holds(m, lambda c: self._counted(c, size, counts)) for m in (*around, modifier)):
                value = whole(modifier.get("value"), f"the points of {self.entry.get('name')!r}")
                kind = modifier.get("type")
                price = value if kind == "set" else price + value if kind == "increment" else max(price - value, 0)
        return price

    def _counted(self, condition: Element, size: int, counts: dict[int, int]) -> bool | None:
        """Whether `condition` holds in the unit at `size` models of these `counts` (by kind); None if it counts
        more than the unit (the army) or not its selections."""
        child = condition.get("childId", "")
        if condition.get("scope") == "primary-catalogue" and condition.get("type") in ("instanceOf", "notInstanceOf"):
            # the army of the unit's own faction ('not an Agents of the Imperium army': a Deathwatch one)
            return (child in self.data.catalogues_of(self.faction)) == (condition.get("type") == "instanceOf")
        if tag(condition) != "condition" or condition.get("field") != "selections" \
                or condition.get("scope") in _ARMY_SCOPES or condition.get("type") not in _SIZE_TESTS:
            return None
        bundle = self.data.ids.get(child)
        if child in self.kinds or child == "model":
            counted = size if child == "model" else sum(counts[id(m)] for m in self.kinds[child])
        elif bundle is not None and self._holds_models(bundle) and _bundle_size(bundle):
            counted = int(_bundle_size(bundle) == size)  # a unit composition, taken where it is of that size
        else:
            counted = 0  # an upgrade: none taken
        return bool(_SIZE_TESTS[condition.get("type", "")](counted, whole(condition.get("value"), "a number")))

    # ---- abilities
    def _abilities(self, record: Record, models: list[Record]) -> None:
        """The unit's abilities by name and the units it can lead; the invulnerable saves and Feel No Pain
        they give, each to whom its text gives it: the whole unit, or the model whose ability (or default
        wargear's) it is. For a unit of one model, that model's are the unit's."""
        seen: set[str] = set()
        texts: set[str] = set()
        single = len(models) == 1 and models[0]["max"] in (1, models[0]["min"])
        places = [(self.entry, None), *((e, m) for m in models for e in self._own(m))]
        bonuses: list[tuple[Record, str, int]] = []  #: (model, its wargear's ability, Wounds it adds)
        record["bearers"] = self._bearers(models)
        carried_words = [normalise(word) for profiles in self.weapons.values() for profile in profiles
                         for word in profile["chars"].get("Keywords", "").split(",")]
        carried_words += WEAPON_ABILITIES
        swappable = {name for m in models for option in m["options"] for name in option["replaces"]}
        given_up: Record = {}  #: a default piece a swap gives up -> its abilities: in force where it is carried
        for element, model in places:
            owner = "" if model is None else model["name"]
            piece = model is not None and element is not model["_entry"]  # wargear: its bearer's are in `bearers`
            if model is None or element is model["_entry"]:  # the unit's and its models', not their wargear's
                record["army_rules"] += [n for n in self.data.army_rules(element, self.faction)
                                         if n not in record["army_rules"]]
            held = given_up.setdefault(element.get("name", "").strip(), []) if piece and \
                element.get("name", "").strip() in swappable else record["ability_texts"]
            for profile, _ in self.data.shown_in(self.faction, self.data.profiles(element)):
                if profile.get("typeName") == "Abilities" and profile.get("name", "") not in texts:
                    texts.add(profile.get("name", ""))
                    held.append([profile.get("name", ""), characteristics(profile).get("Description", ""), owner])
                    if choice := self.data.army_choice(profile):
                        record["ability_needs"][profile.get("name", "")] = choice
            weapon_words = [normalise(word) for profile, _ in self.data.profiles(element) if is_weapon(profile)
                            for word in characteristics(profile).get("Keywords", "").split(",")]
            weapon_words += carried_words if piece else []  # a piece's weapon rule written on another entry
            for name, suffix, text in self.data.rules(element, self.faction):
                more = bearer_characteristics(text).get("more_wounds")
                if model is not None and more and (model["name"], name) not in {(m["name"], n) for m, n, _ in bonuses}:
                    bonuses.append((model, name, more))
                label = f"{name} {suffix}".strip()
                # a weapon's ability (Pistol, Rapid Fire 1), written on its profile too, is not the unit's
                if label not in seen and not any(word.startswith(normalise(name)) for word in weapon_words):
                    seen.add(label)
                    record["abilities"].append(label)
                record["leader_of"] = record["leader_of"] or leader_units(text)
                for kind, reading in _defences(name, suffix, text):
                    if reading["scope"] == "leading" or (piece and reading["scope"] == "model"):
                        continue  # the Attached unit's (read from its text: `ability_text`), or its bearer's
                    if piece and reading["scope"] == "unit" and any(element is e for e in self.pieces.values()):
                        continue  # its bearer's unit's while a model carries it (`bearers`: a weavefield crest)
                    if reading["scope"] == "model" and model is None and not single and _BORNE.search(text):
                        self.defence_notes.append(f"{kind.replace('_', ' ')} {reading['value']}+ in {name!r} is for "
                                                  "one model (its bearer), which the datasheet does not name: not "
                                                  "applied")
                        continue
                    # the datasheet's "this model": each of its models (Daughter of the Abyss), as the unit's
                    holder = model if reading["scope"] == "model" and not single and model is not None else record
                    assert holder is not None
                    holder[kind] = best(holder.get(kind), reading)
        self._more_wounds(models, bonuses)
        record["wargear_abilities"] = {**self._optional_abilities(models, texts),
                                       **{name: found for name, found in given_up.items() if found}}
        own = [element for element, model in places if model is None or element is model["_entry"]]
        for faction in self.data.fielders(self.faction):
            there = list(dict.fromkeys(n for element in own for n in self.data.army_rules(element, faction)))
            if there != record["army_rules"]:  # the Space Marines' Intercessors in a Black Templars army
                record["army_rules_for"][faction] = there

    def _optional_abilities(self, models: list[Record], read: set[str]) -> Record:
        """The abilities of wargear a loadout may take (an omnispex), by its name: [name, text, its kind of model]
        of each, read where a loadout gives it (`Datasheet.wargear_abilities`); what a model carries by default is
        read as the unit's (`_own`), and abilities of the unit's own names (`read`) are not read again."""
        default = {name for model in models for name in model["equipment"]}
        found: Record = {}
        for name, piece in self.pieces.items():
            if name in default:
                continue
            takers = [m["name"] for m in models if any(name in option["with"] for option in m["options"])]
            texts = [[p.get("name", ""), characteristics(p).get("Description", ""), takers[0] if len(takers) == 1
                      else ""] for p, _ in self.data.shown_in(self.faction, self.data.profiles(piece))
                     if p.get("typeName") == "Abilities" and p.get("name", "") not in read]
            if texts:
                found[name] = texts
        return found

    def _bearers(self, models: list[Record]) -> Record:
        """What each piece of the unit's wargear gives the model that carries it, by its name: an invulnerable save
        and Feel No Pain its abilities give the bearer, a Wounds characteristic ('The bearer has a Wounds
        characteristic of 4', a storm shield), and Wounds added by a piece no model carries by default ('Add 1 to
        the bearer's Wounds characteristic', a Shield Drone; one carried by default is in its profile already:
        `_more_wounds`). Given to each model by what it carries (`convert`), so that a swap that gives the piece
        up takes them away. An invulnerable save and Feel No Pain a piece gives every model of its bearer's unit
        ('Models in the bearer's unit have a 5+ invulnerable save', a weavefield crest) are under "unit": the
        unit has them while one of its models carries the piece."""
        default = {name for model in models for name in model["equipment"]}
        found: Record = {}
        for name, element in self.pieces.items():
            rules = list(self.data.rules(element, self.faction))
            readings = [(kind, reading) for rule, suffix, text in rules
                        for kind, reading in _defences(rule, suffix, text)]
            gives = found.setdefault(name, {})
            for kind, reading in readings:
                if _linked_only(reading, [r for k, r in readings if k == kind]):
                    continue  # the Feel No Pain rule linked, where the piece's own words say against what
                if reading["scope"] == "model":  # its bearer's: it may be better than its profile's column
                    gives[kind] = best(gives.get(kind), {**reading, "bearer_of": name})
                elif reading["scope"] == "unit":  # said where a model carries it (`Datasheet.unit_worn`)
                    unit = gives.setdefault("unit", {})
                    unit[kind] = best(unit.get(kind), {**reading, "unit_of": name})
            for rule, _, text in rules:
                has = bearer_characteristics(text)
                if "wounds" in has:
                    gives["wounds"] = {"value": has["wounds"], "from": rule}
                if "more_wounds" in has and name not in default:
                    gives["more_wounds"] = {"value": has["more_wounds"], "from": rule}
        return {name: gives for name, gives in found.items() if gives}

    def _more_wounds(self, models: list[Record], bonuses: list[tuple[Record, str, int]]) -> None:
        """Wargear that adds to its bearer's Wounds ('Add 1 to the bearer's Wounds characteristic'). Catalogues
        write the bearer's profile either way, with the bonus counted or not: where it has the Wounds of the
        unit's models without the wargear, the bonus is added; where it has those plus the bonus, it is taken
        as counted; else (no model to compare with) not applied. Each is said in a note of that model's
        defences (said where it is in the target)."""
        bearers = {id(model) for model, _, _ in bonuses}
        base = {_wounds(m["stats"]) for m in models if id(m) not in bearers} - {None}
        for model, name, amount in bonuses:
            own = _wounds(model["stats"])
            others = "/".join(str(w) for w in sorted(base, key=str))
            if own is not None and base == {own}:
                key = next(k for k in model["stats"] if k.upper() == "W")
                model["stats"] = {**model["stats"], key: str(own + amount)}
                model.setdefault("defence_notes", []).append(
                    f"Wounds {own + amount} for {model['name']}: its profile's {own} and {amount} from {name!r}")
            elif own is not None and base == {own - amount}:
                model.setdefault("defence_notes", []).append(
                    f"{name!r} taken as counted in the Wounds of {model['name']} (W{own}, the unit's other models "
                    f"W{others})")
            else:
                model.setdefault("defence_notes", []).append(
                    f"{name!r} adds {amount} to the Wounds of {model['name']}: not applied (its profile's Wounds are "
                    "used)")

    def _own(self, model: Record) -> Iterator[Element]:
        """A model's entry and the wargear it carries by default, its choice groups' defaults (`_worn`) included
        (its ability is its bearer's); a unit of one model (whose entry is the unit's) too, so that its Hekaton's
        pan spectral scanner or its Champion's weavefield crest is read."""
        entry = model["_entry"]
        yield entry
        carried = [link.entry for link in self.data.children(entry) if tag(link.entry) == "selectionEntry"
                   and link.minimum >= 1 and link.entry.get("type") != "model"]
        chosen = (self.pieces[name] for name in model["equipment"] if name in self.pieces)
        yield from dict.fromkeys([*carried, *chosen])


def _defences(name: str, suffix: str, text: str) -> Iterator[tuple[str, Record]]:
    """('invulnerable' or 'feel_no_pain', its reading) of each defence the rule `name` gives (`catalogue.abilities`)."""
    for kind, reading in (("invulnerable", invulnerable(name, text)),
                          ("feel_no_pain", feel_no_pain(name, suffix, text))):
        if reading is not None:
            yield kind, reading


_BORNE = re.compile(r"\bbearer\b", re.I)  #: an ability of wargear ("the bearer has ..."), not of every model


def _wounds(stats: Record) -> int | None:
    """A unit profile's Wounds, where it is a plain number."""
    value = next((v for k, v in stats.items() if k.upper() == "W"), "").strip()
    return int(value) if value.isdigit() else None


def _fits(span: Span | None, size: int) -> bool:
    """True where a unit composition's models can number `size`, the number its name gives."""
    return span is not None and span[0] <= size and (span[1] is None or size <= span[1])


def _swap(choices: list[tuple[Link, str | None, list[str]]], taken: Link | None) -> Record | None:
    """The swap of what the choice `taken` of a group gives for any other of its choices that is wargear (a
    bundle, 'Diresword and Shuriken Pistol', gives each of its pieces), or with `taken` None the taking of one of
    them in addition to what a model carries; None if there is nothing to swap or take."""
    gives_up = [] if taken is None else next(gear for child, _, gear in choices if child is taken)
    others = [(child, name, gear) for child, name, gear in choices if child is not taken and gear]
    if (taken is not None and not gives_up) or not others:
        return None
    return {"replaces": gives_up, "with": [name or child.entry.get("name", "").strip() for child, name, _ in others],
            "gives": {child.entry.get("name", "").strip(): gear for child, name, gear in others if not name}}


def _any_of(group: Link, choices: list[Link]) -> bool:
    """Whether a choice group takes exactly some number (two or more) of its choices in any combination: each may be
    taken that many times, and none is required once the modifiers that always apply have set its least (a Deff
    Dread's four weapons: its dread klaws' and big shootas' least of 2 is set to 0)."""
    slots = group.minimum
    return slots >= 2 and group.maximum == slots and all(
        _least(c) == 0 and (c.maximum is None or c.maximum >= slots) for c in choices)


def _least(link: Link) -> int:
    """A choice's least: its constraint's, unless a modifier with no condition sets it."""
    ids = {c.get("id") for e in (link.link, link.entry) for c in kids(e, "constraints", "constraint")
           if c.get("type") == "min" and c.get("field") == "selections"}
    for element in (link.link, link.entry):
        for modifier, around in _grouped(element):
            if modifier.get("field") in ids and modifier.get("type") == "set" \
                    and all(_holds(m, lambda _: None) for m in (modifier, *around)):
                return whole(modifier.get("value"), "a modifier's least number of selections")
    return link.minimum


def _linked_only(reading: Record, alike: list[Record]) -> bool:
    """Whether a Feel No Pain `reading` is only the core rule a piece links ('Feel No Pain 3+'), where the piece's own
    words give that value against some attacks only ('... against Psychic Attacks': a collar of Khorne)."""
    return not reading.get("against") and reading.get("from", "").strip().lower().startswith("feel no pain") and any(
        other.get("against") and other["value"] == reading["value"] for other in alike)


def _counts_unit(way: list[Element], unit: str | None, others: Container[str | None]) -> bool:
    """Whether a way the conditions of a modifier hold (`_ways`) is that the unit (of id `unit`) holds at least one
    of some entries, and at most that none of `others` (the group's other choices: a Hesyr's graviton hammer) is
    taken."""
    def test(c: Element) -> tuple[str | None, str]:
        return c.get("type"), c.get("value", "").strip()
    holds = [c for c in way if test(c) in (("greaterThan", "0"), ("atLeast", "1"))]
    return bool(holds) and all(tag(c) == "condition" and c.get("scope") == unit and c.get("field") == "selections"
                               and (c in holds or (test(c) in (("equalTo", "0"), ("lessThan", "1"))
                                                   and c.get("childId") in others)) for c in way)


def _taken_as_well(model: Element, link: Link) -> bool:
    """Whether a `model`'s optional weapon (`link`: none by default, one at most) is one it may simply take beside
    what it carries (a Theyn's melee weapon): not the army list's or Crusade play's (`_not_wargear`), not one a
    modifier shows or sets (a sergeant's bolt carbine where the squad takes them), and not one whose taking changes
    the model's other choices (twin lightning claws empty a Tactical Sergeant's two weapon groups: a swap this
    reader does not read)."""
    ids = {link.link_id, link.entry.get("id")}
    return not _not_wargear(model, link) and not any(True for e in (link.link, link.entry) for _ in _modifiers(e)) \
        and not any(c.get("childId") in ids for c in model.iter() if tag(c) == "condition")


def _not_wargear(group: Element, choice: Link) -> bool:
    """Whether a choice of a group is not the unit's wargear that a loadout takes: the army list's (an Enhancement:
    at most 1 in the roster, or in a group of Enhancements), or Crusade play's (a Chaos Boon: it costs Crusade
    points; a group's comment does not tell, T'au drones share one that says 'Crusade options')."""
    elements = [e for e in (choice.link, choice.entry) if e is not None]
    return "enhancement" in group.get("name", "").lower() \
        or any(c.get("scope") in _ARMY_SCOPES for e in elements for c in kids(e, "constraints", "constraint")) \
        or any(c.get("name", "").lower().startswith("crusade") and c.get("value", "0").strip() not in ("0", "0.0", "")
               for e in elements for c in kids(e, "costs", "cost"))


def _default_amount(link: Link) -> int:
    """How many of a choice the catalogue selects by default (`defaultAmount`, on the link or its entry; a
    list of them, as some model entries write it, is not a wargear choice's and counts as none)."""
    amount = next((e.get("defaultAmount", "") for e in (link.link, link.entry) if e is not None
                   and e.get("defaultAmount")), "0")
    return whole(amount, "a default amount") if amount.isdigit() else 0


def _bundle_size(bundle: Element) -> int:
    """The models a unit composition's name counts ('1 Shock Trooper Sergeant and 9 Shock Troopers': 10)."""
    return sum(whole(n, "a number in a unit composition's name") for n in re.findall(r"\d+", bundle.get("name", "")))


def _cost(entry: Element) -> int:
    return sum(whole(c.get("value"), f"the points of {entry.get('name')!r}") for c in kids(entry, "costs", "cost")
               if c.get("name") == "pts")


def _has_unit_profile(data: Data, entry: Element) -> bool:
    """A 'Unit' profile on or below `entry`, written there or linked."""
    for element in entry.iter():
        if tag(element) == "infoLink":
            element = data.ids.get(element.get("targetId", ""), element)
        if tag(element) == "profile" and element.get("typeName") == "Unit":
            return True
    return False


def checked_units(data: Data, files: Container[Path] | None = None) -> Iterator[tuple[Path, Element, Element]]:
    """(file, catalogue, entry) of every unit defined at the top of a catalogue (of one of `files`, if given),
    each checked (`Data.check`) before it is given: a defect of the files refuses the whole checkout."""
    for path, root in data.roots:
        if tag(root) != "catalogue" or files is not None and path not in files:
            continue
        for container in ("sharedSelectionEntries", "selectionEntries"):
            for entry in kids(root, container, "selectionEntry"):
                if entry.get("type") not in ("unit", "model") or hidden(entry):
                    continue
                if entry.get("type") == "model" and not _has_unit_profile(data, entry):
                    continue
                data.check(entry, path)
                yield path, root, entry


def units(data: Data, files: Container[Path] | None = None) -> Iterator[tuple[Record | None, str, str]]:
    """(record or None, unit name, problem) for every unit defined at the top of a catalogue (of one of
    `files`, if given: a share of the work, `build.read_checkout`), each checked as `checked_units` checks it."""
    for path, root, entry in checked_units(data, files):
        name = entry.get("name", "").strip()
        try:
            yield UnitReader(data, entry, data.catalogues.faction(root, entry), f"BSData {path.name}").read(), name, ""
        except MathhammerError as exc:
            yield None, name, str(exc)

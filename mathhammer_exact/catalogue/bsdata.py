"""Reading a BSData checkout (a .gst game system and its .cat catalogues) into plain unit records.

A record keeps the characteristics as printed (strings), so the index can be built once and the
parsers can improve without re-reading the XML. What is inferred from rules text (invulnerable
saves, Feel No Pain, which units a Leader joins) is marked with where it came from.

The data model: a unit is a `selectionEntry` of type "unit" (or a single "model") defined at the
top of a catalogue; its models are the "model" entries below it, reached through
`selectionEntryGroups` and `entryLinks` (links to shared entries anywhere in the data set, with
their own constraints). A model's wargear is the entries below it that carry "Ranged Weapons" or
"Melee Weapons" profiles; a group's `defaultSelectionEntryId` is the default choice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from xml.etree.ElementTree import Element

import attrs

from ..errors import MathhammerError
from .abilities import Record, best, feel_no_pain, invulnerable, leader_units
from .battlescribe import WEAPON_TYPES, characteristics, hidden, kids, profile_label, read_xml, tag, whole


@attrs.frozen
class Link:
    """An entry reached from a parent: the entry itself (a link resolved) and the constraints that apply."""

    entry: Element
    minimum: int
    maximum: int | None
    link_id: str


def _limits(*elements: Element | None) -> tuple[int, int | None]:
    """min and max selections per parent from the constraints of a link and of its target (the link's win)."""
    low: int | None = None
    high: int | None = None
    for element in elements:
        for c in kids(element, "constraints", "constraint"):
            if c.get("field") != "selections" or c.get("scope") != "parent":
                continue
            value = whole(c.get("value"), "a constraint's number of selections", signed=True)
            if c.get("type") == "min" and low is None:
                low = value
            elif c.get("type") == "max" and high is None:
                high = value
    return low or 0, high


_CRUSADE = ("crusade", "weapon modifications")  #: groups that only Crusade play uses: left out


def _wanted(*elements: Element) -> bool:
    return not any(hidden(e) or e.get("name", "").strip().lower().startswith(_CRUSADE) for e in elements)


class Data:
    """Every file of a checkout, with an index of ids so links resolve across files."""

    def __init__(self, roots: list[tuple[Path, Element]]):
        self.roots = roots
        self.ids: dict[str, Element] = {}
        self.points_types = {c.get("id", "") for _, root in roots for c in kids(root, "costTypes", "costType")
                             if c.get("name") == "pts"}
        for _, root in roots:
            for element in root.iter():
                ident = element.get("id")
                if ident and tag(element) in ("selectionEntry", "selectionEntryGroup", "profile", "rule"):
                    self.ids.setdefault(ident, element)

    def children(self, entry: Element) -> Iterator[Link]:
        """The entries and groups directly below `entry`, links resolved, hidden ones left out."""
        for child in kids(entry, "selectionEntries", "selectionEntry"):
            if _wanted(child):
                yield Link(child, *_limits(child), child.get("id", ""))
        for child in kids(entry, "selectionEntryGroups", "selectionEntryGroup"):
            if _wanted(child):
                yield Link(child, *_limits(child), child.get("id", ""))
        for link in kids(entry, "entryLinks", "entryLink"):
            target = self.ids.get(link.get("targetId", ""))
            if target is not None and _wanted(link, target):
                yield Link(target, *_limits(link, target), link.get("id", ""))

    def profiles(self, entry: Element) -> Iterator[tuple[Element, str]]:
        """The profiles of `entry` (its own, through infoLinks and infoGroups) with a name suffix
        appended by a link's modifier (how BSData writes 'Feel No Pain 5+')."""
        for profile in kids(entry, "profiles", "profile"):
            if not hidden(profile):
                yield profile, ""
        for group in kids(entry, "infoGroups", "infoGroup"):
            yield from self.profiles(group)
        for link in kids(entry, "infoLinks", "infoLink"):
            target = self.ids.get(link.get("targetId", ""))
            if target is not None and tag(target) in ("profile", "rule") and not hidden(link) and not hidden(target):
                yield target, _appended(link)

    def rules(self, entry: Element) -> Iterator[tuple[str, str, str]]:
        """(name, appended value, text) of the rules and abilities linked to or written on `entry`."""
        for rule in kids(entry, "rules", "rule"):
            yield rule.get("name", ""), "", _text(rule)
        for profile, suffix in self.profiles(entry):
            if tag(profile) == "rule":
                yield profile.get("name", ""), suffix, _text(profile)
            elif profile.get("typeName") == "Abilities":
                yield profile.get("name", ""), suffix, characteristics(profile).get("Description", "")


def _appended(link: Element) -> str:
    values = [m.get("value", "") for m in kids(link, "modifiers", "modifier")
              if m.get("field") == "name" and m.get("type") == "append"]
    return " ".join(v for v in values if v)


def _text(rule: Element) -> str:
    return " ".join((d.text or "") for d in rule if tag(d) == "description")


def load_checkout(folder: Path, progress: Callable[[Path], None] | None = None) -> Data:
    """Parse every .gst and .cat file of a checkout (calling `progress` after each)."""
    if not folder.is_dir():
        raise MathhammerError(f"{folder}: not a folder (give the path of a BSData checkout)")
    paths = sorted(folder.glob("*.gst")) + sorted(folder.glob("*.cat"))
    if not any(p.suffix == ".gst" for p in paths):
        raise MathhammerError(f"{folder}: no .gst game system file here (is this a BSData checkout?)")
    roots = []
    for path in paths:
        roots.append((path, read_xml(path, ("gameSystem", "catalogue"))))
        if progress:
            progress(path)
    return Data(roots)


# --------------------------------------------------------------------- units
def _is_weapon(profile: Element) -> bool:
    return profile.get("typeName") in WEAPON_TYPES


def weapon_profiles(data: Data, entry: Element) -> list[Record]:
    """The weapon profiles an entry carries itself: [{"profile": label, "type": ..., "chars": {...}}]."""
    name = entry.get("name", "")
    out = []
    for profile, _ in data.profiles(entry):
        if tag(profile) == "profile" and _is_weapon(profile):
            out.append({"profile": profile_label(name, profile.get("name", "")),
                        "melee": profile.get("typeName") == "Melee Weapons", "chars": characteristics(profile)})
    return out


class UnitReader:
    """Turns one unit entry into a record, collecting its weapons as it goes."""

    def __init__(self, data: Data, entry: Element, faction: str, source: str):
        self.data = data
        self.source = source
        self.entry = entry
        self.faction = faction
        self.weapons: dict[str, list[Record]] = {}
        self.notes: list[str] = []
        self.bundle_size = 0  #: the size of the unit-composition bundle read ('1 X and 9 Y': 10), if any

    def read(self) -> Record:
        entry = self.entry
        models = self._models()
        size_low, size_high = self._size(models)
        record: Record = {
            "id": entry.get("id"), "name": entry.get("name", "").strip(), "faction": self.faction,
            "source": self.source,
            "keywords": [], "faction_keywords": [], "abilities": [], "models": models,
            "weapons": self.weapons, "sizes": [], "points": {}, "leader_of": [],
            "invulnerable": None, "feel_no_pain": None, "notes": self.notes,
            "ability_texts": [],  #: [name, text, model kind or ""] of each Abilities profile (catalogue.ability_text)
        }
        for link in kids(entry, "categoryLinks", "categoryLink"):
            keyword = link.get("name", "").strip()
            if keyword.lower().startswith("faction:"):
                record["faction_keywords"].append(keyword.partition(":")[2].strip().upper())
            elif keyword:
                record["keywords"].append(keyword.upper())
        self._abilities(record, [entry, *(m["_entry"] for m in models)])
        record["sizes"], record["points"] = self._points(size_low, size_high, models)
        for model in models:
            del model["_entry"]
        return record

    # ---- models and their wargear
    def _models(self) -> list[Record]:
        if self.entry.get("type") == "model":
            return [self._model(Link(self.entry, 1, 1, self.entry.get("id", "")))]
        found: list[Record] = []
        self._find_models(self.entry, found)
        if not found:
            raise MathhammerError("no model entries")
        unit_gear, _ = self._wargear(self.entry)
        if unit_gear:  # none in the BSData set today: a model would have to be chosen to carry it
            self.notes.append(f"wargear of the whole unit not given to any model: {', '.join(unit_gear)}")
        return found

    def _find_models(self, element: Element, found: list[Record]) -> None:
        """Model entries below `element`; where the unit composition is a choice of bundles ('1 Spanner and
        4 Burna Boyz' or '2 Spanners and 8 Burna Boyz'), the default bundle's."""
        default_id = element.get("defaultSelectionEntryId") if tag(element) == "selectionEntryGroup" else None
        bundles = []
        for link in self.data.children(element):
            if tag(link.entry) == "selectionEntry" and link.entry.get("type") == "model":
                found.append(self._model(link))
            elif tag(link.entry) == "selectionEntryGroup":
                self._find_models(link.entry, found)
            elif self._holds_models(link.entry):
                bundles.append(link)
        if bundles:
            chosen = next((b for b in bundles if default_id in (b.link_id, b.entry.get("id"))), bundles[0])
            self.bundle_size = sum(whole(n, "a number in a unit composition's name")
                                   for n in re.findall(r"\d+", chosen.entry.get("name", "")))
            self._find_models(chosen.entry, found)
            if len(bundles) > 1:
                self.notes.append(f"unit composition {chosen.entry.get('name', '')!r} read; also offered: "
                                  + ", ".join(repr(b.entry.get("name", "")) for b in bundles if b is not chosen))

    def _holds_models(self, element: Element, depth: int = 3) -> bool:
        return depth > 0 and any(c.entry.get("type") == "model" or self._holds_models(c.entry, depth - 1)
                                 for c in self.data.children(element))

    def _model(self, link: Link) -> Record:
        entry = link.entry
        stats = [p for p, _ in self.data.profiles(entry) if p.get("typeName") == "Unit"]
        if not stats:  # a profile written on the unit, or on another of its models
            stats = [p for element in self.entry.iter() for p, _ in self.data.profiles(element)
                     if p.get("typeName") == "Unit"]
            named = [p for p in stats if p.get("name", "").lower() == entry.get("name", "").lower()]
            stats = named or stats
        equipment, options = self._wargear(entry)
        return {"name": entry.get("name", "").strip(), "min": link.minimum, "max": link.maximum,
                "stats": characteristics(stats[0]) if stats else {}, "equipment": equipment, "options": options,
                "_entry": entry}

    def _weapon(self, entry: Element) -> str | None:
        """Register an entry's weapon profiles; its name, or None if it carries no weapon."""
        profiles = weapon_profiles(self.data, entry)
        if not profiles:
            return None
        name = entry.get("name", "").strip()
        self.weapons.setdefault(name, profiles)
        return name

    def _wargear(self, element: Element) -> tuple[list[str], list[Record]]:
        """The default equipment below `element` (not below its models) and the swaps its choice groups allow."""
        equipment: list[str] = []
        options: list[Record] = []
        for link in self.data.children(element):
            entry = link.entry
            if tag(entry) == "selectionEntry":
                if entry.get("type") == "model":
                    continue
                name = self._weapon(entry)
                inner, inner_options = self._wargear(entry)
                options += inner_options
                if link.minimum >= 1:
                    equipment += [name] * link.minimum if name else inner
            else:
                self._group(link, equipment, options)
        return equipment, options

    def _group(self, link: Link, equipment: list[str], options: list[Record]) -> None:
        """A choice group's default wargear (added to `equipment`) and its other choices as a swap."""
        group = link.entry
        default_id = group.get("defaultSelectionEntryId")
        choices: list[tuple[Link, str | None, list[str]]] = []
        for child in self.data.children(group):
            if child.entry.get("type") == "model" or self._holds_models(child.entry):
                continue  # models, and unit compositions: read by _find_models
            if tag(child.entry) == "selectionEntryGroup":
                self._group(child, equipment, options)
                continue
            name = self._weapon(child.entry)
            inner, inner_options = self._wargear(child.entry)
            options += inner_options
            choices.append((child, name, [name] if name else inner))
        if not choices:
            return
        default = next((c for c in choices if default_id in (c[0].link_id, c[0].entry.get("id"))), None)
        if default is None and link.minimum >= 1:
            default = choices[0]
        for child, _, gear in choices:
            if child.minimum >= 1 and child is not (default[0] if default else None):
                equipment += gear
        if default is None:
            return
        equipment += default[2]
        swaps = [name for child, name, _ in choices if name and child is not default[0]]
        bundles = [child.entry.get("name", "") for child, name, _ in choices if not name and child is not default[0]]
        if default[1] and swaps:
            options.append({"replaces": default[1], "with": swaps, "max": link.maximum})
        if bundles:
            self.notes.append(f"wargear bundles not offered as options: {', '.join(bundles)}")

    # ---- unit size and points
    def _size(self, models: list[Record]) -> tuple[int, int]:
        """Smallest and largest unit: the model group's constraints where there is one, else the models'
        (the fixed models plus the most of the kind that can be most numerous)."""
        low = sum(m["min"] for m in models)
        fixed = sum(m["min"] for m in models if m["max"] == m["min"])
        high = fixed + max((m["max"] or m["min"] for m in models if m["max"] != m["min"]), default=0)
        if self.bundle_size:
            return self.bundle_size, self.bundle_size
        for link in self.data.children(self.entry):
            if tag(link.entry) == "selectionEntryGroup" and link.maximum and any(
                    c.entry.get("type") == "model" for c in self.data.children(link.entry)):
                low, high = max(low, link.minimum), max(high, link.maximum)
        return max(low, 1), max(high, low, 1)

    def _points(self, low: int, high: int, models: list[Record]) -> tuple[list[int], dict[str, int]]:
        """Unit sizes and their points. The unit costs its base cost; a 'set points when the unit has at
        least N models' modifier sets the cost from N models up. Between `low` and `high` each such N
        ends a bracket, whose size is its largest (5 models: 80, 10 models: 160)."""
        per_model = [m for m in models if m["_entry"] is not self.entry and _cost(m["_entry"])]
        base = _cost(self.entry) + sum(_cost(m["_entry"]) * m["min"] for m in per_model)
        brackets = {0: base}
        for modifier in kids(self.entry, "modifiers", "modifier"):
            if modifier.get("type") != "set" or modifier.get("field") not in self.data.points_types:
                continue
            for condition in modifier.iter():
                if tag(condition) == "condition" and condition.get("field") == "selections":
                    kind = condition.get("type")
                    value = whole(condition.get("value"), "a points condition's number of models", signed=True)
                    start = value if kind == "atLeast" else value + 1 if kind == "greaterThan" else None
                    if start is not None:
                        brackets[start] = whole(modifier.get("value"), f"the points of {self.entry.get('name')!r}")
        ends = sorted({start - 1 for start in brackets if low < start <= high} | {low, high})
        if len(ends) > 2:  # brackets: each one's largest size (the smallest size is one only if it is a bracket)
            ends = [end for end in ends if end != low or end + 1 in brackets]
        if per_model and len(brackets) == 1 and low != high:
            self.notes.append(f"points: {base} for {low} models, more models cost more")
            return [low, high], {str(low): base}
        if not base and len(brackets) == 1:
            return ends, {}
        return ends, {str(size): brackets[max(s for s in brackets if s <= size)] for size in ends}

    # ---- abilities
    def _abilities(self, record: Record, entries: list[Element]) -> None:
        seen: set[str] = set()
        texts: set[str] = set()
        for element in entries:
            model = "" if element is entries[0] else element.get("name", "").strip()
            for profile, _ in self.data.profiles(element):
                if profile.get("typeName") == "Abilities" and profile.get("name", "") not in texts:
                    texts.add(profile.get("name", ""))
                    record["ability_texts"].append([profile.get("name", ""),
                                                    characteristics(profile).get("Description", ""), model])
            for name, suffix, text in self.data.rules(element):
                label = f"{name} {suffix}".strip()
                if label not in seen:
                    seen.add(label)
                    record["abilities"].append(label)
                record["invulnerable"] = best(record["invulnerable"], invulnerable(name, text))
                record["feel_no_pain"] = best(record["feel_no_pain"], feel_no_pain(name, suffix, text))
                record["leader_of"] = record["leader_of"] or leader_units(text)


def _cost(entry: Element) -> int:
    return sum(whole(c.get("value"), f"the points of {entry.get('name')!r}") for c in kids(entry, "costs", "cost")
               if c.get("name") == "pts")


def faction_name(catalogue: Element) -> str:
    """'Imperium - Space Marines' -> 'Space Marines'; library catalogues keep their name."""
    name = catalogue.get("name", "")
    return name.rpartition(" - ")[2].strip() if " - " in name else name


def _has_unit_profile(data: Data, entry: Element) -> bool:
    """A 'Unit' profile on or below `entry`, written there or linked."""
    for element in entry.iter():
        if tag(element) == "infoLink":
            element = data.ids.get(element.get("targetId", ""), element)
        if tag(element) == "profile" and element.get("typeName") == "Unit":
            return True
    return False


def units(data: Data) -> Iterator[tuple[Record | None, str, str]]:
    """(record or None, unit name, problem) for every unit defined at the top of a catalogue."""
    for path, root in data.roots:
        if tag(root) != "catalogue":
            continue
        faction = faction_name(root)
        source = f"BSData {path.name}"
        for container in ("sharedSelectionEntries", "selectionEntries"):
            for entry in kids(root, container, "selectionEntry"):
                if entry.get("type") not in ("unit", "model") or hidden(entry):
                    continue
                if entry.get("type") == "model" and not _has_unit_profile(data, entry):
                    continue
                name = entry.get("name", "").strip()
                try:
                    yield UnitReader(data, entry, faction, source).read(), name, ""
                except MathhammerError as exc:
                    yield None, name, str(exc)

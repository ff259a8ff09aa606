"""Army lists exported from BattleScribe or New Recruit (.ros XML, .rosz: a zip holding one .ros, or New
Recruit's .json, the same roster written as JSON and read through the same elements).

A roster copies every profile it uses, so it needs no catalogue. Each unit becomes the same kind of
record the BSData index holds, with its models' real counts and wargear, and so a `Datasheet`.

How counts are read (BattleScribe's convention, see the WarHub battlescribe-spec notes on the
`collective` flag): a selection's `number` is its total over all copies of its parent. A model
selection "Intercessor" number=4 with a child "Bolt rifle" number=4 is four models with one bolt
rifle each; a child "Plasma gun" number=1 under it is one plasma gun among those four models. A
weapon selection that carries several weapon profiles ("standard", "supercharge") is one weapon
with several profiles, not several weapons. A number 0 is refused (a roster holds only what was taken),
and so is a weapon count that cannot be shared out evenly when there are more weapons than models (7
rifles on 5 models: which models carry two cannot be read).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from xml.etree.ElementTree import Element

import attrs

from ..data.names import loose, starts_words
from ..errors import MathhammerError
from ..sizes import MAX_ATTACKING_MODELS, MAX_TARGET_MODELS
from .abilities import (
    Record,
    bearer_characteristics,
    best,
    feel_no_pain,
    invulnerable,
    is_weapon_rule,
    leader_units,
    with_conversion_range,
)
from .battlescribe import (
    characteristics,
    check_depth,
    check_edition,
    is_weapon,
    kids,
    named_once,
    profile_label,
    read_bytes,
    several,
    tag,
    weapon_of,
    whole,
)
from .factions import faction_name
from .index import normalise
from .newrecruit import document


@attrs.frozen
class Roster:
    """An army list: its name and its units' records, in the list's order; `where` names it in messages."""

    where: str
    name: str
    units: tuple[Record, ...]
    edition: str  #: the edition of its game system, "10e" or "11e" (battlescribe.EDITIONS)
    detachments: tuple[str, ...] = ()  #: the detachment each force chose (Gladius Task Force), as the list names it

    def unit(self, selector: str) -> Record:
        """The unit `selector` names: its number in the list (from 1), or its name or datasheet's name, as written
        (case and punctuation aside), else in its loose form ('eliminators' for Eliminator Squad: `loose`), else the
        one unit whose name has a word starting with each word typed ('silent king' for The Silent King)."""
        wanted = selector.strip()
        listing = "; ".join(f"{i}: {u['name']}" for i, u in enumerate(self.units, 1))
        if re.fullmatch(r"\d+", wanted):
            number = int(wanted)
            if not 1 <= number <= len(self.units):
                raise MathhammerError(f"{self.where}: no unit #{number} (units: {listing})")
            return self.units[number - 1]
        matches = [u for u in self.units if normalise(wanted) in (normalise(u["name"]), normalise(u["datasheet"]))]
        if not matches:
            matches = [u for u in self.units if loose(wanted) in (loose(u["name"]), loose(u["datasheet"]))]
        if not matches:
            typed = normalise(wanted).split()
            matches = [u for u in self.units if starts_words(u["name"], typed) or starts_words(u["datasheet"], typed)]
        if len(matches) != 1:
            problem = "several units are called" if matches else "no unit called"
            raise MathhammerError(f"{self.where}: {problem} {wanted!r}; give its number (units: {listing})")
        return matches[0]


_WEAPON_LIMIT = "the most models that may use one weapon here"


def _number(selection: Element, most: int, limit: str) -> int:
    """How many of `selection` (its `number`), a whole number from 1 to `most`."""
    number = whole(selection.get("number"), f"the number of {selection.get('name')!r}", 1, most, limit)
    if number == 0:
        raise MathhammerError(f"the number of {selection.get('name')!r} is 0: an army list holds only what was "
                              "taken (at least 1)")
    return number


def _models(selection: Element) -> int:
    return _number(selection, MAX_TARGET_MODELS, "the most models a unit may have here")


def _points(unit: Element) -> int:
    return sum(whole(c.get("value"), f"the points of {s.get('name')!r}") for s in unit.iter()
               for c in kids(s, "costs", "cost") if c.get("name") == "pts")


def _profiles(selection: Element) -> Iterator[Element]:
    yield from kids(selection, "profiles", "profile")


def _weapon_profiles(selection: Element, name: str) -> dict[str, list[Record]]:
    """The weapons of one selection by name, each with its profiles: one weapon, however many profiles it has
    ('standard', 'supercharge'), unless the selection's name names each weapon its profiles are of ('L7 missile
    launcher and Sagitaur missile launcher': two weapons, the first of two profiles)."""
    profiles = [p for p in _profiles(selection) if is_weapon(p)]
    weapons: dict[str, list[Element]] = {}
    for profile in profiles:
        weapons.setdefault(weapon_of(profile.get("name", "")), []).append(profile)
    if len(weapons) < 2 or not all(normalise(weapon) in normalise(name) for weapon in weapons):
        weapons = {name: profiles} if profiles else {}
    rules = _rules(selection)
    return {weapon: [{"profile": profile_label(weapon, p.get("name", "")),
                      "melee": p.get("typeName") == "Melee Weapons",
                      "chars": with_conversion_range(characteristics(p), rules)} for p in found]
            for weapon, found in weapons.items()}


class _UnitReader:
    def __init__(self, unit: Element):
        self.unit = unit
        self.weapons: dict[str, list[Record]] = {}
        self.notes: list[str] = []
        self.bearers: dict[str, Record] = {}  #: wargear -> what it gives its bearer (invulnerable save, Feel No Pain)
        #: wargear (or an Enhancement) -> its name, and the characteristics it gives its bearer
        self.characteristics: dict[str, tuple[str, dict[str, int]]] = {}
        #: a selection with weapon profiles by its name: a list writes a piece's profiles once per unit, so another
        #: selection of that name without them (a Theyn's ion blaster beside his warriors') is that weapon too
        self.profiled = {normalise(s.get("name", "")): s for s in reversed(list(unit.iter()))
                         if tag(s) == "selection" and _weapon_profiles(s, s.get("name", ""))}

    def wargear(self, selection: Element) -> list[tuple[str, int]]:
        """(weapon, how many) below `selection`, not descending into models; wargear that gives its bearer
        an invulnerable save or Feel No Pain counts too, so that its bearer is a model of its own."""
        out = []
        for child in kids(selection, "selections", "selection"):
            if child.get("type") == "model":
                continue
            name = child.get("name", "").strip()
            each, name = several(name, [p.get("name", "") for p in _profiles(child)
                                        if is_weapon(p)])  # '2 Fragstorm Grenade Launchers'
            weapons = _weapon_profiles(child, name)
            other = self.profiled.get(normalise(name))
            bare = not list(_profiles(child)) and not list(kids(child, "selections", "selection"))
            if not weapons and other is not None and bare:
                weapons = _weapon_profiles(other, name)
                self.notes.append(f"{name!r} has no profile of its own in the list: the profiles of the unit's other "
                                  f"{name!r} are used")
            for weapon, profiles in weapons.items():
                self.weapons.setdefault(weapon, profiles)
            readings = _defence_readings(_rules(child), "model")
            if readings:
                self.bearers[name.lower()] = readings
            gives = {k: v for _, text in _rules(child) for k, v in bearer_characteristics(text).items()}
            if gives:
                self.characteristics[name.lower()] = name, gives
            taken = _number(child, MAX_ATTACKING_MODELS, _WEAPON_LIMIT) if weapons or readings or gives else 0
            out += [(piece, each * taken) for piece in (weapons or [name]) if taken]
            out += self.wargear(child)
        return out

    def models(self, selection: Element) -> Iterator[Element]:
        for child in kids(selection, "selections", "selection"):
            if child.get("type") == "model":
                yield child
            else:
                yield from self.models(child)

    def stats(self, model: Element) -> dict[str, str]:
        own = [p for p in _profiles(model) if p.get("typeName") == "Unit"]
        if own:
            return characteristics(own[0])
        every = [p for s in self.unit.iter() for p in _profiles(s) if p.get("typeName") == "Unit"]
        named = [p for p in every if normalise(p.get("name", "")) == normalise(model.get("name", ""))]
        return characteristics((named or every)[0]) if every else {}

    def read(self, faction: str, source: str, edition: str) -> Record:
        unit = self.unit
        models = [unit] if unit.get("type") == "model" else list(self.models(unit))
        if not models:
            raise MathhammerError(f"unit {unit.get('name')!r} has no models")
        shared = [] if unit.get("type") == "model" else self.wargear(unit)
        groups: list[Record] = []
        total = 0
        for i, model in enumerate(models):
            count = _models(model)
            total += count
            if total > MAX_TARGET_MODELS:
                raise MathhammerError(f"unit {unit.get('name')!r} has more than {MAX_TARGET_MODELS} models (the most a "
                                      "unit may have here)")
            gear = self.wargear(model) + (shared if i == 0 else [])
            if sum(n for _, n in gear) > MAX_ATTACKING_MODELS:
                raise MathhammerError(f"the models {model.get('name')!r} carry more than {MAX_ATTACKING_MODELS} "
                                      f"weapons in all ({_WEAPON_LIMIT})")
            own = _defence_readings(_rules(model), "model")  # this model's own abilities
            for group in _split(model.get("name", "").strip(), count, gear, self.stats(model)):
                for item in [None, *group["equipment"]]:
                    for kind, reading in (own if item is None else self.bearers.get(item.lower(), {})).items():
                        group[kind] = best(group.get(kind), reading)
                    if item is not None and item.lower() in self.characteristics:
                        self._give(group, *self.characteristics[item.lower()])
                groups.append(group)
        named_once(groups)
        if shared and len(models) > 1:
            self.notes.append(f"wargear chosen for the whole unit given to {models[0].get('name')}: "
                              + ", ".join(name for name, _ in shared))
        record: Record = {
            "id": unit.get("entryId", ""), "name": (unit.get("customName") or unit.get("name") or "").strip(),
            "datasheet": (unit.get("name") or "").strip(),
            "faction": faction, "source": source, "edition": edition, "keywords": [], "faction_keywords": [],
            "abilities": [],
            "models": groups, "weapons": self.weapons, "leader_of": [], "invulnerable": None, "feel_no_pain": None,
            "notes": self.notes, "ability_texts": [],
        }
        for category in kids(unit, "categories", "category"):
            keyword = category.get("name", "").strip()
            if keyword.lower().startswith("faction:"):
                record["faction_keywords"].append(keyword.partition(":")[2].strip().upper())
            elif keyword:
                record["keywords"].append(keyword.upper())
        self.abilities(record)
        size = sum(g["min"] for g in groups)
        points = _points(unit)
        record["sizes"], record["points"] = [size], ({str(size): points} if points else {})
        return record

    def _give(self, group: Record, piece: str, gives: dict[str, int]) -> None:
        """What `piece` sets of the bearer's characteristics (an Iron Surplice's Save 2+, a Wounds characteristic of
        4), in the profile of its `group`, said in a note. Wounds it adds (an Auric Mantle's 2) are said, not added:
        a catalogue that writes them as a change to the profile has them in the list's profile already (BSData's
        Auric Mantle, Praesidium Shield), which cannot tell the two apart."""
        stats = dict(group["stats"])
        for what, value in gives.items():
            key = next((k for k in stats if k.upper() == ("SV" if what == "save" else "W")), None)
            was = stats.get(key, "").strip() if key is not None else ""
            if key is None or not was.rstrip("+").isdigit():
                continue
            if what == "more_wounds":
                self.notes.append(f"{piece}: adds {value} to its bearer's Wounds; {group['name']} has W{was} as the "
                                  "list writes it (with the bonus where the list's program applied it)")
                continue
            stats[key] = f"{value}+" if what == "save" else str(value)
            if stats[key] != was:
                self.notes.append(f"{piece}: {'Save' if what == 'save' else 'Wounds'} {stats[key]} for "
                                  f"{group['name']} (its profile's {was})")
        group["stats"] = stats

    def abilities(self, record: Record) -> None:
        """The unit's abilities by name (their texts kept for the ability reader), the units it can lead, and
        the invulnerable save and Feel No Pain given to the whole unit (a single model's own are the unit's;
        a bearer's go to its model)."""
        unit = self.unit
        single = unit.get("type") == "model"
        for element in unit.iter():
            model = element.get("name", "").strip() if element.get("type") == "model" and element is not unit else ""
            armed = any(is_weapon(p) for p in _profiles(element))  # a weapon's rules (Blast, Pistol): not the unit's
            rules = [(name, text) for name, text in _rules(element) if not (armed and is_weapon_rule(name))]
            written = _written_rules(element)
            texts = [rule for rule in rules if rule not in written]  # its abilities' texts
            record["ability_texts"] += [[name, text, model] for name, text in texts if name not in record["abilities"]]
            for name, text in rules:
                if name not in record["abilities"]:
                    record["abilities"].append(name)
                record["leader_of"] = record["leader_of"] or leader_units(text)
            for kind, reading in _defence_readings(_rules(element), "unit", single).items():
                record[kind] = best(record[kind], reading)
        record["army_rules"] = list(dict.fromkeys(_army_rules(unit)))



def _army_rules(unit: Element) -> Iterator[str]:
    """The names of the army rules written on a unit or its models (Oath of Moment, Reanimation Protocols): a list
    copies a catalogue's shared rules with no publication, where it gives a core rule (Deep Strike, Feel No Pain)
    the Core Rules' and their page; a rule that states a defence is read as one, not named."""
    for element in [unit, *(s for s in unit.iter() if tag(s) == "selection" and s.get("type") == "model")]:
        for rule in kids(element, "rules", "rule"):
            name = rule.get("name", "").strip()
            if name and rule.get("publicationId") is None and rule.get("page") is None \
                    and not _defence_readings([(name, "")], "unit"):
                yield name


def _written_rules(element: Element) -> list[tuple[str, str]]:
    """(name, text) of the rules written on one selection (core and army rules a list copies)."""
    return [(r.get("name", ""), " ".join(d.text or "" for d in r)) for r in kids(element, "rules", "rule")]


def _rules(element: Element) -> list[tuple[str, str]]:
    """(name, text) of the rules and abilities written on one selection."""
    return _written_rules(element) + [(p.get("name", ""), characteristics(p).get("Description", ""))
                                      for p in _profiles(element) if p.get("typeName") == "Abilities"]


def _defence_readings(rules: list[tuple[str, str]], wanted: str, single: bool = False) -> dict[str, Record]:
    """The best invulnerable save and Feel No Pain in `rules` that are for `wanted` ('unit' or 'model');
    for a unit of a single model, what is for that model is for the unit."""
    out: dict[str, Record | None] = {}
    for name, text in rules:
        for kind, reading in (("invulnerable", invulnerable(name, text)),
                              ("feel_no_pain", feel_no_pain(name, "", text))):
            if reading and (reading["scope"] == wanted or (single and reading["scope"] == "model")):
                out[kind] = best(out.get(kind), reading)
    return {kind: reading for kind, reading in out.items() if reading}


def _split(name: str, count: int, gear: list[tuple[str, int]], stats: dict[str, str]) -> list[Record]:
    """Models of one selection as groups with the same wargear. `count` models share the weapons'
    totals: each weapon goes round the models, starting where the previous weapon's remainder stopped,
    so 'bolt rifle x3, plasma gun x2' on five models gives three rifles and two plasma guns. More of one
    weapon than models must be the same number on each ('twin cannon x2' on one walker)."""
    totals: dict[str, int] = {}
    for weapon, total in gear:
        totals[weapon] = totals.get(weapon, 0) + total
    for weapon, total in totals.items():
        if total > count and total % count:
            raise MathhammerError(f"{count} {name!r} carry {total} {weapon!r}: more than one each, but not the same "
                                  "number each, so which models carry more cannot be read")
    loadouts: list[list[str]] = [[] for _ in range(count)]
    at = 0
    for weapon, total in gear:
        for _ in range(total):
            loadouts[at % count].append(weapon)
            at += 1
    groups: dict[tuple[str, ...], int] = {}
    for loadout in loadouts:
        key = tuple(loadout)
        groups[key] = groups.get(key, 0) + 1
    return [{"name": name, "min": n, "max": n, "stats": stats, "equipment": list(kit), "options": []}
            for kit, n in groups.items()]


def _has_models(selection: Element) -> bool:
    return any(p.get("typeName") == "Unit" for s in selection.iter() for p in _profiles(s))


def _document(data: bytes, where: str) -> tuple[Element, str]:
    """The roster element of a .ros (XML) or of a New Recruit export (JSON), checked: a roster of an edition
    read here, nested no deeper than a reader may descend; and that edition."""
    root = document(data, where, ("roster",))
    edition = check_edition(root.get("gameSystemId", ""), root.get("gameSystemName", ""), where)
    check_depth(root, where)
    return root, edition


def read_roster(path: Path) -> Roster:
    """Every unit of an exported army list file, in the order of the list."""
    return roster_of(read_bytes(path), str(path), path.stem, f"army list {path.name}")


def roster_of(data: bytes, where: str, name: str = "army list", source: str = "army list") -> Roster:
    """Every unit of an army list, from the bytes of its file (a zip already unpacked: `unpacked`); `where`
    names it in messages, `name` is its name if it gives none, `source` what its units are from."""
    root, edition = _document(data, where)
    units, detachments = [], []
    for force in (element for element in root.iter() if tag(element) == "force"):  # allied forces nest
        faction = faction_name(force.get("catalogueName", ""))
        for selection in kids(force, "selections", "selection"):
            if normalise(selection.get("name", "")) in ("detachment", "detachment choice"):
                detachments += [c.get("name", "").strip() for c in kids(selection, "selections", "selection")]
            if selection.get("type") in ("unit", "model") and _has_models(selection):
                try:
                    units.append(_UnitReader(selection).read(faction, source, edition))
                except MathhammerError as exc:
                    raise MathhammerError(f"{where}: {exc}") from None
    if not units:
        raise MathhammerError(f"{where}: no units in this roster")
    return Roster(where, root.get("name", name), tuple(units), edition, tuple(d for d in detachments if d))


_SENT: ContextVar[Roster | None] = ContextVar("sent_army_list", default=None)


@contextlib.contextmanager
def sent(roster: Roster | None) -> Iterator[None]:
    """Within the block, '#3' or '#NAME' (a reference without a file) names a unit of `roster`: the army list
    that came with a question to the server, which reads no file."""
    token = _SENT.set(roster)
    try:
        yield
    finally:
        _SENT.reset(token)


def roster_unit(reference: str) -> Record:
    """The unit a 'FILE.rosz#3' or 'FILE.rosz#Intercessor Squad' reference names; '#3' names one of the army
    list sent with the question (`sent`)."""
    file, _, selector = reference.partition("#")
    if file.strip():
        return read_roster(Path(file.strip())).unit(selector)
    roster = _SENT.get()
    if roster is None:
        raise MathhammerError(f"{reference.strip()!r} names a unit of an army list, and none came with the question "
                              "(send the list with it; on the command line, write its file before the '#': "
                              f"FILE.rosz{reference.strip()})")
    return roster.unit(selector)

"""Which faction each unit of a BSData checkout belongs to, and how the factions draw on each other.

A catalogue (`library="false"`) is a faction's, named by the last part of its name ('Imperium -
Adeptus Astartes - Blood Angels': Blood Angels). A library of shared entries (`library="true"`)
holds units of the factions that link it: a unit belongs to the linking faction its Faction keyword
names (the Drukhari units of the Aeldari library), else to the library's own name without 'Library'
('Imperium - Astra Militarum - Library': Astra Militarum), which a linking faction's name may
complete ('Chaos - Daemons Library', linked by 'Chaos - Chaos Daemons': Chaos Daemons).

A `catalogueLink` with importRootEntries="true" puts the linked catalogue's units in the linking
faction's army: Blood Angels field Space Marines units, every Imperium faction Agents of the
Imperium's. A faction's parent is the one it imports from within its own group of names ('Imperium -
Adeptus Astartes'): Space Marines, for each chapter. Two units of one name are told apart by these
relations (`Factions.rank`): same faction, then one's army holding the other, then sibling factions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from xml.etree.ElementTree import Element

import attrs

from ..data.names import normalise
from .battlescribe import kids, tag, unit_entries


def faction_name(catalogue: str, library: bool = False) -> str:
    """The faction a catalogue's name stands for: 'Imperium - Space Marines' -> 'Space Marines'; for a
    library, without the word 'Library' ('Imperium - Astra Militarum - Library' -> 'Astra Militarum')."""
    parts = [part.strip() for part in catalogue.split(" - ")]
    if library:
        parts = [" ".join(w for w in part.split() if w.lower() != "library") for part in parts]
    named = [part for part in parts if part]
    return named[-1] if named else catalogue.strip()


def _group(catalogue: str) -> str:
    """The group of names a catalogue is in, if two levels deep or more ('Imperium - Adeptus Astartes'
    for its chapters and Space Marines); a grand alliance alone ('Imperium') is no group."""
    parts = [part.strip() for part in catalogue.split(" - ")]
    return " - ".join(parts[:-1]) if len(parts) > 2 else ""


def _faction_keywords(entry: Element) -> list[str]:
    return [link.get("name", "").partition(":")[2].strip() for link in kids(entry, "categoryLinks", "categoryLink")
            if link.get("name", "").strip().lower().startswith("faction:")]


@attrs.frozen
class Factions:
    """How the factions of an index draw on each other (stored with it, read from the catalogue links).
    Factions are compared by their normalised names."""

    names: tuple[str, ...] = ()  #: every faction that has units, as named
    army: Mapping[str, frozenset[str]] = attrs.field(factory=dict)  #: faction -> factions whose units it fields
    parent: Mapping[str, str] = attrs.field(factory=dict)  #: faction -> the faction it is a part of, as named

    def rank(self, one: str, other: str) -> int | None:
        """How near two factions are: 0 the same, 1 one's army fields the other's units, 2 siblings (two
        parts of one parent faction); None when unrelated."""
        one, other = normalise(one), normalise(other)
        if one == other:
            return 0
        if other in self.army.get(one, ()) or one in self.army.get(other, ()):
            return 1
        parent = self.parent.get(one)
        return 2 if parent and parent == self.parent.get(other) else None

    def relation(self, chosen: str, other: str) -> str:
        """Why a unit of `chosen` goes with one of `other`, in words (for a header)."""
        rank = self.rank(chosen, other)
        if rank == 0:
            return "the same faction"
        if rank == 1:
            fielder, fielded = (other, chosen) if normalise(chosen) in self.army.get(normalise(other), ()) else (
                chosen, other)
            return f"{fielder} armies field {fielded} units"
        if rank == 2:
            return f"{chosen} and {other} are both parts of {self.parent[normalise(chosen)]}"
        return f"{chosen} and {other} are not related"

    def to_json(self) -> dict[str, Any]:
        return {"names": list(self.names), "army": {f: sorted(a) for f, a in self.army.items()},
                "parent": dict(self.parent)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Factions:
        return cls(tuple(data.get("names", ())), {f: frozenset(a) for f, a in data.get("army", {}).items()},
                   dict(data.get("parent", {})))


@attrs.frozen
class Catalogues:
    """The catalogues of a checkout: their names, which are libraries, and which link which."""

    names: Mapping[str, str]  #: catalogue id -> name
    libraries: frozenset[str]
    links: Mapping[str, tuple[tuple[str, bool], ...]]  #: id -> (linked id, imports its root entries)
    linkers: Mapping[str, tuple[str, ...]]  #: id -> the factions the names of the catalogues linking it stand for
    hosts: Mapping[str, frozenset[str]]  #: id -> factions of the units defined in it

    @classmethod
    def read(cls, roots: Iterable[Element]) -> Catalogues:
        found = [root for root in roots if tag(root) == "catalogue"]
        names = {root.get("id", ""): root.get("name", "") for root in found}
        libraries = frozenset(root.get("id", "") for root in found if root.get("library") == "true")
        links = {root.get("id", ""): tuple((link.get("targetId", ""), link.get("importRootEntries") == "true")
                                           for link in kids(root, "catalogueLinks", "catalogueLink")
                                           if link.get("targetId") in names)
                 for root in found}
        linkers: dict[str, list[str]] = {ident: [] for ident in names}
        for other, targets in links.items():
            for target in dict.fromkeys(target for target, _ in targets):
                linkers[target].append(faction_name(names[other], other in libraries))
        partial = cls(names, libraries, links, {ident: tuple(found) for ident, found in linkers.items()}, {})
        hosts = {root.get("id", ""): frozenset(partial.faction(root, entry) for entry in unit_entries(root))
                 for root in found}
        return attrs.evolve(partial, hosts=hosts)

    def home(self, ident: str) -> str:
        """The faction a catalogue's own name stands for; a library's may be completed by a linking faction's
        ('Daemons' -> 'Chaos Daemons')."""
        own = faction_name(self.names[ident], ident in self.libraries)
        if ident not in self.libraries:
            return own
        words = normalise(own).split()
        longer = sorted({f for f in self.linkers[ident] if normalise(f).split()[-len(words):] == words})
        return longer[0] if len(longer) == 1 else own

    def faction(self, catalogue: Element, entry: Element) -> str:
        """The faction of a unit defined at the top of `catalogue`."""
        ident = catalogue.get("id", "")
        if ident in self.libraries:
            linkers = {normalise(f): f for f in self.linkers[ident]}
            for keyword in _faction_keywords(entry):
                if normalise(keyword) in linkers:
                    return linkers[normalise(keyword)]
        return self.home(ident)

    def relations(self) -> Factions:
        """Each faction's army (what the catalogues it imports root entries from, however deep, hold) and
        parent (the faction it imports from within its group of names)."""
        army: dict[str, set[str]] = {}
        parent: dict[str, str] = {}
        for ident in self.names:
            faction = self.home(ident)
            reached, todo = set(), [target for target, imported in self.links[ident] if imported]
            while todo:
                target = todo.pop()
                if target not in reached:
                    reached.add(target)
                    todo += [t for t, imported in self.links[target] if imported]
            army.setdefault(faction, set()).update(f for target in reached for f in self.hosts[target])
            group = _group(self.names[ident])
            for target, imported in self.links[ident]:
                if (imported and group and target not in self.libraries and _group(self.names[target]) == group
                        and self.home(target) != faction):
                    parent[normalise(faction)] = self.home(target)
        kept = {normalise(f): frozenset(normalise(g) for g in fielded) - {normalise(f)} for f, fielded in army.items()}
        names = tuple(sorted({f for hosted in self.hosts.values() for f in hosted}))
        return Factions(names, {f: fielded for f, fielded in sorted(kept.items()) if fielded}, parent)


"""A unit by the name a player types, across the sources that hold units: the datasheets of rules/, the
indexed BSData catalogues and army lists (FILE#UNIT).

A name is matched forgivingly: as written (case, accents and punctuation aside), else in its loose form (plural
or singular, with or without 'Squad' or a '[Legends]' tag: `data.names.loose`), else through the
names table (rules/names.toml: 'Guardsmen' for Cadian Shock Troops), else with a faction's name in front
('Ork Boyz': the Boyz of the Orks). 'NAME @ FACTION' names the faction. Names resolve within one edition (the
10th by default, the 11th where only its data is indexed: `library.default_edition`): the units of its index
and the datasheets of rules/ of that edition. A name that several factions use
is settled by the other unit of the question (the attacker's faction for the target and the other way
round, `Factions.rank`), and the header says so; when nothing settles it, the name is refused with the
factions listed, never picked silently.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..catalogue import library
from ..catalogue.convert import to_datasheet
from ..catalogue.factions import Factions
from ..data.datasheet import Datasheet
from ..data.load import Names
from ..data.names import compact, loose, normalise, starts_words, words_left
from ..errors import MathhammerError

_SQUAD = frozenset({"squad", "squads"})  #: a word of units' names, not factions'
_MOST_FACTION_WORDS = 4  #: the longest faction name read in front of a unit's ('Leagues of Votann')


@attrs.frozen
class Option:
    """One unit a name may mean: a datasheet (of rules/, or an army list's unit), or an indexed record,
    converted only if it is the one chosen."""

    name: str
    faction: str
    sheet: Datasheet | None = None
    record: Mapping[str, Any] | None = None
    army: str = ""  #: the faction whose army fields it, where the name says ('NAME @ FACTION': `Datasheet.in_army`)

    def datasheet(self) -> Datasheet:
        if self.sheet is not None:
            sheet = self.sheet
        else:
            assert self.record is not None
            sheet = to_datasheet(self.record)
        return sheet.in_army(self.army) if self.army else sheet


@attrs.frozen
class Named:
    """The units a name may mean (at most one per faction) and how the name was read."""

    written: str
    options: tuple[Option, ...]
    reading: tuple[str, ...] = ()  #: said in the header: an alias taken, a faction's unit taken for another's
    edition: str = "10e"  #: the edition the name was looked up in

    @property
    def unit(self) -> str:
        """The unit's name as the data has it: what to write before '@ FACTION'."""
        return self.options[0].name

    def factions(self) -> list[str]:
        return [option.faction for option in self.options]


class Ambiguous(MathhammerError):
    """A name that several units' names hold, none of them nearer than the others (`_held`)."""


def _shipped(text: str, sheets: Mapping[str, Datasheet]) -> list[Option]:
    """The datasheet of rules/ called `text` (by its name or an alias; exactly, else loosely, else without
    spaces)."""
    for key in (normalise, loose, compact):
        found = {sheet.name: sheet for sheet in sheets.values()
                 if key(text) in {key(sheet.name), *(key(alias) for alias in sheet.aliases)}}
        if found:
            return [Option(sheet.name, sheet.faction, sheet=sheet) for sheet in found.values()]
    return []


def _units(text: str, sheets: Mapping[str, Datasheet], edition: str, faction_named: bool = False) -> list[Option]:
    """The units of `edition` called `text`: a datasheet of rules/ first (the name alone means it), else the index's;
    where a faction is named ('@'), the index's units of other factions beside it (a trial found 'Incursor Squad @
    Space Marines' answered with the Blood Angels datasheet of rules/)."""
    shipped = _shipped(text, sheets)
    if shipped and not faction_named:
        return shipped
    theirs = {normalise(option.faction) for option in shipped}  # it replaces the index's unit of its faction
    return shipped + [Option(r["name"], r["faction"], record=r) for r in library.indexed(text, edition)
                      if normalise(r["faction"]) not in theirs]


def _held(text: str, sheets: Mapping[str, Datasheet], edition: str,
          fielded: Callable[[Option], bool] = lambda option: True,
          among: str = "unit") -> tuple[list[Option], tuple[str, ...]]:
    """The units of the one name (not [Legends], where one is) that holds every word of `text` at the start of one
    of its words and has one word more at most ('crisis fireknife' for Crisis Fireknife Battlesuits, 'Abaddon' for
    Abaddon the Despoiler; not 'Tempestus Squad' for Militarum Tempestus Command Squad), else, for one word typed, more
    where it is the one unit of today that holds it as a whole word, not its faction's ('sunforge' for Crisis Sunforge
    Battlesuits; not 'angels' for a Blood Angels Captain), and the header line saying
    so; none where no name, or several, hold them, or where only a [Legends] unit does but a unit of today holds
    them with more words ('crisis' may be the Crisis Fireknife Battlesuits, not only the Crisis Battlesuits
    [Legends]). Where several names begin with the words but one holds them as whole words, that one is taken
    ('wraiths': Canoptek Wraiths, not Wraithguard). Where a longer name holds them too, the name is refused
    (`Ambiguous`), naming the units it may be ('acolytes': Acolyte Iconward or Acolyte Hybrids with Autopistols).
    Only the units `fielded` accepts count (those an army of the faction named fields: `among` says so)."""
    words = [w for w in normalise(text).split() if w not in _SQUAD]  # a word players drop: it tells no unit apart
    if not words:
        return [], ()

    def whole(option: Option) -> bool:
        return all(loose(w) in loose(option.name).split() or w in normalise(option.name).split() for w in words)

    def own(option: Option) -> bool:  # the words are the unit's, not its faction's ('angels': Blood Angels)
        return not any(loose(w) in loose(option.faction).split() for w in words)

    near = [Option(sheet.name, sheet.faction, sheet=sheet) for sheet in sheets.values()
            if starts_words(sheet.name, words)]
    near += [Option(r["name"], r["faction"], record=r) for r in library.holding(text, edition)
             if starts_words(r["name"], words)]
    near = [o for o in near if fielded(o)]
    nickname = len(normalise(text).split()) == 1  # one word typed ('sunforge'), not a name of its own ('Tempestus
    # Squad', which names no unit: not the Militarum Tempestus Command Squad)
    options = [o for o in near if words_left(o.name, text) <= 1] or [  # else a name of today that holds it whole
        o for o in near if nickname and "[" not in o.name and whole(o) and own(o)]
    plain = [o for o in options if "[" not in o.name]
    if not plain and any("[" not in o.name for o in near):
        several = sorted({o.name for o in near if "[" not in o.name and whole(o)})
        if len(several) > 1:  # units of today holding every word, none near enough to be it ('tyranid warriors': a
            # trial read 'unknown unit' where two are named so): named, to choose among
            raise _could_be(text, several)
        return [], ()
    plain = plain or options
    if len({o.name for o in plain if whole(o)}) == 1:  # 'wraiths': Canoptek Wraiths, not Wraithguard, whose name
        plain = [o for o in plain if whole(o)]  # it only begins
    if len({o.name for o in plain}) != 1:
        return [], ()
    # another unit (of today, unless this one is of Legends; not a variant in brackets, unless this one is: 'Ripper
    # Swarms (Parasite of Mortrex)'; not one whose name holds this one's: 'Grand Master in Nemesis Dreadknight')
    # holds the words too, with more words left: they tell the two apart only where this one holds them as whole
    # words and it does not ('acolytes': Acolyte Iconward or Acolyte Hybrids with Autopistols); else the name is
    # refused, the units it may be named
    chosen = plain[0].name
    rivals = sorted({o.name for o in near if o.name != chosen and ("[" in chosen or "[" not in o.name)
                     and ("(" in chosen or "(" not in o.name) and normalise(chosen) not in normalise(o.name)
                     and (not whole(plain[0]) or whole(o))})
    if rivals:
        raise _could_be(text, [chosen, *rivals])
    return plain, (f"{text.strip()!r} read as {chosen} (the one {among} whose name holds these words)",)


def _could_be(text: str, names: Sequence[str]) -> Ambiguous:
    """The refusal of words that several units' names hold, naming them."""
    return Ambiguous(f"{text.strip()!r} could be {', '.join(names[:-1])} or {names[-1]}, "
                     f"{'each' if len(names) == 2 else 'all'} holding these words: write more of the unit's name")


def _faction(text: str, sheets: Mapping[str, Datasheet], names: Names, exact: bool, edition: str) -> str | None:
    """The faction `text` names: a known faction's name (plural or singular) or a names-table entry; unless
    `exact`, also the one faction whose name holds its words ('@ sand' for Sand Host)."""
    wanted = loose(text)
    if not wanted:
        return None
    known = sorted({*library.factions(edition).names, *(sheet.faction for sheet in sheets.values())})
    by_name = {loose(f): f for f in known}
    if wanted in by_name:
        return by_name[wanted]
    if wanted in names.factions:
        return names.factions[wanted][0]
    if exact:
        return None
    words = wanted.split()
    holding = sorted({f for key, f in by_name.items() if any(key.split()[i:i + len(words)] == words
                                                            for i in range(len(key.split())))})
    if len(holding) > 1:
        raise MathhammerError(f"'@ {text.strip()}' could be any of {', '.join(holding)}: write the faction's name")
    if not holding:
        raise MathhammerError(f"no faction called {text.strip()!r} (factions: {', '.join(sorted(known))})")
    return holding[0]


def _fielded(relations: Factions, faction: str, option: Option) -> bool:
    """Whether an army of `faction` fields the unit `option`."""
    return relations.rank(option.faction, faction) is not None


def _held_by_army(text: str, sheets: Mapping[str, Datasheet], edition: str, relations: Factions,
                  faction: str) -> tuple[list[Option], tuple[str, ...]]:
    """`_held` among the units an army of `faction` fields."""
    return _held(text, sheets, edition, functools.partial(_fielded, relations, faction),
                 f"unit {'an' if faction[:1] in 'AEIOU' else 'a'} {faction} army fields")


def _not_a_faction(text: str, options: list[Option], sheets: Mapping[str, Datasheet], names: Names,
                   edition: str) -> None:
    """Refuses a faction's name typed for a unit where no unit has that name as written: 'grey knights' is no
    unit, and 'sisters of battle' (the Adepta Sororitas) is the Agents of the Imperium's Sisters of Battle Squad
    only when written so."""
    faction = _faction(text, sheets, names, True, edition)
    if faction is None or _SQUAD & set(normalise(text).split()) or any(normalise(o.name) == normalise(text)
                                                                       for o in options):
        return  # 'sisters of battle squads': a unit's name, as players type it
    also = f"; for the {options[0].faction} unit, write its name: {options[0].name!r}" if len(options) == 1 else ""
    raise MathhammerError(f"{text.strip()!r} is the name of a faction ({faction}), not of a unit: name one of its "
                          f"units (`mathhammer datasheets --search {text.strip()!r}` lists them){also}")


def _not_its_own(written: str, rest: str, inner: Named, faction: str, sheets: Mapping[str, Datasheet], edition: str,
                 relations: Factions) -> None:
    """Refuses a faction's name in front of a name that is another faction's unit, which an army of it fields, where
    a unit of the faction's own holds the words too: 'space wolves terminators' may be their Wolf Guard Terminators
    or the Space Marines' Terminator Squad (a trial found the second taken)."""
    if any(relations.rank(o.faction, faction) == 0 or normalise(o.name) == normalise(rest) for o in inner.options):
        return  # its own unit, or a unit's name written whole
    words = [loose(w) for w in normalise(rest).split() if w not in _SQUAD]
    names = [*(sheet.name for sheet in sheets.values() if relations.rank(sheet.faction, faction) == 0),
             *(r["name"] for r in library.holding(rest, edition) if relations.rank(r["faction"], faction) == 0)]
    own = sorted({name for name in names if "[" not in name and all(w in loose(name).split() for w in words)})
    if own:  # (a review: 'space wolves dreadnought', which two of theirs hold)
        theirs = min((o for o in inner.options if relations.rank(o.faction, faction) is not None),
                     key=lambda o: relations.rank(o.faction, faction) or 0)  # the nearest faction's
        mine = ', '.join(own)
        raise Ambiguous(f"{written.strip()!r} could be {mine} ({faction}) or {theirs.name} ({theirs.faction}, which "
                        f"{faction} armies field): write the unit's name")


def _narrowed(written: str, options: list[Option], faction: str, relations: Factions) -> Named:
    """The unit of `options` that `faction` fields: its own, else of the nearest faction its army draws on."""
    ranked = [(rank, option) for option in options if (rank := relations.rank(option.faction, faction)) is not None]
    unit = options[0].name
    if not ranked:
        raise MathhammerError(f"{unit!r} is no unit of {faction} or of a faction its army fields (it is a unit of "
                              f"{', '.join(o.faction for o in options)})")
    best = min(rank for rank, _ in ranked)
    chosen = _one_per_faction([option for rank, option in ranked if rank == best])
    if len(chosen) > 1:
        raise MathhammerError(f"{faction} armies field {unit!r} of {' and '.join(o.faction for o in chosen)}: write "
                              f"'{unit} @ FACTION' with one of them")
    reading = () if best == 0 else (f"the {chosen[0].faction} unit of this name, for {faction}: "
                                    f"{relations.relation(chosen[0].faction, faction)}",)
    return Named(written, (attrs.evolve(chosen[0], army=faction),), reading)


def _one_per_faction(options: list[Option]) -> list[Option]:
    """`options` with one unit per faction: where a loose form fits two units of one faction, the one without
    a tag ('Wolf Scout': Wolf Scouts, not Wolf Scouts [Legends]); refused if that does not tell them apart."""
    by_faction: dict[str, list[Option]] = {}
    for option in options:
        by_faction.setdefault(normalise(option.faction), []).append(option)
    kept = []
    for units in by_faction.values():
        plain = [o for o in units if "[" not in o.name] if len(units) > 1 else units
        if len(plain) != 1:
            raise MathhammerError(f"the name could be any of {', '.join(o.name for o in units)}: write the unit's "
                                  "name exactly")
        kept += plain
    return kept


def named(written: str, sheets: Mapping[str, Datasheet], names: Names, edition: str | None = None) -> Named:
    """Every unit `written` may mean (FILE#UNIT, a datasheet of rules/, indexed units of `edition`; by default
    `library.default_edition`), matched forgivingly; none if no unit has that name. An army list's unit is
    of its own list's edition, whatever `edition` says."""
    if library.is_reference(written):
        sheet = library.army_unit(written)
        return Named(written, (Option(sheet.name, sheet.faction, sheet=sheet),), edition=sheet.edition)
    edition = edition or library.default_edition()
    sheets = {key: sheet for key, sheet in sheets.items() if sheet.edition == edition}
    text, at, faction_text = written.partition("@")
    reading: tuple[str, ...] = ()
    options = _units(text, sheets, edition, bool(at))
    if not options and loose(text) in names.units:
        meant, where = names.units[loose(text)]
        options = _units(meant, sheets, edition, bool(at))
        reading = (f"{text.strip()!r} read as {meant} ({where})",)
    relations = library.factions(edition)
    _not_a_faction(text, options, sheets, names, edition)
    faction = _faction(faction_text, sheets, names, False, edition) if at else None
    words, unit_words = text.split(), text  # the unit's words, without a faction's name in front
    for cut in range(1, min(len(words), _MOST_FACTION_WORDS + 1)):  # a faction's name in front: 'Ork Boyz'
        if options or at:
            break
        front = _faction(" ".join(words[:cut]), sheets, names, True, edition)
        rest = " ".join(words[cut:])
        try:
            inner = named(rest, sheets, names, edition) if front else None
        except Ambiguous:  # the other words alone hold several names ('daemon prince': 'prince')
            inner = None
        if front and inner and inner.options and any(relations.rank(o.faction, front) is not None
                                                     for o in inner.options):
            _not_its_own(written, rest, inner, front, sheets, edition, relations)
            options, reading, unit_words, faction = list(inner.options), inner.reading, rest, front
        elif front:  # 'custodes guard': the one unit of the faction's army that holds the other words
            try:
                mine, said = _held_by_army(rest, sheets, edition, relations, front)
            except Ambiguous:  # several units of the army hold the other words: read as written, below
                mine, said = [], ()
            if mine:  # else the first words were no faction's after all ('daemon prince')
                options, reading, unit_words, faction = mine, said, rest, front
    if not options:  # among the units an army of the faction named fields, if one is
        options, reading = _held_by_army(text, sheets, edition, relations, faction) if faction else \
            _held(text, sheets, edition)
    if faction and options and all(relations.rank(o.faction, faction) is None for o in options):
        # 'admech rangers': not the Aeldari's Rangers, but the one unit the faction fields that holds the words
        mine, said = _held_by_army(unit_words, sheets, edition, relations, faction)
        options, reading = (mine, said) if mine else (options, reading)
    if faction and options:
        narrowed = _narrowed(written, options, faction, relations)
        return attrs.evolve(narrowed, reading=(*reading, *narrowed.reading), edition=edition)
    return Named(written, tuple(_one_per_faction(options)), reading, edition)


def choose(found: Named, nears: Sequence[Datasheet | Named] = ()) -> Datasheet:
    """The one unit `found` means: its only one, else the one of the faction nearest that of the first of `nears`
    (the question's other units: the Leader attached to it, then the unit it attacks or is attacked by) that
    settles it; refused when none does. What settled it goes in its notes."""
    if len(found.options) == 1:  # the index is not opened for a unit of one faction (a list's, a profile)
        chosen, why = found.options[0], ""
    else:
        relations = library.factions(found.edition)
        near: Datasheet | Named | None = None
        others: list[str] = []
        scored: list[tuple[int, int, str]] = []
        for near in nears:  # the first that settles it, else the last
            others = [near.faction] if isinstance(near, Datasheet) else near.factions()
            scored = sorted((rank, i, other) for i, option in enumerate(found.options) for other in others
                            if (rank := relations.rank(option.faction, other)) is not None)
            if scored and len({i for rank, i, _ in scored if rank == scored[0][0]}) == 1:
                break
        best = [s for s in scored if s[0] == scored[0][0]]
        parent = _parent(found, relations)
        if (not best or len({i for _, i, _ in best}) > 1) and parent is None:
            undecided = f", and {_label(near, '/'.join(others))} does not decide between them" if near else ""
            raise MathhammerError(f"{found.unit!r} is a unit of several factions ({', '.join(found.factions())})"
                                  f"{undecided}: write '{found.unit} @ FACTION', e.g. "
                                  f"'{found.unit} @ {found.options[0].faction}'")
        also = ", ".join(f for f in found.factions() if f != (parent or found.options[best[0][1]]).faction)
        if not best or len({i for _, i, _ in best}) > 1:
            assert parent is not None
            chosen = parent
            verb = "is a part of {} and prints" if "," not in also else "are parts of {} and print"
            why = (f"the {chosen.faction} unit of this name: {also} {verb.format(chosen.faction)} it too "
                   f"('{found.unit} @ {also.split(', ')[0]}' asks for theirs)")
        else:
            _, index, other = best[0]
            chosen = found.options[index]
            assert near is not None
            why = (f"the {chosen.faction} unit of this name, for {_label(near, other)}: "
                   f"{relations.relation(chosen.faction, other)}; also a unit of {also} ('{found.unit} @ FACTION' "
                   "asks for another)")
    sheet = chosen.datasheet()
    said = (*found.reading, why) if why else found.reading
    return attrs.evolve(sheet, notes=(*said, *sheet.notes)) if said else sheet


def _parent(found: Named, relations: Factions) -> Option | None:
    """The unit of the faction every other faction of `found` is a part of (Space Marines, for a datasheet its
    chapters print too: 'Terminator Squad' of Space Marines and of Black Templars), if there is one."""
    for option in found.options:
        others = [o for o in found.options if o is not option]
        if all(normalise(relations.parent.get(normalise(o.faction), "")) == normalise(option.faction) for o in others):
            return option
    return None


def _label(near: Datasheet | Named, faction: str) -> str:
    return f"{near.name if isinstance(near, Datasheet) else near.unit} ({faction})"


def search(text: str, sheets: Sequence[Datasheet], names: Names,
           edition: str | None = None) -> tuple[str, list[tuple[str, str, dict[int, int]]]]:
    """`library.search` of the words typed, the unit players call by them first ('Fire Warriors': Strike Team, by
    the names table), and the line that says so ("" where the words are no such name)."""
    found = library.search(text, sheets, edition)
    meant, where = names.units.get(loose(text), ("", ""))
    if not meant:
        return "", found
    rows = {row[:2]: row for row in [*library.search(meant, sheets, edition), *found]}
    return f"{text.strip()!r} is what players call {meant} ({where})", list(rows.values())

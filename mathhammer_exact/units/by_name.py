"""The units and targets a question names, resolved across every source of units: the datasheets of rules/
(`data.load`), the indexed catalogues and army lists (`catalogue.library`), matched forgivingly (`lookup`).
A name that several factions use is settled by the question's other unit (`near`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import attrs

from ..catalogue.library import (
    close_names,
    current_index,
    default_edition,
    editions,
    indexed_units,
    missing,
    unreadable,
)
from ..data.datasheet import Datasheet, TargetUnit, fielded_leaders
from ..data.load import datasheets, equipped, find, label, library, standard_targets, unknown, wargear_rules
from ..data.names import compact, loose, normalise
from ..editions import EDITIONS
from ..engine.layout import default_order
from ..errors import MathhammerError, did_you_mean
from ..model import ModelProfile, Target
from ..parsing import is_profile
from .lookup import Named, choose, named

#: 'Boyz x20': a unit, its size; 'Boyz x7/20': 7 models left of 20 (its Starting Strength)
SIZED = re.compile(r"^(?P<name>.*?)\s+x\s*(?P<size>[0-9]{1,4})(?:/(?P<started>[0-9]{1,4}))?$", re.IGNORECASE)


def sized(text: str) -> tuple[str, int | None, int | None]:
    """A unit's name, the size written after it and the size it started with where it has lost models, each if
    written: 'Boyz x20' is ('Boyz', 20, None), 'Boyz x7/20' ('Boyz', 7, 20)."""
    found = SIZED.match(text.strip())
    if not found:
        return text.strip(), None, None
    return found["name"], int(found["size"]), None if found["started"] is None else int(found["started"])


def whole(text: str, where: str) -> tuple[str, int | None]:
    """`sized` for a name that gives a whole unit (`where` says whose names those are, and what to write instead)."""
    name, size, started = sized(text)
    if started is not None:
        raise MathhammerError(f"{text.strip()!r}: {where}")
    return name, size


Near = str | Datasheet | None  #: the other unit of a question: its datasheet, or its name as written
Nears = Near | tuple[Near, ...]  #: the other units of a question that may settle a name, the first that does taken


def _near(near: Near, user: str | Path | None, edition: str | None = None) -> Datasheet | Named | None:
    """The units the question's other unit may be (in `edition`), when it is a unit (not a profile or a standard
    target)."""
    if near is None or isinstance(near, Datasheet):
        return near
    if is_profile(near) or any(normalise(near) == normalise(n) for n in standard_targets(user)):
        return None
    lib = library(user)
    try:
        found = named(near, lib.sheets, lib.names, edition)
    except MathhammerError:  # said when that unit itself is looked up
        return None
    return found if found.options else None


def unit_named(name: str, user: str | Path | None = None, near: Nears = None,
               edition: str | None = None) -> Datasheet | None:
    """The unit called `name` (a datasheet of rules/, an indexed unit, or 'army.rosz#3'), matched forgivingly
    (`lookup`) within `edition` (by default the 10th, unless only the 11th is indexed); `near`, the question's
    other units (the first that settles it taken), settles a name that several factions use. None if no unit has
    that name. A unit of exactly that name that the checkout holds but could not be read is refused as such, not
    answered with one whose name differs by a tag (the current Crusader Squad, not 'Crusader Squad [Legends]')."""
    lib = library(user)
    found = named(name, lib.sheets, lib.names, edition)
    if not found.options:
        return None
    nears = [n for one in (near if isinstance(near, tuple) else (near,))
             if (n := _near(one, user, found.edition)) is not None] if len(found.options) > 1 else []
    sheet = choose(found, nears)
    written = sized(name.split("@")[0])[0]  # 'Crusader Squads @ Black Templars', 'Boyz x20': the name
    tagged = sheet is not None and "#" not in name and "[" in sheet.name and "[" not in written  # not a list's
    broken = _unread(written, found.edition) if tagged else None
    if sheet is not None and broken is not None and "[" not in broken[0]:  # the unit asked for, untagged, unread
        raise MathhammerError(f"{broken[0]} is in your {found.edition} checkout but could not be read when it was "
                              f"indexed ({broken[1]}); {sheet.name!r} is another datasheet: write its name to ask "
                              "about it")
    return sheet


def _unread(name: str, edition: str | None) -> tuple[str, str] | None:
    """The unit called `name` (as names match: plurals and tags left out) that `edition`'s checkout holds but could
    not be read when it was indexed, and why; None if there is none."""
    return {loose(unit): (unit, why) for unit, why in unreadable(edition).items()}.get(loose(name))


def datasheet(name: str, user: str | Path | None = None, near: Nears = None, edition: str | None = None) -> Datasheet:
    """A datasheet of rules/, else a unit of the player's own data (docs/catalogue.md); see `unit_named`."""
    if not normalise(name):  # (a trial's name in Japanese was told none was given)
        said = f"unknown unit {name.strip()!r}: the data names units in Latin letters" if name.strip() else \
            "no unit named"
        raise MathhammerError(f"{said}: give a unit's name, e.g. 'Intercessor Squad' (`mathhammer datasheets "
                              "--search WORD` finds units by a word)")
    sheet = unit_named(name, user, near, edition)
    if sheet is None:
        wanted = edition or default_edition()
        sheets = {key: s for key, s in datasheets(user).items() if s.edition == wanted}
        aliases = {alias: s.name for s in sheets.values() for alias in s.aliases}
        miss = unknown(name, sheets, "datasheet", aliases) if sheets else MathhammerError(
            f"unknown unit {name!r}: no unit of the {wanted} data indexed has that name")
        raise unknown_unit(name, miss, edition, [*sheets, *aliases])
    return sheet


ARMY_LIST_FILE = re.compile(r"\.(?:ros|rosz|json)\s*$", re.I)  #: the file names army lists have


def unknown_unit(name: str, miss: MathhammerError, edition: str | None = None,
                 shipped: Sequence[str] = ()) -> MathhammerError:
    """No unit is called `name`: the closest names of `edition`'s index as the "did you mean" (several where
    several names hold its words), else the closest of the names of rules/ (`shipped`: 'MEQ' for 'MEQQ'), what
    that index holds where none is close, and the catalogues its checkout lacks, whose units cannot be found;
    `miss` (the datasheets of rules/) where nothing is indexed."""
    if ARMY_LIST_FILE.search(name):  # 'army.rosz' alone: a file, not a unit (said without opening it)
        return MathhammerError(f"{name.strip()!r} names an army list, not one of its units: add '#' and the unit's "
                               f"number or name, e.g. '{name.strip()}#1'")
    wanted = edition or default_edition()
    count = indexed_units(wanted)
    if not count:
        return miss
    lacking = missing(wanted)
    lacks = (f"; your {wanted} checkout lacks catalogues that others link ({', '.join(lacking)}): a unit of theirs "
             "is not indexed" if lacking else "")
    others = [e for e in editions() if e != wanted and (index := current_index(e)) is not None and index.named(name)]
    elsewhere = f"{name} is a unit of the {EDITIONS[others[0]].ordinal} edition: add --edition {others[0]}" \
        if others else ""
    broken = _unread(name, wanted)  # 'Imagifiers'
    if broken is not None:  # in the checkout, but not readable: not 'no such unit'
        return MathhammerError(f"{broken[0]} is in your {wanted} checkout but could not be read when it was indexed "
                               f"({broken[1]})" + (f"; {elsewhere}" if elsewhere else ""))
    if elsewhere:  # a unit of the other edition's index: say which option
        return MathhammerError(f"unknown unit {name!r} in the {EDITIONS[wanted].ordinal} edition's index; {elsewhere}"
                               + lacks)
    close = close_names(name, wanted)
    shown = ", ".join(repr(c) for c in close[:6]) + (f" or {len(close) - 6} more" if len(close) > 6 else "")
    hint = (f" (did you mean {shown}?)" if len(close) == 1 else f" (did you mean one of {shown}?)") if close else (
        did_you_mean([normalise(name)], {normalise(n): n for n in shipped}) or
        f": none of the {count} units of the {wanted} index has that name or its words (`mathhammer datasheets "
        "--search WORD` finds units by a word)")
    return MathhammerError(f"unknown unit {name!r}{hint}{lacks}")


#: the Leaders a question attaches to a unit: one, or several (a tuple), each by name (or profile) or datasheet
Leaders = str | Datasheet | Sequence[str | Datasheet] | None


def written_leaders(leader: Leaders) -> tuple[str | Datasheet, ...]:
    """The Leaders a question attaches, each as written (an empty name is none: `--leader ''`)."""
    given = () if leader is None else (leader,) if isinstance(leader, str | Datasheet) else tuple(leader)
    return tuple(one for one in given if not isinstance(one, str) or one.strip())


def target_unit(text: str, models: int | None = None, leader: Leaders = None, user: str | Path | None = None,
                near: Nears = None, loadout: Sequence[str] = (), leader_loadout: Sequence[str] = ()) -> TargetUnit:
    """A target by datasheet or standard-target name, or written as a profile; `models` sets the size of a
    unit of alike models, `leader` attaches CHARACTERs written as profiles or by name (`leaders`); `near` (the
    question's other units: the target's Leaders, then the attacker) settles a unit name that several factions use;
    `loadout` chooses a datasheet target's wargear, as for an attacking unit (a medi-pack's Feel No Pain, a model
    that joins with its own profile), and `leader_loadout` its Leaders' (`fielded_leaders`)."""
    if models is not None and models < 1:
        raise MathhammerError(f"--target-models must be at least 1, got {models}")
    if not normalise(text):  # (a trial read 'unknown unit' and a list of a thousand names)
        raise MathhammerError("no target named: give a unit's name ('Intercessors'), a standard target (MEQ, GEQ, ...) "
                              "or a profile, e.g. 'T4 Sv3+ W2 x5'")
    name, written, started = (text, None, None) if is_profile(text) else sized(text)
    if written is not None:  # 'Boyz x20', as a matchup's armies and a profile ('... W1 x20') write a size
        if models is not None and models != written:
            raise MathhammerError(f"{text.strip()!r} gives the target {written} models and --target-models {models}: "
                                  "give one of them")
        text, models = name, written
    lost = 0 if started is None or written is None else started - written  # models lost before ('Boyz x7/20')
    if lost < 0:
        raise MathhammerError(f"{text.strip()} x{written}/{started}: more models left ({written}) than the unit "
                              f"started with ({started}, its Starting Strength)")
    bodyguard, size = None, None
    if is_profile(text):
        target, shown = Target.parse(text), " ".join(text.split())
    else:
        sheets, standard = datasheets(user), standard_targets(user)
        names = {**{n: ("sheet", n) for n in sheets}, **{n: ("standard", n) for n in standard}}
        aliases = {a: s.name for s in sheets.values() for a in s.aliases}
        try:
            kind, name = find(text, names, "target (datasheet or standard target)", aliases)
        except MathhammerError as miss:
            kind, name = "unit", ""
            bodyguard = unit_named(text, user, near)
            if bodyguard is None:
                raise unknown_unit(text, miss, shipped=[*names, *aliases]) from None
        if kind == "sheet":
            bodyguard = sheets[name]
        if bodyguard and models is not None and not lost:
            _fielded(bodyguard, models, text)
        fielded = None if models is None else models + lost  # the unit as it started the battle
        target = equipped(bodyguard, fielded, loadout, user) if bodyguard else standard[name].target
        shown = label(bodyguard) if bodyguard else name
        size, models = (fielded, None) if bodyguard else (None, models)
    if loadout and bodyguard is None:
        raise MathhammerError("--target-loadout chooses the wargear of a target named by its datasheet; "
                              f"{text.strip()!r} is not one")
    if models is not None:  # a profile's or a standard target's
        if len(target.groups) != 1 or target.starting_strength is not None:
            raise MathhammerError("--target-models sets the size of a target whose models are all alike" if len(
                target.groups) != 1 else f"{text.strip()!r} gives its models: leave out --target-models")
        target = Target.of(target.groups[0][0], models + lost)
    lost_before: tuple[str, ...] = ()
    if lost:
        if len(target.groups) > 1:
            lost_before = (f"target note ({shown}): the {lost} models it lost before are those the defender "
                           "allocates to first (fewest wounds first, CHARACTERs last); for others, write the target "
                           "as profiles ('T4 Sv3+ W2 x2/4; ...')",)
        target = _depleted(target, lost)
    sheets_read = [bodyguard] if bodyguard else []
    groups, leading = leaders(leader, bodyguard, user, leader_loadout, size)
    if groups:  # what each Leader's wargear gives its unit, the whole Attached unit's: the best of each
        given: dict[str, int] = {}
        for field, value in (item for sheet in leading for item in sheet.for_its_unit().items()):
            given[field] = min(value, given.get(field, value))
        characters = sum(n for p, n in target.groups if p.character)  # on the leaders' side once a Leader joins
        target = Target(tuple((p.defended(given), n) for p, n in (*target.groups, *groups)), attached=True,
                        starting_strength=None if not target.lost_before else target.starting - characters)
        if leading:
            shown += f" led by {' and '.join(map(label, leading))}"
            sheets_read += leading
    notes = lost_before + _as_taken(bodyguard, size, loadout) + tuple(
        note for sheet in sheets_read
        for note in (target_notes(sheet, loadout, size) if sheet is bodyguard else target_notes(sheet)))
    if bodyguard and loadout:
        notes += (f"target wargear ({bodyguard.name}): {', '.join(item.strip() for item in loadout)}",
                  *(line.replace("--loadout", "--target-loadout", 1)
                    for line in bodyguard.loadout_lines(loadout, size)),
                  *(f"target wargear rule: {rule.name}: {rule.summary}"
                    for rule in wargear_rules(bodyguard, loadout, size, user)))
    carried = frozenset(item for _, gear in bodyguard.equip(loadout, size) for item in gear) if bodyguard and loadout \
        else frozenset()
    return TargetUnit(target, shown, bodyguard, notes, leading, carried, size)


def _as_taken(sheet: Datasheet | None, size: int | None, loadout: Sequence[str]) -> tuple[str, ...]:
    """The notes on what a datasheet target was taken as where the question did not say (a trial found Custodian Guard
    taken as four spear models without a word, where the attacker's size is said): its smallest size, where it
    comes in others, and its default wargear, where its models may take other."""
    if sheet is None:
        return ()
    taken = sheet.smallest_taken() if size is None else ""
    notes: tuple[str, ...] = (f"target size: {taken} (--target-models sets another)",) if taken else ()
    if not loadout and sheet.choices():
        notes += (f"target wargear: as its datasheet equips its models ({', '.join(sorted(_default_gear(sheet)))}); "
                  "--target-loadout chooses other",)
    return notes


def _default_gear(sheet: Datasheet) -> set[str]:
    return {item for _, gear in sheet.equip(()) for item in gear}


def _depleted(target: Target, lost: int) -> Target:
    """`target` (as fielded) less `lost` models, those it would lose first (`default_order`), with its Starting
    Strength kept."""
    counts = [count for _, count in target.groups]
    for g in default_order(target):
        taken = min(lost, counts[g])  # (a group may go whole; fewer are lost than the unit has)
        counts[g] -= taken
        lost -= taken
    return Target(tuple((profile, n) for (profile, _), n in zip(target.groups, counts) if n),
                  starting_strength=target.model_count)


def _fielded(sheet: Datasheet, models: int, text: str) -> None:
    """Refuse a size `sheet` does not come in (as `Datasheet.counts` does), saying how to write a unit that has lost
    models where it may be one."""
    try:
        sheet.counts(models)
    except MathhammerError as refused:
        bigger = [n for n in sheet.allowed_sizes() if n > models]
        if models < 1 or not bigger:
            raise
        raise MathhammerError(f"{refused}; for a unit that has lost models, write the models it started with: "
                              f"'{text.strip()} x{models}/{bigger[0]}'") from None


def target_notes(sheet: Datasheet, loadout: Sequence[str] = (), size: int | None = None) -> tuple[str, ...]:
    """What the header says of a datasheet target at `size` with `loadout`: its notes and its defences read."""
    return tuple(f"target note ({sheet.name}): {note}"
                 for note in (*sheet.notes_for(loadout, size), *sheet.defences_for(loadout, size)))


def find_target(text: str, models: int | None = None, leader: Leaders = None,
                user: str | Path | None = None, near: Nears = None, loadout: Sequence[str] = ()) -> Target:
    """The target's models alone (`target_unit`)."""
    return target_unit(text, models, leader, user, near, loadout).target


def matchup(attacker: str, target: str, models: int | None = None, leader: Leaders = None,
            user: str | Path | None = None, loadout: Sequence[str] = (),
            led_by: Leaders = None, leader_loadout: Sequence[str] = ()) -> tuple[Datasheet, TargetUnit]:
    """The attacking unit and the target a question names, a name several factions use settled by the Leaders
    attached to that unit (`led_by` the attacker's, `leader` the target's), else by the other unit's faction;
    `loadout` is the target's wargear, `leader_loadout` its Leaders'."""
    sheet = datasheet(attacker, user, near=(*written_leaders(led_by), target))
    return sheet, target_unit(target, models, leader, user, near=(*written_leaders(leader), sheet), loadout=loadout,
                              leader_loadout=leader_loadout)


def _led_names(bodyguard: Datasheet) -> set[str]:
    """The names a Leader's list may call `bodyguard` by, as catalogues spell them ('HANDFLAMERS', a '[Legends]'
    tag left out, singular or plural): its own, and where its name is a keyword of it and the wargear it is
    fielded with, that keyword ('ACOLYTE HYBRIDS', for Acolyte Hybrids with Autopistols and with Hand Flamers;
    not a god's name, NURGLE for a Nurgle Soul Grinder, nor a CHARACTER's)."""
    own = compact(bodyguard.name)
    head = bodyguard.name.lower().split(" with ")[0] if " with " in bodyguard.name.lower() else ""
    family = [] if "CHARACTER" in bodyguard.keywords or not head else [
        word for word in map(compact, bodyguard.keywords) if word == compact(head)]
    return {own, *family}


def _keyword_set(listed: str, bodyguard: Datasheet) -> bool:
    """Whether a Leader's list names the unit by two or more of its keywords ('IMPERIUM BATTLELINE INFANTRY': any
    unit with all three), taking the longest keyword at each word ('ASTRA MILITARUM BATTLELINE'); never a
    CHARACTER's unit, nor where the words are a unit's name ('DEATHWATCH KILL TEAM': that datasheet alone)."""
    have = {normalise(word) for word in (*bodyguard.unit_keywords, *bodyguard.faction_keywords)}
    words, found, at = normalise(listed).split(), 0, 0
    index = current_index(bodyguard.edition) if bodyguard.source.startswith("BSData") else None
    if "CHARACTER" in bodyguard.keywords or (index is not None and index.named(listed)):
        return False
    while at < len(words):
        end = next((end for end in range(len(words), at, -1) if " ".join(words[at:end]) in have), None)
        if end is None:
            return False
        at, found = end, found + 1
    return found >= 2


def leading_problem(leader: Datasheet, bodyguard: Datasheet | None) -> str | None:
    """Why the CHARACTER `leader` cannot lead `bodyguard`, or None if it can: the units its Leader ability names (by
    their names, or by their keywords: `_keyword_set`; any unit where it has a Leader ability whose units were not
    read), and those whose Leaders the bodyguard's Attached Unit ability admits. A datasheet with no Leader ability
    leads no unit (a Knight Paladin, a Spiritseer, Angron), a standard target's neither (`bodyguard` None: which
    units it leads is not checked)."""
    if bodyguard is not None and any(rule.admits(leader) for rule in bodyguard.attached_as):
        return None
    if not leader.leader_of:
        if any(normalise(ability) == "leader" for ability in leader.abilities):
            return None
        return f"{leader.name} has no Leader ability: it leads no unit" + (
            f", {bodyguard.name} nor any other" if bodyguard else "")
    if bodyguard is None:
        return None
    if _led_names(bodyguard) & {compact(unit) for unit in leader.leader_of} or any(
            _keyword_set(unit, bodyguard) for unit in leader.leader_of):
        return None
    also = "; it may be led by " + " or ".join(r.describe() for r in bodyguard.attached_as) if bodyguard.attached_as \
        else ""
    return f"{leader.name} cannot lead {bodyguard.name} (it can lead: {', '.join(leader.leader_of)}{also})"


MOST_LEADERS = 2  #: Leaders that join one unit at most: a leave lets one join beside one other (`together_problem`)
_TOO_MANY = f"{MOST_LEADERS} Leaders at most join one unit"


def together_problem(leaders: Sequence[Datasheet], bodyguard: Datasheet | None, size: int | None = None) -> str | None:
    """Why `leaders`, each of which can lead `bodyguard` (of `size` models; default: its smallest), cannot lead it
    together, or None if they can: a unit has one Leader (in the 11th edition, and one SUPPORT), unless one's
    datasheet lets it join the unit the other already leads (`Datasheet.joins_beside`: a Lieutenant beside a Captain)
    or the bodyguard's lets it take two (`Datasheet.takes_two`: Cadian Shock Troops, Boyz of 20), and never more than
    two here. Where the bodyguard has no datasheet (a standard target), the units a leave names are not checked."""
    if len(leaders) < 2:
        return None
    names = " and ".join(sheet.name for sheet in leaders)
    unit = bodyguard.name if bodyguard else "one unit"
    if len(leaders) > MOST_LEADERS:
        return f"{names} cannot all lead {unit}: {_TOO_MANY}"
    led = _led_names(bodyguard) if bodyguard else None
    first, second = leaders
    if all(EDITIONS[sheet.edition].leader_and_support for sheet in leaders) and \
            len({"SUPPORT" in sheet.keywords for sheet in leaders}) == 2:  # a Leader and a Support
        return None
    if any(rule.admits(first, led, second) for rule in second.joins_beside) or any(
            rule.admits(second, led, first) for rule in first.joins_beside):
        return None
    takes, at = (bodyguard.takes_two, bodyguard.allowed_sizes()[0] if size is None else size) if bodyguard else ((), 0)
    if any(rule.admits(first, second, at) for rule in takes):
        return None
    said = "; ".join(dict.fromkeys([*(f"{sheet.name} may join {rule.describe()}" for sheet in leaders
                                      for rule in sheet.joins_beside),
                                    *(f"{unit} takes {rule.describe()}" for rule in takes)]))
    support = " and one Support" if all(EDITIONS[sheet.edition].leader_and_support for sheet in leaders) else ""
    return (f"{names} cannot both lead {unit}{f' of {at} models' if takes else ''}: a unit has one Leader{support} "
            "unless a Leader's datasheet lets it join beside the other, or the unit's lets it take two "
            f"({said or 'none does'})")


def leaders(leader: Leaders, bodyguard: Datasheet | None, user: str | Path | None, loadout: Sequence[str] = (),
            size: int | None = None) -> tuple[tuple[tuple[ModelProfile, int], ...], tuple[Datasheet, ...]]:
    """The models of the Leaders attached to `bodyguard` and their datasheets (`_leader`, each, with the wargear
    `loadout` chooses for them: `fielded_leaders`), checked that they may lead it together where all are named and
    the bodyguard is (`together_problem`)."""
    found = [_leader(text, bodyguard, user) for text in written_leaders(leader)]
    named = [one for one in found if isinstance(one, Datasheet)]
    if len(found) > MOST_LEADERS:  # those written as profiles counted too
        raise MathhammerError(f"{len(found)} Leaders: {_TOO_MANY}")
    problem = len(named) == len(found) and together_problem(named, bodyguard, size)
    if problem:
        raise MathhammerError(f"{problem}; write a leader as a profile to attach it anyway")
    chosen = fielded_leaders(named, loadout)
    sheets = iter(chosen)
    groups = [((one, 1),) if isinstance(one, ModelProfile) else next(sheets).as_target().groups for one in found]
    return (tuple((attrs.evolve(p, keywords=(*p.keywords, "CHARACTER")), n) for part in groups for p, n in part),
            chosen)


def _leader(text: str | Datasheet, bodyguard: Datasheet | None,
            user: str | Path | None) -> ModelProfile | Datasheet:
    """A Leader: written as a profile, or a CHARACTER unit by name (settled by the bodyguard's faction) or datasheet,
    which must be able to lead the bodyguard unit when its datasheet says which units it can lead."""
    if isinstance(text, str) and is_profile(text):
        return ModelProfile.parse(text, name="leader")
    sheet = text if isinstance(text, Datasheet) else datasheet(text, user, near=bodyguard)
    problem = leading_problem(sheet, bodyguard)
    if problem:
        raise MathhammerError(f"{problem}; write the leader as a profile to attach it anyway")
    return sheet

"""Datasheets as data: a unit's models, weapons and wargear, turned into firings and targets."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence

import attrs

from ..editions import EDITIONS
from ..errors import MathhammerError
from ..model import Context, ModelProfile, Rules, Target, Weapon
from ..sizes import MAX_TARGET_MODELS
from .names import compact, loose, normalise, words_left
from .text_rules import TextAbility


def _sorted(pieces: Iterable[str]) -> str:
    """A set of wargear written in sorted order: a set's own order follows Python's hash seed, and a sweep names its
    grid by its repr (`sweep.parts.digest`: a trial found --resume refusing its own folder half the time)."""
    return repr(sorted(pieces))


def either(numbers: Sequence[int]) -> str:
    """``5``, ``5 or 10``, ``5, 6 or 7``."""
    words = [str(n) for n in numbers]
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


@attrs.frozen
class ModelEntry:
    """One kind of model on a datasheet, with its default count and equipment."""

    name: str
    profile: ModelProfile
    count: int
    equipment: tuple[str, ...]
    max: int | None = None
    notes: tuple[str, ...] = ()  #: what was inferred reading this kind's wargear (a default choice guessed)
    worn: tuple[str, ...] = ()  #: wargear that gives its bearer a characteristic (a storm shield's Wounds)
    profiles: Mapping[frozenset[str], ModelProfile] = attrs.field(  #: by the `worn` pieces carried
        factory=dict, repr=lambda profiles: repr(sorted((_sorted(k), v) for k, v in profiles.items())))
    defences: tuple[str, ...] = ()  #: what was read of this kind's defences: said where it is in the target

    def carrying(self, gear: Iterable[str]) -> ModelProfile:
        """This kind's profile with `gear`: what the pieces of it in `worn` give their bearer counted, so that a
        swap that gives one up takes that away (`profile` is the one with the default equipment)."""
        return self.profiles.get(frozenset(set(self.worn).intersection(gear)), self.profile)


def _swapped(model: ModelEntry, gear: Iterable[str]) -> str:
    """What a model carries of its `worn` wargear against its default: "with a brute shield in place of
    slabshield", "with X", "without X"."""
    now, default = set(model.worn).intersection(gear), set(model.worn).intersection(model.equipment)
    taken, given = ", ".join(sorted(now - default)), ", ".join(sorted(default - now))
    return f"with {taken} in place of {given}" if taken and given else f"with {taken}" if taken else f"without {given}"


@attrs.frozen
class WargearOption:
    """Models of kind `model` may swap `replaces` (one piece of wargear, or several: '2 starcannons') for
    one of `choices`; where `replaces` is empty, take one of them as well as what they carry (sponsons)."""

    model: str
    replaces: tuple[str, ...] = attrs.field(converter=lambda v: (v,) if isinstance(v, str) else tuple(v))
    choices: tuple[str, ...]
    each_once: bool = False  #: no weapon from this list twice in the unit
    max: int | None = None  #: at most this many models may take this option
    gives: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)  #: a choice that is several items

    def items(self, choice: str) -> tuple[str, ...]:
        """The equipment a model has instead of `replaces` after taking `choice`."""
        return self.gives.get(choice, (choice,))

    def fits(self, gear: Sequence[str]) -> bool:
        """The model's `gear` holds everything this swap gives up."""
        held = Counter(gear)
        return all(held[item] >= n for item, n in Counter(self.replaces).items())

    @property
    def replaced(self) -> str:
        return " and ".join(self.replaces) or "nothing"

    def offer(self) -> str:
        """The option as a datasheet writes it: 'may replace its bolt pistol with plasma pistol / ...'."""
        choices = " / ".join(self.choices)
        return f"may replace its {self.replaced} with {choices}" if self.replaces else f"may take {choices}"


@attrs.frozen
class Limit:
    """At most `most` models of the kinds `kinds`, plus models carrying one of `items`, in a unit:
    `most` is a step function of the unit's size, ((0, 1), (20, 2)) meaning 1, and 2 from 20 models up
    (how datasheets write '1 per 10 models')."""

    what: str  #: its name in a refusal ('Special Weapons')
    most: tuple[tuple[int, int], ...]
    kinds: tuple[str, ...] = ()
    items: tuple[str, ...] = ()

    def at(self, size: int) -> int:
        return max((n for start, n in self.most if start <= size), default=0)

    def count(self, models: Sequence[tuple[ModelEntry, Sequence[str]]]) -> int:
        return sum(1 for m, gear in models if m.name in self.kinds or set(self.items) & set(gear))


@attrs.frozen
class Least:
    """At least `least` models of the kinds `kinds` in a unit: a group of kinds whose least is more than its kinds'
    own ('5-11 Initiates' beside '4-8 Neophytes' in a Crusader Squad). A unit's default models make it up with
    `fills`, the group's default kind (else the kinds in the datasheet's order), and a loadout's choices never take
    the group below it."""

    what: str  #: its name in a refusal ('Initiates')
    least: int
    kinds: tuple[str, ...]
    fills: str | None = None

    def count(self, models: Sequence[tuple[ModelEntry, Sequence[str]]]) -> int:
        return sum(1 for m, _ in models if m.name in self.kinds)


class Refused(MathhammerError):
    """A loadout's choice that no model can take; `limited` where a limit of the datasheet binds (not only the
    models left)."""

    def __init__(self, message: str, limited: bool):
        super().__init__(message)
        self.limited = limited


UNIT_WIDE = "unit-wide: "  #: in a kind's `worn`: a piece of `Datasheet.unit_worn` that another model may carry

MOST_REORDERED = 6  #: a loadout of more choices that fails in the order written is not tried in the 6! others

Changed = set[tuple[int, int | str]]  #: (model, option taken) and (model, wargear given): what a loadout changed


def _first_untouched(models: Sequence[int], changed: Changed) -> int | None:
    """Of the models that can take a choice, the first that no choice has changed yet (choices go to different
    models where they can: a medi-pack and a master vox to two Scions), else the first; None if there is none."""
    touched = {i for i, _ in changed}
    return next((i for i in models if i not in touched), models[0] if models else None)


_COUNTED = re.compile(r"([0-9]+)(?:\s*[x×]\s+|\s+)(.+)|([0-9]+)[x×](\S.*)", re.I)  #: '4 lascannon', '4x lascannon'


def _joined(name: str) -> str:
    """A wargear name with its pieces joined by '&' or 'and' alike: 'sentinel blade and praesidium shield'."""
    return compact(" ".join(word for word in loose(name).split() if word != "and"))


def stated(raw: str) -> tuple[int | None, str]:
    """A loadout entry as (models, wargear), the number None where none is written ('lascannon')."""
    match = _COUNTED.fullmatch(raw.strip())
    wanted, item = (int(match[1] or match[3]), match[2] or match[4]) if match else (None, raw)
    return wanted, " ".join(item.lower().split())


@attrs.frozen
class AttachedUnit:
    """An "Attached Unit" ability: a Leader that can lead `unit` can lead this unit instead, if it has one of the
    keywords `leaders` (any Leader when there are none) and none of `excluding` (Death Company Marines: a
    CHAPLAIN that can lead an Assault Intercessor Squad)."""

    unit: str
    leaders: tuple[str, ...] = ()
    excluding: tuple[str, ...] = ()

    def admits(self, leader: Datasheet) -> bool:
        """Whether `leader` may lead the unit this ability is written on."""
        if loose(self.unit) not in map(loose, leader.leader_of):  # 'Crisis Fireknife Battlesuit' for '...suits'
            return False
        have = set(leader.unit_keywords)
        return (not self.leaders or bool(have & set(self.leaders))) and not have & set(self.excluding)

    def describe(self) -> str:
        """In a player's words: "a CHAPLAIN Leader of Assault Intercessor Squad"."""
        who = f"{' or '.join(self.leaders)} Leader" if self.leaders else "Leader"
        but = f" (not {' or '.join(self.excluding)})" if self.excluding else ""
        return f"{'an' if who[0] in 'AEIOU' else 'a'} {who} of {self.unit}{but}"


@attrs.frozen
class TwoLeaders:
    """A bodyguard unit's leave to take two Leaders (Cadian Shock Troops, Boyz of 20): at the Starting Strength `size`
    (None: any), one of them with the keyword `one_of` (a WARBOSS), no more than one with `at_most_one` (a COMMAND
    SQUAD), and two of one datasheet barred where `not_twice` (Kroot Carnivores' two War Shapers)."""

    size: int | None = None
    one_of: str = ""
    at_most_one: str = ""
    not_twice: bool = False

    def admits(self, first: Datasheet, second: Datasheet, size: int) -> bool:
        """Whether `first` and `second` may lead together a unit of `size` models that has this leave."""
        pair = (first, second)
        return ((self.size is None or size >= self.size)
                and (not self.one_of or any(self.one_of in sheet.unit_keywords for sheet in pair))
                and (not self.at_most_one or sum(self.at_most_one in sheet.unit_keywords for sheet in pair) <= 1)
                and not (self.not_twice and first.name == second.name))

    def describe(self) -> str:
        """In a player's words: "two Leaders at 20 models, one of them a WARBOSS"."""
        parts = ["two Leaders" + (f" at {self.size} models" if self.size else "")]
        parts += [f"one of them a {self.one_of}"] if self.one_of else []
        parts += [f"no more than one a {self.at_most_one}"] if self.at_most_one else []
        parts += ["not two of one datasheet"] if self.not_twice else []
        return ", ".join(parts)


@attrs.frozen
class JoinsBeside:
    """A Leader ability's leave to join a unit another Leader already leads (a Lieutenant beside a Captain): the
    `units` it may so join (none named: any it can lead), the keywords or names one of which the Leader already
    there must have (none: any CHARACTER), and whether two Leaders of its own datasheet are barred (`not_twice`)."""

    units: tuple[str, ...] = ()
    leaders: tuple[str, ...] = ()
    not_twice: bool = False

    def admits(self, first: Datasheet, led: Collection[str] | None, itself: Datasheet) -> bool:
        """Whether `itself` may join a unit called `led` (its names, `compact`; None: not known) that `first`
        already leads."""
        if self.units and led is not None and {compact(unit) for unit in self.units}.isdisjoint(led):
            return False
        if self.not_twice and first.name == itself.name:
            return False
        names = {compact(word) for word in (*first.unit_keywords, first.name)}
        return not self.leaders or bool(names & {compact(word) for word in self.leaders})

    def describe(self) -> str:
        """In a player's words: "beside a CAPTAIN or LIEUTENANT Leader (in Intercessor Squad)"."""
        who = f"{' or '.join(self.leaders)} Leader" if self.leaders else "Leader"
        where = f" (in {' or '.join(self.units)})" if self.units else ""
        twice = " (not a second of its own kind)" if self.not_twice else ""
        return f"beside {'an' if who[0] in 'AEIOU' else 'a'} {who}{where}{twice}"


@attrs.frozen
class ChargeRoll:
    """An ability of the unit's that changes its Charge rolls, read from its text: a re-roll, or `add` added; for the
    unit it leads where `leading`; given by the wargear `piece` where one is named (a Sacred Banner: "the bearer's
    unit"), else by the datasheet; in force where nothing is left in `condition` (the words it waits on)."""

    ability: str
    reroll: bool = False
    add: int = 0
    leading: bool = False
    condition: str = ""
    piece: str = ""
    instead: bool = False  #: in place of what the ability gives where its condition does not hold
    model: str = ""  #: the kind of model whose ability it is, where one is named: in force where the unit has one

    def describe(self) -> str:
        """What it does, in a player's words: "re-roll Charge rolls", "+1 to Charge rolls"."""
        return "re-roll Charge rolls" if self.reroll else f"+{self.add} to Charge rolls"


@attrs.frozen
class Datasheet:
    name: str
    faction: str
    source: str
    keywords: tuple[str, ...]
    faction_keywords: tuple[str, ...]
    abilities: tuple[str, ...]
    models: tuple[ModelEntry, ...]
    weapons: Mapping[str, Mapping[str, Weapon]]  #: weapon name -> profile name -> profile
    options: tuple[WargearOption, ...] = ()
    limits: tuple[Limit, ...] = ()  #: the most models of some kinds, or with some wargear, by unit size
    leasts: tuple[Least, ...] = ()  #: the least models of some groups of kinds
    alike: tuple[tuple[str, ...], ...] = ()  #: wargear of which a unit carries one only ('all models the same')
    sizes: tuple[int, ...] = ()
    points: Mapping[int, int] = attrs.field(factory=dict)  #: by unit size, before what its wargear costs
    wargear_points: Mapping[str, int] = attrs.field(factory=dict)  #: wargear -> the points of each one carried
    always: tuple[str, ...] = ()  #: named rules always in force for this unit's attacks
    aliases: tuple[str, ...] = ()
    wargear: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)  #: wargear without a profile -> its rules
    leader_of: tuple[str, ...] = ()  #: units this CHARACTER can join as a Leader
    attached_as: tuple[AttachedUnit, ...] = ()  #: units whose Leaders may lead this one instead (its Attached Unit)
    joins_beside: tuple[JoinsBeside, ...] = ()  #: where this Leader may join a unit another Leader already leads
    takes_two: tuple[TwoLeaders, ...] = ()  #: where this bodyguard unit may take two Leaders
    notes: tuple[str, ...] = ()  #: what was inferred from rules text or could not be read (datasheets read at run time)
    read_rules: tuple[TextAbility, ...] = ()  #: abilities read from their text (datasheets read at run time)
    stationary_only: tuple[str, ...] = ()  #: weapons the unit has only if it Remained Stationary (a support turret)
    #: wargear that protects every model of the unit while one of them carries it (a weavefield crest), with what is
    #: said of it where the unit is the target: in each kind's `worn` as `UNIT_WIDE` + its name, which every model
    #: carries where one carries the piece
    unit_worn: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    #: wargear a loadout may take -> the abilities read from its text, in force where the loadout carries it
    wargear_abilities: Mapping[str, tuple[TextAbility, ...]] = attrs.field(factory=dict)
    army_rules: tuple[str, ...] = ()  #: the names of `abilities` that are army rules (a catalogue's shared rules)
    #: another faction whose army fields the unit -> its army rules in that army, where they differ from its own
    army_rules_for: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    defence_notes: tuple[str, ...] = ()  #: what was read of the defences of all its models: said where the unit is
    #: the target (each kind's own are its `ModelEntry.defences`)
    compositions: Mapping[int, Datasheet] = attrs.field(factory=dict)
    """The unit at a size its default models do not make, as its own datasheet: a unit composition other than
    the default ('2 Shock Trooper Sergeants and 18 Shock Troopers', 20 models), by its size."""
    edition: str = "10e"  #: the rules edition its profiles are printed for: '10e' (rules/, BSData wh40k-10e) or '11e'
    #: why its models cannot be fielded as the data gives them (wargear they carry by default in no file read), if so
    incomplete: str = ""
    charge_rolls: tuple[ChargeRoll, ...] = ()  #: its abilities (and its wargear's) that change its Charge rolls
    #: weapon -> (Attacks added for each copy of it beyond the first that a model carries, the rule that says so)
    per_copy: Mapping[str, tuple[int, str]] = attrs.field(factory=dict)

    @property
    def unit_keywords(self) -> tuple[str, ...]:
        """Every keyword of the unit: its own, its faction's and those of any of its models."""
        return tuple(sorted({*self.keywords, *self.faction_keywords, *(k for m in self.models
                                                                        for k in m.profile.keywords)}))

    def fillable_sizes(self) -> tuple[int, ...]:
        """Every unit size the models can fill: the fixed models, plus between the default and the
        most of each kind that may vary."""
        fixed = sum(m.count for m in self.models if m.max is None)
        varying = [m for m in self.models if m.max is not None]
        most = min(fixed + sum(m.max or 0 for m in varying), MAX_TARGET_MODELS)  # a catalogue may say "no limit"
        return tuple(range(fixed + sum(m.count for m in varying), most + 1))

    def allowed_sizes(self) -> tuple[int, ...]:
        """The unit sizes the datasheet allows: its `sizes`, else every size its models can fill."""
        return self.sizes or self.fillable_sizes()

    def in_army(self, faction: str) -> Datasheet:
        """The unit as an army of `faction` fields it: with that army's rules where they are not its own (Templar
        Vows, not Oath of Moment, for the Space Marines' Intercessors in a Black Templars army), said in a note."""
        there = next((rules for other, rules in self.army_rules_for.items() if normalise(other) == normalise(faction)),
                     None)
        if there is None:
            return self
        kept = tuple(a for a in self.abilities if a not in self.army_rules)
        said = f"army rules in a {faction} army: {', '.join(there) or 'none'} (not {', '.join(self.army_rules)})"
        return attrs.evolve(self, abilities=(*kept, *there), army_rules=there, army_rules_for={},
                            notes=(*self.notes, said))

    def smallest_taken(self) -> str:
        """What a question that gives no size takes, where the datasheet allows others: "4 models, the smallest unit
        its datasheet allows (it comes in 4 or 5)" (else "")."""
        sizes = self.allowed_sizes()
        if len(sizes) < 2:
            return ""
        shown = either(sizes) if len(sizes) <= 6 else f"{sizes[0]} to {sizes[-1]}"
        return f"{sizes[0]} model{'s' if sizes[0] != 1 else ''}, the smallest unit its datasheet allows (it comes in " \
               f"{shown})"

    def counts(self, size: int | None = None) -> dict[str, int]:
        """Models of each kind in a unit of `size` models (default: the smallest size): each kind's least, each
        group's least made up (`Least`, where they fit the size), then the kinds that vary in order, each within its
        most and its groups' (`_filled`)."""
        allowed = self.allowed_sizes()
        size = allowed[0] if size is None else size
        if size not in allowed:
            if tuple(allowed) == (1,):  # ("units of 1 models": a trial)
                raise MathhammerError(f"{self.name} is a unit of one model, not {size}")
            raise MathhammerError(f"{self.name} comes in units of {either(allowed)} models, not {size}")
        if size in self.compositions:
            return self.compositions[size].counts(size)
        counts = {m.name: m.count for m in self.models}
        for least in self.leasts:  # each group made up to its least by its default kind, then its others in order
            for kind in sorted((m for m in self.models if m.name in least.kinds), key=lambda m: m.name != least.fills):
                short = least.least - sum(counts[k] for k in least.kinds)
                counts[kind.name] += max(0, min(short, kind.max - counts[kind.name])) if kind.max is not None else 0
        if sum(counts.values()) > size:  # the groups' leasts do not fit this size: each kind at its own least
            counts = {m.name: m.count for m in self.models}
        filled, left = self._filled(counts, size, self.limits)
        return filled if not left else self._filled(counts, size, ())[0]  # else as if the limits were not there

    def _filled(self, counts: Mapping[str, int], size: int, limits: Iterable[Limit]) -> tuple[dict[str, int], int]:
        """`counts` filled up to `size` by the kinds that vary, in order, each up to its most and to the most of
        each of `limits` on kinds that counts it at that size ('11 Initiates at most'); and the models left to
        place."""
        filled = dict(counts)
        extra = size - sum(filled.values())
        for m in self.models:
            if m.max is None:
                continue
            room = m.max - filled[m.name]
            for limit in limits:
                if m.name in limit.kinds:
                    room = min(room, limit.at(size) - sum(filled[k] for k in limit.kinds))
            added = max(0, min(extra, room))
            filled[m.name] += added
            extra -= added
        return filled, extra

    def kinds_taken(self, size: int | None = None) -> str:
        """Where the models beyond each kind's least are of the kinds the datasheet lists first (`counts`) while
        another kind could be taken instead (Lokhust Heavy Destroyers, with an enmitic exterminator or a gauss
        destructor), a line saying so; "" where the size decides the kinds."""
        if (self.allowed_sizes()[0] if size is None else size) in self.compositions:
            return ""
        counts = self.counts(size)
        varying = [m for m in self.models if m.max is not None]
        taken = [m for m in varying if counts[m.name] > m.count]
        others = [m for m in varying if m not in taken and counts[m.name] < (m.max or 0)]
        if not taken or not others:
            return ""
        more = f" and {len(others) - 2} more" if len(others) > 2 else ""
        return (f"{', '.join(f'{counts[m.name]} {m.name}' for m in taken)}: the models its size adds are of the kind "
                f"its datasheet lists first, where it may have others ({', '.join(m.name for m in others[:2])}{more}; "
                "--loadout names their wargear)")

    def points_at(self, size: int | None = None, loadout: Sequence[str] = ()) -> int | None:
        """The unit's points at `size` models (default: its smallest size) with the wargear `loadout` gives it:
        its size's points and each piece it carries that costs some (11th-edition missile pods, 5 each); None
        where the data gives no points for that size."""
        at = self.allowed_sizes()[0] if size is None else size
        if at in self.compositions:
            return self.compositions[at].points_at(at, loadout)
        base = self.points.get(at)
        if base is None or not self.wargear_points:
            return base
        return base + sum(self.wargear_points.get(item, 0) for _, gear in self.equip(loadout, at) for item in gear)

    def fielded(self, loadout: Sequence[str]) -> Datasheet:
        """The unit of one model as the wargear choices in `loadout` equip it, as a datasheet whose default that is:
        a Leader with its chosen wargear (--led-by-loadout, --leader-loadout), whose attacks, defences and points
        then follow it; the header's lines for the choices (`loadout_lines`) among its notes."""
        if not loadout:
            return self
        models = self.equip(loadout)
        if len(models) != 1:
            raise MathhammerError(f"{self.name}: a Leader's wargear is chosen for a Leader of one model; it has "
                                  f"{len(models)} (ask about it as the unit, with --loadout)")
        (entry, gear), = models
        chosen = attrs.evolve(entry, equipment=tuple(gear), profile=entry.carrying(gear))
        lines = [line.replace("--loadout ", "wargear ", 1) for line in self.loadout_lines(loadout)]
        return attrs.evolve(self, models=(chosen,), notes=(*self.notes, *lines,
                                                           f"wargear: {', '.join(item.strip() for item in loadout)}"))

    def as_target(self, size: int | None = None, loadout: Sequence[str] = ()) -> Target:
        """The unit as a target, its models as the wargear choices in `loadout` make them (a model that
        joins in place of another is of its own kind, with its own profile)."""
        at = self.allowed_sizes()[0] if size is None else size
        if at in self.compositions:
            return self.compositions[at].as_target(at, loadout)
        order = {m.name: i for i, m in enumerate(self.models)}
        models = sorted(self.equip(loadout, size), key=lambda model: order[model[0].name])
        everyone = [UNIT_WIDE + item for item in self._unit_wide(models)]
        return Target(tuple(Counter(m.carrying((*gear, *everyone)) for m, gear in models).items()))

    def for_its_unit(self) -> dict[str, int]:
        """What the wargear its models carry gives every model of its unit (`unit_worn`: a Canoness's null rod, Feel No
        Pain 4+ against mortal wounds and psychic attacks), as the defence fields of a model's profile: the bearer's
        unit is the whole Attached unit where the bearer is a Leader (`units.by_name.leaders`)."""
        equipped = self.equip(())
        wide = [UNIT_WIDE + item for item in self._unit_wide(equipped)]
        given: dict[str, int] = {}
        for entry, gear in equipped:  # a model that carries none of them, and with them carried by the unit
            own = [item for item in gear if item not in self.unit_worn]
            bare, worn = entry.carrying(own), entry.carrying((*own, *wide))
            for field in ModelProfile.DEFENCES:
                if (value := getattr(worn, field)) is not None and value != getattr(bare, field):
                    given[field] = min(value, given.get(field, value))
        return given

    def _unit_wide(self, equipped: Sequence[tuple[ModelEntry, Sequence[str]]]) -> tuple[str, ...]:
        """The pieces of `unit_worn` that a model of the unit `equipped` carries: what they give the unit is every
        model's."""
        return tuple(item for item in self.unit_worn if any(item in gear for _, gear in equipped))

    def equip(self, loadout: Sequence[str], size: int | None = None) -> list[tuple[ModelEntry, list[str]]]:
        """Every model with its wargear after the wargear choices in `loadout`.

        Each choice is a piece of wargear with how many models take it ('lascannon', '4 lascannon',
        '4x lascannon'; plural or singular, as unit names). A model takes it by a swap its kind allows, or by
        being a model of the kind that carries it, in place of one model of a kind that may vary ('each in
        place of one Devastator Marine'); every choice is checked against the most the datasheet allows (per
        kind, per group, per option, all models alike), and a refusal names the limit. Without a number, a
        choice is one model's, except where the models are all equipped alike (`alike`): every model's that
        can take it (`loadout_lines` says which, and how many could take it).
        """
        return self._equip(loadout, size)[0]

    def loadout_lines(self, loadout: Sequence[str], size: int | None = None) -> tuple[str, ...]:
        """What the header says of the choices in `loadout` that were not taken as written: a name read as
        another ('gauss reapers' as 'gauss reaper'), a choice given to every model without a number."""
        return self._equip(loadout, size)[1]

    def _equip(self, loadout: Sequence[str],
               size: int | None) -> tuple[list[tuple[ModelEntry, list[str]]], tuple[str, ...]]:
        """`equip` and `loadout_lines`. The choices go to models in the order written, and where that fails in
        another order (a loadout is a set of choices: 'meltagun, multi-melta' on Battle Sisters, whose heavy-weapon
        Sister alone can take the multi-melta, is fielded as 'multi-melta, meltagun'); the refusal is the order
        written's."""
        if self.incomplete:  # an answer would leave out what its models carry: precisely wrong
            raise MathhammerError(f"{self.name} ({self.faction}): {self.incomplete}; an answer would leave them out "
                                  "(add the catalogues it lacks to the checkout and run `mathhammer data add` again)")
        counts = self.counts(size)
        size = sum(counts.values())
        if size in self.compositions:
            return self.compositions[size]._equip(loadout, size)
        try:
            return self._equip_in_order(loadout, counts)
        except MathhammerError as refused:
            if len(loadout) > MOST_REORDERED:
                raise
            for order in itertools.islice(itertools.permutations(loadout), 1, None):
                try:
                    return self._equip_in_order(order, counts)
                except MathhammerError:
                    continue
            if len(loadout) > 1 and all(self._fits(choice, counts) for choice in loadout):  # the choices clash
                named = ", ".join(repr(choice.strip()) for choice in loadout)
                why = "together they pass that limit" if isinstance(refused, Refused) and refused.limited \
                    else "they need the same models"
                raise MathhammerError(f"{refused}; each of {named} can be taken alone, not all of them together "
                                      f"({why})") from None
            raise refused from None

    def _fits(self, choice: str, counts: Mapping[str, int]) -> bool:
        """Whether the unit can take `choice` alone."""
        try:
            self._equip_in_order([choice], counts)
        except MathhammerError:
            return False
        return True

    def _equip_in_order(self, loadout: Sequence[str],
                        counts: Mapping[str, int]) -> tuple[list[tuple[ModelEntry, list[str]]], tuple[str, ...]]:
        size = sum(counts.values())
        models = [(m, list(m.equipment)) for m in self.models for _ in range(counts[m.name])]
        changed: Changed = set()  # a model takes each option once, and each piece of wargear once
        taken: Counter[int] = Counter()  # models that took each option, by its place in `options`
        chosen: Counter[str] = Counter()
        lines = []
        for raw in loadout:
            wanted, item = self._choice(raw, size)
            written = stated(raw)[1]
            if item not in (written, " ".join(raw.lower().split())):  # '2 meltaguns': 'meltaguns' read as 'meltagun'
                lines.append(f"--loadout {raw.strip()!r}: {written!r} read as {item!r}")
            before = self._count_of(item, models)
            numbered = wanted is not None
            if wanted is None:  # one model, or every model where they are all alike; the header says which
                most = self._most(models, item, changed, taken, chosen)
                wanted = max(most, 1) if self._all_alike(item) else 1
                if wanted > 1:
                    lines.append(f"--loadout {raw.strip()!r}: {item} for {wanted} models, every model that can take "
                                 "it (the datasheet's models are equipped alike)")
                elif most > 1:
                    lines.append(f"--loadout {raw.strip()!r}: {item} for 1 model (no number given; 1 to {most} can "
                                 f"take it: write e.g. '{most} {item}')")
            for _ in range(wanted):
                if not self._give(models, item, changed, taken, chosen):
                    raise self._refusal(raw, item, chosen[item], models, size, taken)
            carried = self._count_of(item, models)
            if numbered and carried != wanted:  # '3 plasma rifle' where the unit had 3: 6 in all, not 3
                lines.append(f"--loadout {raw.strip()!r}: {carried} x {item} in the unit, {before} of them carried "
                             "before (a number in --loadout counts the models that take a choice)")
        for items in self.alike:
            held = sorted({item for _, gear in models for item in gear if item in items})
            if len(held) > 1:
                raise MathhammerError(f"{self.name}: every model carries the same one of {', '.join(items)} (the "
                                      f"datasheet's models are equipped alike); this loadout has {' and '.join(held)}")
        return models, tuple(lines)

    def _count_of(self, item: str, models: Sequence[tuple[ModelEntry, Sequence[str]]]) -> int:
        """How many of `item` the unit's models carry: of a bundle (a hyperphase sword and dispersion shield, which a
        model carries as its pieces), the models that carry all of its pieces."""
        pieces = next((o.items(item) for o in self.options if item in o.gives), None)
        if pieces is None:
            return sum(gear.count(item) for _, gear in models)
        return sum(1 for _, gear in models if all(piece in gear for piece in pieces))

    def _give(self, models: list[tuple[ModelEntry, list[str]]], item: str, changed: Changed, taken: Counter[int],
              chosen: Counter[str]) -> bool:
        """Give `item` to one more model: by a swap, by a model of a kind that carries it, or as named wargear
        a model carries."""
        return (self._swap(models, item, changed, taken, chosen) or self._convert(models, item, changed, taken, chosen)
                or self._carried(models, item, changed, chosen))

    def _most(self, models: list[tuple[ModelEntry, list[str]]], item: str, changed: Changed, taken: Counter[int],
              chosen: Counter[str]) -> int:
        """How many more models can take `item`, the choices made so far kept (worked out on copies)."""
        trial = [(m, list(gear)) for m, gear in models]
        more, done, took = set(changed), Counter(taken), Counter(chosen)
        count = 0
        while count < len(trial) and self._give(trial, item, more, done, took):
            count += 1
        return count

    def notes_for(self, loadout: Sequence[str] = (), size: int | None = None) -> tuple[str, ...]:
        """The datasheet's notes, and those of each kind of model in the unit that `loadout` and `size` make."""
        at = self.allowed_sizes()[0] if size is None else size
        if at in self.compositions:
            return self.compositions[at].notes_for(loadout, at)
        present = {m.name for m, _ in self.equip(loadout, size)}
        return (*self.notes, *(note for m in self.models if m.name in present for note in m.notes))

    def defences_for(self, loadout: Sequence[str] = (), size: int | None = None) -> tuple[str, ...]:
        """What was read of the defences of the unit and of each kind of model in the unit that `loadout` and `size`
        make (not of a kind the target does not have: Custodian Guard with spears say nothing of shields), and the
        Wounds of a kind whose wargear there changes them (a relic shield taken, a storm shield given up)."""
        at = self.allowed_sizes()[0] if size is None else size
        if at in self.compositions:
            return self.compositions[at].defences_for(loadout, at)
        equipped = self.equip(loadout, size)
        present = {m.name for m, _ in equipped}
        everyone = self._unit_wide(equipped)
        wounds = [f"Wounds {held.wounds} for {m.name} {_swapped(m, gear)} ({m.profile.wounds} with its default "
                  "wargear)" for m, gear in equipped if (held := m.carrying(gear)).wounds != m.profile.wounds]
        given_up = [f"{item} not carried ({', '.join(loadout)}): the defences it gives the unit do not apply"
                    for item in self.unit_worn if item not in everyone
                    and any(item in m.equipment and m.count for m in self.models)]
        carried = [note for item in everyone for note in self.unit_worn[item]]
        return tuple(dict.fromkeys((*self.defence_notes, *(note for m in self.models if m.name in present
                                                            for note in m.defences), *carried, *wounds, *given_up)))

    def items_named(self, loadout: Sequence[str]) -> list[str]:
        """The wargear each choice of `loadout` names, as the datasheet calls it (`_choice`)."""
        return [self._choice(raw, MAX_TARGET_MODELS)[1] for raw in loadout]

    def _all_alike(self, item: str) -> bool:
        return any(item in items for items in self.alike)

    def _choice(self, raw: str, size: int) -> tuple[int | None, str]:
        """('4 lascannon' or '4x lascannon') -> (4, 'lascannon'), 'lascannon' -> (None, 'lascannon'); a known
        piece of wargear (named as written, else in its plural or singular: `names.loose`), or refused. A
        choice named as a whole ('2 bright lances') is that choice; a weapon that comes only as part of one
        ('bright lance') names it."""
        whole = " ".join(raw.lower().split())
        wanted, item = (None, whole) if self._known(whole) else stated(raw)
        item = self._known(item) or item
        if item not in self.choices():
            within = sorted(c for o in self.options for c, items in o.gives.items() if item in items)
            if len(within) > 1:
                raise MathhammerError(f"{self.name}: {item!r} comes with several choices; name one of: "
                                      + ", ".join(within))
            item = within[0] if within else item
        if wanted is not None and not 1 <= wanted <= size:
            most = f"1 to {size} models" if size > 1 else "1 model"
            twice = any(sum(item in o.choices for o in self.options if o.model == m.name) > 1 for m in self.models)
            hint = f"; a model that can take two is given them by naming it twice: '{item}, {item}'" if twice else ""
            raise MathhammerError(f"{raw.strip()!r}: a unit of {size} model{'s' * (size > 1)} can give it to {most} "
                                  f"(the number counts the models that take it, not the pieces the unit then carries"
                                  f"{hint})")
        if item not in self.choices() and not any(item in m.equipment for m in self.models):
            offered = (f"options: {', '.join(sorted(self.choices()))}" if self.choices() else
                       "it offers no wargear choices" + (" here: an army list's unit is fielded as its list has it"
                                                         if self.source.startswith("army list") else ""))
            raise MathhammerError(f"{self.name} cannot take {item!r} ({offered})")
        return wanted, item

    def _known(self, item: str) -> str | None:
        """The wargear a loadout's `item` names: itself if the datasheet has it, else the one piece whose name
        is the same in its loose form (plural or singular: 'gauss reapers' is 'gauss reaper'), else without its
        spaces ('melta gun' is 'meltagun'), else with 'and' for '&' (`_joined`), else the piece whose words the
        words typed start, where one is nearer than any other ('marksman rifle' for the hot-shot marksman rifle,
        'flamer' for a ministorum flamer rather than a ministorum heavy flamer); else None."""
        names = self.choices() | {i for m in self.models for i in m.equipment} | {
            i for o in self.options for items in o.gives.values() for i in items}
        if item in names:
            return item
        for form in (loose, compact, _joined):  # 'melta gun' is the meltagun
            same = [name for name in names if form(name) == form(item)]
            if same:
                return same[0] if len(same) == 1 else None
        typed = normalise(item).split()  # 'marksman rifle': the one piece whose words they start, nearest first
        holding = [name for name in names if typed and all(  # each word as typed, or singular ('spinefists')
            any(own.startswith(word) or own.startswith(loose(word) or word) for own in normalise(name).split())
            for word in typed)]
        nearest = sorted(holding, key=lambda name: words_left(name, item))
        if len(nearest) == 1 or len(nearest) > 1 and words_left(nearest[0], item) < words_left(nearest[1], item):
            return nearest[0]
        return None

    @staticmethod
    def _carried(models: list[tuple[ModelEntry, list[str]]], item: str, changed: Changed,
                 chosen: Counter[str]) -> bool:
        """Name wargear one model already carries, not yet named: the one it uses (a model with two melee weapons
        fights with the one named: Abaddon with Drach'nyen rather than the Talon of Horus)."""
        carriers = [i for i, (_, gear) in enumerate(models) if item in gear and (i, item) not in changed]
        index = _first_untouched(carriers, changed)
        if index is None:
            return False
        changed.add((index, item))
        chosen[item] += 1
        return True

    def choices(self) -> set[str]:
        """Every piece of wargear a loadout may name: the swaps' choices, and the wargear of the kinds of
        model that may join the unit in place of another."""
        found = {c for o in self.options for c in o.choices}
        varying = [m for m in self.models if m.max is not None]
        if len(varying) < 2:
            return found
        fills, *others = varying
        shared = set.intersection(*(set(m.equipment) for m in others)) if len(others) > 1 else set()
        return found | ({item for m in others for item in m.equipment} - set(fills.equipment) - shared)

    def _swap(self, models: list[tuple[ModelEntry, list[str]]], item: str, changed: Changed,
              taken: Counter[int], chosen: Counter[str], only: int | None = None) -> bool:
        """Give `item` to one model (model `only`, if given) by a swap its kind allows that it has not taken, nor
        taken `item` by another (a number in a loadout counts models: '2 plasma guns', each on its own model), and
        that gives up nothing an earlier choice gave it or named; where no such model is left, to one that took
        `item` by another swap (a Wraithknight's second heavy wraithcannon, one for each arm)."""
        return any(self._swap_once(models, item, changed, taken, chosen, only, again) for again in (False, True))

    def _swap_once(self, models: list[tuple[ModelEntry, list[str]]], item: str, changed: Changed,
                   taken: Counter[int], chosen: Counter[str], only: int | None, again: bool) -> bool:
        """`_swap`, to a model that has not taken `item` (or, `again`, that took it by another swap)."""
        for n, option in enumerate(self.options):
            if item not in option.choices or (option.each_once and chosen[item]) or (
                    option.max is not None and taken[n] >= option.max):
                continue
            fitting = [i for i, (m, gear) in enumerate(models) if m.name == option.model and option.fits(gear)
                       and not {(i, n), *[(i, item)] * (not again), *((i, r) for r in option.replaces)} & changed
                       and only in (None, i)]
            index = _first_untouched(fitting, changed)
            if index is None:
                continue
            before = list(models[index][1])
            gear = models[index][1]
            at = gear.index(option.replaces[0]) if option.replaces else len(gear)
            for given_up in option.replaces:
                gear.remove(given_up)
            gear[at:at] = option.items(item)
            if not self._within_limits(models):
                gear[:] = before
                continue
            changed.update({(index, n), (index, item), *((index, given) for given in option.items(item))})
            taken[n] += 1
            chosen[item] += 1
            return True
        return False

    def _convert(self, models: list[tuple[ModelEntry, list[str]]], item: str, changed: Changed,
                 taken: Counter[int], chosen: Counter[str]) -> bool:
        """Give `item` to a model of a kind that carries it (or may swap to it), in place of one unchanged
        model of the most numerous kind that may vary: the kind that fills the unit, or another above its
        least (a special-weapon model counts among the rank and file it replaces)."""
        here = Counter(m.name for m, _ in models)
        fills = next((m.name for m in self.models if m.max is not None), None)  # it follows the unit's size
        touched = {i for i, _ in changed}
        donors = sorted((i for i, (m, _) in enumerate(models) if i not in touched and m.max is not None
                         and (here[m.name] > m.count or m.name == fills)), key=lambda i: -here[models[i][0].name])
        for kind in self.models:
            swaps = any(o.model == kind.name and item in o.choices for o in self.options)
            if kind.max is None or (item not in kind.equipment and not swaps) or here[kind.name] >= kind.max:
                continue
            tried = {kind.name}  # a donor of a kind tried is no better than the first of it
            for donor in donors:
                if models[donor][0].name in tried:
                    continue
                before = models[donor]
                tried.add(before[0].name)
                models[donor] = (kind, list(kind.equipment))
                if not self._below_least(models, before[0]):
                    if item in kind.equipment and self._within_limits(models):
                        changed.add((donor, item))
                        chosen[item] += 1
                        return True
                    if swaps and self._swap(models, item, changed, taken, chosen, only=donor):
                        return True
                models[donor] = before
        return False

    def _below_least(self, models: list[tuple[ModelEntry, list[str]]], donor: ModelEntry) -> bool:
        """Whether a model of kind `donor` that joined another kind took a group of kinds below its least (from it:
        where the unit's size leaves a group short of it, `counts`, its models may still change)."""
        return any(donor.name in least.kinds and least.count(models) == least.least - 1 for least in self.leasts)

    def _within_limits(self, models: list[tuple[ModelEntry, list[str]]]) -> bool:
        return all(limit.count(models) <= limit.at(len(models)) for limit in self.limits)

    def _refusal(self, raw: str, item: str, done: int, models: list[tuple[ModelEntry, list[str]]],
                 size: int, taken: Counter[int]) -> Refused:
        """Why one more model cannot take `item`: the limit it meets, named."""
        carriers = [m for m in self.models if item in m.equipment or any(
            o.model == m.name and item in o.choices for o in self.options)]
        fills = next((m.name for m in self.models if m.max is not None), None)  # a model joins in its place

        def binds(limit: Limit) -> bool:  # full, and counting the carriers (not also the kind they replace)
            return limit.count(models) >= limit.at(size) and (item in limit.items or (
                bool(set(limit.kinds) & {m.name for m in carriers}) and fills not in limit.kinds))
        bounds = [f"{limit.what}: at most {limit.at(size)}" for limit in self.limits if binds(limit)]
        bounds += [f"{m.name}: at most {m.max}" for m in carriers if m.max is not None
                   and sum(1 for k, _ in models if k.name == m.name) >= m.max]
        bounds += [f"{o.model}: {o.replaced} for {item} at most {o.max}" for n, o in enumerate(self.options)
                   if item in o.choices and o.max is not None and taken[n] >= o.max]
        bounds += ["each once per unit"] * any(item in o.choices and o.each_once for o in self.options)
        bounds += [f"{least.what}: at least {least.least}" for least in self.leasts  # the models it would take
                   if least.count(models) <= least.least and not {m.name for m in carriers} & set(least.kinds)]
        why = "; ".join(dict.fromkeys(bounds)) or "no model left that can take it, with the other choices made"
        most = f"at most {done} model{'s' * (done > 1)}" if done else "no model"
        return Refused(f"{self.name}: {most} of a unit of {size} can take {item!r} ({why}; asked: {raw.strip()!r})",
                       limited=bool(bounds))

    def profile(self, weapon: str, choice: Sequence[str] = (), melee: bool = False) -> Weapon | None:
        """The melee (or ranged) profile of `weapon` to use: the first of `choice` it has, else its first;
        None for wargear without one (e.g. a command rod, or a melee weapon when shooting)."""
        profiles = self.kind_of(weapon, melee)
        for name in choice:
            if name in profiles:
                return profiles[name]
        return next(iter(profiles.values()), None)

    def kind_of(self, weapon: str, melee: bool) -> dict[str, Weapon]:
        """The melee (or ranged) profiles of `weapon`, by name."""
        return {name: w for name, w in self.weapons.get(weapon, {}).items() if w.melee == melee}


@attrs.frozen
class TargetUnit:
    """A target as a question names it: its models, how the header names it, its datasheets (the unit's and its
    leaders', if given by name: their abilities read from text apply to the attacks against it) and what
    they say was inferred, left out or chosen."""

    target: Target
    label: str
    sheet: Datasheet | None = None
    notes: tuple[str, ...] = ()
    leaders: tuple[Datasheet, ...] = ()  #: the attached Leaders' datasheets: their "while leading" abilities apply
    carried: frozenset[str] = attrs.field(default=frozenset(), repr=lambda pieces: _sorted(pieces))  #: the wargear its
    #: loadout gives its models (its abilities apply: a drone's)
    size: int | None = None  #: the models its datasheet fields it with, as it started the battle (None: its smallest
    #: size, or no datasheet)


def fielded_leaders(leaders: Sequence[Datasheet], loadout: Sequence[str]) -> tuple[Datasheet, ...]:
    """The Leaders as the wargear choices in `loadout` equip them (`Datasheet.fielded`): each choice the Leader's
    named before a colon ('Captain: power fist'), else the one Leader's that can take it."""
    if loadout and not leaders:
        raise MathhammerError("a Leader's wargear goes with a Leader named by its datasheet (--led-by, --leader)")
    taken: dict[int, list[str]] = {}
    for raw in loadout:
        who, colon, item = raw.partition(":")
        if colon:
            found = [i for i, sheet in enumerate(leaders) if compact(who) in compact(sheet.name)]
        else:
            item = raw
            found = [i for i, sheet in enumerate(leaders) if len(leaders) == 1 or _takes(sheet, item)]
        if len(found) != 1:
            names = " and ".join(sheet.name for sheet in leaders)
            why = (f"both {'are called' if colon else 'can take'} that" if found else
                   f"{'no Leader is called' if colon else 'neither can take'} that")
            raise MathhammerError(f"{raw.strip()!r}: which Leader's wargear ({names}: {why}); write it "
                                  f"'{leaders[0].name}: {item.strip()}'")
        taken.setdefault(found[0], []).append(item)
    return tuple(sheet.fielded(taken.get(i, [])) for i, sheet in enumerate(leaders))


def _takes(sheet: Datasheet, item: str) -> bool:
    """Whether a unit's loadout may have `item`."""
    try:
        sheet.equip([item])
    except MathhammerError:
        return False
    return True


LISTED = "(a list keeps those of when it was made)"  #: what is said of the profiles of a unit of an army list


def edition_note(sheet: Datasheet, edition: str) -> tuple[str, ...]:
    """The header line for a datasheet printed for another edition than the one whose rules answer (`edition`)."""
    if sheet.edition == edition:
        return ()
    return (f"assumed: {sheet.name} is a datasheet of the {EDITIONS[sheet.edition].ordinal} edition, answered "
            f"under the {EDITIONS[edition].ordinal} edition's rules",)


def in_edition(context: Context, *sheets: Datasheet | None) -> tuple[Context, tuple[str, ...]]:
    """The situation in its edition: the one asked for (`--edition`, or rules of an edition or printing other
    than the 10th's current), else the first datasheet's (the edition its profiles are printed for), else the
    10th; and the header's note for each datasheet of another edition, and for each of an army list (whose profiles
    are those of when the list was made: a trial found a list's older Toughness used without a word)."""
    known = [sheet for sheet in sheets if sheet is not None]
    if context.edition is None and context.rules == Rules() and known:
        context = attrs.evolve(context, edition=known[0].edition)
    listed = tuple(dict.fromkeys(f"profiles of {sheet.name} as its army list gives them {LISTED}"
                                 for sheet in known if sheet.source.startswith("army list")))
    return context, tuple(line for sheet in known for line in edition_note(sheet, context.rules.edition)) + listed

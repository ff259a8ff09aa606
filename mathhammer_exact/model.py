"""What the engine reads: weapon profiles, target models, the situation and the rules wording.

All are frozen attrs classes; validators reject what the rules do not allow with a
message a player understands. Use `attrs.evolve` to change one field.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal

import attrs

from .abilities import Ability, Edition
from .dice import Dice
from .editions import (
    EDITIONS,
    ENVIRONMENT,
    TENTH,
    DevastatingWounds,
    Hazardous,
    IndirectFire,
    LethalHits,
    RulesEdition,
)
from .editions import edition as edition_named
from .errors import MathhammerError
from .parsing import ability_fields as read_ability
from .parsing import model_fields, weapon_fields


def _between(name: str, low: int, high: int, suffix: str = "") -> Any:
    def check(_inst: object, _attr: attrs.Attribute, value: int | None) -> None:
        if value is not None and not low <= value <= high:
            raise MathhammerError(f"{name} must be {low}{suffix} to {high}{suffix}, got {value}{suffix}")

    return check


def _at_least(name: str, low: int) -> Any:
    def check(_inst: object, _attr: attrs.Attribute, value: int | None) -> None:
        if value is not None and value < low:
            raise MathhammerError(f"{name} must be at least {low}, got {value}")

    return check


def _dice(value: Dice | str | int) -> Dice:
    return value if isinstance(value, Dice) else Dice.parse(value)


def _upper_tuple(values: Any) -> tuple[str, ...]:
    return tuple(sorted({str(v).strip().upper() for v in values if str(v).strip()}))


class Reroll(enum.IntEnum):
    """Which dice a re-roll ability lets you roll again (each includes the ones before it)."""

    NONE = 0
    ONES = 1  #: re-roll rolls of 1
    FAILED = 2  #: re-roll failed rolls (e.g. Oath of Moment, Twin-linked)
    NONCRIT = 3  #: re-roll everything that is not a Critical Hit/Wound ("fishing" for 6s)

    @classmethod
    def parse(cls, text: str | Reroll) -> Reroll:
        if isinstance(text, Reroll):
            return text
        try:
            return cls[str(text).strip().upper()]
        except KeyError:
            raise MathhammerError(f"unknown re-roll policy {text!r} (allowed: none, ones, failed, noncrit)") from None

    def words(self, roll: str) -> str:
        """The policy for `roll` ("hit", "wound", "save") in a player's words."""
        return {Reroll.ONES: "re-roll {} rolls of 1", Reroll.FAILED: "re-roll failed {} rolls",
                Reroll.NONCRIT: "re-roll {} rolls that are not critical"}[self].format(roll)


def _bonus_dice(value: Dice | str | int | None) -> Dice | None:
    """An ability's X (Rapid Fire X, Sustained Hits X): None or 0 when the weapon lacks it."""
    dice = None if value is None else _dice(value)
    return None if dice == Dice() else dice


def _thresholds(ability: Ability) -> Any:
    def check(_inst: object, _attr: attrs.Attribute, value: tuple[tuple[str, int], ...]) -> None:
        for keyword, x in value:
            if not 2 <= x <= 6:
                raise MathhammerError(f"{ability.name}-{keyword} must be 2+ to 6+, got {x}+")

    return check


ABILITY = "ability"  #: the attrs metadata key of a weapon ability's `Ability`


def ability_field(ability: Ability) -> Any:
    """An attrs field of `Weapon` holding one ability, with its entry and the default, converter and
    validator its kind has: False (a flag), 0 (a number), None (dice, a distance), () (keywords)."""
    metadata = {ABILITY: ability}
    if ability.kind == "flag":
        return attrs.field(default=False, metadata=metadata)
    if ability.kind == "number":
        return attrs.field(default=0, validator=_at_least(ability.name, 0), metadata=metadata)
    if ability.kind == "dice":
        return attrs.field(default=None, converter=_bonus_dice, metadata=metadata)
    if ability.kind == "distance":
        return attrs.field(default=None, validator=_at_least(f"the {ability.name} distance", 1), metadata=metadata)
    return attrs.field(default=(), converter=tuple, validator=_thresholds(ability), metadata=metadata)


@attrs.frozen(cache_hash=True)  # a key of the engine's caches: hashed once
class Weapon:
    """One weapon profile with its abilities, as printed on a datasheet.

    `skill` is the BS (ranged) or WS (melee) number, e.g. 3 for 3+, and None for Torrent. Each
    ability is declared once, on its field (`ability_field`), in the order a datasheet prints
    them: the 10th edition's abilities (`TENTH_EDITION`) are these entries.
    """

    attacks: Dice = attrs.field(converter=_dice)
    skill: int | None = attrs.field(validator=_between("BS/WS", 2, 6, "+"))
    strength: int = attrs.field(validator=_at_least("S", 1))
    ap: int = attrs.field(validator=_between("AP", -6, 0))
    damage: Dice = attrs.field(converter=_dice)
    name: str = ""
    melee: bool = False
    range: int | None = attrs.field(default=None, validator=_at_least("range", 1))
    """Range in inches (None: not given, or a melee weapon)."""
    rapid_fire: Dice | None = ability_field(Ability(
        "RAPID FIRE", "dice", "Rapid Fire", "attacks", "X more attacks per model within half range",
        ranged_only=True, needs=("half_range",), x="extra attacks"))
    """Rapid Fire X: X more attacks within half range; X may be rolled (Rapid Fire D3)."""
    sustained_hits: Dice | None = ability_field(Ability(
        "SUSTAINED HITS", "dice", "Sustained Hits", "hit", "a Critical Hit scores X extra hits", x="extra hits"))
    melta: int = ability_field(Ability(
        "MELTA", "number", "Melta", "damage", "X more Damage per attack within half range", ranged_only=True,
        needs=("half_range",), x="extra damage"))
    anti: tuple[tuple[str, int], ...] = ability_field(Ability(
        "ANTI", "keyword", "Anti", "wound", "an unmodified wound roll of X+ against a target with the keyword is a "
        "Critical Wound", x="the wound roll that is a Critical Wound"))
    conversion: int | None = ability_field(Ability(
        "CONVERSION", "distance", "Conversion", "hit", "against a target more than X inches away, an unmodified hit "
        "roll of 4+ is a Critical Hit", ranged_only=True, needs=("beyond_conversion_range",),
        x='the distance its datasheet gives (12", 18" or 24")'))
    """Conversion: against a target more than this many inches away, an unmodified hit roll of 4+
    is a Critical Hit. Datasheets print the bare keyword and give the distance (12", 18" or 24") in the
    rule's text, so the profile string must say it: `CONVERSION 12"`."""
    assault: bool = ability_field(Ability(
        "ASSAULT", "flag", "Assault", "attacks", "the weapon shoots after its unit Advanced", ranged_only=True,
        needs=("advanced",)))
    heavy: bool = ability_field(Ability(
        "HEAVY", "flag", "Heavy", "hit", "+1 to hit when its unit Remained Stationary", ranged_only=True,
        needs=("stationary",)))
    pistol: bool = ability_field(Ability(
        "PISTOL", "flag", "Pistol", "unit", "models shoot their Pistols or their other ranged weapons, not both",
        ranged_only=True))
    torrent: bool = ability_field(Ability(
        "TORRENT", "flag", "Torrent", "hit", "every attack hits automatically (no hit roll, no Critical Hits)",
        ranged_only=True))
    blast: bool = ability_field(Ability(
        "BLAST", "flag", "Blast", "attacks", "one more attack per five models in the target; not against a unit "
        "within Engagement Range of the firer's army", ranged_only=True, needs=("engaged",)))
    indirect_fire: bool = ability_field(Ability(
        "INDIRECT FIRE", "flag", "Indirect Fire", "hit", "may shoot a target that is not visible: unmodified hit "
        "rolls of 1-3 fail (`--rules 2023`: -1 to hit) and the target has the Benefit of Cover", ranged_only=True,
        needs=("indirect",)))
    ignores_cover: bool = ability_field(Ability(
        "IGNORES COVER", "flag", "Ignores Cover", "save", "the target does not get the Benefit of Cover"))
    lance: bool = ability_field(Ability(
        "LANCE", "flag", "Lance", "wound", "+1 to wound when its unit charged this turn", needs=("charged",)))
    lethal_hits: bool = ability_field(Ability(
        "LETHAL HITS", "flag", "Lethal Hits", "hit", "a Critical Hit wounds automatically (not a Critical Wound)"))
    devastating_wounds: bool = ability_field(Ability(
        "DEVASTATING WOUNDS", "flag", "Devastating Wounds", "sequence", "a Critical Wound inflicts mortal wounds "
        "equal to the Damage (how, by `--rules`: below)"))
    twin_linked: bool = ability_field(Ability(
        "TWIN-LINKED", "flag", "Twin-linked", "wound", "re-roll failed wound rolls"))
    precision: bool = ability_field(Ability(
        "PRECISION", "flag", "Precision", "allocation", "the attacker may allocate its wounds to an attached "
        "leader first"))
    hazardous: bool = ability_field(Ability(
        "HAZARDOUS", "flag", "Hazardous", "sequence", "after the unit attacks, one Hazardous test per weapon "
        "(unit queries; below)"))
    psychic: bool = ability_field(Ability(
        "PSYCHIC", "flag", "Psychic", "damage", "its attacks are psychic attacks (Feel No Pain against psychic "
        "attacks applies)"))
    """A Psychic weapon: its attacks are psychic attacks (e.g. for Feel No Pain against psychic attacks)."""
    extra_attacks: bool = ability_field(Ability(
        "EXTRA ATTACKS", "flag", "Extra Attacks", "unit", "the bearer fights with it as well as with the melee "
        "weapon it chooses"))
    """Extra Attacks: the bearer fights with this weapon in addition to the melee weapon it chooses,
    not instead of it (it cannot be chosen as the one melee weapon)."""
    one_shot: bool = ability_field(Ability(
        "ONE SHOT", "flag", "One Shot", "unit", "shot once per battle (a query is one shooting; shown, not "
        "otherwise read)"))
    """One Shot: the bearer can shoot this weapon once per battle."""
    blast_x: int = attrs.field(default=0, validator=_at_least("BLAST", 0))
    """BLAST X (an ability of the 11th edition, `ELEVENTH_EDITION`): X more attacks per five models of
    the target, in place of plain BLAST's one (0 without it)."""
    cleave: int = attrs.field(default=0, validator=_at_least("CLEAVE", 0))
    """CLEAVE X (an ability of the 11th edition): X more attacks per five models of the target, when all
    of the weapon's attacks go at that one target (0 without it)."""
    ignored: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    """Rules on the profile that the engine does not model, by name (read in lenient mode), so an
    answer can say what it left out."""

    def __attrs_post_init__(self) -> None:
        if self.skill is None and not self.torrent:
            raise MathhammerError("a weapon needs BS/WS 2+ to 6+ unless it has TORRENT")
        if self.damage.minimum < 1:
            raise MathhammerError(f"D must be at least 1, got {self.damage}")
        if self.melee:
            ranged = sorted({a.spelling for a in every_ability(type(self)) if a.ranged_only and getattr(self, a.field)})
            if ranged:
                raise MathhammerError(f"{', '.join(ranged)} on a melee weapon: only ranged weapons have "
                                      f"{'it' if len(ranged) == 1 else 'them'}")
            if self.range is not None:
                raise MathhammerError(f'a melee weapon has no range, got {self.range}"')

    @classmethod
    def parse(cls, text: str, name: str = "", lenient: bool = False, edition: str = "10e") -> Weapon:
        """Read a datasheet line such as ``24" A2 BS3+ S4 AP-1 D1 [SUSTAINED HITS 1]``, with the abilities
        of `edition` ("10e" or "11e": `abilities_in`).

        With `lenient` (profiles read from a catalogue, not typed), an ability the engine does not
        model is kept by name in `ignored` instead of refused.
        """
        try:
            return cls(**weapon_fields(text, abilities_in(cls, edition), name, lenient))
        except MathhammerError:
            other = next((e for e in EDITIONS if e != edition and _parses(cls, text, e)), None)
            if other is None:
                raise
            raise MathhammerError(f"{text.strip()!r} has an ability of the {EDITIONS[other].ordinal} edition, "
                                  f"not the {EDITIONS[edition].ordinal}'s: give --edition {other}") from None

    @property
    def blast_per_five(self) -> int:
        """The attacks Blast adds per five models of the target: BLAST X's X, 1 for plain BLAST, else 0."""
        return self.blast_x or int(self.blast)


_ABILITIES: dict[type, Edition] = {}  #: each weapon class's abilities, read from its fields once


def abilities_of(weapon: type[Weapon]) -> Edition:
    """The abilities declared on the fields of `weapon` (`Weapon` or a class derived from it), in order."""
    if weapon not in _ABILITIES:
        _ABILITIES[weapon] = tuple(attrs.evolve(field.metadata[ABILITY], field=field.name)
                                   for field in attrs.fields(weapon) if ABILITY in field.metadata)
    return _ABILITIES[weapon]


TENTH_EDITION: Edition = abilities_of(Weapon)
"""The 10th edition's weapon abilities, in the order a datasheet prints them."""

_PISTOL = next(ability for ability in TENTH_EDITION if ability.field == "pistol")
#: What the 11th edition adds to the 10th's abilities (the catalogues' `sharedRules`, docs/rules.md): another
#: name for Pistol, BLAST with an X, and CLEAVE X, on fields of their own.
ELEVENTH_ADDS: Edition = (
    attrs.evolve(_PISTOL, name="CLOSE-QUARTERS", words="Close-quarters", rule="the same as Pistol"),
    Ability("BLAST", "number", "Blast", "attacks", "X more attacks per five models in the target (the 11th "
            "edition; plain BLAST: one); not against a unit within Engagement Range of the firer's army",
            ranged_only=True, needs=("engaged",), x="extra attacks per five models", field="blast_x"),
    Ability("CLEAVE", "number", "Cleave", "attacks", "X more attacks per five models in the target, when all of "
            "the weapon's attacks go at that one target (the 11th edition)", x="extra attacks per five models",
            field="cleave"),
)
ELEVENTH_EDITION: Edition = (*TENTH_EDITION, *ELEVENTH_ADDS)
"""The 11th edition's weapon abilities: the 10th's, CLOSE-QUARTERS (as Pistol), BLAST X and CLEAVE X."""


def abilities_in(weapon: type[Weapon], edition: str) -> Edition:
    """The abilities of `weapon` (a class) that `edition` has: those declared on its fields, and the 11th's
    additions in the 11th edition (the same tuple each time: the parser keeps a table per edition, `parsing`)."""
    if (weapon, edition) not in _ABILITIES_IN:
        _ABILITIES_IN[weapon, edition] = (*abilities_of(weapon),
                                          *(ELEVENTH_ADDS if edition_named(edition).name == "11e" else ()))
    return _ABILITIES_IN[weapon, edition]


_ABILITIES_IN: dict[tuple[type, str], Edition] = {}  #: `abilities_in`, by weapon class and edition as given


def every_ability(weapon: type[Weapon]) -> Edition:
    """The abilities of `weapon` in any edition, one per field (a card prints each field once)."""
    first: dict[str, Ability] = {}
    for ability in abilities_in(weapon, "11e"):
        first.setdefault(ability.field, ability)
    return tuple(first.values())


def _parses(weapon: type[Weapon], text: str, edition: str) -> bool:
    try:
        weapon(**weapon_fields(text, abilities_in(weapon, edition)))
    except MathhammerError:
        return False
    return True

#: The fields of the abilities only a ranged weapon can have.
RANGED_ONLY = tuple(ability.field for ability in TENTH_EDITION if ability.ranged_only)


def ability_fields(token: str) -> dict[str, Any]:
    """The `Weapon` fields one printed ability of the 10th edition sets, e.g. ``SUSTAINED HITS D3``
    -> sustained_hits (see `parsing.ability_fields`).

    >>> ability_fields("Anti-Vehicle 4+")
    {'anti': (('VEHICLE', 4),)}
    """
    return read_ability(token, TENTH_EDITION)


def needing(situation: str, edition: Edition = TENTH_EDITION) -> str:
    """The abilities that read the situation field `situation`, for its help: ``Rapid Fire, Melta``."""
    return ", ".join(ability.words for ability in edition if situation in ability.needs)


@attrs.frozen(cache_hash=True)  # a key of the engine's caches: hashed once
class ModelProfile:
    """The characteristics of one kind of model in the target unit (M and OC are kept but not used)."""

    toughness: int = attrs.field(validator=_at_least("T", 1))
    save: int = attrs.field(validator=_between("Sv", 2, 7, "+"))
    wounds: int = attrs.field(validator=_at_least("W", 1))
    invulnerable: int | None = attrs.field(default=None, validator=_between("invulnerable save", 2, 6, "+"))
    feel_no_pain: int | None = attrs.field(default=None, validator=_between("Feel No Pain", 2, 6, "+"))
    feel_no_pain_mortal: int | None = attrs.field(
        default=None, validator=_between("Feel No Pain (mortal wounds)", 2, 6, "+")
    )
    reduce_damage: bool = False  #: each attack's damage is reduced by 1, to a minimum of 1
    halve_damage: bool = False  #: each attack's damage is halved, rounding up
    keywords: tuple[str, ...] = attrs.field(default=(), converter=_upper_tuple)
    name: str = ""
    leadership: int | None = attrs.field(default=None, validator=_between("Ld", 2, 12, "+"))
    invulnerable_ranged: int | None = attrs.field(
        default=None, validator=_between("invulnerable save (ranged attacks)", 2, 6, "+"))
    """An invulnerable save that holds against ranged attacks only (`inv-ranged4+`)."""
    feel_no_pain_psychic: int | None = attrs.field(
        default=None, validator=_between("Feel No Pain (psychic attacks)", 2, 6, "+"))
    """Feel No Pain against wounds from psychic attacks only (`fnp-psychic4+`; see `Weapon.psychic`)."""
    movement: int | None = attrs.field(default=None, validator=_at_least("M", 1))
    """Move in inches (`M6"`; 20 for an aircraft's `M20+"`); not used by the engine."""
    objective_control: int | None = attrs.field(default=None, validator=_at_least("OC", 0))
    """Objective Control (`OC2`); not used by the engine."""
    ignored: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    """Rules of the model that the engine does not model, by name (read in lenient mode)."""
    cover: bool = False  #: these models have the Benefit of Cover (as `Context.cover` gives the whole unit)

    #: the saves and Feel No Pain of a model that wargear may give it (each the better of two, a roll needed)
    DEFENCES: ClassVar[tuple[str, ...]] = ("invulnerable", "invulnerable_ranged", "feel_no_pain", "feel_no_pain_mortal",
                                           "feel_no_pain_psychic")

    def defended(self, given: Mapping[str, int]) -> ModelProfile:
        """This model with the defences `given` (`DEFENCES`, by field), each where it is better than its own."""
        changes: dict[str, Any] = {field: min(value, getattr(self, field) or 7) for field, value in given.items()}
        return attrs.evolve(self, **changes)

    @classmethod
    def parse(cls, text: str, name: str = "", lenient: bool = False) -> ModelProfile:
        """Read one model's profile such as ``M6" T3 Sv4+ W1 Ld7+ OC1`` (no model count)."""
        fields, count, started, leader = model_fields(text, name, lenient)
        if count != 1 or started is not None or leader:
            raise MathhammerError(f"{text!r} describes one model: leave out the x count and 'leader'")
        return cls(**fields)

    @property
    def character(self) -> bool:
        return "CHARACTER" in self.keywords


@attrs.frozen(cache_hash=True)  # a key of the engine's caches: hashed once
class Target:
    """A target unit: groups of identical models (`count` of each profile).

    `attached` marks an Attached unit (Leader + Bodyguard): its CHARACTER models cannot
    receive wounds while a bodyguard model lives, except from Precision attacks. `starting_strength` is the
    models the unit (its leaders aside) started the battle with, where it has lost some: Below Half-strength
    counts against it (None: the models it has).
    """

    groups: tuple[tuple[ModelProfile, int], ...]
    attached: bool = False
    starting_strength: int | None = None

    def __attrs_post_init__(self) -> None:
        if not self.groups:
            raise MathhammerError("a target needs at least one model")
        for _, count in self.groups:
            if count < 1:
                raise MathhammerError(f"model count must be at least 1, got x{count}")
        if self.attached and (all(p.character for p, _ in self.groups) or not any(p.character for p, _ in self.groups)):
            raise MathhammerError("an Attached unit needs bodyguard models and at least one CHARACTER leader")
        if self.starting_strength is not None and self.starting_strength < self.models_besides_leaders:
            raise MathhammerError(f"a Starting Strength of {self.starting_strength} is fewer than the "
                                  f"{self.models_besides_leaders} models the unit has left")

    @classmethod
    def of(cls, profile: ModelProfile, count: int = 1) -> Target:
        return cls(((profile, count),))

    @classmethod
    def parse(cls, text: str, lenient: bool = False) -> Target:
        """Read ``T4 Sv3+ inv5+ W2 x5 fnp6+ [INFANTRY]``; model groups are separated by ``;``, and a
        group marked ``leader`` is an attached CHARACTER: ``T4 Sv3+ W2 x10; T4 Sv3+ W4 inv4+ leader``.
        With `lenient`, an unknown token is kept by name in the profile's `ignored`."""
        parts = [model_fields(part, lenient=lenient) for part in text.split(";") if part.strip()]
        if not parts:
            raise MathhammerError("a target needs at least one model")
        groups = [(ModelProfile(**fields), count, started) for fields, count, started, _ in parts]
        attached = any(leader for *_, leader in parts)
        led = [(count, started) for profile, count, started in groups if not (attached and profile.character)]
        if sum(started is not None for _, _, started in groups) > sum(started is not None for _, started in led):
            raise MathhammerError("a CHARACTER of an Attached unit is one of its leaders: write the leaders it has "
                                  "left (x1), and the Starting Strength on the unit they lead")
        depleted = any(started is not None for _, started in led)
        return cls(tuple((profile, count) for profile, count, _ in groups), attached=attached,
                   starting_strength=sum(count if started is None else started for count, started in led)
                   if depleted else None)

    @property
    def model_count(self) -> int:
        return sum(count for _, count in self.groups)

    @property
    def models_besides_leaders(self) -> int:
        """Its models, an Attached unit's leaders aside (the models `starting_strength` counts)."""
        return sum(count for profile, count in self.groups if not (self.attached and profile.character))

    @property
    def starting(self) -> int:
        """Its Starting Strength, an Attached unit's leaders aside: `starting_strength`, else the models it has."""
        return self.models_besides_leaders + self.lost_before

    @property
    def lost_before(self) -> int:
        """Models it lost before this question (its Starting Strength less the models it has, its leaders aside)."""
        return 0 if self.starting_strength is None else self.starting_strength - self.models_besides_leaders

    @property
    def total_wounds(self) -> int:
        return sum(profile.wounds * count for profile, count in self.groups)

    @property
    def toughness(self) -> int:
        """T used for wound rolls: the bodyguard models' while the attacking unit resolves its attacks
        (an Attached unit), else the highest T in the unit."""
        pool = [p for p, _ in self.groups if not (self.attached and p.character)]
        return max(p.toughness for p in pool)

    @property
    def keywords(self) -> tuple[str, ...]:
        """Keywords of the unit: those of any of its models; STEALTH only if every model has it."""
        union = {k for p, _ in self.groups for k in p.keywords}
        if not all("STEALTH" in p.keywords for p, _ in self.groups):
            union.discard("STEALTH")
        return tuple(sorted(union))

    @property
    def leadership(self) -> int | None:
        """The best Leadership in the unit (what a Battle-shock test uses)."""
        values = [p.leadership for p, _ in self.groups if p.leadership is not None]
        return min(values, default=None)

    @property
    def single(self) -> ModelProfile:
        """The profile of a unit whose models are all alike."""
        if len(self.groups) != 1:
            raise MathhammerError("this calculation needs a target whose models are all alike (one group)")
        return self.groups[0][0]


def _known_edition(_inst: object, _attr: attrs.Attribute, value: str) -> None:
    edition_named(value)


@attrs.frozen(cache_hash=True)  # a key of the engine's caches: hashed once
class Rules:
    """Which edition's rules (`edition`: "10e" or "11e", see `editions`) and which printing within it of the
    rules that changed since the edition began: Devastating Wounds, Indirect Fire and Hazardous. Named
    presets of the 10th edition (`Rules.named`, `--rules`):

    - ``current`` (default): the core rules as the two datasheets this project encodes quote them;
    - ``2023``: the rules as printed when the edition was launched in 2023;
    - ``unsaveable-devastating``: current, but a Devastating Wounds Critical Wound read as damage
      that cannot be saved, dealt as a normal attack (as some rules summaries word it).

    The names used before, ``seed``, ``launch`` and ``unsaveable``, are accepted for them. The 11th
    edition has one printing, ``current``.
    """

    devastating_wounds: DevastatingWounds = DevastatingWounds.SEED
    indirect_fire: IndirectFire = IndirectFire.LATER
    hazardous: Hazardous = Hazardous.MORTAL_WOUNDS
    edition: str = attrs.field(default="10e", converter=lambda name: str(name).strip().lower(),
                               validator=_known_edition)

    PRESETS = tuple(printing.name for printing in TENTH.printings)  #: the printings of every edition
    OLD_NAMES = {"seed": "current", "launch": "2023", "unsaveable": "unsaveable-devastating"}

    @classmethod
    def named(cls, name: str, edition_name: str = "10e") -> Rules:
        """The preset called `name` in the edition `edition_name` (case does not matter; an old name is accepted)."""
        key = name.strip().lower()
        key = cls.OLD_NAMES.get(key, key)
        if key not in cls.PRESETS:
            raise MathhammerError(f"unknown rules printing {name!r} (allowed: {', '.join(cls.PRESETS)})")
        printing = edition_named(edition_name).printing(key)
        return cls(printing.devastating_wounds, printing.indirect_fire, printing.hazardous, edition_name)

    @property
    def definition(self) -> RulesEdition:
        """The edition these rules are (`editions.RulesEdition`)."""
        return EDITIONS[self.edition]

    @property
    def name(self) -> str | None:
        """The preset these rules are, or None for another combination."""
        return next((p.name for p in self.definition.printings
                     if Rules.named(p.name, self.edition) == self), None)

    def in_edition(self, name: str) -> Rules:
        """The same printing in the edition `name` (a mix of printings keeps its wordings)."""
        if self.name is None:
            return attrs.evolve(self, edition=name)
        return Rules.named(self.name, name)

    def differences(self) -> list[str]:
        """In plain words, each wording that differs from the current rules (empty for the default)."""
        words = {
            DevastatingWounds.LAUNCH: "Devastating Wounds as mortal wounds that spill over",
            DevastatingWounds.UNSAVEABLE: "Devastating Wounds as unsaveable normal damage",
            IndirectFire.LAUNCH: "Indirect Fire -1 to hit",
            Hazardous.DESTROY: "a failed Hazardous test destroys a model",
        }
        return [words[w] for w in (self.devastating_wounds, self.indirect_fire, self.hazardous) if w in words]

    def describe(self) -> str:
        """These rules for the header: the edition, the preset's name and how they differ from the current
        rules."""
        differences = self.differences()
        printing = f"{self.name} printing" if self.name else "a mix of printings"
        told = f" ({', '.join(differences)})" if differences else ""
        return f"{self.definition.ordinal} edition, {printing}{told}"


class CommandReroll(enum.Enum):
    """The roll a Command Re-roll is kept for: the first such roll worth re-rolling gets it."""

    ATTACKS = "attacks"  #: one model's attacks roll, if below the dice's average
    HIT = "hit"  #: the first failed hit roll
    WOUND = "wound"  #: the first failed wound roll
    SAVE = "save"  #: the first failed saving throw
    DAMAGE = "damage"  #: the first damage roll below average that would not destroy the model

    @classmethod
    def parse(cls, value: str | CommandReroll | None) -> CommandReroll | None:
        if value is None or isinstance(value, CommandReroll):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            allowed = ", ".join(k.value for k in cls)
            raise MathhammerError(f"Command Re-roll must be one of {allowed}, got {value!r}") from None

    @property
    def words(self) -> str:
        """The roll in a player's words."""
        return "saving throw" if self is CommandReroll.SAVE else f"{self.value} roll"


def _command_reroll(value: str | CommandReroll | None) -> CommandReroll | None:
    return CommandReroll.parse(value)


class DamageReroll(enum.StrEnum):
    """Which damage rolls the attacker re-rolls (a die is re-rolled at most once). A member equals
    its value as written (`DamageReroll.ONES == "ones"`), so a rule read from text compares with it."""

    NONE = "none"
    ONES = "ones"  #: re-roll a Damage roll of 1 (the roll's result before modifiers)
    ONE_DIE = "one-die"  #: re-roll one die of the roll, the lowest, when it is below the die's average
    BELOW_AVERAGE = "below-average"  #: re-roll the whole roll when it is below the roll's average

    @classmethod
    def parse(cls, value: str | DamageReroll | None) -> DamageReroll:
        if value is None or isinstance(value, DamageReroll):
            return value or cls.NONE
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            allowed = ", ".join(k.value for k in cls)
            raise MathhammerError(f"damage re-roll must be one of {allowed}, got {value!r}") from None

    @property
    def words(self) -> str:
        """The policy in a player's words."""
        return {DamageReroll.NONE: "no damage re-roll", DamageReroll.ONES: "re-roll Damage rolls of 1",
                DamageReroll.ONE_DIE: "re-roll the lowest Damage die when below average",
                DamageReroll.BELOW_AVERAGE: "re-roll Damage rolls below average"}[self]


def _damage_reroll(value: str | DamageReroll | None) -> DamageReroll:
    return DamageReroll.parse(value)


def _save_reroll(value: str | Reroll) -> Reroll:
    policy = Reroll.parse(value)
    if policy is Reroll.NONCRIT:
        raise MathhammerError("a saving throw has no Critical result: re-roll saves of 1 (ones) or failed ones")
    return policy


@attrs.frozen
class CriticalMortals:
    """Critical Hits (`roll` "hit") or Critical Wounds ("wound") that inflict `mortal_wounds`
    mortal wounds: in addition to the attack's normal damage, or `instead` of it (the attack
    sequence ends). The mortal wounds land after the unit's other attacks and spill over."""

    roll: str = attrs.field(validator=attrs.validators.in_(("hit", "wound")))
    mortal_wounds: Dice = attrs.field(default=Dice(0, 6, 1), converter=_dice)
    instead: bool = False

    @classmethod
    def parse(cls, text: str | CriticalMortals) -> CriticalMortals:
        """Read ``hit D3`` or ``wound 1 instead`` (the roll, the mortal wounds, and `instead`)."""
        if isinstance(text, CriticalMortals):
            return text
        words = str(text).lower().split()
        usage = "(e.g. 'hit 1', 'wound D3 instead')"
        if not 2 <= len(words) <= 3 or words[0] not in ("hit", "wound") or words[2:] not in ([], ["instead"]):
            raise MathhammerError(f"critical mortal wounds must be hit|wound, the mortal wounds, and optionally "
                                  f"'instead' {usage}, got {text!r}")
        dice = Dice.parse(words[1])
        if dice.minimum < 1:
            raise MathhammerError(f"critical mortal wounds must be at least 1, got {words[1]} {usage}")
        return cls(words[0], dice, bool(words[2:]))

    def describe(self) -> str:
        how = "instead of normal damage" if self.instead else "as well as normal damage"
        return f"Critical {self.roll.capitalize()}s inflict {self.mortal_wounds} mortal wounds {how}"


def _critical_mortals(value: str | CriticalMortals | None) -> CriticalMortals | None:
    return None if value is None else CriticalMortals.parse(value)


Line = Literal["situation", "rolls", "against the target", "rules"]  #: where the header states a field
#: How a named rule's value for a situation field combines with the situation's own (`Declared.stack`):
#: added, the larger or the smaller kept (a re-roll, a critical threshold), either one true, or given
#: at most once (two different values would be a guess).
Stack = Literal["add", "max", "min", "or", "once"]


@attrs.frozen
class Declared:
    """How one situation field is asked for and told, said once: the command's option and the web
    request's field, their help, bounds and choices, and the header's words, are all made from it.

    `words` states a value that is not the default: a format string given the value (a flag's has no
    placeholder), or a function of the value. `label` names the field in a refusal ("hit roll modifier
    must be -6 to 6"). `choices` are the values a player may write, the first the default (unless the
    default is None). `metavar` marks free text that the field's converter reads (no fixed choices
    on the command line). `stack` says how a named rule may change the field (None: it cannot),
    `effect` how the rule's effect states it, as `words` does; `capped` marks a roll modifier that the
    edition's cap bounds, which the header says where the value is beyond it."""

    option: str
    help: str
    words: str | Callable[[Any], str]
    line: Line = "rolls"
    low: int | None = None
    high: int | None = None
    label: str = ""
    suffix: str = ""
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    stack: Stack | None = None
    effect: str | Callable[[Any], str] = ""
    capped: bool = False  #: a roll modifier the edition's cap bounds (`RulesDefinition.modifier_cap`)
    #: the value a rule's "you can re-roll" is read as where the player's own option, given too, says which rolls it
    #: re-rolls instead (any damage re-roll is one that "you can re-roll the Damage roll" allows)
    free: Any = None

    def say(self, value: Any) -> str:
        """The header's words for `value`."""
        return self.words.format(value) if isinstance(self.words, str) else self.words(value)

    def granted(self, value: Any) -> str:
        """A named rule's effect on this field in words ("+1 to hit")."""
        return self.effect.format(value) if isinstance(self.effect, str) else self.effect(value)


DECLARED = "declared"  #: the attrs metadata key of a situation field's `Declared`


def situation_field(default: Any, declared: Declared, converter: Callable[[Any], Any] | None = None) -> Any:
    """An attrs field of the situation, with its declaration and a validator made from its bounds."""
    validator = None
    if declared.high is not None:
        assert declared.low is not None, "a bounded situation field has both bounds"
        validator = _between(declared.label, declared.low, declared.high, declared.suffix)
    elif declared.low is not None:
        validator = _at_least(declared.label, declared.low)
    return attrs.field(default=default, validator=validator, converter=converter, metadata={DECLARED: declared})


@attrs.frozen
class SituationField:
    """One declared field of a situation class: its name, its default and its declaration."""

    name: str
    default: Any
    declared: Declared

    @property
    def spoken(self) -> Any:
        """The default as a player writes it (and as JSON has it): False, 0, a choice, or None."""
        if self.declared.choices:
            return None if self.default is None else self.declared.choices[0]
        return self.default


def _choices(kind: type[enum.Enum], *leave_out: enum.Enum) -> tuple[str, ...]:
    return tuple(str(k.value if isinstance(k.value, str) else k.name).lower() for k in kind if k not in leave_out)


def _lethal_hits(value: LethalHits | str | None) -> LethalHits | None:
    if value is None or isinstance(value, LethalHits):
        return value
    try:
        return LethalHits(str(value).strip().lower())
    except ValueError:
        raise MathhammerError(f"unknown Lethal Hits policy {value!r} (allowed: always, never, best)") from None


def _edition(value: str | None) -> str | None:
    return None if value is None else edition_named(value).name


def _rules(value: Rules | str) -> Rules:
    return value if isinstance(value, Rules) else Rules.named(value)


_REROLL = _choices(Reroll)
_MODIFIER_HELP = "(the net is capped to -1..+1)"


@attrs.frozen(cache_hash=True)  # a key of the engine's caches: hashed once
class Context:
    """The situation of one attack: range, movement, modifiers and re-rolls.

    Each field is declared once (`Declared`): the command's options, the web request and the
    answer's header are made from these declarations, in this order. Roll modifiers
    (`hit_modifier`, `wound_modifier`) are summed with those from abilities and capped to -1..+1.
    """

    half_range: bool = situation_field(False, Declared(
        "--half-range", f"Within half range ({needing('half_range')}).", "within half range", "situation"))
    cover: bool = situation_field(False, Declared(
        "--cover", "The target has the Benefit of Cover.", "target has the Benefit of Cover", "situation"))
    charged: bool = situation_field(False, Declared(
        "--charged", f"The attacker charged this turn ({needing('charged')}).", "attacker charged", "situation"))
    stationary: bool = situation_field(False, Declared(
        "--stationary", f"The attacker Remained Stationary ({needing('stationary')}).", "attacker Remained Stationary",
        "situation"))
    advanced: bool = situation_field(False, Declared(
        "--advanced", "The attacker Advanced: only Assault weapons shoot.", "attacker Advanced", "situation"))
    """The attacking unit Advanced this turn (only Assault weapons shoot)."""
    overwatch: bool = situation_field(False, Declared(
        "--overwatch", "Fire Overwatch: only unmodified 6s hit.", "Fire Overwatch", "situation", stack="or",
        effect="only unmodified 6s hit"))
    indirect: bool = situation_field(False, Declared(
        "--indirect", "Indirect Fire at a target that is not visible.", "target not visible (Indirect Fire)",
        "situation"))
    """The target is not visible and an Indirect Fire weapon fires anyway."""
    engaged: bool = situation_field(False, Declared(
        "--engaged", "The target is within Engagement Range of your army (no Blast).",
        "target within Engagement Range of your army", "situation"))
    beyond_conversion_range: bool = situation_field(False, Declared(
        "--far", "The target is beyond the range stated by CONVERSION: Critical Hits on 4+.",
        "target beyond Conversion range", "situation"))
    extra_attacks: int = situation_field(0, Declared(
        "--extra-attacks", "Attacks added to each model's Attacks characteristic.", "+{} attacks per model",
        low=0, high=1000, label="extra attacks"))
    hit_modifier: int = situation_field(0, Declared(
        "--hit-mod", f"Hit roll modifier {_MODIFIER_HELP}.", "hit roll {:+d}", low=-6, high=6,
        label="hit roll modifier", stack="add", effect="{:+d} to hit", capped=True))
    wound_modifier: int = situation_field(0, Declared(
        "--wound-mod", f"Wound roll modifier {_MODIFIER_HELP}.", "wound roll {:+d}", low=-6, high=6,
        label="wound roll modifier", stack="add", effect="{:+d} to wound", capped=True))
    reroll_hits: Reroll = situation_field(Reroll.NONE, Declared(
        "--reroll-hits", "Re-roll hit rolls of 1, failed ones, or all but crits.", lambda policy: policy.words("hit"),
        choices=_REROLL, stack="max", effect=lambda policy: policy.words("hit")), converter=Reroll.parse)
    reroll_wounds: Reroll = situation_field(Reroll.NONE, Declared(
        "--reroll-wounds", "Re-roll wound rolls of 1, failed ones, or all but crits.",
        lambda policy: policy.words("wound"), choices=_REROLL, stack="max",
        effect=lambda policy: policy.words("wound")), converter=Reroll.parse)
    critical_hit: int = situation_field(6, Declared(
        "--crit-hit", "Unmodified hit roll that is a Critical Hit.", "Critical Hits on {}+", low=2, high=6,
        label="critical hit threshold", suffix="+", stack="min", effect="Critical Hits on {}+"))
    critical_wound: int = situation_field(6, Declared(
        "--crit-wound", "Unmodified wound roll that is a Critical Wound (Anti-X may lower it further).",
        "Critical Wounds on {}+", low=2, high=6, label="critical wound threshold", suffix="+", stack="min",
        effect="Critical Wounds on {}+"))
    """Unmodified wound roll that is a Critical Wound (Anti-KEYWORD may lower it further)."""
    critical_mortals: CriticalMortals | None = situation_field(None, Declared(
        "--crit-mortals", "Critical Hits or Wounds inflict N mortal wounds (a number or dice), as well as normal "
                          "damage or 'instead' of it; they land after the unit's other attacks and spill over. "
                          "E.g. 'hit 1', 'wound D3 instead'.",
        lambda mortals: mortals.describe(), metavar="hit|wound N [instead]", stack="once",
        effect=lambda mortals: mortals.describe()), converter=_critical_mortals)
    """Critical Hits or Critical Wounds that inflict mortal wounds (see `CriticalMortals`)."""
    damage_bonus: int = situation_field(0, Declared(
        "--damage-bonus", "Add this to each attack's Damage (e.g. +1 Damage).", "Damage +{}", low=0, high=6,
        label="damage bonus", stack="add", effect="{:+d} Damage"))
    """Added to each attack's Damage (e.g. +1 Damage), after halving and before -1 Damage."""
    reroll_damage: DamageReroll = situation_field(DamageReroll.NONE, Declared(
        "--reroll-damage", "Re-roll a Damage roll of 1, the lowest die when below a die's average (one-die), or "
                           "the whole roll when below its average.",
        lambda policy: policy.words, choices=_choices(DamageReroll), stack="once", effect=lambda policy: policy.words,
        free=DamageReroll.BELOW_AVERAGE), converter=_damage_reroll)
    """The attacker's damage re-roll (see `DamageReroll`)."""
    # against the target (the defender's abilities, or the attacker's on its saves)
    wound_modifier_against: int = situation_field(0, Declared(
        "--wound-mod-against", "Wound roll modifier from the target's rules, e.g. -1 (capped with the wound roll "
                               "modifier to -1..+1).", "wound roll {:+d}", "against the target", low=-6, high=6,
        label="wound roll modifier", stack="add", effect="{:+d} to wound it"))
    """Wound roll modifier of attacks against the target (e.g. -1 from its ability), capped with
    `wound_modifier` and the weapon's own to -1..+1."""
    worsen_ap: int = situation_field(0, Declared(
        "--worsen-ap", "Worsen the AP of attacks against the target by this much (never better than AP 0).",
        "AP worsened by {}", "against the target", low=0, high=6, label="AP worsened by",
        stack="add", effect="AP of attacks against it worsened by {}"))
    """AP of attacks against the target worsened by this much (AP-2 becomes AP-1), to AP 0 at most."""
    save_modifier: int = situation_field(0, Declared(
        "--save-mod", "Saving throw modifier; with AP and cover never more than +1 in total.", "saving throw {:+d}",
        "against the target", low=-6, high=6, label="saving throw modifier", stack="add",
        effect="{:+d} to its saving throws"))
    """Saving throw modifier (armour and invulnerable); with AP and cover never more than +1 in total."""
    reroll_saves: Reroll = situation_field(Reroll.NONE, Declared(
        "--reroll-saves", "The target re-rolls saving throws of 1, or failed ones.",
        lambda policy: policy.words("save"), "against the target", choices=_choices(Reroll, Reroll.NONCRIT),
        stack="max", effect=lambda policy: policy.words("saving throw")), converter=_save_reroll)
    """The target's saving throw re-roll: rolls of 1 (ones) or failed ones."""
    command_reroll: CommandReroll | None = situation_field(None, Declared(
        "--command-reroll", "Keep a Command Re-roll for one roll: the attacks roll, the first failed hit roll, "
                            "wound roll or saving throw, or a poor damage roll.",
        lambda kind: f"a Command Re-roll kept for the {kind.words}", choices=_choices(CommandReroll)),
        converter=_command_reroll)
    """The kind of roll a Command Re-roll is kept for (see `CommandReroll`)."""
    lethal_hits: LethalHits | None = situation_field(None, Declared(
        "--lethal-hits", "Which Critical Hits of a LETHAL HITS weapon wound automatically: always, never, or best "
                         "(each as the choice with the higher expected damage). A choice in the 11th edition "
                         "(default best); the 10th allows only always.",
        lambda policy: f"Lethal Hits: {policy.value} ({policy.words})", "rules", choices=("best", "never", "always")),
        converter=_lethal_hits)
    """How Lethal Hits is used (None: the edition's default; see `lethal_policy`)."""
    edition: str | None = situation_field(None, Declared(
        "--edition", f"The rules edition, 10e or 11e, and the edition of the indexed units that names are looked up in "
                     f"(default: ${ENVIRONMENT}, else 10e unless only the 11th is indexed; the rules are then the "
                     "edition of the units named).", lambda _name: "", "rules", choices=tuple(EDITIONS),
        metavar="|".join(EDITIONS)),
        converter=_edition)
    """The edition asked for (None: the edition of `rules`); it sets `rules`' edition."""
    rules: Rules = situation_field(Rules(), Declared(
        "--rules", "Which printing of the rules that changed (Devastating Wounds, Indirect Fire, Hazardous): "
                   "current, 2023 (at the edition's launch), or unsaveable-devastating (current, with Devastating "
                   "Wounds as unsaveable normal damage). Old names seed, launch, unsaveable.",
        lambda rules: rules.describe(), "rules", choices=Rules.PRESETS, metavar="|".join(Rules.PRESETS)),
        converter=_rules)

    def __attrs_post_init__(self) -> None:
        if self.stationary and self.advanced:
            raise MathhammerError("a unit that Advanced did not Remain Stationary: give --stationary or --advanced")
        if self.edition is not None and self.rules.edition != self.edition:  # the edition asked for is the rules'
            object.__setattr__(self, "rules", self.rules.in_edition(self.edition))
        allowed = self.rules.definition.lethal_hits
        if self.lethal_hits is not None and self.lethal_hits not in allowed:
            raise MathhammerError(f"Lethal Hits is not a choice in the {self.rules.definition.ordinal} edition: "
                                  f"--lethal-hits {'|'.join(p.value for p in allowed)} (never and best need "
                                  f"--edition 11e)")

    @property
    def lethal_policy(self) -> LethalHits:
        """How Lethal Hits is used: as asked, else the edition's default."""
        return self.lethal_hits or self.rules.definition.lethal_hits[0]


def declared_fields(situation: type = Context) -> tuple[SituationField, ...]:
    """The declared fields of `situation` (`Context` or a class derived from it), in order."""
    return tuple(SituationField(field.name, field.default, field.metadata[DECLARED])
                 for field in attrs.fields(situation) if DECLARED in field.metadata)


@attrs.frozen(cache_hash=True)  # a key of the engine's caches: hashed once
class Firing:
    """One weapon profile, the number of models that attack with it, and its own situation
    (None: the situation given to `attack`). `bearer` is the profile of the models using it,
    for the Hazardous tests of a Hazardous weapon."""

    weapon: Weapon
    models: int = attrs.field(default=1, validator=_at_least("the number of attacking models", 1))
    context: Context | None = None
    bearer: ModelProfile | None = None


@attrs.frozen
class MortalWounds:
    """A dice test that inflicts mortal wounds, one at a time with spill-over (e.g. Grenade:
    six D6, one mortal wound per 4+)."""

    dice: int = attrs.field(validator=_at_least("the number of dice", 1))
    success: int = attrs.field(validator=_between("the roll that inflicts a mortal wound", 2, 6, "+"))
    name: str = ""

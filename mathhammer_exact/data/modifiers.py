"""Named rules (abilities, stratagems, Orders, enhancements, wargear): their scope and their effect.

A `NamedRule` says when it is used (`phase`), what it stands for in a query (`situation`: the
attacking unit has it, the target has it, the target was marked earlier this phase, the
attacking unit was suppressed), which units it may affect (`attacker`, `target`: keyword tests),
whether it may be given twice, and its `Effect`. `decide.unit_attack` checks the scope against the two
units; `apply_modifiers` turns effects into changed weapons, target and per-weapon situation,
the same objects a Python user would build. Characteristic improvements (Take Aim!, Take Cover!)
change the profile and are not capped; roll modifiers go to the `Context` and are capped by the
engine.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import attrs

from ..abilities import Ability, flags
from ..editions import EDITIONS, TENTH, RulesEdition, edition
from ..errors import MathhammerError
from ..model import (
    ELEVENTH_EDITION,
    TENTH_EDITION,
    CommandReroll,
    Context,
    ModelProfile,
    MortalWounds,
    Reroll,
    SituationField,
    Target,
    Weapon,
    ability_fields,
    declared_fields,
)
from .names import loose

Phase = Literal["shooting", "fight", "either"]
Situation = Literal["attacker", "target", "marked", "suppressed"]
WeaponFilter = Literal["all", "ranged", "melee", "rapid fire"]
Flag = Literal["stationary", "advanced", "engaged", "charged", "half_range", "overwatch", "indirect", "cover"]
Kind = Literal["ability", "core ability", "faction ability", "stratagem", "order", "enhancement",
               "detachment rule", "army rule", "wargear"]

#: How the answer's header names the situation a rule stands for.
SUBJECT = {"attacker": "attacker has", "target": "target has", "marked": "target marked by",
           "suppressed": "attacker suppressed by"}
#: The command's option for each situation flag a rule may require or exclude.
FLAG_OPTION = {field.name: field.declared.option for field in declared_fields(Context)
               if field.name in typing.get_args(Flag)}
#: The situation fields a named rule may change (its declaration says how two sources stack), in order.
STACKED = tuple(field for field in declared_fields(Context) if field.declared.stack)
StrengthTest = Literal["", "above", "below"]  #: an attack's Strength against the target's Toughness, if it matters


def _upper(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(" ".join(v.upper().split()) for v in values)


def _words(keywords: Sequence[str], join: str) -> str:
    return keywords[0] if len(keywords) == 1 else f"{', '.join(keywords[:-1])} {join} {keywords[-1]}"


@attrs.frozen
class Keywords:
    """A keyword test on a unit: it has every keyword of `all_of`, one of `any_of`, none of `none_of`."""

    all_of: tuple[str, ...] = attrs.field(default=(), converter=_upper)
    any_of: tuple[str, ...] = attrs.field(default=(), converter=_upper)
    none_of: tuple[str, ...] = attrs.field(default=(), converter=_upper)

    def __bool__(self) -> bool:
        return bool(self.all_of or self.any_of or self.none_of)

    def describe(self) -> str:
        """The units that pass, in a player's words: "an ADEPTUS ASTARTES INFANTRY unit"."""
        head = " ".join(self.all_of)
        if self.any_of:
            head = f"{head} {_words(self.any_of, 'or')}".strip()
        article = "an" if head[:1] in ("A", "E", "I", "O", "U") else "a"
        text = f"{article} {head} unit" if head else "a unit"
        if self.none_of:
            text += f" (not {_words(self.none_of, 'or')})"
        return text

    def passes(self, keywords: Iterable[str]) -> bool:
        have = set(keywords)
        return (set(self.all_of) <= have and (not self.any_of or bool(set(self.any_of) & have))
                and not set(self.none_of) & have)


def _between(low: int, high: int) -> Any:
    def check(_inst: object, attribute: attrs.Attribute, value: int | None) -> None:
        if value is not None and not low <= value <= high:
            raise MathhammerError(f"{attribute.name} must be {low} to {high}, got {value}")

    return check


@attrs.frozen
class RerollAgainst:
    """A better re-roll against targets with any of `keywords`."""

    keywords: tuple[str, ...] = attrs.field(converter=_upper)
    policy: Reroll


@attrs.frozen
class MortalWoundTest:
    """`dice` D6 that each inflict one mortal wound on `success` or more."""

    dice: int
    success: int


def _situation_changes(cls: type) -> type:
    """`cls` with a field for each situation field a named rule may change (`STACKED`): the
    situation's type, default, converter and bounds, so a rule is read and checked as the option is."""
    situation = {field.name: field for field in attrs.fields(attrs.resolve_types(Context))}
    for stacked in STACKED:
        field = situation[stacked.name]
        cls.__annotations__[field.name] = field.type
        setattr(cls, field.name, attrs.field(default=field.default, converter=field.converter,
                                             validator=field.validator))
    return cls


FLAGS = flags(ELEVENTH_EDITION)  #: the weapon abilities a weapon has or has not, of either edition, by spelling


def _flags(names: Iterable[str]) -> list[Ability]:
    """The weapon abilities (flags, of either edition) of these names; an unknown name is refused."""
    if unknown := [name for name in names if name not in FLAGS]:
        raise MathhammerError(f"{', '.join(unknown)}: not a weapon ability a weapon has or has not (known: "
                              f"{', '.join(sorted(FLAGS))})")
    return [FLAGS[name] for name in names]


@attrs.frozen
@_situation_changes
class Effect:
    """What a named rule changes. Which side each field changes follows from the field itself:
    the weapons and their rolls, the target's models, or the attacking unit's own models. The
    situation fields it may change are those declared with a `stack` on `Context`."""

    weapons: WeaponFilter = "all"  #: which attacks the weapon and roll changes affect
    #: and only attacks with these weapons (by name, as `data.names.loose` writes it: "bolt rifle"), if any
    weapon_names: tuple[str, ...] = attrs.field(default=(), converter=lambda names: tuple(loose(n) for n in names))
    #: ... but not attacks with weapons that have one of these abilities (as the parser spells them: "EXTRA ATTACKS")
    excluding: tuple[str, ...] = attrs.field(default=(), validator=lambda _self, _field, names: _flags(names))
    # rolls of the attacks, beside the situation fields a rule may change (`STACKED`, added below)
    wound_modifier_if_weaker: int = 0  #: when the attack's S is below the target's T
    #: the rolls it changes (the situation fields of `STACKED`) change only for attacks whose Strength is "above" or
    #: "below" the target's Toughness ('if the Strength characteristic of that attack is greater than ...')
    strength_vs_toughness: StrengthTest = ""
    reroll_wounds_against: RerollAgainst | None = None
    # the weapons' characteristics (improvements, not capped)
    skill_bonus: int = attrs.field(default=0, validator=_between(0, 5))
    attacks_bonus: int = 0
    strength_bonus: int = 0
    ap_bonus: int = attrs.field(default=0, validator=_between(0, 6))
    abilities: tuple[str, ...] = ()
    # the target's models
    cover: bool = False
    stealth: bool = False
    invulnerable: int | None = attrs.field(default=None, validator=_between(2, 6))
    feel_no_pain: int | None = attrs.field(default=None, validator=_between(2, 6))
    #: Feel No Pain against mortal wounds only, and against psychic attacks only (a Librarian's Psychic Hood)
    feel_no_pain_mortal: int | None = attrs.field(default=None, validator=_between(2, 6))
    feel_no_pain_psychic: int | None = attrs.field(default=None, validator=_between(2, 6))
    save_bonus: int = attrs.field(default=0, validator=_between(0, 5))
    save_limit: int = attrs.field(default=2, validator=_between(2, 6))
    reduce_damage: bool = False  #: each attack allocated to them has its Damage reduced by 1 (not below 1)
    halve_damage: bool = False  #: each attack allocated to them has its Damage halved (rounding up)
    # the attacking unit's own models, and the query as a whole
    #: Feel No Pain of the attacking unit's own models (it reaches their Hazardous mortal wounds)
    bearer_feel_no_pain: int | None = attrs.field(default=None, validator=_between(2, 6))
    #: the unit may be affected by this many different Orders at once
    orders: int = attrs.field(default=0, validator=_between(0, 6))
    mortal_wounds: MortalWoundTest | None = None
    command_reroll: CommandReroll | None = None

    #: The fields that change the target's models, or attacks against them, and the attacking unit's own.
    TARGET_FIELDS = ("cover", "stealth", "invulnerable", "feel_no_pain", "feel_no_pain_mortal", "feel_no_pain_psychic",
                     "save_bonus", "reduce_damage", "halve_damage",
                     *(field.name for field in STACKED if field.declared.line == "against the target"))
    OWN_FIELDS = ("bearer_feel_no_pain", "orders")
    #: the target fields that change a model alone (what an attack allocated to it meets), not the attacks
    MODEL_FIELDS = ("cover", "invulnerable", "feel_no_pain", "feel_no_pain_mortal", "feel_no_pain_psychic",
                    "save_bonus", "reduce_damage", "halve_damage")

    def __attrs_post_init__(self) -> None:
        for text in self.abilities:
            ability_fields(text)  # an unknown ability is an error here, when the data is loaded
        if self.mortal_wounds:
            MortalWounds(self.mortal_wounds.dice, self.mortal_wounds.success)

    def given(self, name: str) -> Any:
        """The effect's value for the situation field `name` (the situation's default if it sets none)."""
        return getattr(self, name)

    def changes(self, fields: Sequence[str]) -> list[str]:
        """The fields of `fields` this effect sets."""
        default = Effect()
        return [f for f in fields if getattr(self, f) != getattr(default, f)]

    def names_weapon(self, name: str) -> bool:
        """Whether the weapon called `name` (a profile's name, 'plasma gun (supercharge)', or wargear's) is one this
        effect is for: by its name, or a name ending in 'weapons' by the rest ('Hellforged weapons', which a text
        calls 'this model's hellforged weapons'), or one of two names by both ('Slaughter and Carnage')."""
        weapon = loose(name.split(" (")[0])
        return weapon in (*self.weapon_names, " and ".join(self.weapon_names)) or \
            weapon.removesuffix(" weapon") in self.weapon_names

    def affects(self, weapon: Weapon) -> bool:
        """Whether the weapon and roll changes apply to attacks with `weapon`."""
        named = not self.weapon_names or self.names_weapon(weapon.name)
        excluded = any(getattr(weapon, ability.field) for ability in _flags(self.excluding))
        return named and not excluded and {"all": True, "ranged": not weapon.melee, "melee": weapon.melee,
                          "rapid fire": weapon.rapid_fire is not None}[self.weapons]

    def _granted(self, line: str) -> list[str]:
        """The situation fields this effect changes that the header states on `line`, in words."""
        return [field.declared.granted(self.given(field.name)) for field in STACKED
                if field.declared.line == line and self.given(field.name) != field.default]

    def describe(self) -> str:
        """The effect in a player's words, e.g. "AP improved by 1"."""
        skill = {"ranged": "BS", "melee": "WS"}.get(self.weapons, "BS/WS")
        parts = self._granted("rolls")
        for value, text in ((self.wound_modifier_if_weaker, "{:+d} to wound when S is below T"),
                            (self.skill_bonus, skill + " improved by {}"), (self.attacks_bonus, "{:+d} Attacks"),
                            (self.strength_bonus, "{:+d} Strength"), (self.ap_bonus, "AP improved by {}")):
            if value:
                parts.append(text.format(value))
        if self.reroll_wounds_against:
            against = self.reroll_wounds_against
            parts.append(against.policy.words("wound") + f" against {_words(against.keywords, 'or')}")
        parts += self._granted("situation")
        if self.abilities:  # one part: the weapons a rule names gain them all (a trial read 'weapons gain SUSTAINED
            # HITS 1, weapons gain LANCE (melee weapons)' as Sustained Hits for every weapon)
            parts.append(f"weapons gain {_words(self.abilities, 'and')}")
        if self.invulnerable:
            parts.append(f"{self.invulnerable}+ invulnerable save")
        parts += [text for flag, text in ((self.cover, "the Benefit of Cover"), (self.stealth, "Stealth")) if flag]
        if self.feel_no_pain:
            parts.append(f"Feel No Pain {self.feel_no_pain}+")
        for roll, attacks in ((self.feel_no_pain_mortal, "mortal wounds"), (self.feel_no_pain_psychic,
                                                                           "psychic attacks")):
            if roll:
                parts.append(f"Feel No Pain {roll}+ against {attacks}")
        if self.save_bonus:
            parts.append(f"Sv improved by {self.save_bonus} (not better than {self.save_limit}+)")
        parts += [text for flag, text in ((self.reduce_damage, "Damage of attacks allocated to it -1 (not below 1)"),
                                          (self.halve_damage, "Damage of attacks allocated to it halved")) if flag]
        parts += self._granted("against the target")
        if self.bearer_feel_no_pain:
            parts.append(f"the attacking unit's models have Feel No Pain {self.bearer_feel_no_pain}+ "
                         "(Hazardous mortal wounds included)")
        if self.orders:
            parts.append(f"up to {self.orders} different Orders at once")
        if self.mortal_wounds:
            parts.append(f"{self.mortal_wounds.dice} D6, one mortal wound per {self.mortal_wounds.success}+")
        if self.command_reroll:
            parts.append(f"one Command Re-roll, kept for the {self.command_reroll.value} roll")
        text = ", ".join(parts) or "no effect"
        if self.weapons != "all":
            text += f" ({self.weapons} weapons)"
        if self.weapon_names:
            text += f" ({' and '.join(self.weapon_names)} only)"
        if self.excluding:
            text += f" (not {' or '.join(ability.words for ability in _flags(self.excluding))} weapons)"
        if self.strength_vs_toughness:
            text += f", when the attack's Strength is {self.strength_vs_toughness} the target's Toughness"
        return text


@attrs.frozen
class NamedRule:
    """One named rule: when and to whom it applies, and what it does (see rules/modifiers.toml)."""

    key: str
    name: str
    kind: Kind
    source: str
    summary: str
    phase: Phase
    situation: Situation
    effect: Effect = Effect()
    attacker: Keywords = Keywords()  #: the attacking unit must pass this test
    target: Keywords = Keywords()  #: the target unit must pass this test
    ability: str = ""  #: the attacking unit's datasheet must list this ability
    requires: tuple[Flag, ...] = ()  #: situation options that must be given
    excludes: tuple[Flag, ...] = ()  #: situation options that must not be given
    assumes: str = ""  #: what the query takes as given, shown in the answer's header
    repeatable: bool = False  #: may be given more than once in one query (the effects then add up)
    listed: bool = False  #: an army rule datasheets list by name: every unit listing it has it, and each answer
    #: about such a unit names it in its header, with the --with that applies it (`data.text_in_force`)
    models: tuple[str, ...] = ()  #: a rule of the target: the models it changes, by kind (a profile's name) or
    #: keyword (CHARACTER: the Leader attached to the unit); every model when empty
    led_by: str = ""  #: a rule of the target that holds while a model with this keyword leads it (CHARACTER, WARBOSS)
    #: the edition whose rule it is: "10e" for the shipped rules/ (the 10th edition's), else as its file says ("" where
    #: it says none: no edition is claimed for it)
    edition: str = attrs.field(default="", converter=lambda name: edition(name).name if name else "")

    def __attrs_post_init__(self) -> None:
        on_target = self.effect.changes(Effect.TARGET_FIELDS)
        if on_target and self.situation != "target":
            raise MathhammerError(f"effect.{on_target[0]} changes the target's models, "
                                  f"so situation must be \"target\", not {self.situation!r}")
        own = self.effect.changes(Effect.OWN_FIELDS)
        if own and self.situation != "attacker":
            raise MathhammerError(f"effect.{own[0]} changes the attacking unit's own models, "
                                  f"so situation must be \"attacker\", not {self.situation!r}")
        if self.led_by and self.situation != "target":
            raise MathhammerError(f"led_by (the Leader the target must have) needs situation \"target\", not "
                                  f"{self.situation!r}")
        if self.models and self.situation != "target":
            raise MathhammerError(f"models (the target's models it changes) needs situation \"target\", not "
                                  f"{self.situation!r}")
        if self.ability and self.situation != "attacker":
            raise MathhammerError("ability (the attacking unit has it) needs situation \"attacker\"")

    @property
    def side(self) -> str:
        """Whose unit the rule belongs to: the target's ("defender") or the attacker's side."""
        return "defender" if self.situation == "target" else "attacker"

    def changes(self, profile: ModelProfile) -> bool:
        """Whether this rule changes the target model `profile` (`models`: by its name or a keyword)."""
        return not self.models or profile.name in self.models or bool(set(self.models) & set(profile.keywords))

    def header(self, edition: RulesEdition = TENTH) -> str:
        """The situation this rule stands for, for the answer's header; in an answer under another `edition` than its
        own, that it is its own edition's (`declared_for`)."""
        line = f"{SUBJECT[self.situation]} {self.name}: {self.effect.describe()}"
        line = f"{line}; assumes {self.assumes}" if self.assumes else line
        return line if self.edition in ("", edition.name) else \
            f"{line}; {declared_for(self, edition)}; applied by the {edition.ordinal}'s rules"


def declared_for(rule: NamedRule, edition: RulesEdition) -> str:
    """Where a rule of a rules folder comes from, in an answer under `edition`: said to be another edition's where it
    is (the shipped rules/ are the 10th edition's)."""
    if rule.edition in ("", edition.name):
        return "as rules/ declares it"
    return (f"as rules/ declares it for the {EDITIONS[rule.edition].ordinal} edition, the {edition.ordinal}'s data "
            "here giving no text of it")


def _improved_weapon(weapon: Weapon, effect: Effect) -> Weapon:
    changes: dict[str, Any] = {}
    if effect.skill_bonus and weapon.skill is not None:
        changes["skill"] = max(2, weapon.skill - effect.skill_bonus)
    if effect.attacks_bonus:
        changes["attacks"] = attrs.evolve(weapon.attacks, modifier=weapon.attacks.modifier + effect.attacks_bonus)
    if effect.strength_bonus:
        changes["strength"] = weapon.strength + effect.strength_bonus
    if effect.ap_bonus:
        changes["ap"] = max(-6, weapon.ap - effect.ap_bonus)
    entries = {ability.field: ability for ability in TENTH_EDITION}
    for text in effect.abilities:
        for field, value in ability_fields(text).items():
            changes[field] = entries[field].combine(getattr(weapon, field), value)
    return attrs.evolve(weapon, **changes) if changes else weapon


def _stacked(field: SituationField, current: Any, given: Any, option: Any) -> Any:
    """The situation `field` once a rule gives it `given`, stacked on `current` as declared; a rule's "you can
    re-roll" (`Declared.free`) re-rolls as the query's own `option` says, where it says (a trial's Fire Dragons)."""
    if given == field.declared.free and option != field.default:
        return current
    how = field.declared.stack
    if how == "add":
        return current + given
    if how == "max":
        return max(current, given)
    if how == "min":
        return min(current, given)
    if how == "or":
        return current or given
    if current != field.default and current != given:  # one of each per attack: two would be a guess
        raise MathhammerError(f"{field.name.replace('_', ' ')} is set twice ({field.declared.granted(given)!r} by a "
                              "named rule, and by an option or another rule): give one")
    return given


def _improved_context(context: Context, weapon: Weapon, target: Target, effect: Effect,
                      options: Context | None = None) -> Context:
    """`context` after the effect's changes to the situation, stacked on it as declared; `options`, the query's own
    situation before any rule (by default `context`)."""
    options = options or context
    gate = effect.strength_vs_toughness
    if gate and not (weapon.strength > target.toughness if gate == "above" else weapon.strength < target.toughness):
        return context
    changes = {field.name: _stacked(field, getattr(context, field.name), effect.given(field.name),
                                    getattr(options, field.name))
               for field in STACKED if effect.given(field.name) != field.default}
    if effect.wound_modifier_if_weaker and weapon.strength < target.toughness:
        wound = changes.get("wound_modifier", context.wound_modifier)
        changes["wound_modifier"] = wound + effect.wound_modifier_if_weaker
    against = effect.reroll_wounds_against
    if against and set(against.keywords) & set(target.keywords):
        changes["reroll_wounds"] = max(changes.get("reroll_wounds", context.reroll_wounds), against.policy)
    changes = {name: value for name, value in changes.items() if value != getattr(context, name)}
    return attrs.evolve(context, **changes) if changes else context


def improved_model(profile: ModelProfile, effect: Effect) -> ModelProfile:
    """A target model after the effect's changes to the target's models."""
    changes: dict[str, Any] = {}
    if effect.stealth and "STEALTH" not in profile.keywords:
        changes["keywords"] = (*profile.keywords, "STEALTH")
    if effect.invulnerable is not None:
        changes["invulnerable"] = min(profile.invulnerable or 7, effect.invulnerable)
    for field in ("feel_no_pain", "feel_no_pain_mortal", "feel_no_pain_psychic"):
        if (value := getattr(effect, field)) is not None:
            changes[field] = min(getattr(profile, field) or 7, value)
    if effect.save_bonus:
        changes["save"] = min(profile.save, max(effect.save_limit, profile.save - effect.save_bonus))
    for flag in ("cover", "reduce_damage", "halve_damage"):
        if getattr(effect, flag):
            changes[flag] = True
    return attrs.evolve(profile, **changes) if changes else profile


def improved_bearer(profile: ModelProfile, effect: Effect) -> ModelProfile:
    """One of the attacking unit's own models after the effect (e.g. a medi-pack's Feel No Pain)."""
    if effect.bearer_feel_no_pain is None:
        return profile
    return attrs.evolve(profile, feel_no_pain=min(profile.feel_no_pain or 7, effect.bearer_feel_no_pain))


def apply_modifiers(
    rules: Sequence[NamedRule], weapons: Sequence[Weapon], target: Target, context: Context
) -> tuple[list[tuple[Weapon, Context]], Target, Context]:
    """Each weapon with its own situation after the effects of `rules`, the changed target, and the
    situation of the whole query (which carries a Command Re-roll). No scope is checked here:
    `decide.unit_attack` does that against the two units.

    Changes to the target's models come first, so conditions on the attack (e.g. S below T)
    see the target as it is when the attacks are made.
    """
    rerolls = {r.effect.command_reroll for r in rules if r.effect.command_reroll} | (
        {context.command_reroll} if context.command_reroll else set())
    if len(rerolls) > 1:
        raise MathhammerError(f"one Command Re-roll per query, got {', '.join(sorted(r.value for r in rerolls))}")
    if rerolls:
        context = attrs.evolve(context, command_reroll=rerolls.pop())
    for rule in rules:
        if rule.effect.changes(Effect.TARGET_FIELDS):
            groups = tuple((improved_model(profile, rule.effect) if rule.changes(profile) else profile, n)
                           for profile, n in target.groups)
            target = attrs.evolve(target, groups=groups)
    out = []
    for weapon in weapons:
        own = context
        for rule in rules:
            if rule.effect.affects(weapon):
                weapon = _improved_weapon(weapon, rule.effect)
                own = _improved_context(own, weapon, target, rule.effect, context)
        out.append((weapon, own))
    return out, target, context

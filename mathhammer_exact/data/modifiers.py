"""Named rules (abilities, stratagems, Orders, enhancements) as data-driven modifiers.

A `Modifier` says what it changes; `apply_modifiers` turns a list of them into changed
weapons, target and per-weapon situation, the same objects a Python user would build.
Characteristic improvements (Take Aim!, Take Cover!) change the profile and are not
capped; roll modifiers go to the `Context` and are capped by the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from ..dice import Dice
from ..errors import MathhammerError
from ..model import CommandReroll, Context, MortalWounds, Reroll, Target, Weapon
from ..parsing import ability_fields

WEAPON_FILTERS = ("all", "ranged", "melee", "rapid fire")
SITUATIONS = ("stationary",)


def _reroll(value: str | None) -> Reroll | None:
    return None if value is None else Reroll.parse(value)


@attrs.frozen
class Modifier:
    """One named rule and its effect on dice or characteristics (see rules/modifiers.toml)."""

    key: str
    name: str
    kind: str
    source: str
    summary: str
    side: str = attrs.field(validator=attrs.validators.in_(("attacker", "defender")))
    weapons: str = attrs.field(default="all", validator=attrs.validators.in_(WEAPON_FILTERS))
    unless_target: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    requires: tuple[str, ...] = attrs.field(default=(), converter=tuple,
                                            validator=attrs.validators.deep_iterable(attrs.validators.in_(SITUATIONS)))
    hit_modifier: int = 0
    wound_modifier: int = 0
    wound_modifier_if_weaker: int = 0
    reroll_hits: Reroll | None = attrs.field(default=None, converter=_reroll)
    reroll_wounds: Reroll | None = attrs.field(default=None, converter=_reroll)
    reroll_wounds_against: tuple[tuple[str, ...], Reroll] | None = None
    critical_hit: int | None = None
    skill_bonus: int = 0
    attacks_bonus: int = 0
    strength_bonus: int = 0
    ap_bonus: int = 0
    abilities: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    overwatch: bool = False
    cover: bool = False
    stealth: bool = False
    invulnerable: int | None = None
    feel_no_pain: int | None = None
    save_bonus: int = 0
    save_limit: int = 2
    mortal_wounds: MortalWounds | None = None
    command_reroll: CommandReroll | None = attrs.field(default=None, converter=lambda v: CommandReroll.parse(v))

    def __attrs_post_init__(self) -> None:
        for text in self.abilities:
            ability_fields(text)  # an unknown ability is an error here, when the data is loaded

    def affects(self, weapon: Weapon, target: Target, context: Context) -> bool:
        """Whether this attacker-side modifier applies to attacks with `weapon` against `target`."""
        kind_ok = {"all": True, "ranged": not weapon.melee, "melee": weapon.melee,
                   "rapid fire": weapon.rapid_fire is not None}[self.weapons]
        situation = {"stationary": context.stationary}
        return (kind_ok and not set(self.unless_target) & set(target.keywords)
                and all(situation[s] for s in self.requires))


def _improved_weapon(weapon: Weapon, mod: Modifier) -> Weapon:
    changes: dict[str, Any] = {}
    if mod.skill_bonus and weapon.skill is not None:
        changes["skill"] = max(2, weapon.skill - mod.skill_bonus)
    if mod.attacks_bonus:
        changes["attacks"] = attrs.evolve(weapon.attacks, modifier=weapon.attacks.modifier + mod.attacks_bonus)
    if mod.strength_bonus:
        changes["strength"] = weapon.strength + mod.strength_bonus
    if mod.ap_bonus:
        changes["ap"] = max(-6, weapon.ap - mod.ap_bonus)
    for text in mod.abilities:
        for field, value in ability_fields(text).items():
            if field == "anti":
                changes["anti"] = tuple(sorted({*weapon.anti, *value}))
            elif field == "sustained_hits":  # the same ability twice does not stack: keep the better
                current = weapon.sustained_hits
                new = Dice.parse(value)
                changes[field] = new if current is None or new.pmf().mean > current.pmf().mean else current
            else:
                changes[field] = value
    return attrs.evolve(weapon, **changes) if changes else weapon


def _improved_context(context: Context, weapon: Weapon, target: Target, mod: Modifier) -> Context:
    changes: dict[str, Any] = {}
    if mod.hit_modifier:
        changes["hit_modifier"] = context.hit_modifier + mod.hit_modifier
    wound = mod.wound_modifier + (mod.wound_modifier_if_weaker if weapon.strength < target.toughness else 0)
    if wound:
        changes["wound_modifier"] = context.wound_modifier + wound
    if mod.reroll_hits:
        changes["reroll_hits"] = max(context.reroll_hits, mod.reroll_hits)
    rerolls = [context.reroll_wounds, mod.reroll_wounds or Reroll.NONE]
    if mod.reroll_wounds_against and set(mod.reroll_wounds_against[0]) & set(target.keywords):
        rerolls.append(mod.reroll_wounds_against[1])
    if max(rerolls) != context.reroll_wounds:
        changes["reroll_wounds"] = max(rerolls)
    if mod.critical_hit is not None:
        changes["critical_hit"] = min(context.critical_hit, mod.critical_hit)
    if mod.overwatch:
        changes["overwatch"] = True
    return attrs.evolve(context, **changes) if changes else context


def _improved_target(target: Target, mod: Modifier) -> Target:
    groups = []
    for profile, count in target.groups:
        changes: dict[str, Any] = {}
        if mod.stealth and "STEALTH" not in profile.keywords:
            changes["keywords"] = (*profile.keywords, "STEALTH")
        if mod.invulnerable is not None:
            changes["invulnerable"] = min(profile.invulnerable or 7, mod.invulnerable)
        if mod.feel_no_pain is not None:
            changes["feel_no_pain"] = min(profile.feel_no_pain or 7, mod.feel_no_pain)
        if mod.save_bonus:
            changes["save"] = min(profile.save, max(mod.save_limit, profile.save - mod.save_bonus))
        groups.append((attrs.evolve(profile, **changes) if changes else profile, count))
    return attrs.evolve(target, groups=tuple(groups))


def apply_modifiers(
    modifiers: Sequence[Modifier], weapons: Sequence[Weapon], target: Target, context: Context
) -> tuple[list[tuple[Weapon, Context]], Target, Context]:
    """Each weapon with its own situation after `modifiers`, the modified target, and the
    situation of the whole query (which carries a Command Re-roll).

    Defender modifiers change the target first, so attacker conditions (e.g. S below T)
    see the target as it is when the attacks are made.
    """
    rerolls = {mod.command_reroll for mod in modifiers if mod.command_reroll} | (
        {context.command_reroll} if context.command_reroll else set())
    if len(rerolls) > 1:
        raise MathhammerError(f"one Command Re-roll per query, got {', '.join(sorted(r.value for r in rerolls))}")
    if rerolls:
        context = attrs.evolve(context, command_reroll=rerolls.pop())
    for mod in modifiers:
        if mod.side == "defender":
            target = _improved_target(target, mod)
            if mod.cover:
                context = attrs.evolve(context, cover=True)
            if mod.hit_modifier:
                context = attrs.evolve(context, hit_modifier=context.hit_modifier + mod.hit_modifier)
    out = []
    for weapon in weapons:
        own = context
        for mod in modifiers:
            if mod.side == "attacker" and mod.affects(weapon, target, own):
                weapon = _improved_weapon(weapon, mod)
                own = _improved_context(own, weapon, target, mod)
        out.append((weapon, own))
    return out, target, context


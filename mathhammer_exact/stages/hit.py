"""The hit roll: BS/WS, capped modifiers, Critical Hits, Torrent, Fire Overwatch, Indirect Fire, and the
edition's Stealth, Benefit of Cover (where it worsens BS) and Psychic."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Protocol, TypeVar

from ..editions import Cover, Stealth
from ..errors import MathhammerError
from ..model import Context, CriticalMortals, DevastatingWounds, IndirectFire, ModelProfile, Target, Weapon
from ..pmf import Pmf
from .d6 import Outcome, RollOdds, capped, roll_odds


def hit_modifier(weapon: Weapon, target: ModelProfile, context: Context) -> int:
    """Net hit roll modifier after the edition's cap (-1..+1). A PSYCHIC weapon in the 11th edition ignores
    the penalties and keeps the bonuses (a net --hit-mod counts as one modifier)."""
    definition = context.rules.definition
    bonus, penalty = max(0, context.hit_modifier), min(0, context.hit_modifier)
    if not weapon.melee:
        if weapon.heavy and context.stationary:
            bonus += 1
        if "STEALTH" in target.keywords and definition.stealth is Stealth.HIT:
            penalty -= 1
        if indirect(weapon, context) and context.rules.indirect_fire is IndirectFire.LAUNCH:
            penalty -= 1
    if ignores_modifiers(weapon, context):
        penalty = 0
    return capped(bonus + penalty, definition.modifier_cap)


def ignores_modifiers(weapon: Weapon, context: Context) -> bool:
    """Whether the attack ignores the penalties to its hit roll and BS/WS (a PSYCHIC weapon in the 11th)."""
    return weapon.psychic and context.rules.definition.psychic_ignores_modifiers


def stealth_said(target: Target, context: Context, melee: bool) -> list[str]:
    """A header line saying what Stealth gives the target against ranged attacks in this edition (applied from the
    STEALTH keyword of every model: `hit_modifier`, `benefit_of_cover`), where it has it and the attacks are."""
    if melee or not all("STEALTH" in profile.keywords for profile, _ in target.groups):
        return []
    return [f"target has Stealth: {context.rules.definition.stealth.words} against ranged attacks"]


def benefit_of_cover(weapon: Weapon, target: ModelProfile, context: Context) -> bool:
    """Whether the target has the Benefit of Cover against this attack: a ranged attack without Ignores
    Cover, at a target in cover, not visible to an Indirect Fire weapon, or (in the 11th edition)
    whose every model has Stealth. What the benefit does is the edition's (`editions.Cover`)."""
    if weapon.melee or weapon.ignores_cover:
        return False
    stealth = "STEALTH" in target.keywords and context.rules.definition.stealth is Stealth.COVER
    return context.cover or target.cover or indirect(weapon, context) or stealth


def skill_worsened(weapon: Weapon, target: ModelProfile, context: Context) -> int:
    """How much the attacker's BS is worsened: by 1 where the Benefit of Cover does that (the 11th
    edition, as reported). A characteristic's modifier, so outside the hit roll's cap; the BS it
    leaves is never worse than 6+ (docs/rules.md)."""
    covered = context.rules.definition.cover is Cover.SKILL and benefit_of_cover(weapon, target, context)
    return 1 if covered and not ignores_modifiers(weapon, context) else 0


def indirect(weapon: Weapon, context: Context) -> bool:
    """True when an Indirect Fire weapon shoots a target it cannot see."""
    return weapon.indirect_fire and context.indirect and not weapon.melee


def critical_hit_threshold(weapon: Weapon, context: Context) -> int:
    """`context.critical_hit` (6 unless changed), or 4 with Conversion beyond its stated range."""
    conversion = 4 if weapon.conversion is not None and context.beyond_conversion_range else 6
    return min(context.critical_hit, conversion)


def hit_odds(weapon: Weapon, target: ModelProfile, context: Context) -> RollOdds:
    """Odds that one attack misses, hits, or scores a Critical Hit."""
    if context.overwatch and weapon.melee:
        raise MathhammerError(f"Fire Overwatch is a shooting attack: {weapon.name or 'a melee weapon'} cannot fire it")
    if weapon.torrent:
        return RollOdds(Fraction(0), Fraction(1))
    assert weapon.skill is not None
    skill = min(6, weapon.skill + skill_worsened(weapon, target, context))  # a BS is never worse than 6+
    modifier = hit_modifier(weapon, target, context)
    always_fails = 3 if indirect(weapon, context) and context.rules.indirect_fire is IndirectFire.LATER else 1
    critical = 6 if context.overwatch else critical_hit_threshold(weapon, context)

    def classify(face: int) -> Outcome:
        if face <= always_fails:
            return Outcome.FAIL
        if face >= critical:
            return Outcome.CRITICAL
        if context.overwatch:
            return Outcome.FAIL
        return Outcome.SUCCESS if face + modifier >= skill else Outcome.FAIL

    return roll_odds(classify, context.reroll_hits)


class Yields(Protocol):
    """What one attack, hit or wound does, in an algebra with these verbs: a `Pmf` of counts
    (the compound pipeline) or an operator on the target's state (the whole-unit chain)."""

    def then(self: Y, other: Y) -> Y: ...

    def repeated(self: Y, times: Pmf) -> Y: ...

    def nothing(self: Y) -> Y: ...

    @staticmethod
    def mixture(parts: Iterable[tuple[Fraction, Any]]) -> Any: ...


Y = TypeVar("Y", bound=Yields)


def per_attack(hit: RollOdds, per_hit: Y, per_auto: Y, sustained: Pmf, lethal: bool,
               mortals: tuple[CriticalMortals, Y] | None = None) -> Y:
    """What one attack does: nothing (a miss), one hit's worth (`per_hit`: it rolls to wound), or a
    Critical Hit's worth: with Lethal Hits an automatic wound (`per_auto`, not a Critical Wound),
    and Sustained Hits' extra hits, each an ordinary hit that rolls to wound. With `mortals`
    (Critical Hits that inflict mortal wounds, and what those do), see `with_mortal_wounds`."""
    critical = with_mortal_wounds((per_auto if lethal else per_hit).then(per_hit.repeated(sustained)), mortals)
    return type(per_hit).mixture([(hit.fail, per_hit.nothing()), (hit.success, per_hit), (hit.critical, critical)])


def with_mortal_wounds(normal: Y, mortals: tuple[CriticalMortals, Y] | None) -> Y:
    """What a Critical Hit or Wound does when it inflicts mortal wounds (`mortals`: the rule, and
    `mortal`, the mortal wounds it leaves waiting): `mortal` then its `normal` effect, or with
    `instead` `mortal` alone (the attack sequence ends there). Without `mortals`, `normal`."""
    if mortals is None:
        return normal
    rule, mortal = mortals
    return mortal if rule.instead else mortal.then(normal)


def critical_mortals(weapon: Weapon, context: Context, roll: str) -> CriticalMortals | None:
    """The rule by which Critical `roll`s ("hit" or "wound") inflict mortal wounds, if any."""
    rule = context.critical_mortals
    if rule is not None and weapon.devastating_wounds and context.rules.devastating_wounds is DevastatingWounds.SEED:
        raise MathhammerError("mortal wounds on Critical Hits or Wounds with a DEVASTATING WOUNDS weapon are not "
                              "modelled under the current printing (which of the waiting mortal wounds land first "
                              "is not settled); use --rules 2023 or unsaveable-devastating")
    return rule if rule is not None and rule.roll == roll else None


def counted(rule: CriticalMortals | None, scored: Pmf) -> tuple[CriticalMortals, Pmf] | None:
    """`with_mortal_wounds` for a count (hits, wounds, unsaved): a Critical roll that inflicts mortal
    wounds instead of its normal effects counts as `scored`; one that inflicts them as well counts as
    the roll does without them."""
    return None if rule is None else (rule, scored if rule.instead else scored.nothing())


def hit_count(weapon: Weapon, target: ModelProfile, context: Context, attacks: Pmf) -> Pmf:
    """Hits scored by a random number of attacks, Sustained Hits' extra hits included (a Critical
    Hit that inflicts mortal wounds instead of its normal effects counts as one hit)."""
    one = Pmf.point(1, attacks.exact)
    item = per_attack(hit_odds(weapon, target, context), one, one, sustained_hits(weapon).in_mode(attacks.exact),
                      weapon.lethal_hits, counted(critical_mortals(weapon, context, "hit"), one))
    return attacks.compound(item)


def sustained_hits(weapon: Weapon) -> Pmf:
    """Extra hits a Critical Hit scores (0 without Sustained Hits; exact)."""
    return weapon.sustained_hits.pmf(exact=True) if weapon.sustained_hits else Pmf.point(0, exact=True)

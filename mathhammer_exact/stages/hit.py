"""The hit roll: BS/WS, capped modifiers, Critical Hits, Torrent, Fire Overwatch, Indirect Fire."""

from __future__ import annotations

from fractions import Fraction

from ..model import Context, IndirectFire, ModelProfile, Weapon
from ..pmf import Pmf
from .d6 import Outcome, RollOdds, capped, roll_odds


def hit_modifier(weapon: Weapon, target: ModelProfile, context: Context) -> int:
    """Net hit roll modifier after the -1..+1 cap."""
    modifier = context.hit_modifier
    if not weapon.melee:
        if weapon.heavy and context.stationary:
            modifier += 1
        if "STEALTH" in target.keywords:
            modifier -= 1
        if indirect(weapon, context) and context.rules.indirect_fire is IndirectFire.LAUNCH:
            modifier -= 1
    return capped(modifier)


def indirect(weapon: Weapon, context: Context) -> bool:
    """True when an Indirect Fire weapon shoots a target it cannot see."""
    return weapon.indirect_fire and context.indirect and not weapon.melee


def hit_odds(weapon: Weapon, target: ModelProfile, context: Context) -> RollOdds:
    """Odds that one attack misses, hits, or scores a Critical Hit."""
    if weapon.torrent:
        return RollOdds(Fraction(0), Fraction(1))
    skill = weapon.skill
    assert skill is not None
    modifier = hit_modifier(weapon, target, context)
    always_fails = 3 if indirect(weapon, context) and context.rules.indirect_fire is IndirectFire.LATER else 1
    critical = 6 if context.overwatch else context.critical_hit

    def classify(face: int) -> Outcome:
        if face <= always_fails:
            return Outcome.FAIL
        if face >= critical:
            return Outcome.CRITICAL
        if context.overwatch:
            return Outcome.FAIL
        return Outcome.SUCCESS if face + modifier >= skill else Outcome.FAIL

    return roll_odds(classify, context.reroll_hits)


def per_attack_item(hit: RollOdds, sustained: Pmf, lethal: bool, per_hit: Pmf, per_auto: Pmf) -> Pmf:
    """What one attack yields, given what each hit that rolls to wound yields (`per_hit`) and
    what a Lethal Hits auto-wound yields (`per_auto`). Sustained Hits' extra hits roll to wound."""
    zero = Pmf.point(0, per_hit.exact)
    critical = (per_auto if lethal else per_hit) + sustained.compound(per_hit)
    return Pmf.mixture([(hit.fail, zero), (hit.success, per_hit), (hit.critical, critical)])


def hit_count(weapon: Weapon, target: ModelProfile, context: Context, attacks: Pmf) -> Pmf:
    """Hits scored by a random number of attacks, Sustained Hits' extra hits included."""
    one = Pmf.point(1, attacks.exact)
    sustained = weapon.sustained_hits.pmf(attacks.exact) if weapon.sustained_hits else Pmf.point(0, attacks.exact)
    return attacks.compound(per_attack_item(hit_odds(weapon, target, context), sustained, weapon.lethal_hits, one, one))

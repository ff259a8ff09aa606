"""Number of attacks: each model rolls its own A, plus Rapid Fire and Blast bonuses."""

from __future__ import annotations

from ..errors import MathhammerError
from ..model import Context, Target, Weapon
from ..pmf import Pmf


def attacks_per_model(weapon: Weapon, target: Target, context: Context, exact: bool = False) -> Pmf:
    """The attacks one model makes with `weapon`: its A roll plus fixed bonuses."""
    if context.advanced and not weapon.melee and not weapon.assault:
        raise MathhammerError(f"after Advancing only ASSAULT weapons can shoot, not {weapon.name or 'this weapon'}")
    bonus = 0
    if weapon.rapid_fire and context.half_range:
        bonus += weapon.rapid_fire
    if weapon.blast:
        if context.engaged:
            raise MathhammerError("a BLAST weapon cannot target a unit within Engagement Range of the firer's army")
        bonus += target.model_count // 5
    bonus += context.extra_attacks
    return weapon.attacks.pmf(exact) + bonus


def attack_count(weapon: Weapon, target: Target, models: int, context: Context, exact: bool = False) -> Pmf:
    """Total attacks of `models` models, each rolling its own attacks independently."""
    if models < 1:
        raise MathhammerError(f"the number of attacking models must be at least 1, got {models}")
    return attacks_per_model(weapon, target, context, exact).repeat(models)

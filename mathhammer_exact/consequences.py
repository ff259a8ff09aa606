"""What follows an attack: Hazardous tests for the attacker, Battle-shock for the target."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import attrs

from .dice import Dice
from .model import Hazardous, ModelProfile, Rules, Target
from .pmf import Number, Pmf
from .stages.allocation import Track, Transition, after_events
from .stages.damage import mortal_threshold, wounds_lost

HAZARD_MORTAL_WOUNDS = 3
TOUGH = ("CHARACTER", "MONSTER", "VEHICLE")  #: models that suffer 3 mortal wounds instead (seed 000)


def hazardous_losses(bearers: Sequence[ModelProfile], rules: Rules | None = None, exact: bool = False) -> Pmf:
    """Attacker models lost to Hazardous tests: one D6 per Hazardous weapon used (`bearers`
    lists the model that used each), each 1 fails.

    A failed test hits a bearer that has lost wounds, else one that is not a CHARACTER, else a
    CHARACTER. Seed 002 wording: that model suffers 3 mortal wounds (excess lost). Seed 000
    wording: it is destroyed, except CHARACTER, MONSTER and VEHICLE models suffer 3 mortal wounds.
    """
    rules = rules or Rules()
    if not bearers:
        return Pmf.point(0, exact)
    ordered = sorted(bearers, key=lambda p: p.character)

    def effect(model: ModelProfile) -> Pmf:
        destroy = rules.hazardous is Hazardous.DESTROY and not set(TOUGH) & set(model.keywords)
        hit = model.wounds if destroy else HAZARD_MORTAL_WOUNDS
        return Pmf.point(hit, exact) if destroy else wounds_lost(Pmf.point(hit, exact), mortal_threshold(model))

    track = Track(tuple(p.wounds for p in ordered))
    fails = Pmf.point(len(ordered), exact).compound(Pmf.bernoulli(Fraction(1, 6), exact))
    state = after_events(track.unharmed(exact), Transition.build(track, [effect(p) for p in ordered]), fails)
    model_at = track.model_at()
    return state.map(lambda s: int(model_at[s]))


@attrs.frozen
class BattleShock:
    """The target's chance to end Below Half-strength (and alive), and to then fail its test."""

    below_half: Number
    failed: Number | None  #: None when the target's Leadership is unknown


def pass_chance(leadership: int, exact: bool = False) -> Number:
    """P(2D6 >= Ld): a Battle-shock test passes."""
    return Dice.parse("2D6").pmf(exact).at_least(leadership)


def battle_shock(target: Target, models_destroyed: Pmf, damage: Pmf, insane_bravery: bool = False) -> BattleShock:
    """Below Half-strength: fewer than half the models left, or for a one-model unit fewer than
    half its wounds. The test is then 2D6 against the unit's best Leadership; Insane Bravery passes it."""
    total = target.model_count
    if total == 1:
        wounds = target.total_wounds
        below = damage.chance(lambda k: 2 * (wounds - k) < wounds and k < wounds)
    else:
        below = models_destroyed.chance(lambda k: 2 * (total - k) < total and k < total)
    ld = target.leadership
    if ld is None:
        return BattleShock(below, None)
    if insane_bravery:
        return BattleShock(below, below * 0)
    return BattleShock(below, below * (1 - pass_chance(ld, models_destroyed.exact)))

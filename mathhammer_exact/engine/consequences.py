"""What follows an attack: Hazardous tests for the attacker, Below Half-strength and Battle-shock
for the target."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ..dice import Dice
from ..model import Hazardous, ModelProfile, Rules
from ..pmf import FLOAT, Mode, Number, Pmf
from ..stages.allocation import Track, Transition, after_events
from ..stages.damage import mortal_threshold, wounds_lost

HAZARD_MORTAL_WOUNDS = 3
TOUGH = ("CHARACTER", "MONSTER", "VEHICLE")  #: models that suffer 3 mortal wounds instead (seed 000)


def hazardous_failures(tests: int, mode: Mode = FLOAT) -> Pmf:
    """Failed Hazardous tests: one D6 per Hazardous weapon used, each 1 fails."""
    return mode.point(tests).compound(mode.bernoulli(Fraction(1, 6)))


def hazardous_losses(bearers: Sequence[ModelProfile], rules: Rules | None = None, mode: Mode = FLOAT) -> Pmf:
    """Attacker models lost to Hazardous tests: one D6 per Hazardous weapon used (`bearers`
    lists the model that used each), each 1 fails.

    A failed test hits a bearer that has lost wounds, else one that is not a CHARACTER, else a
    CHARACTER. Seed 002 wording: that model suffers 3 mortal wounds (excess lost). Seed 000
    wording: it is destroyed, except CHARACTER, MONSTER and VEHICLE models suffer 3 mortal wounds.
    """
    rules = rules or Rules()
    if not bearers:
        return mode.point(0)
    ordered = sorted(bearers, key=lambda p: p.character)

    def effect(model: ModelProfile) -> Pmf:
        destroy = rules.hazardous is Hazardous.DESTROY and not set(TOUGH) & set(model.keywords)
        hit = model.wounds if destroy else HAZARD_MORTAL_WOUNDS
        return mode.point(hit) if destroy else wounds_lost(mode.point(hit), mortal_threshold(model))

    track = Track(tuple(p.wounds for p in ordered))
    fails = hazardous_failures(len(ordered), mode)
    state = after_events(track.unharmed(mode), Transition.build(track, [effect(p) for p in ordered]), fails)
    return state.map_values(track.model_at())


def pass_chance(leadership: int, mode: Mode = FLOAT) -> Number:
    """P(2D6 >= Ld): a Battle-shock test passes."""
    return Dice.parse("2D6").pmf(mode.exact).at_least(leadership)


def below_half(starting: int, alive: np.ndarray, wounds: int = 0, wounds_lost: np.ndarray | int = 0) -> np.ndarray:
    """For each state, whether a unit of `starting` models with `alive` left is Below Half-strength (and not
    destroyed): fewer than half its models left, or for a one-model unit fewer than half its wounds left
    (`wounds`, of which `wounds_lost` are lost; needed only then). Exactly half is not below half."""
    below = 2 * (wounds - wounds_lost) < wounds if starting == 1 else 2 * alive < starting
    return below & (alive > 0)

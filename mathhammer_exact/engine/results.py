"""What a query returns: one `AttackResult` for every target, identical models or not."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import attrs
import numpy as np

from ..model import ModelProfile, Target
from ..pmf import Number, Pmf, pmf_html
from .consequences import pass_chance
from .layout import Layout


@attrs.frozen(eq=False)
class GroupLosses:
    """Losses of one model group of the target."""

    profile: ModelProfile
    count: int
    models_destroyed: Pmf

    @property
    def p_destroyed(self) -> Number:
        """Probability that every model of this group is destroyed."""
        return self.models_destroyed.p(self.count)


@attrs.frozen(eq=False)
class AttackResult:
    """Exact distributions of one query; each is a `Pmf` (mean, sd, p(k), at_least(k), median).

    `damage` is the damage dealt: wounds the target actually lost, after Feel No Pain and with
    excess damage lost. `groups` gives each model group's losses (one group for identical
    models). `wounds` and `unsaved` are given without a Command Re-roll or mortal wound tests and where
    they are not too large to sum (else None), `unsaved` only where every model of the target saves
    alike (else it depends on where each wound is allocated), and likewise `attacks` and `hits` where
    a Command Re-roll could change them (kept for the attacks roll or a hit roll): a count is given
    only where it is the count asked for.
    `attacks`, `hits`, `wounds` and `unsaved` are worked out when first read.
    """

    target: Target
    state: Pmf  #: the target's final state (for `attack(..., start=state)`: a later phase carries it on)
    damage: Pmf
    models_destroyed: Pmf
    groups: tuple[GroupLosses, ...]
    p_below_half: Number  #: the target ends Below Half-strength, not destroyed
    p_battle_shocked: Number | None  #: ... and then fails its Battle-shock test (None: no Ld)
    hazardous_tests_failed: Pmf | None  #: the attacker's failed Hazardous tests (None: no Hazardous weapon)
    hazardous_models_lost: Pmf | None  #: attacker models lost to them (None: no bearer profile given)
    _counts: Callable[[str], Pmf | None] = attrs.field(repr=False, alias="counts")

    STAGES = ("attacks", "hits", "wounds", "unsaved", "damage", "models_destroyed")

    @cached_property
    def attacks(self) -> Pmf | None:
        """Attacks made (each model's attacks roll, Rapid Fire and Blast included); None with a
        Command Re-roll kept for the attacks roll, which the chain resolves without counting them."""
        return self._counts("attacks")

    @cached_property
    def hits(self) -> Pmf | None:
        """Hits scored, Sustained Hits' extra hits included; None with a Command Re-roll kept for
        the attacks roll or a hit roll."""
        return self._counts("hits")

    @cached_property
    def wounds(self) -> Pmf | None:
        """Successful wound rolls plus Lethal Hits' automatic wounds."""
        return self._counts("wounds")

    @cached_property
    def unsaved(self) -> Pmf | None:
        """Attacks that got through the saving throw (Devastating Wounds included)."""
        return self._counts("unsaved")

    @property
    def p_destroyed(self) -> Number:
        """Probability that every model of the target unit is destroyed."""
        return self.models_destroyed.p(self.target.model_count)

    @property
    def exact(self) -> bool:
        return self.damage.exact

    def stages(self) -> dict[str, Pmf]:
        """The distributions that are defined, by name, in the order of the attack sequence."""
        found = {name: getattr(self, name) for name in self.STAGES}
        return {name: pmf for name, pmf in found.items() if pmf is not None}

    def _repr_html_(self) -> str:
        """Tables in Jupyter notebooks."""
        tables = "".join(pmf_html(pmf, name.replace("_", " ")) for name, pmf in self.stages().items())
        return f"<p>P(unit destroyed) = {float(self.p_destroyed):.4%}</p>{tables}"


def result_of(layout: Layout, state: Pmf, counts: Callable[[str], Pmf | None],
              hazardous: tuple[Pmf | None, Pmf | None] = (None, None)) -> AttackResult:
    """The result of a query whose target ends in `state` (a distribution over `layout`'s states)."""
    lost, dead = layout.losses
    models_destroyed = state.map_values(dead)
    groups: tuple[GroupLosses, ...]
    if len(layout.target.groups) == 1:  # the one group's losses are the unit's
        groups = (GroupLosses(*layout.target.groups[0], models_destroyed),)
    else:
        groups = tuple(GroupLosses(profile, count, state.map_values(layout.per_group[:, g]))
                       for g, (profile, count) in enumerate(layout.target.groups))
    below, leadership = layout.below_half, layout.leadership
    p_below = state.chance_where(below)
    shocked = None
    if leadership is not None:  # each state tests on the best Leadership of the models left in it
        shocked = sum((state.chance_where(below & (leadership == ld)) * (1 - pass_chance(int(ld), state.mode))
                       for ld in np.unique(leadership)), 0 * p_below)
    damage = state if not layout.leaders else state.map_values(lost)  # one track: the state is the wounds lost
    return AttackResult(layout.target, state, damage, models_destroyed, groups,
                        p_below, shocked, *hazardous, counts=counts)

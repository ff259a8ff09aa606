"""What a query returns: one exact distribution per stage of the attack sequence."""

from __future__ import annotations

import attrs

from .pmf import Number, Pmf


@attrs.frozen(eq=False)
class AttackResult:
    """Distributions of one attack sequence; each is a `Pmf` (mean, sd, p(k), at_least(k), median).

    `damage` is the damage dealt: wounds the target actually lost, after Feel No Pain
    and with excess damage lost. `unsaved` counts attacks that got past the saving
    throw, including Devastating Wounds that allowed none.
    """

    attacks: Pmf
    hits: Pmf
    wounds: Pmf
    unsaved: Pmf
    damage: Pmf
    models_destroyed: Pmf
    target_models: int

    STAGES = ("attacks", "hits", "wounds", "unsaved", "damage", "models_destroyed")

    @property
    def p_destroyed(self) -> Number:
        """Probability that every model of the target unit is destroyed."""
        return self.models_destroyed.p(self.target_models)

    @property
    def exact(self) -> bool:
        return self.damage.exact

    def stages(self) -> dict[str, Pmf]:
        """The distributions by name, in the order of the attack sequence."""
        return {name: getattr(self, name) for name in self.STAGES}

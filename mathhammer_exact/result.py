"""What a query returns: one exact distribution per stage of the attack sequence."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from .pmf import Number, Pmf


@attrs.frozen(eq=False)
class AttackResult:
    """Distributions of one attack sequence; each is a `Pmf` (mean, sd, p(k), at_least(k), median).

    `damage` is the damage dealt: wounds the target actually lost, after Feel No Pain
    and with excess damage lost. `unsaved` counts attacks that got past the saving
    throw, including Devastating Wounds that allowed none. `hits`, `wounds` and
    `unsaved` are worked out when first read, so a caller that only wants damage or
    models destroyed does not pay for them.
    """

    attacks: Pmf
    damage: Pmf
    models_destroyed: Pmf
    target_models: int
    counts: Callable[[str], Pmf] = attrs.field(repr=False)  #: hits, wounds or unsaved by name
    _cache: dict[str, Pmf] = attrs.field(factory=dict, repr=False)

    STAGES = ("attacks", "hits", "wounds", "unsaved", "damage", "models_destroyed")

    def _count(self, name: str) -> Pmf:
        if name not in self._cache:
            self._cache[name] = self.counts(name)
        return self._cache[name]

    @property
    def hits(self) -> Pmf:
        """Hits scored, Sustained Hits' extra hits included."""
        return self._count("hits")

    @property
    def wounds(self) -> Pmf:
        """Successful wound rolls plus Lethal Hits' automatic wounds."""
        return self._count("wounds")

    @property
    def unsaved(self) -> Pmf:
        """Attacks that got through the saving throw (Devastating Wounds included)."""
        return self._count("unsaved")

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

    def _repr_html_(self) -> str:
        """Tables in Jupyter notebooks."""
        from .render import attack_report, to_html

        return to_html(attack_report(self))

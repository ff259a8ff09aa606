"""Datasheets as data: a unit's models, weapons and wargear, turned into firings and targets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import attrs

from ..engine.limits import MAX_TARGET_MODELS
from ..errors import MathhammerError
from ..model import ModelProfile, Target, Weapon
from .text_rules import TextAbility


def either(numbers: Sequence[int]) -> str:
    """``5``, ``5 or 10``, ``5, 6 or 7``."""
    words = [str(n) for n in numbers]
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


@attrs.frozen
class ModelEntry:
    """One kind of model on a datasheet, with its default count and equipment."""

    name: str
    profile: ModelProfile
    count: int
    equipment: tuple[str, ...]
    max: int | None = None


@attrs.frozen
class WargearOption:
    """Models of kind `model` may swap `replaces` for one of `choices`."""

    model: str
    replaces: str
    choices: tuple[str, ...]
    each_once: bool = False  #: no weapon from this list twice in the unit
    max: int | None = None  #: at most this many models may take this option
    gives: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)  #: a choice that is several items

    def items(self, choice: str) -> tuple[str, ...]:
        """The equipment a model has instead of `replaces` after taking `choice`."""
        return self.gives.get(choice, (choice,))


@attrs.frozen
class Datasheet:
    name: str
    faction: str
    source: str
    keywords: tuple[str, ...]
    faction_keywords: tuple[str, ...]
    abilities: tuple[str, ...]
    models: tuple[ModelEntry, ...]
    weapons: Mapping[str, Mapping[str, Weapon]]  #: weapon name -> profile name -> profile
    options: tuple[WargearOption, ...] = ()
    sizes: tuple[int, ...] = ()
    points: Mapping[int, int] = attrs.field(factory=dict)
    always: tuple[str, ...] = ()  #: named rules always in force for this unit's attacks
    aliases: tuple[str, ...] = ()
    wargear: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)  #: wargear without a profile -> its rules
    leader_of: tuple[str, ...] = ()  #: units this CHARACTER can join as a Leader
    notes: tuple[str, ...] = ()  #: what was inferred from rules text or could not be read (datasheets read at run time)
    read_rules: tuple[TextAbility, ...] = ()  #: abilities read from their text (datasheets read at run time)

    @property
    def unit_keywords(self) -> tuple[str, ...]:
        """Every keyword of the unit: its own, its faction's and those of any of its models."""
        return tuple(sorted({*self.keywords, *self.faction_keywords, *(k for m in self.models
                                                                        for k in m.profile.keywords)}))

    def fillable_sizes(self) -> tuple[int, ...]:
        """Every unit size the models can fill: the fixed models, plus between the default and the
        most of each kind that may vary."""
        fixed = sum(m.count for m in self.models if m.max is None)
        varying = [m for m in self.models if m.max is not None]
        most = min(fixed + sum(m.max or 0 for m in varying), MAX_TARGET_MODELS)  # a catalogue may say "no limit"
        return tuple(range(fixed + sum(m.count for m in varying), most + 1))

    def allowed_sizes(self) -> tuple[int, ...]:
        """The unit sizes the datasheet allows: its `sizes`, else every size its models can fill."""
        return self.sizes or self.fillable_sizes()

    def counts(self, size: int | None = None) -> dict[str, int]:
        """Models of each kind in a unit of `size` models (default: the smallest size)."""
        allowed = self.allowed_sizes()
        size = allowed[0] if size is None else size
        if size not in allowed:
            raise MathhammerError(f"{self.name} comes in units of {either(allowed)} models, not {size}")
        counts = {m.name: m.count for m in self.models}
        extra = size - sum(counts.values())  # filled by the kinds that vary, in order, each up to its max
        for m in self.models:
            if m.max is not None:
                added = min(extra, m.max - m.count)
                counts[m.name] += added
                extra -= added
        return counts

    def as_target(self, size: int | None = None) -> Target:
        counts = self.counts(size)
        return Target(tuple((m.profile, counts[m.name]) for m in self.models if counts[m.name]))

    def equip(self, loadout: Sequence[str], size: int | None = None) -> list[tuple[ModelEntry, list[str]]]:
        """Every model with its wargear after the wargear choices in `loadout` (weapon names)."""
        counts = self.counts(size)
        models = [(m, list(m.equipment)) for m in self.models for _ in range(counts[m.name])]
        changed: set[int] = set()  # a model takes at most one option
        taken: Counter[int] = Counter()  # models that took each option, by its place in `options`
        chosen: Counter[str] = Counter()
        for raw in loadout:
            item = raw.strip().lower()
            options = [(n, o) for n, o in enumerate(self.options) if item in o.choices]
            if not options:
                choices = sorted({c for o in self.options for c in o.choices})
                raise MathhammerError(f"{self.name} cannot take {raw.strip()!r} (options: {', '.join(choices)})")
            for n, option in options:
                if option.each_once and chosen[item]:
                    continue
                if option.max is not None and taken[n] >= option.max:
                    continue
                index = next((i for i, (m, gear) in enumerate(models) if m.name == option.model
                              and option.replaces in gear and i not in changed), None)
                if index is None:
                    continue
                gear = models[index][1]
                at = gear.index(option.replaces)
                gear[at:at + 1] = option.items(item)
                changed.add(index)
                taken[n] += 1
                chosen[item] += 1
                break
            else:
                raise MathhammerError(f"{self.name}: no model left that can take another {raw.strip()!r}")
        return models

    def profile(self, weapon: str, choice: Sequence[str] = ()) -> Weapon | None:
        """The profile of `weapon` to use: the first of `choice` it has, else its first profile;
        None for wargear without a profile (e.g. a command rod)."""
        profiles = self.weapons.get(weapon)
        if not profiles:
            return None
        for name in choice:
            if name in profiles:
                return profiles[name]
        return next(iter(profiles.values()))

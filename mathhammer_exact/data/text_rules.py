"""Abilities read from a datasheet's text: what a datasheet keeps of them, and how a header states them.

`catalogue.ability_text` reads an ability's text into `Reading`s: each a `NamedRule` (the effect,
and the scope a query can check: phase, target keywords, situation options) with whose ability it
is (`scope`: the whole unit, one model, the bearer of wargear, or a leader's unit) and any
condition a query cannot settle (`needs`, turned on with --with NAME). `data.text_in_force`
decides which of them a query applies.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from ..model import DamageReroll, Reroll
from .modifiers import FLAG_OPTION, NamedRule

#: whose ability it is: every model of the unit, "this model", "the bearer" (of wargear), or the
#: unit this model leads ("while this model is leading a unit")
Scope = Literal["unit", "model", "bearer", "leading"]
Role = Literal["attacker", "target"]


@attrs.frozen
class Reading:
    """One effect of an ability's text, with whose it is and what it needs."""

    rule: NamedRule  #: the effect, and the conditions a query settles (phase, target keywords, options)
    scope: Scope = "unit"
    needs: str = ""  #: a condition no option states (the target is within 9"): only with --with NAME


@attrs.frozen
class TextAbility:
    """An ability of a datasheet, as read from its text: what it does to attacks, or why it is not modelled."""

    name: str
    model: str = ""  #: the kind of model it is written on ("" for the whole datasheet)
    readings: tuple[Reading, ...] = ()
    unmodelled: str = ""  #: why it is not applied, for an ability that may change attacks
    role: Role | Literal["either"] | None = None  #: whose attacks an ability not modelled is about, when that could
    #: be read (else taken as its own: an ability about attacks against it names them); "either": both may be
    army: bool = False  #: an army rule the datasheet lists by name (Oath of Moment): the Attached unit's, named once
    variants: tuple[NamedRule, ...] = ()  #: named rules that stand for this army rule in a case no option states
    #: (Oath of Moment in a Codex: Space Marines Detachment), each named in the header with its --with

    def describe(self) -> str:
        """What was read, in a player's words (for `show`): each reading with whose it is and what it needs."""
        if self.unmodelled:
            return f"not modelled ({self.unmodelled})"
        whose = {"unit": "", "model": f" ({self.model}'s)" if self.model else "", "bearer": " (the bearer's)",
                 "leading": " (while this model is leading a unit)"}
        return "; ".join(f"{'attacks against it: ' if r.rule.situation == 'target' else ''}{describe(r)}"
                         f"{f', {leading(r.rule.led_by)}' if r.rule.led_by else ''}{whose[r.scope]}"
                         f"{f' (only {r.needs})' if r.needs else ''}" for r in self.readings)


def leading(keywords: str, unit: str = "the unit") -> str:
    """The condition of a rule of a unit that holds while a Leader of `keywords` leads it, as the answers say it.

    >>> leading("ADEPTA SORORITAS CHARACTER")
    'while an ADEPTA SORORITAS CHARACTER model is leading the unit'
    """
    return f"while {'an' if keywords[:1] in 'AEIOU' else 'a'} {keywords} model is leading {unit}"


def describe(reading: Reading, damage_option: DamageReroll = DamageReroll.NONE) -> str:
    """A reading as the header states it: the effect, then when it holds, then what was chosen (a damage re-roll as
    the query's own `damage_option` says, where it says one: `model.Declared.free`)."""
    rule = reading.rule
    effect = rule.effect
    below = effect.given("reroll_damage") is DamageReroll.BELOW_AVERAGE
    optioned = below and damage_option is not DamageReroll.NONE
    if optioned:  # the player's own policy in its place (a review found the header naming both)
        policy: dict[str, Any] = {"reroll_damage": damage_option}  # (a field `_situation_changes` adds)
        effect = attrs.evolve(effect, **policy)
    text = effect.describe()
    if rule.target:
        text += f", against {rule.target.describe()}"
    if rule.situation == "target" and rule.phase != "either":  # the attacker's say it of their weapons
        text += f", against {'melee' if rule.phase == 'fight' else 'ranged'} attacks"
    if rule.attacker and rule.situation == "target":
        text += f", against attacks by {rule.attacker.describe()}"
    if rule.models:
        text += f", for its {' or '.join(rule.models)} models only"
    text += "".join(f", with {FLAG_OPTION[flag]}" for flag in rule.requires)
    chosen = [roll for roll in ("hit", "wound") if effect.given(f"reroll_{roll}s") is Reroll.FAILED]
    taken = ([f"failed {' and '.join(chosen)} rolls"] if chosen else []) + \
        (["a Damage roll below its average"] if below and not optioned else [])
    if taken:
        text += f"; 'you can re-roll' taken as re-rolling {' and '.join(taken)}"
    if optioned:
        text += "; the Damage roll it lets you re-roll as the query's damage re-roll says"
    return text

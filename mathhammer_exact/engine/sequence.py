"""The fast path: one weapon profile against a unit of identical models, as a compound pipeline.

Each count is a random sum of what one attack yields (`stages.hit.per_attack`, the same rule the
whole-unit chain uses), and the target's state is a Markov chain stepped once per unsaved attack
(`stages.allocation`). For the allocation only attacks that cost at least one wound are counted,
so counts can be capped where so many such attacks surely destroy the unit (`allocation.destroying`).

What does not depend on the number of attacking models (the odds, what one model's attacks
yield, the transitions) is a `_Plan`, worked out once per weapon, target and situation: asking
again with another number of models (`--need`, `compare`, the web page) only sums over models.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import attrs

from ..model import Context, CriticalMortals, DevastatingWounds, ModelProfile, Target, Weapon
from ..pmf import Mode, Pmf
from ..stages.allocation import Track, Transition, after_events, after_two_kinds, destroying
from ..stages.attacks import attacks_per_model
from ..stages.damage import attack_threshold, damage_pmf, devastating_damage, harm, mortal_threshold, wounds_lost
from ..stages.hit import counted, critical_mortals, hit_odds, per_attack, sustained_hits
from ..stages.lethal import auto_wounds
from ..stages.save import unsaved_chance
from ..stages.wound import critical_wound, devastating_wounds_wait, per_hit, wound_odds
from .limits import check_counts


@attrs.frozen(eq=False)
class _Plan:
    """What one attacking model does to a unit of identical models, in the query's number mode."""

    per_model: Pmf  #: the attacks one model makes
    harmful: Pmf  #: attacks of one model that cost the unit a wound (a pair of counts: see `second`)
    cap: tuple[int, ...] | None  #: where the allocation's counts fold (so many surely destroy the unit)
    track: Track
    normal: Transition  #: one attack that costs a wound
    second: Transition | None  #: one waiting event (Devastating Wounds, mortal wounds) that costs a wound, if any


def identical_models(
    weapon: Weapon, target: Target, models: int, context: Context, mode: Mode, capped: bool = True,
    start: Pmf | None = None,
) -> tuple[Pmf, Callable[[str], Pmf]]:
    """`models` models attacking with `weapon` against a unit of identical models, from the state
    `start` (default: unharmed): the target's final state (wounds lost along the allocation order),
    and the counts (attacks, hits, wounds, unsaved) by name, worked out when asked for.
    `capped=False` computes the allocation's counts in full (the same answer, slower; for tests)."""
    plan = _plan(weapon, target, context, mode, capped)
    everyone = mode.point(models)
    harmful = everyone.compound(plan.harmful, plan.cap)
    start = plan.track.unharmed(mode) if start is None else start
    if plan.second is None:
        state = after_events(start, plan.normal, harmful)
    else:
        state = after_two_kinds(start, plan.normal, plan.second, harmful)
    cache: dict[str, Pmf] = {}

    def counts(name: str) -> Pmf:
        if name not in cache:
            per_model = plan.per_model if name == "attacks" else plan.per_model.compound(
                shown(weapon, target.single, context, mode, name))
            check_counts(models * per_model.max, mode)  # the most this count can be
            cache[name] = everyone.compound(per_model)
        return cache[name]

    return state, counts


@functools.lru_cache(maxsize=512)
def _plan(weapon: Weapon, target: Target, context: Context, mode: Mode, capped: bool) -> _Plan:
    profile = target.single
    hit = hit_odds(weapon, profile, context)
    wound = wound_odds(weapon, profile, context)
    save = unsaved_chance(weapon, profile, context)
    per_model = mode.of(attacks_per_model(weapon, target, context))  # the rules are exact; the
    sustained = mode.of(sustained_hits(weapon))  # query's number mode is taken here, once
    wording = context.rules.devastating_wounds
    lethal = auto_wounds(weapon, profile, context)

    hit_rule, wound_rule = critical_mortals(weapon, context, "hit"), critical_mortals(weapon, context, "wound")

    def attack(hit_yields: Pmf, auto_yields: Pmf, mortals: tuple[CriticalMortals, Pmf] | None = None) -> Pmf:
        return per_attack(hit, hit_yields, auto_yields, sustained, lethal, mortals)

    track = Track((profile.wounds,) * target.model_count)
    models = target.model_count
    damage = damage_pmf(weapon, profile, context)
    normal_harms, normal_lost = harm(wounds_lost(damage, attack_threshold(profile, weapon)))
    normal = Transition.alike(track, mode.of(normal_lost))
    waits = devastating_wounds_wait(weapon, wording)
    if not (waits or hit_rule or wound_rule):
        harmed = mode.bernoulli(save * normal_harms)
        unsaveable = mode.bernoulli(normal_harms)
        critical = critical_wound(weapon, wording, harmed, unsaveable, unsaveable, unsaveable)
        caps: tuple[int, ...] | None = (models * destroying(profile.wounds, normal_lost.min),) if capped else None
        harmful = per_model.compound(attack(per_hit(wound, harmed, critical), harmed), caps)
        return _Plan(per_model, harmful, caps, track, normal, None)
    # Mortal wounds that land after all other attacks: count them on a second axis.
    harmed = mode.grid({(0, 0): 1 - save * normal_harms, (1, 0): save * normal_harms})
    unsaveable = mode.grid({(0, 0): 1 - normal_harms, (1, 0): normal_harms})
    mortals: dict[str, tuple[CriticalMortals, Pmf] | None] = {"hit": None, "wound": None}
    if waits and wording is DevastatingWounds.SEED:  # second count: Devastating Wounds attacks
        waiting_harms, second_lost = harm(wounds_lost(devastating_damage(weapon, profile, context),
                                                      mortal_threshold(profile, weapon)))
        waiting = mode.grid({(0, 0): 1 - waiting_harms, (0, 1): waiting_harms})
    else:  # second count: mortal wounds, one wound each, spilling over (launch wording, Critical mortal wounds)
        mortal_harms, second_lost = harm(wounds_lost(Pmf.point(1, exact=True), mortal_threshold(profile, weapon)))

        def mortal_wounds(number: Pmf) -> Pmf:
            felt = number.compound(Pmf.bernoulli(mortal_harms, exact=True))
            return mode.grid({(0, k): p for k, p in felt.fractions().items()})

        waiting = mortal_wounds(damage_pmf(weapon, None, context))
        mortals = {roll: None if rule is None else (rule, mortal_wounds(rule.mortal_wounds.pmf(exact=True)))
                   for roll, rule in (("hit", hit_rule), ("wound", wound_rule))}
    second = Transition.alike(track, mode.of(second_lost))
    critical = critical_wound(weapon, wording, harmed, unsaveable, waiting, waiting, mortals["wound"])
    caps = (tuple(models * destroying(profile.wounds, lost.min) for lost in (normal_lost, second_lost))
            if capped else None)
    harmful = per_model.compound(attack(per_hit(wound, harmed, critical), harmed, mortals["hit"]), caps)
    return _Plan(per_model, harmful, caps, track, normal, second)


@functools.lru_cache(maxsize=512)
def shown(weapon: Weapon, profile: ModelProfile, context: Context, mode: Mode, name: str) -> Pmf:
    """What one attack yields for a count shown (hits, wounds or unsaved) against models of `profile`, worked out
    when first asked for."""
    hit, wound = hit_odds(weapon, profile, context), wound_odds(weapon, profile, context)
    hit_rule, wound_rule = critical_mortals(weapon, context, "hit"), critical_mortals(weapon, context, "wound")
    one = mode.point(1)

    def attack(hit_yields: Pmf, auto_yields: Pmf, mortals: tuple[CriticalMortals, Pmf] | None) -> Pmf:
        return per_attack(hit, hit_yields, auto_yields, mode.of(sustained_hits(weapon)),
                          auto_wounds(weapon, profile, context), mortals)

    no_hit = counted(hit_rule, one.nothing())
    if name == "hits":
        return attack(one, one, counted(hit_rule, one))
    if name == "wounds":
        return attack(per_hit(wound, one, one), one, no_hit)
    # unsaved: a Devastating Wounds Critical Wound allows no save, in every printing
    through = mode.bernoulli(unsaved_chance(weapon, profile, context))
    critical = critical_wound(weapon, context.rules.devastating_wounds, through, one, one, one,
                              counted(wound_rule, one))
    return attack(per_hit(wound, through, critical), through, no_hit)

"""The fast path: one weapon profile against a unit of identical models, as a compound pipeline.

Each count is a random sum of what one attack yields (`stages.hit.per_attack`, the same rule the
whole-unit chain uses), and the target's state is a Markov chain stepped once per unsaved attack
(`stages.allocation`). For the allocation only attacks that cost at least one wound are counted,
so counts can be capped at the unit's wounds: more such attacks than it has wounds destroy it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Context, DevastatingWounds, Target, Weapon
from ..pmf import Pmf
from ..stages.allocation import Track, Transition, after_events, after_two_kinds
from ..stages.attacks import attacks_per_model
from ..stages.damage import damage_pmf, harm, mortal_threshold, wounds_lost
from ..stages.hit import hit_odds, per_attack, sustained_hits
from ..stages.save import unsaved_chance
from ..stages.wound import critical_wound, per_hit, wound_odds
from .limits import check_counts


def identical_models(
    weapon: Weapon, target: Target, models: int, context: Context, exact: bool, capped: bool = True
) -> tuple[Pmf, Callable[[str], Pmf]]:
    """`models` models attacking with `weapon` against a unit of identical models: the target's
    final state (wounds lost along the allocation order), and the counts (attacks, hits, wounds,
    unsaved) by name, worked out when asked for. `capped=False` computes the allocation's counts
    in full (the same answer, slower; for tests)."""
    profile = target.single
    hit = hit_odds(weapon, profile, context)
    wound = wound_odds(weapon, profile, context)
    save = unsaved_chance(weapon, profile, context)
    per_model = attacks_per_model(weapon, target, context, exact)
    sustained = sustained_hits(weapon, exact)
    one = Pmf.point(1, exact)

    def count(hit_yields: Pmf, auto_yields: Pmf, cap: tuple[int, ...] | None = None) -> Pmf:
        """Sum over the attacking models of what their attacks yield."""
        item = per_attack(hit, hit_yields, auto_yields, sustained, weapon.lethal_hits)
        return Pmf.point(models, exact).compound(per_model.compound(item, cap), cap)

    cache: dict[str, Pmf] = {}

    def counts(name: str) -> Pmf:
        if name not in cache:
            check_counts(models * (per_model.max + 1) * (sustained.max + 1), exact)
            if name == "attacks":
                cache[name] = per_model.repeat(models)
            elif name == "hits":
                cache[name] = count(one, one)
            elif name == "wounds":
                cache[name] = count(per_hit(wound, one, one), one)
            else:  # unsaved: a Devastating Wounds Critical Wound allows no save, in every printing
                through = Pmf.bernoulli(save, exact)
                cache[name] = count(per_hit(wound, through, critical_wound(weapon, context.rules.devastating_wounds,
                                                                           through, one, one, one)), through)
        return cache[name]

    track = Track((profile.wounds,) * target.model_count)
    cap = track.total if capped else None
    damage = damage_pmf(weapon, profile, context, exact=True)
    normal_harms, normal_lost = harm(wounds_lost(damage, profile.feel_no_pain))
    normal = Transition.build(track, [normal_lost.in_mode(exact)] * target.model_count)
    wording = context.rules.devastating_wounds
    if not weapon.devastating_wounds or wording is DevastatingWounds.UNSAVEABLE:
        through = Pmf.bernoulli(save * normal_harms, exact)
        unsaveable = Pmf.bernoulli(normal_harms, exact)
        critical = critical_wound(weapon, wording, through, unsaveable, unsaveable, unsaveable)
        harmful = count(per_hit(wound, through, critical), through, None if cap is None else (cap,))
        return after_events(track.unharmed(exact), normal, harmful), counts
    # Devastating Wounds that land after all other attacks: count them on a second axis.
    if wording is DevastatingWounds.SEED:  # second count: Devastating Wounds attacks
        waiting_harms, waiting_lost = harm(wounds_lost(damage, mortal_threshold(profile)))
        waiting = Pmf.grid({(0, 0): 1 - waiting_harms, (0, 1): waiting_harms}, exact)
        second = Transition.build(track, [waiting_lost.in_mode(exact)] * target.model_count)
    else:  # launch wording, second count: mortal wounds, one wound each, spilling over
        mortal_harms, _ = harm(wounds_lost(Pmf.point(1, exact=True), mortal_threshold(profile)))
        mortal = damage_pmf(weapon, None, context, exact=True).compound(Pmf.bernoulli(mortal_harms, exact=True))
        waiting = Pmf.grid({(0, k): p for k, p in mortal.fractions().items()}, exact)
        second = Transition.build(track, [one] * target.model_count)
    through = Pmf.grid({(0, 0): 1 - save * normal_harms, (1, 0): save * normal_harms}, exact)
    critical = critical_wound(weapon, wording, through, through, waiting, waiting)
    joint = count(per_hit(wound, through, critical), through, None if cap is None else (cap, cap))
    return after_two_kinds(track.unharmed(exact), normal, second, joint), counts

"""The fast path: one weapon profile against a unit of identical models, as a compound pipeline.

Each stage's count is a random sum of what one attack yields (`stages.hit.per_attack`), and the
target's state is a Markov chain stepped once per unsaved attack (`stages.allocation`).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from ..model import Context, DevastatingWounds, Target, Weapon
from ..pmf import Pmf
from ..stages.allocation import Track, Transition, after_events, after_two_kinds
from ..stages.attacks import attack_count
from ..stages.damage import damage_pmf, mortal_threshold, wounds_lost
from ..stages.hit import hit_count, hit_odds, per_attack_item
from ..stages.save import unsaved_chance
from ..stages.wound import wound_odds


def identical_models(
    weapon: Weapon, target: Target, models: int, context: Context, exact: bool
) -> tuple[Pmf, Pmf, Callable[[str], Pmf]]:
    """`models` models attacking with `weapon` against a unit of identical models: the target's
    final state (wounds lost along the allocation order), the attacks, and the other counts by name."""
    profile = target.single
    attacks = attack_count(weapon, target, models, context, exact)
    hit = hit_odds(weapon, profile, context)
    wound = wound_odds(weapon, profile, context)
    save = unsaved_chance(weapon, profile, context)
    devastating = weapon.devastating_wounds
    wording = context.rules.devastating_wounds
    sustained = weapon.sustained_hits.pmf(exact) if weapon.sustained_hits else Pmf.point(0, exact)

    def per_attack(per_hit: Pmf, per_auto: Pmf) -> Pmf:
        return attacks.compound(per_attack_item(hit, sustained, weapon.lethal_hits, per_hit, per_auto))

    one = Pmf.point(1, exact)
    unsaved_crit = Fraction(1) if devastating else save
    items = {
        "wounds": (Pmf.bernoulli(wound.passed, exact), one),
        "unsaved": (Pmf.bernoulli(wound.success * save + wound.critical * unsaved_crit, exact),
                    Pmf.bernoulli(save, exact)),
    }

    def counts(name: str) -> Pmf:
        if name not in cache:
            cache[name] = hit_count(weapon, profile, context, attacks) if name == "hits" else per_attack(*items[name])
        return cache[name]

    track = Track((profile.wounds,) * target.model_count)
    start = track.unharmed(exact)
    damage = damage_pmf(weapon, profile, context, exact)
    normal = Transition.build(track, [wounds_lost(damage, profile.feel_no_pain)] * target.model_count)
    cache: dict[str, Pmf] = {}
    if devastating and wording is not DevastatingWounds.UNSAVEABLE:
        # Devastating Wounds land after all other attacks: count them on a second axis.
        ordinary = wound.success * save  # a normal wound that gets through the save
        item: dict[tuple[int, int], Fraction] = {(1, 0): ordinary}
        if wording is DevastatingWounds.SEED:  # second count: Devastating Wounds attacks
            item[(0, 1)] = wound.critical
            effect = wounds_lost(damage, mortal_threshold(profile))
            second = Transition.build(track, [effect] * target.model_count)
        else:  # launch wording, second count: mortal wounds, each spilling over
            odds = damage_pmf(weapon, None, context, exact=True)
            for d, p in enumerate(odds.probabilities(), odds.min):
                item[(0, d)] = wound.critical * Fraction(p)
            point = wounds_lost(Pmf.point(1, exact), mortal_threshold(profile))
            second = Transition.build(track, [point] * target.model_count)
        item[(0, 0)] = 1 - sum(item.values(), Fraction(0))
        joint = per_attack(Pmf.grid(item, exact), Pmf.grid({(0, 0): 1 - save, (1, 0): save}, exact))
        state = after_two_kinds(start, normal, second, joint)
    else:
        state = after_events(start, normal, counts("unsaved"))
    return state, attacks, counts

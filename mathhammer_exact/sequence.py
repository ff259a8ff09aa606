"""The attack sequence composed from its stages: one weapon profile against one target unit."""

from __future__ import annotations

from fractions import Fraction

from .errors import MathhammerError
from .model import Context, DevastatingWounds, ModelProfile, Target, Weapon
from .pmf import Pmf
from .result import AttackResult
from .stages.allocation import Track, Transition, after_events, after_two_kinds
from .stages.attacks import attack_count
from .stages.damage import damage_pmf, mortal_threshold, wounds_lost
from .stages.hit import hit_odds
from .stages.rolls import RollOdds
from .stages.save import unsaved_chance
from .stages.wound import wound_odds


def hit_count(weapon: Weapon, target: ModelProfile, context: Context, attacks: Pmf) -> Pmf:
    """Hits scored by a random number of attacks, Sustained Hits' extra hits included."""
    one = Pmf.point(1, attacks.exact)
    sustained = weapon.sustained_hits.pmf(attacks.exact) if weapon.sustained_hits else Pmf.point(0, attacks.exact)
    return attacks.compound(_per_attack(hit_odds(weapon, target, context), sustained, weapon.lethal_hits, one, one))


def _per_attack(hit: RollOdds, sustained: Pmf, lethal: bool, per_hit: Pmf, per_auto: Pmf) -> Pmf:
    """What one attack yields, given what each hit that rolls to wound yields (`per_hit`) and
    what a Lethal Hits auto-wound yields (`per_auto`). Sustained Hits' extra hits roll to wound."""
    zero = Pmf.point(0, per_hit.exact)
    critical = (per_auto if lethal else per_hit) + sustained.compound(per_hit)
    return Pmf.mixture([(hit.fail, zero), (hit.success, per_hit), (hit.critical, critical)])


def attack(
    weapon: Weapon,
    target: Target,
    models: int = 1,
    context: Context | None = None,
    exact: bool = False,
) -> AttackResult:
    """Resolve `models` models attacking with `weapon` against a unit of identical models.

    >>> from mathhammer_exact import Weapon, Target
    >>> r = attack(Weapon.parse("A1 BS3+ S4 AP-1 D1"), Target.parse("T4 Sv3+ W2 x5"), models=10, exact=True)
    >>> r.damage.mean, r.models_destroyed.mean
    (Fraction(5, 3), Fraction(138805, 236196))
    """
    context = context or Context()
    if context.command_reroll is not None or len(target.groups) > 1:
        raise MathhammerError("a Command Re-roll or a target with different models needs the whole-unit engine "
                              "(unit.attack_unit, or the `unit` command)")
    profile = target.single
    attacks = attack_count(weapon, target, models, context, exact)
    hit = hit_odds(weapon, profile, context)
    wound = wound_odds(weapon, profile, context)
    save = unsaved_chance(weapon, profile, context)
    devastating = weapon.devastating_wounds
    wording = context.rules.devastating_wounds
    sustained = weapon.sustained_hits.pmf(exact) if weapon.sustained_hits else Pmf.point(0, exact)

    def per_attack(per_hit: Pmf, per_auto: Pmf) -> Pmf:
        return attacks.compound(_per_attack(hit, sustained, weapon.lethal_hits, per_hit, per_auto))

    one = Pmf.point(1, exact)
    unsaved_crit = Fraction(1) if devastating else save
    items = {
        "wounds": (Pmf.bernoulli(wound.passed, exact), one),
        "unsaved": (Pmf.bernoulli(wound.success * save + wound.critical * unsaved_crit, exact),
                    Pmf.bernoulli(save, exact)),
    }

    def counts(name: str) -> Pmf:
        return hit_count(weapon, profile, context, attacks) if name == "hits" else per_attack(*items[name])

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
        unsaved = counts("unsaved")
        cache["unsaved"] = unsaved
        state = after_events(start, normal, unsaved)
    model_at = track.model_at()
    return AttackResult(
        attacks=attacks,
        damage=state,
        models_destroyed=state.map(lambda s: int(model_at[s])),
        target_models=target.model_count,
        counts=counts,
        cache=cache,
    )


"""Invariants over random profiles (Hypothesis): exactness, totals, and monotonicity."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mathhammer_exact import (
    CommandReroll,
    Context,
    DevastatingWounds,
    Firing,
    MathhammerError,
    ModelProfile,
    Reroll,
    Rules,
    Target,
    Weapon,
    attack,
)
from mathhammer_exact.engine.sequence import identical_models
from mathhammer_exact.pmf import EXACT

ABILITY_FLAGS = ["lethal_hits", "devastating_wounds", "twin_linked", "torrent", "ignores_cover", "blast", "lance"]

weapons = st.builds(
    Weapon,
    attacks=st.sampled_from(["1", "2", "D3", "D6", "D3+1"]),
    skill=st.integers(2, 6),
    strength=st.integers(2, 12),
    ap=st.integers(-4, 0),
    damage=st.sampled_from(["1", "2", "D3", "D6", "3"]),
    sustained_hits=st.sampled_from([None, "1", "2", "D3"]),
    melta=st.sampled_from([0, 2]),
    rapid_fire=st.sampled_from([0, 1]),
    **{flag: st.booleans() for flag in ABILITY_FLAGS},
)
profiles = st.builds(
    ModelProfile,
    toughness=st.integers(2, 12),
    save=st.integers(2, 7),
    wounds=st.integers(1, 5),
    invulnerable=st.sampled_from([None, 4, 5]),
    feel_no_pain=st.sampled_from([None, 5, 6]),
    feel_no_pain_mortal=st.sampled_from([None, 4]),
    reduce_damage=st.booleans(),
    halve_damage=st.booleans(),
)
contexts = st.builds(
    Context,
    half_range=st.booleans(), charged=st.booleans(), cover=st.booleans(),
    hit_modifier=st.integers(-2, 2), wound_modifier=st.integers(-1, 1),
    reroll_hits=st.sampled_from(list(Reroll)), reroll_wounds=st.sampled_from(list(Reroll)),
    rules=st.sampled_from([Rules.named(n) for n in Rules.PRESETS]),
    # the generic effects of units' rules
    critical_wound=st.sampled_from([6, 5]), critical_mortals=st.sampled_from([None, "hit 1", "wound D3 instead"]),
    damage_bonus=st.sampled_from([0, 1]), reroll_damage=st.sampled_from(["none", "ones", "below-average"]),
    save_modifier=st.integers(-1, 1), reroll_saves=st.sampled_from([Reroll.NONE, Reroll.ONES, Reroll.FAILED]),
    worsen_ap=st.integers(0, 1), wound_modifier_against=st.integers(-1, 0),
)
sizes = st.integers(1, 4)


def modelled(weapons: list[Weapon], context: Context) -> bool:
    """Mortal wounds on Critical Hits or Wounds with Devastating Wounds under the current printing are
    refused (docs/rules.md); every other combination is answered."""
    return not (context.critical_mortals and any(w.devastating_wounds for w in weapons)
                and context.rules.devastating_wounds is DevastatingWounds.SEED)


@given(weapons, profiles, sizes, sizes, contexts)
@settings(max_examples=40, deadline=None)
def test_float_equals_exact_and_every_distribution_sums_to_one(weapon, profile, count, models, context):
    assume(modelled([weapon], context))
    target = Target.of(profile, count)
    exact = attack(weapon, target, models, context, exact=True)
    floats = attack(weapon, target, models, context)
    for name, pmf in exact.stages().items():
        assert pmf.total() == 1, name
        fpmf = floats.stages()[name]
        assert abs(float(fpmf.total()) - 1) < 1e-12
        assert (fpmf.min, fpmf.max) == (pmf.min, pmf.max)
        assert all(abs(float(p) - q) < 1e-12 for p, q in zip(pmf.probabilities(), fpmf.probabilities())), name
    assert exact.damage.max <= target.total_wounds
    assert exact.models_destroyed.max <= count


def _expected_damage(weapon: Weapon, profile: ModelProfile, count: int, models: int, context: Context) -> float:
    return float(attack(weapon, Target.of(profile, count), models, context).damage.mean)


@given(weapons, profiles, sizes, sizes, contexts)
@settings(max_examples=40, deadline=None)
def test_better_odds_never_lower_expected_damage(weapon, profile, count, models, context):
    assume(modelled([weapon], context))
    base = _expected_damage(weapon, profile, count, models, context)
    tol = 1e-9
    # Re-rolling *failed* hits is the exception: a better BS leaves fewer dice to re-roll, so fewer
    # chances at a Critical Hit (see test_a_better_bs_can_lower_damage_when_re_rolling_failed_hits).
    if weapon.skill is not None and weapon.skill > 2 and context.reroll_hits is not Reroll.FAILED:
        better = attrs.evolve(weapon, skill=weapon.skill - 1)
        assert _expected_damage(better, profile, count, models, context) >= base - tol
    assert _expected_damage(weapon, profile, count, models + 1, context) >= base - tol
    if profile.save < 7:
        worse = attrs.evolve(profile, save=profile.save + 1)
        assert _expected_damage(weapon, worse, count, models, context) >= base - tol
    if profile.feel_no_pain or profile.feel_no_pain_mortal:
        no_fnp = attrs.evolve(profile, feel_no_pain=None, feel_no_pain_mortal=None)
        assert _expected_damage(weapon, no_fnp, count, models, context) >= base - tol


def test_a_better_bs_can_lower_damage_when_re_rolling_failed_hits():
    """Found by Hypothesis; true of the rules. +1 to hit, re-roll failed hits, Lethal Hits, wounding on 6s,
    Sv2+ (1/6 unsaved). BS4+: faces 1-2 fail and are re-rolled, so P(6) = 1/6 + 2/6 * 1/6 = 8/36 and
    P(ordinary hit) = 3/6 + 2/6 * 3/6 = 24/36. BS3+: only a 1 is re-rolled: 7/36 and 28/36."""
    from fractions import Fraction

    target = Target.parse("T4 Sv2+ W1")
    context = Context(hit_modifier=1, reroll_hits="failed")

    def damage(bs: int) -> Fraction:
        return attack(Weapon.parse(f"A1 BS{bs}+ S2 AP0 D1 [LETHAL HITS]"), target, 1, context, exact=True).damage.mean

    assert damage(4) == (Fraction(8, 36) + Fraction(24, 36) / 6) / 6
    assert damage(3) == (Fraction(7, 36) + Fraction(28, 36) / 6) / 6
    assert damage(3) < damage(4)


# Whole units: mixed and Attached targets, every Command Re-roll kind, every Devastating Wounds printing.
small_weapons = st.builds(
    Weapon,
    attacks=st.sampled_from(["1", "2", "D3"]),
    skill=st.integers(2, 5),
    strength=st.integers(3, 8),
    ap=st.integers(-3, 0),
    damage=st.sampled_from(["1", "2", "D3", "D3+1"]),
    sustained_hits=st.sampled_from([None, "1"]),
    lethal_hits=st.booleans(),
    devastating_wounds=st.booleans(),
    precision=st.booleans(),
    twin_linked=st.booleans(),
)
small_profiles = st.builds(
    ModelProfile,
    toughness=st.integers(3, 5),
    save=st.integers(3, 7),
    wounds=st.integers(1, 3),
    feel_no_pain=st.sampled_from([None, 5]),
    feel_no_pain_mortal=st.sampled_from([None, 4]),
)
leaders = st.builds(ModelProfile, toughness=st.integers(3, 5), save=st.integers(2, 4), wounds=st.integers(2, 4),
                    invulnerable=st.sampled_from([None, 4]), keywords=st.just(("CHARACTER",)))


@st.composite
def unit_targets(draw):
    groups = [(draw(small_profiles), draw(st.integers(1, 2)))]
    kind = draw(st.sampled_from(["alike", "mixed", "attached"]))
    if kind == "mixed":
        groups.append((draw(small_profiles), 1))
    if kind == "attached":
        groups.append((draw(leaders), 1))
    return Target(tuple(groups), attached=kind == "attached")


@given(st.lists(st.tuples(small_weapons, st.integers(1, 2)), min_size=1, max_size=2), unit_targets(),
       st.sampled_from([None, *CommandReroll]), st.sampled_from(list(DevastatingWounds)),
       st.sampled_from([None, "hit 1", "wound 1 instead"]), st.sampled_from([Reroll.NONE, Reroll.ONES]),
       st.integers(0, 1))
@settings(max_examples=150, deadline=None)
def test_whole_units_sum_to_one_and_float_equals_exact(firings, target, command_reroll, wording, mortals,
                                                        reroll_saves, worsen_ap):
    """Every distribution sums to exactly 1 (exact) and to 1e-12 (float), and the modes agree, for
    every Command Re-roll kind, Devastating Wounds printing, and mixed or Attached targets."""
    volley = [Firing(weapon, models) for weapon, models in firings]
    context = Context(command_reroll=command_reroll, rules=Rules(devastating_wounds=wording),
                      critical_mortals=mortals, reroll_saves=reroll_saves, worsen_ap=worsen_ap)
    assume(modelled([w for w, _ in firings], context))
    exact = attack(volley, target, context=context, exact=True)
    floats = attack(volley, target, context=context)
    pairs = [*zip(exact.stages().values(), floats.stages().values()),
             *((e.models_destroyed, f.models_destroyed) for e, f in zip(exact.groups, floats.groups))]
    for pmf, fpmf in pairs:
        assert pmf.total() == 1
        assert abs(float(fpmf.total()) - 1) < 1e-12
        assert all(abs(float(p) - float(q)) < 1e-12 for p, q in zip(pmf.probabilities(), fpmf.probabilities()))
    assert 0 <= exact.p_below_half <= 1 and abs(float(exact.p_below_half) - float(floats.p_below_half)) < 1e-12


@given(weapons, profiles, st.integers(1, 3), st.integers(1, 3), contexts)
@settings(max_examples=40, deadline=None)
def test_capped_counts_give_the_uncapped_answer(weapon, profile, count, models, context):
    """Counting only attacks that cost a wound and folding the counts where they surely destroy the unit changes
    nothing."""
    assume(modelled([weapon], context))
    target = Target.of(profile, count)
    capped, _ = identical_models(weapon, target, models, context, EXACT)
    full, _ = identical_models(weapon, target, models, context, EXACT, capped=False)
    assert capped == full


@pytest.mark.parametrize(("weapon", "target"), [
    ("A3 BS3+ S5 AP-1 D=2", "T4 Sv3+ W3 x3"),  # 2 attacks that cost a wound surely destroy a model, 6 the unit
    ("A2 BS3+ S5 AP-1 D=2 [DEVASTATING WOUNDS]", "T4 Sv3+ W3 x3"),  # ... and 6 waiting, on a second count
    ("A2 BS3+ S5 AP-1 DD3+1 [DEVASTATING WOUNDS]", "T4 Sv3+ W5 x2"),
    ("A2 BS3+ S5 AP-1 D=2", "T4 Sv3+ W3 x3 fnp5+"),  # Feel No Pain: an attack may cost 1 wound
])
def test_counts_folded_where_they_surely_destroy_the_unit_give_the_uncapped_answer(weapon, target):
    """The counts fold at the attacks that surely destroy the unit, each costing at least its least damage."""
    capped, _ = identical_models(Weapon.parse(weapon), Target.parse(target), 4, Context(), EXACT)
    full, _ = identical_models(Weapon.parse(weapon), Target.parse(target), 4, Context(), EXACT, capped=False)
    assert capped == full


@pytest.mark.parametrize(("weapon", "target", "models", "exact", "limit"), [
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x100000", 1, False, "at most 1000"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W1000000000", 1, False, "at most W1000"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", 10_000_000_000, False, "at most 10000 per weapon"),
    ("A200D6 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", 1, False, "at most 1000"),
    # 20,000 attack dice stepped through the 5,001 states of an Attached unit (and their hits counted)
    ("A10 BS3+ S4 AP0 D1", "T4 Sv3+ W5 x999; T4 Sv3+ W5 leader", 2000, False, "limit in float mode"),
])
def test_a_query_too_large_is_refused_at_once_naming_the_limit(weapon, target, models, exact, limit):
    with pytest.raises(MathhammerError, match=limit):
        attack(Weapon.parse(weapon), Target.parse(target), models, exact=exact)


def test_counts_too_large_to_sum_exactly_are_refused_when_read():
    # 1,000 attackers against 20 models: damage and kills are quick (the allocation's counts are capped
    # at the unit's 60 wounds), but the hits of 1,000 Sustained Hits attacks are refused in exact mode.
    result = attack(Weapon.parse("A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]"), Target.parse("T4 Sv4+ W3 x20"), 1000,
                    exact=True)
    assert result.models_destroyed.total() == 1
    with pytest.raises(MathhammerError, match="leave out --exact"):
        assert result.hits is None  # never reached: reading the hits raises

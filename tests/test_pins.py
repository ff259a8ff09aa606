"""Exact values derived by hand (or given in the issue), pinned as fractions."""

from fractions import Fraction

from mathhammer_exact import Context, Rules, Target, Weapon, attack

from .conftest import as_dict


def test_issue_pin_ap1_d1_against_w2():
    # 10 attacks, each unsaved with P = 2/3 (hit 3+) * 1/2 (wound 4+) * 1/2 (save 3+ at AP-1 -> 4+) = 1/6.
    # E[damage] = 10/6 = 5/3 (D1, no overkill possible).
    # P(0 destroyed) = P(no model takes 2 of at most 5 wounds... ) given in the issue.
    r = attack(Weapon.parse("A1 BS3+ S4 AP-1 D1"), Target.parse("T4 Sv3+ W2 x5"), models=10, exact=True)
    assert r.damage.mean == Fraction(5, 3)
    assert r.models_destroyed.p(0) == Fraction(9765625, 20155392)
    assert r.models_destroyed.mean == Fraction(138805, 236196)


def test_pin_models_destroyed_by_hand():
    # Same profile: unsaved wounds U ~ Binomial(10, 1/6); with D1 and W2, models destroyed = min(U // 2, 5).
    # P(0 destroyed) = P(U <= 1) = (5/6)^10 + 10 (1/6)(5/6)^9 = 5^9 * 15 / 6^10.
    r = attack(Weapon.parse("A1 BS3+ S4 AP-1 D1"), Target.parse("T4 Sv3+ W2 x5"), models=10, exact=True)
    assert r.models_destroyed.p(0) == Fraction(5**9 * 15, 6**10)
    assert r.unsaved.p(10) == Fraction(1, 6**10)


def test_issue_pin_sustained_d3():
    r = attack(Weapon.parse("A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]"), Target.parse("T4 Sv4+ W3 x5"),
               models=20, exact=True)
    assert r.models_destroyed.p(5) == Fraction(
        1240881268157043051585168363419291667022309, 28999779686827941276760044649461620813070336)


def test_hits_with_sustained_hits_by_hand():
    # BS3+: P(miss) = 2/6, P(normal hit) = 3/6, P(6) = 1/6 gives 2 hits: E[hits] = 3/6 + 2/6 = 5/6 per attack.
    r = attack(Weapon.parse("A1 BS3+ S4 AP0 D1 [SUSTAINED HITS 1]"), Target.parse("T4 Sv4+ W1 x5"), exact=True)
    assert r.hits.probabilities() == [Fraction(2, 6), Fraction(3, 6), Fraction(1, 6)]


def test_lethal_and_sustained_only_the_original_hit_auto_wounds():
    # One attack, S4 vs T4 (4+ to wound). A 6 to hit: 1 auto-wound + 1 extra hit rolling to wound (1/2).
    # P(2 wounds) = 1/6 * 1/2; P(1 wound) = 3/6 * 1/2 + 1/6 * 1/2 = 4/12.
    r = attack(Weapon.parse("A1 BS3+ S4 AP0 D1 [SUSTAINED HITS 1, LETHAL HITS]"), Target.parse("T4 Sv7+ W1 x5"),
               exact=True)
    assert r.wounds.p(2) == Fraction(1, 12)
    assert r.wounds.p(1) == Fraction(4, 12)
    assert r.wounds.p(0) == 1 - Fraction(5, 12)


def test_lethal_auto_wounds_never_trigger_devastating_wounds():
    # WS2+ S1 vs T10 (6+ to wound), AP0 vs Sv2+ (saved on 2+), D3 fixed.
    # A Lethal auto-wound is saved on 2+ like any wound; only a natural 6 to wound is devastating.
    weapon = Weapon.parse("A1 WS2+ S1 AP0 D=3 [LETHAL HITS, DEVASTATING WOUNDS]")
    target = Target.parse("T10 Sv2+ W3 x1")
    r = attack(weapon, target, exact=True)
    p_crit_hit, p_hit = Fraction(1, 6), Fraction(4, 6)
    # crit hit: auto-wound, saved unless save roll is 1 -> unsaved 1/6. normal hit: wound only on 6 -> DW (no save).
    expected_unsaved = p_crit_hit * Fraction(1, 6) + p_hit * Fraction(1, 6)
    assert r.unsaved.p(1) == expected_unsaved
    assert r.models_destroyed.p(1) == expected_unsaved


def test_devastating_wounds_excess_is_lost_under_seed_wording_and_spills_under_launch():
    # One Torrent attack; ANTI-INFANTRY 2+ makes every wound roll of 2+ a Critical Wound (P = 5/6).
    # D3 damage against W1 models: seed wording kills one model, launch wording kills 1, 2 or 3.
    weapon = Weapon.parse("A1 S4 AP0 DD3 [TORRENT, ANTI-INFANTRY 2+, DEVASTATING WOUNDS]")
    target = Target.parse("T4 Sv2+ W1 x5 [INFANTRY]")
    seed = attack(weapon, target, exact=True)
    assert as_dict(seed.models_destroyed) == {0: Fraction(1, 6), 1: Fraction(5, 6)}  # excess lost
    launch = attack(weapon, target, context=Context(rules=Rules.named("launch")), exact=True)
    # damage D3: 1, 2 or 3 models each with P 1/3 of the 5/6 crit wounds
    assert as_dict(launch.models_destroyed) == {0: Fraction(1, 6), 1: Fraction(5, 18), 2: Fraction(5, 18),
                                                3: Fraction(5, 18)}


def test_kills_never_exceed_unit_size():
    r = attack(Weapon.parse("A20 BS2+ S10 AP-4 D=6 [SUSTAINED HITS 3]"), Target.parse("T3 Sv5+ W1 x3"), exact=True)
    assert r.models_destroyed.max == 3
    assert r.damage.max == 3
    assert r.p_destroyed > Fraction(99, 100)

"""Below Half-strength and Battle-shock after an attack, pinned where the readings of the rules disagree.

Every weapon here is `A1 S8 AP-6 D.. [TORRENT]` against T4 Sv7+: it hits automatically, wounds on 2+
(S8 >= 2 x T4) and no save is possible, so each attack lands with chance 5/6 and the number that land
is Binomial(n, 5/6). The expected values below follow from that by hand.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from mathhammer_exact import Target, Weapon, attack
from mathhammer_exact.decide.unit_attack import unit_attack
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.units.by_name import find_target

P = Fraction(5, 6)
Q = 1 - P


def below_half(weapon: str, target: str, models: int) -> Fraction:
    result = attack(Weapon.parse(weapon), Target.parse(target), models, exact=True)
    assert isinstance(result.p_below_half, Fraction)
    return result.p_below_half


def test_exactly_half_left_is_not_below_half():
    # 4 W1 models, 3 attacks: 3 land -> 1 of 4 left (below half); 2 land -> 2 of 4 left (exactly half: not below).
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W1 x4", 3) == P**3


def test_below_half_counts_models_not_wounds():
    # 2 W3 models, 4 D1 attacks: 4 wounds lost leave one model alive with 2 of its 3 wounds: 1 of 2 models
    # left is exactly half, so never Below Half (a reading by wounds, 2 of 6 left, would say it is).
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W3 x2", 4) == 0
    # 3 W2 models, 3 D2 attacks: each landed attack destroys a model; 2 destroyed leave 1 of 3: below half.
    assert below_half("A1 S8 AP-6 D2 [TORRENT]", "T4 Sv7+ W2 x3", 3) == 3 * P**2 * Q


def test_a_one_model_unit_is_below_half_with_fewer_than_half_its_wounds_left():
    # One W6 model, 5 D1 attacks: below half with 4 or 5 wounds lost (2 or 1 of 6 left); 3 lost is exactly half.
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W6", 5) == 5 * P**4 * Q + P**5 == Fraction(3125, 3888)


def test_a_leader_left_alone_is_judged_on_its_own_starting_strength():
    # 2 W1 bodyguards and a W4 leader, 5 D1 attacks: the first 2 that land destroy the bodyguards, the rest
    # go to the leader. While both parts live at least 2 of 3 models are left (not below half). Once the
    # bodyguards are gone the leader is a one-model unit: below half with 3 wounds lost (1 of 4 left), which
    # needs all 5 attacks to land. Counting it against the combined strength (1 of 3 left) would say
    # below half whenever 2, 3 or 4 land.
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W1 x2; T4 Sv7+ W4 leader", 5) == P**5


def test_battle_shock_of_a_leader_left_alone_uses_its_leadership():
    # As above, with Ld: the bodyguards Ld8+, the leader Ld6+. Left alone, the leader tests on its own Ld6+,
    # failing with P(2D6 < 6) = 10/36.
    result = attack(Weapon.parse("A1 S8 AP-6 D1 [TORRENT]"),
                    Target.parse("T4 Sv7+ W1 x2 Ld8+; T4 Sv7+ W4 Ld6+ leader"), 5, exact=True)
    assert result.p_battle_shocked == P**5 * Fraction(10, 36)


def test_the_issue_example_a_tough_leader_is_never_below_half():
    # The Command Squad cannot deal 11 damage to a W20 leader, and two bodyguards dying leave the leader
    # alone (judged on its own 20 wounds), so the unit is never Below Half-strength (it was 0.66).
    target = find_target("T3 Sv6+ W1 x2 Ld7+", leader="T3 Sv2+ W20 Ld7+")
    report = unit_attack("Tempestus Command Squad", target, exact=True)
    assert report.result.p_below_half == 0
    assert report.result.p_battle_shocked == 0


# ----------------------------------------------------------------------------- a unit that has lost models before
def test_a_unit_that_lost_models_counts_them_against_its_starting_strength():
    # 3 W1 models left of 5, 2 D1 attacks: one landing leaves 2 of 5 (below half), where a unit of 3 would need
    # two (1 of 3 left); both landing leave 1 of 5, still below half and not destroyed.
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W1 x3/5", 2) == 1 - Q**2
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W1 x3", 2) == P**2
    # 2 left of 5 is below half already: it stays so unless both are destroyed.
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W1 x2/5", 2) == 1 - P**2
    # Exactly half of 6 left is not below half: 3 of 6 left needs one model destroyed.
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W1 x3/6", 1) == P


def test_an_attached_unit_that_lost_models_counts_them_with_its_leaders():
    # 2 W1 bodyguards left of 4 and a W4 leader: Starting Strength 5 together. One landed attack leaves 2 of 5
    # (below half), where the full unit's 3 would leave 2 of 3 (not below half).
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W1 x2/4; T4 Sv7+ W4 leader", 1) == P
    assert below_half("A1 S8 AP-6 D1 [TORRENT]", "T4 Sv7+ W1 x2; T4 Sv7+ W4 leader", 1) == 0


def test_a_named_unit_that_lost_models_is_its_datasheet_less_those_models():
    incursors = find_target("Incursor Squad x3/5")
    assert (incursors.model_count, incursors.starting) == (3, 5)
    assert incursors.groups[0][0] == find_target("Incursor Squad").groups[0][0]
    # a mixed unit loses the models the defender allocates to first: two W1 Scions, not the W3 Tempestor Prime
    squad = find_target("Tempestus Command Squad x3/5")
    assert [(p.wounds, n) for p, n in squad.groups] == [(3, 1), (1, 2)]
    assert squad.starting == 5
    # a Leader joined: the CHARACTER Tempestor Prime goes to the leaders' side, the 2 lost before stay lost (a review
    # found him counted in the bodyguards' Starting Strength and again as a leader)
    led = find_target("Tempestus Command Squad x3/5", leader="T3 Sv4+ W4 Ld7+")
    assert (led.model_count, led.models_besides_leaders, led.lost_before, led.starting) == (4, 2, 2, 4)


@pytest.mark.parametrize(("text", "models", "message"), [
    ("Incursor Squad", 3, "Incursor Squad comes in units of 5 or 10 models, not 3; for a unit that has lost models, "
                          "write the models it started with: 'Incursor Squad x3/5'"),
    ("Incursor Squad x3/4", None, "Incursor Squad comes in units of 5 or 10 models, not 4"),
    ("Incursor Squad x6/5", None, "more models left (6) than the unit started with (5, its Starting Strength)"),
    ("Incursor Squad x0", None, "Incursor Squad comes in units of 5 or 10 models, not 0"),  # (a review: no 'x0/5')
    ("Incursor Squad x11", None, "Incursor Squad comes in units of 5 or 10 models, not 11"),
])
def test_a_named_unit_that_lost_models_is_refused_where_it_cannot_be(text, models, message):
    with pytest.raises(MathhammerError) as refused:
        find_target(text, models)
    assert message in str(refused.value)
    assert models == 3 or "write the models it started with" not in str(refused.value)


def test_an_army_or_a_sweep_refuses_a_unit_that_lost_models():
    from mathhammer_exact.sweep.matchup import army_of_names
    from mathhammer_exact.sweep.spec import _target

    with pytest.raises(MathhammerError, match=r"^'Incursor Squad x3/5': an army names each unit whole, at its size "):
        army_of_names(["Incursor Squad x3/5"], "mine")
    with pytest.raises(MathhammerError, match=r"^'Incursor Squad x3/5': a sweep names a unit whole, at its size "
                                              r"\('Boyz x20'\); one that has lost models is written as a profile"):
        _target("Incursor Squad x3/5", [None])

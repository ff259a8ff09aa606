"""`plan`: the best firing order and split, checked against separate queries for every alternative."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import pytest
from click.testing import CliRunner

from mathhammer_exact import Firing, Target, Weapon, attack
from mathhammer_exact.cli import cli
from mathhammer_exact.decide.plan import LIMIT, SHARED_LIMIT, Alternative, count, plan
from mathhammer_exact.errors import MathhammerError

FIRINGS = [
    Firing(Weapon.parse('24" A1 BS3+ S4 AP0 D1'), 5),
    Firing(Weapon.parse('24" A1 BS3+ S9 AP-4 DD6 [DEVASTATING WOUNDS]'), 1),
    Firing(Weapon.parse('24" A2 BS3+ S5 AP-1 D2'), 2),
]
MEQ = Target.parse("T4 Sv3+ W2 x5")
GEQ = Target.parse("T3 Sv5+ W1 x10")


def test_best_order_equals_its_own_query_and_beats_every_other_order():
    found = plan(FIRINGS, [MEQ], exact=True)
    assert len(found.alternatives) == math.factorial(3)
    best = found.best
    alone = attack([FIRINGS[i] for i in best.orders[0]], MEQ, exact=True)
    assert best.value == alone.p_destroyed
    by_brute_force = {order: attack([FIRINGS[i] for i in order], MEQ, exact=True).p_destroyed
                      for order in itertools.permutations(range(3))}
    assert best.value == max(by_brute_force.values())
    assert all(best.value >= value for value in by_brute_force.values())
    assert sorted(by_brute_force.values(), reverse=True) == [a.value for a in found.alternatives]
    assert len(set(by_brute_force.values())) > 1  # the order matters here


def test_expected_kills_goal():
    found = plan(FIRINGS, [MEQ], goal="kills", exact=True)
    order = found.best.orders[0]
    assert found.best.value == attack([FIRINGS[i] for i in order], MEQ, exact=True).models_destroyed.mean
    assert all(found.best.value >= a.value for a in found.alternatives)


def test_split_between_two_targets_by_brute_force():
    found = plan(FIRINGS, [MEQ, GEQ], exact=True)
    assert len(found.alternatives) == count(FIRINGS, 2) == math.factorial(4)  # (n + 1)! for distinct profiles

    def destroyed(target: Target, order: tuple[int, ...]) -> Fraction:
        return attack([FIRINGS[i] for i in order], target, exact=True).p_destroyed if order else Fraction(0)

    values = []
    for split in itertools.product(range(2), repeat=3):
        mine = [i for i, t in enumerate(split) if t == 0]
        theirs = [i for i, t in enumerate(split) if t == 1]
        values += [destroyed(MEQ, a) * destroyed(GEQ, b)
                   for a in itertools.permutations(mine) for b in itertools.permutations(theirs)]
    assert found.best.value == max(values)
    assert sorted(values, reverse=True) == [a.value for a in found.alternatives]
    first, second = found.best.orders
    assert found.best.value == destroyed(MEQ, first) * destroyed(GEQ, second)


def test_alike_profiles_are_one_order():
    twice = [FIRINGS[0], FIRINGS[0], FIRINGS[2]]
    assert count(twice, 1) == 3 and len(plan(twice, [MEQ]).alternatives) == 3


def test_float_and_exact_agree():
    exact, floats = plan(FIRINGS, [MEQ], exact=True), plan(FIRINGS, [MEQ])
    for a, b in zip(exact.alternatives, floats.alternatives):
        assert abs(float(a.value) - b.value) < 1e-12


# Every attack of these lands with 1/2: TORRENT hits, S4 against T4 wounds on 4+, and Sv7+ allows no save.
Z = Firing(Weapon.parse("A1 BS2+ S4 AP0 D1 [TORRENT]"))
X = Firing(Weapon.parse("A1 BS2+ S4 AP0 D=2 [TORRENT]"))
Y = Firing(Weapon.parse("A2 BS2+ S4 AP0 D1 [TORRENT]"))
W1_THEN_W2 = Target.parse("T4 Sv7+ W1; T4 Sv7+ W2")  # the W1 model takes the first wounds (fewest wounds first)
TWO_W1 = Target.parse("T4 Sv7+ W1 x2")


def test_a_unique_best_order_and_split_derived_by_hand():
    # Damage never spills from one model to the next, so an attack that lands destroys at most one model:
    # the expected kills are at most the expected landings, 4 x 1/2 = 2, whatever the order and split.
    # Z then X at the W1 + W2 unit and Y at the two W1 models reach it, since every landing destroys a model:
    # Z's the W1 model, X's then the W2 model (or the W1 model when Z missed): 1/2 x (1 + 1/2) + 1/2 x 1/2 = 1;
    # each of Y's a W1 model: 2 x 1/2 = 1. Every other alternative wastes a landing with some chance, so falls
    # short of 2: a D1 attack landing on the W2 model only wounds it, and at the two W1 models a third
    # landing finds none left. The same split in the other order: X's landing destroys the W1 model (the
    # second damage lost), Z's then only wounds the W2 model: 1/2 + 1/2 x 1/2 = 3/4 there, 7/4 in all.
    # The next best: Z alone at the W1 + W2 unit (1/2), X and Y at the two W1 models, where the three
    # attacks destroy min(2, landings): P(1 landing) + 2 P(2 or 3) = 3/8 + 2 x 1/2 = 11/8; 15/8 in all.
    for exact in (True, False):
        found = plan([Z, X, Y], [W1_THEN_W2, TWO_W1], goal="kills", exact=exact)
        assert found.best == Alternative(((0, 1), (2,)), 2)
        values = {a.orders: a.value for a in found.alternatives}
        assert values[(1, 0), (2,)] == Fraction(7, 4)
        assert found.alternatives[1].value == Fraction(15, 8)
        assert all(a.value < 2 for a in found.alternatives[1:])


SHARED = [Firing(Weapon.parse(w), n) for w, n in (("A1 BS3+ S4 AP0 D1", 4), ("A1 BS3+ S9 AP-3 DD3", 1),
                                                    ("A2 BS3+ S5 AP-1 D2 [SUSTAINED HITS 1]", 1),
                                                    ("A1 BS3+ S8 AP-2 D=3 [PRECISION]", 1), ("A3 WS4+ S4 AP0 D1", 2))]


@pytest.mark.parametrize(("targets", "weapons"), [
    ([Target.parse("T4 Sv3+ W2 x4")], 4),
    ([Target.parse("T4 Sv3+ W2 x3; T4 Sv3+ W4 leader")], 5),  # Precision: the leader wounded early
    ([Target.parse("T4 Sv3+ W1 x3; T4 Sv4+ W3 x2")], 4),
    ([Target.parse("T4 Sv3+ W2 x2"), Target.parse("T3 Sv5+ W1 x3")], 4),
])
def test_orders_sharing_their_first_weapons_give_what_each_order_resolved_whole_gives(monkeypatch, targets, weapons):
    # No mortal wounds wait here, and the orders are many beside the target's states, so each order is
    # resolved one weapon at a time from the state its first weapons left (each weapon's move from each
    # state reached worked out once): every alternative's value must be that of its orders asked whole.
    firings = SHARED[:weapons]
    asked = []

    def recorded(what, target, **options):
        asked.append((len(what), options.get("start") is not None))
        return attack(what, target, **options)

    with monkeypatch.context() as patched:
        patched.setattr("mathhammer_exact.decide.plan.attack", recorded)
        plan(firings, targets)
    assert set(asked) == {(1, True)}  # one weapon at a time, each from a state
    for goal in ("destroy", "kills"):
        found = plan(firings, targets, goal=goal, exact=True)
        assert len(found.alternatives) == count(firings, len(targets))
        for alternative in found.alternatives:
            whole = found.results(alternative)
            values = [r.p_destroyed if goal == "destroy" else r.models_destroyed.mean for r in whole if r]
            empty = [r for r in whole if r is None]
            expected = (math.prod(values) * (0 if empty else 1)) if goal == "destroy" else sum(values)
            assert alternative.value == expected, alternative.orders
        assert len({a.value for a in found.alternatives}) > 1  # the order and split matter here
        floats = plan(firings, targets, goal=goal)
        assert [a.orders for a in floats.alternatives][:1] == [found.best.orders]
        assert all(abs(float(a.value) - b.value) < 1e-12 for a, b in zip(found.alternatives, floats.alternatives))


def test_too_many_alternatives_are_refused_at_once():
    many = [Firing(Weapon.parse(f'24" A{n} BS3+ S4 AP0 D1')) for n in range(1, 10)]
    assert count(many[:7], 1) > LIMIT and count(many[:8], 1) == SHARED_LIMIT
    with pytest.raises(MathhammerError, match=f"at most {SHARED_LIMIT} alternatives"):
        plan(many, [MEQ])  # nine profiles: 362,880 orders
    waiting = [*many[:6], FIRINGS[1]]  # mortal wounds wait: each order resolved whole
    with pytest.raises(MathhammerError, match=f"at most {LIMIT} alternatives where mortal wounds wait"):
        plan(waiting, [MEQ])
    with pytest.raises(MathhammerError, match=r"about [0-9,]+ state entries \(at most 10,000,000 in exact mode\)"):
        plan(many[:8], [Target.parse("T4 Sv3+ W2 x10")], exact=True)
    with pytest.raises(MathhammerError, match="goal"):
        plan(FIRINGS, [MEQ], goal="fun")


def _planned_asking(monkeypatch, firings, target, exact=False):
    """The plan for kills, and for each query it asked, whether it was one weapon from a given state."""
    asked = []

    def recorded(what, unit, **options):
        asked.append(options.get("start") is not None)
        return attack(what, unit, **options)

    with monkeypatch.context() as patched:
        patched.setattr("mathhammer_exact.decide.plan.attack", recorded)
        return plan(firings, [target], goal="kills", exact=exact), asked


def test_seven_profiles_share_their_first_weapons_and_give_what_every_order_asked_whole_gives(monkeypatch):
    # 5,040 orders, beyond what is resolved order by order: the prefixes of each length are moved together
    seven = [Firing(Weapon.parse(w)) for w in ("A1 BS3+ S4 AP0 D1", "A1 BS3+ S9 AP-3 D=2", "A2 BS3+ S5 AP-1 D1",
                                               "A1 BS3+ S8 AP-2 D=3", "A2 BS4+ S4 AP0 D1", "A1 BS2+ S6 AP-1 D=2",
                                               "A1 BS3+ S4 AP-2 D1 [LETHAL HITS]")]
    target = Target.parse("T4 Sv4+ W2 x3")
    found, asked = _planned_asking(monkeypatch, seven, target)
    assert all(asked) and len(asked) <= 7 * 7  # one weapon from each state at most
    assert len(found.alternatives) == math.factorial(7)
    # every 40th order, and the best and worst, each asked whole (the smaller plans above check every order)
    checked = [*found.alternatives[::40], found.alternatives[-1]]
    whole = {a.orders[0]: float(attack([seven[i] for i in a.orders[0]], target).models_destroyed.mean)
             for a in checked}
    assert all(abs(whole[a.orders[0]] - a.value) < 1e-12 for a in checked)
    assert found.best.value >= max(whole.values()) - 1e-12
    assert max(whole.values()) - min(whole.values()) > 0.01  # the order matters
    exact = plan(seven, [target], goal="kills", exact=True)
    for alternative in exact.alternatives[:3] + exact.alternatives[-3:]:
        assert alternative.value == attack([seven[i] for i in alternative.orders[0]], target,
                                           exact=True).models_destroyed.mean


@pytest.mark.parametrize("last", ["A2 BS3+ S4 AP0 D1", "A2 BS3+ S4 AP0 D1 [PRECISION]"])
def test_orders_at_an_attached_unit_by_their_first_weapons_are_those_asked_whole(monkeypatch, last):
    # the prefixes' array holds only the states reached: without Precision the leader is hurt only once the
    # bodyguards are gone; with it, from the first wound on
    four = [Firing(Weapon.parse(w)) for w in ("A3 BS3+ S4 AP0 D1", "A1 BS3+ S8 AP-2 D=2", "A2 BS3+ S5 AP-1 D1", last)]
    target = Target.parse("T4 Sv4+ W1 x4; T4 Sv4+ W3 leader")
    found, asked = _planned_asking(monkeypatch, four, target, exact=True)
    assert all(asked)  # by the first weapons
    assert len(found.alternatives) == 24
    for alternative in found.alternatives:
        assert alternative.value == attack([four[i] for i in alternative.orders[0]], target,
                                           exact=True).models_destroyed.mean
    assert found.best.value > found.alternatives[-1].value


def test_plan_command():
    args = ["plan", "-w", '5x 24" A1 BS3+ S4 AP0 D1', "-w", '1x 24" A1 BS3+ S9 AP-4 DD6 [DEVASTATING WOUNDS]',
            "-w", '2x 24" A2 BS3+ S5 AP-1 D2', "-t", "MEQ"]
    out = CliRunner().invoke(cli, [*args, "--exact", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    best = plan(FIRINGS, [MEQ], exact=True).best
    assert data["rows"][0] == {"rank": 1, "target_1": ", ".join(str(i + 1) for i in best.orders[0]),
                               "value": str(best.value)}
    assert len(data["rows"]) == 6
    table = CliRunner().invoke(cli, [*args, "--top", "2"]).output
    assert "6 alternatives considered" in table and "the best 2 and the worst shown" in table


def test_alternatives_that_tie_share_a_rank_and_none_is_called_best():
    # two single shots of D1 at 3 models of W2: 2 damage at most, never the 6 wounds that destroy the unit, so
    # P(destroyed) = 0 whatever the order: the 2 orders of two unlike profiles tie
    args = ["plan", "-w", '1x 24" A1 BS3+ S4 AP0 D1', "-w", '1x 24" A1 BS4+ S4 AP0 D1', "-t", "T4 Sv3+ W2 x3"]
    out = CliRunner().invoke(cli, [*args, "--exact", "--json"])
    assert [(row["rank"], row["value"]) for row in json.loads(out.output)["rows"]] == [(1, "0"), (1, "0")]
    table = CliRunner().invoke(cli, args).output
    assert table.startswith("every order alike  ->  T4 Sv3+ W2 x3")
    assert ("all 2 alternatives tie at 0.0000%: no order or split is better here; --goal kills ranks them by the "
            "models they destroy") in table
    # expected kills: a D1 shot kills only a model already wounded, so a kill needs both shots unsaved (the wounded
    # model takes the second): (2/3 x 1/2 x 1/3) x (1/2 x 1/2 x 1/3) = 1/9 x 1/12 = 1/108 in either order: a tie too
    kills = CliRunner().invoke(cli, [*args, "--goal", "kills", "--exact", "--json"])
    assert [(row["rank"], Fraction(row["value"])) for row in json.loads(kills.output)["rows"]] == [
        (1, Fraction(1, 108)), (1, Fraction(1, 108))]
    text = CliRunner().invoke(cli, [*args, "--goal", "kills"]).output
    assert "all 2 alternatives tie at 0.009: no order or split is better here\n" in text


def test_a_plans_header_says_the_target_and_the_situation():
    # a trial found a plan's header the weapon lines alone: the same header for the 10th and the 11th edition, with
    # and without --cover, over different answers (1.944 and 2.222 kills)
    args = ["plan", "-w", '5x 24" A2 BS3+ S8 AP-1 D1 [LETHAL HITS]', "-t", "T4 Sv3+ W1 x10", "--cover"]
    for edition in ("10e", "11e"):
        out = CliRunner().invoke(cli, [*args, "--edition", edition])
        assert out.exit_code == 0, out.output
        lines = out.output.splitlines()
        assert "  target: 10 models: Toughness 4 | Save 3+ | Wounds 1" in lines
        assert "  situation: target has the Benefit of Cover" in lines
        assert any(line.startswith(f"  rules: {edition[:2]}th edition, current printing") for line in lines)


def test_a_plan_applies_the_rules_named_to_its_units():
    from mathhammer_exact.decide.unit_attack import unit_attack

    # a trial found plan's header pointing to a --with it did not take: the Command Squad with Take Aim! (BS 2+)
    # against one T4 Sv7+ W1 model; every order gives what `unit --with take-aim` gives, P(destroyed)
    out = CliRunner().invoke(cli, ["plan", "-w", "Tempestus Command Squad", "-t", "T4 Sv7+ W1", "--with", "take-aim",
                                   "--exact", "--json"])
    assert out.exit_code == 0, out.output
    answer = json.loads(out.output)
    unit = unit_attack("Tempestus Command Squad", Target.parse("T4 Sv7+ W1"), modifiers=["take-aim"], exact=True)
    assert {Fraction(row["value"]) for row in answer["rows"]} == {unit.result.p_destroyed}
    assert any("attacker has Take Aim!: BS improved by 1" in line for line in answer["header"])
    refused = CliRunner().invoke(cli, ["plan", "-w", "Tempestus Command Squad", "-t", "MEQ", "--with",
                                       "harness-the-flaw"])
    assert refused.exit_code == 2 and "Harness the Flaw is used by an ADEPTUS ASTARTES INFANTRY unit" in refused.output
    # a rule that makes the unit's attacks other than one per weapon (the Grenade's mortal wounds): refused, not
    # dropped with the unit's abilities (a review)
    grenade = CliRunner().invoke(cli, ["plan", "-w", "Tempestus Command Squad", "-t", "MEQ", "--with", "take-aim",
                                       "--with", "grenade"])
    assert grenade.exit_code == 2 and grenade.output.startswith(
        "error: --with 'take-aim', 'grenade': a plan orders Militarum Tempestus Command Squad's weapons one by one")

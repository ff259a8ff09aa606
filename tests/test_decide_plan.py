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
from mathhammer_exact.decide.plan import LIMIT, count, plan
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


def test_too_many_alternatives_are_refused_at_once():
    many = [Firing(Weapon.parse(f'24" A{n} BS3+ S4 AP0 D1')) for n in range(1, 8)]
    assert count(many, 1) > LIMIT
    with pytest.raises(MathhammerError, match="at most"):
        plan(many, [MEQ])
    with pytest.raises(MathhammerError, match="goal"):
        plan(FIRINGS, [MEQ], goal="fun")


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

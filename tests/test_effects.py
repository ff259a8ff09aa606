"""The generic effects of real units' rules, stage by stage: brute force over die faces, pins derived
by hand, "the condition off is the weapon without it", float against exact, and bad input.

The `bf_*` functions look at every face of every die, as the rules say, and share no code with
the engine. The whole attack sequence with these effects is checked against the die-by-die
oracle in test_bruteforce.py (fast path) and test_unit.py (whole-unit chain).
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import attrs
import pytest

from mathhammer_exact import Context, Firing, ModelProfile, Reroll, Rules, Target, Weapon, attack
from mathhammer_exact.dice import Dice
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.model import CriticalMortals, DamageReroll
from mathhammer_exact.stages.damage import damage_pmf, damage_roll
from mathhammer_exact.stages.hit import hit_odds
from mathhammer_exact.stages.save import save_odds, unsaved_chance
from mathhammer_exact.stages.wound import wound_odds

from .conftest import as_dict

FACES = range(1, 7)
SIXTH = F(1, 6)


# --------------------------------------------------------------------- saving throw
def bf_unsaved(save: int, ap: int, invulnerable: int | None, cover: bool, modifier: int, policy: str) -> F:
    """Armour: D6 + AP (+1 in cover) + the save modifier, the total never better than +1, must reach
    Sv. Invulnerable: D6 + the save modifier (never better than +1; no AP, no cover). An unmodified 1
    fails either. Re-roll a 1 (`ones`) or a failure (`failed`): the second die stands. The defender
    takes the save that fails less often."""

    def fails(passes) -> F:
        total = F(0)
        for first in FACES:
            failed = first == 1 or not passes(first)
            if {"ones": first == 1, "failed": failed}.get(policy, False):
                total += SIXTH * sum(SIXTH for second in FACES if second == 1 or not passes(second))
            elif failed:
                total += SIXTH
        return total

    armour = min(1, ap + (1 if cover else 0) + modifier)
    chances = [fails(lambda face: face + armour >= save)]
    if invulnerable is not None:
        chances.append(fails(lambda face: face + min(1, modifier) >= invulnerable))
    return min(chances)


@pytest.mark.parametrize("policy", ["none", "ones", "failed"])
def test_save_odds_with_modifiers_worsened_ap_and_rerolls(policy):
    for save, ap, invulnerable, cover, modifier, worsen in itertools.product(
            range(2, 8), (0, -1, -2, -4), (None, 4, 5), (False, True), (-1, 0, 1, 2), (0, 1, 2)):
        weapon = Weapon(attacks=1, skill=3, strength=4, ap=ap, damage=1)
        target = ModelProfile(toughness=4, save=save, wounds=1, invulnerable=invulnerable)
        context = Context(cover=cover, save_modifier=modifier, worsen_ap=worsen, reroll_saves=policy)
        effective = min(0, ap + worsen)  # worsened AP, never better than AP 0
        covered = cover and not (save <= 3 and effective == 0)
        expected = bf_unsaved(save, effective, invulnerable, covered, modifier, policy)
        assert unsaved_chance(weapon, target, context) == expected, (save, ap, invulnerable, cover, modifier, worsen)


def test_invulnerable_save_against_ranged_attacks_only():
    target = ModelProfile(toughness=4, save=4, wounds=1, invulnerable_ranged=4)
    shot = Weapon(attacks=1, skill=3, strength=4, ap=-3, damage=1)
    blow = attrs.evolve(shot, melee=True)
    for modifier, policy in itertools.product((-1, 0, 1), ("none", "ones")):
        context = Context(save_modifier=modifier, reroll_saves=policy)
        assert unsaved_chance(shot, target, context) == bf_unsaved(4, -3, 4, False, modifier, policy)
        assert unsaved_chance(blow, target, context) == bf_unsaved(4, -3, None, False, modifier, policy)


def test_save_pins():
    """By hand. Sv4+ re-rolling 1s: a 2 or 3 fails (2/6), a 1 fails after the re-roll half the time
    (1/6 * 1/2): 5/12. Sv5+ in cover with +1 more: the total is capped to +1, so 4+: fails 1/2.
    AP-2 worsened by 3 is AP 0 (never better), so Sv4+ fails 1/2. Sv2+ with +1 still fails on a 1.
    Invulnerable 4+ with -1: 5+, fails 2/3 even when the armour save is gone."""
    weapon = Weapon(attacks=1, skill=3, strength=4, ap=0, damage=1)
    model = ModelProfile(toughness=4, save=4, wounds=1)
    assert unsaved_chance(weapon, model, Context(reroll_saves="ones")) == F(5, 12)
    assert unsaved_chance(weapon, attrs.evolve(model, save=5), Context(cover=True, save_modifier=1)) == F(1, 2)
    assert unsaved_chance(attrs.evolve(weapon, ap=-2), model, Context(worsen_ap=3)) == F(1, 2)
    assert unsaved_chance(weapon, attrs.evolve(model, save=2), Context(save_modifier=1)) == F(1, 6)
    invulnerable = attrs.evolve(model, save=7, invulnerable=4)
    assert unsaved_chance(attrs.evolve(weapon, ap=-4), invulnerable, Context(save_modifier=-1)) == F(2, 3)
    # Failed saves re-rolled: fail twice (1/2 * 1/2); a Command Re-roll finds no die left to re-roll.
    odds = save_odds(weapon, model, Context(reroll_saves="failed"))
    assert (odds.fail, odds.fail_first_roll) == (F(1, 4), 0)


# --------------------------------------------------------------------- wound roll
def test_wound_modifiers_against_the_target_are_capped_with_the_attackers():
    """S4 against T4 needs 4+. The attacker's +1 and the target's -1 cancel; the target's -2 alone is
    capped to -1 (5+: 2/6 succeed, a 6 critical); +1 and -2 net -1."""
    weapon = Weapon(attacks=1, skill=3, strength=4, ap=0, damage=1)
    model = ModelProfile(toughness=4, save=4, wounds=1)
    for ours, theirs, passed in ((1, -1, F(1, 2)), (0, -2, F(1, 3)), (1, -2, F(1, 3)), (0, 1, F(2, 3))):
        assert wound_odds(weapon, model, Context(wound_modifier=ours, wound_modifier_against=theirs)).passed == passed


def test_critical_wound_threshold_without_anti():
    """Critical Wounds on 5+: an unmodified 5 or 6 (2/6) even where S2 against T8 needs a 6; Anti-X
    4+ against a matching target lowers it further, and the lower of the two counts."""
    weak = Weapon(attacks=1, skill=3, strength=2, ap=0, damage=1)
    tank = ModelProfile(toughness=8, save=3, wounds=10, keywords=("VEHICLE",))
    odds = wound_odds(weak, tank, Context(critical_wound=5))
    assert (odds.critical, odds.success) == (F(2, 6), 0)
    anti = attrs.evolve(weak, anti=(("VEHICLE", 4),))
    assert wound_odds(anti, tank, Context(critical_wound=5)).critical == F(3, 6)
    assert wound_odds(attrs.evolve(weak, anti=(("VEHICLE", 6),)), tank, Context(critical_wound=5)).critical == F(2, 6)


# --------------------------------------------------------------------- hit roll: Conversion
def test_conversion_beyond_its_range():
    """Critical Hits on 4+ only beyond the stated range; a lower --crit-hit still counts; Overwatch
    keeps only 6s. BS4+: 4, 5, 6 are all Critical Hits (1/2), none a plain hit."""
    weapon = Weapon(attacks=1, skill=4, strength=4, ap=0, damage=1, conversion=12)
    model = ModelProfile(toughness=4, save=4, wounds=1)
    far = hit_odds(weapon, model, Context(beyond_conversion_range=True))
    assert (far.critical, far.success) == (F(1, 2), 0)
    assert hit_odds(weapon, model, Context()).critical == SIXTH
    assert hit_odds(weapon, model, Context(beyond_conversion_range=True, critical_hit=3)).critical == F(4, 6)
    assert hit_odds(weapon, model, Context(beyond_conversion_range=True, overwatch=True)).critical == SIXTH


# --------------------------------------------------------------------- damage
def bf_damage(dice: Dice, policy: str) -> dict[int, F]:
    """Every face of every damage die (a D3 is a D6 halved, rounding up), then the re-roll: the whole
    roll on a result of 1 (`ones`) or below its average (`below-average`), or the lowest die alone
    when below a die's average (`one-die`), every face of the new dice again."""
    def value(face: int) -> int:
        return face if dice.sides == 6 else (face + 1) // 2

    rolls = list(itertools.product(FACES, repeat=dice.count))
    weight = F(1, len(rolls))
    average = F(sum(sum(map(value, r)) for r in rolls), len(rolls)) + dice.modifier
    out: dict[int, F] = {}
    for roll in rolls:
        values = [value(f) for f in roll]
        total = sum(values) + dice.modifier
        if (policy == "ones" and total == 1) or (policy == "below-average" and total < average):
            again = [(sum(map(value, r)) + dice.modifier, weight) for r in rolls]
        elif policy == "one-die" and values and min(values) < F(dice.sides + 1, 2):
            again = [(total - min(values) + value(f), SIXTH) for f in FACES]
        else:
            again = [(total, F(1))]
        for result, p in again:
            out[result] = out.get(result, F(0)) + weight * p
    return out


@pytest.mark.parametrize("policy", [p.value for p in DamageReroll])
@pytest.mark.parametrize("dice", ["1", "D3", "D6", "2D3", "D6+1", "2D6", "3D3"])
def test_damage_rerolls_equal_every_face(dice, policy):
    parsed = Dice.parse(dice)
    expected = bf_damage(parsed, "none" if policy == "none" else policy)
    assert as_dict(damage_roll(parsed, DamageReroll(policy))) == expected


def test_damage_pins():
    """By hand. D3 re-rolling a 1: 1/3 of the time a fresh D3 (mean 2), else 2 or 3: mean
    1/3 * 2 + 1/3 * 2 + 1/3 * 3 = 7/3. D6 re-rolled below 3.5: half the time a fresh D6 (3.5), else
    4, 5, 6 (mean 5): 17/4. +1 damage in the commentary's order against a halving, -1 model: a D6 of
    1..6 halves to 1,1,2,2,3,3, +1 gives 2,2,3,3,4,4, -1 gives 1,1,2,2,3,3."""
    d3, d6 = Weapon(attacks=1, skill=3, strength=4, ap=0, damage="D3"), Weapon(1, 3, 4, 0, "D6")
    assert damage_pmf(d3, None, Context(reroll_damage="ones")).mean == F(7, 3)
    assert damage_pmf(d6, None, Context(reroll_damage="below-average")).mean == F(17, 4)
    tough = ModelProfile(toughness=4, save=4, wounds=5, halve_damage=True, reduce_damage=True)
    assert as_dict(damage_pmf(d6, tough, Context(damage_bonus=1))) == {1: F(1, 3), 2: F(1, 3),
                                                                                    3: F(1, 3)}
    # Melta 2 within half range and +1: a D6 becomes 4..9.
    melta = attrs.evolve(d6, melta=2)
    assert damage_pmf(melta, None, Context(half_range=True, damage_bonus=1)).min == 4


# --------------------------------------------------------------------- Critical Hits and Wounds: mortal wounds
def test_critical_mortal_wound_pins():
    """By hand, one BS3+ S4 AP0 D1 attack with Sustained Hits 1 against W1 Sv4+ models (S4 v T4 4+):
    each hit that rolls to wound kills 1/2 * 1/2 = 1/4 of a model on average. A 3-5 hits (1/2); a 6
    (1/6) scores 2 hits and, with Critical Hits inflicting a mortal wound as well, 1 more:
    E[damage] = 1/2 * 1/4 + 1/6 * (2/4 + 1) = 3/8. Instead of the normal effects: the 6 does only
    the mortal wound, E = 1/8 + 1/6 = 7/24, and it still counts as one hit: E[hits] = 1/2 + 1/6."""
    weapon = Weapon.parse("A1 BS3+ S4 AP0 D1 [SUSTAINED HITS 1]")
    target = Target.parse("T4 Sv4+ W1 x3")
    also = attack(weapon, target, context=Context(critical_mortals="hit 1"), exact=True)
    instead = attack(weapon, target, context=Context(critical_mortals="hit 1 instead"), exact=True)
    assert also.damage.mean == F(3, 8)
    assert (instead.damage.mean, instead.hits.mean) == (F(7, 24), F(2, 3))
    assert instead.wounds is not None and instead.wounds.mean == F(1, 2) * F(1, 2)  # only the 3-5 roll to wound
    # Mortal wounds spill over: every wound roll but a 1 (5/6) is a Critical Wound inflicting 2 mortal
    # wounds instead of the D1, and they kill two W1 models whatever their save.
    sure = Weapon.parse("A1 S4 AP0 D1 [TORRENT]")
    two = attack(sure, Target.parse("T4 Sv2+ W1 x3"), context=Context(critical_mortals="wound 2 instead",
                                                                       critical_wound=2), exact=True)
    assert as_dict(two.models_destroyed) == {0: SIXTH, 2: 1 - SIXTH}


def test_critical_mortals_land_after_the_normal_damage():
    """Two Torrent D2 attacks on W3 models with no save, every wound roll but a 1 a Critical Wound
    inflicting 1 mortal wound as well. Both critical (25/36): the first leaves model 1 on 1 wound, the
    second kills it (excess lost), then the 2 waiting mortal wounds take model 2 to 1 wound: 1 dead
    (had each mortal wound landed at once, both would die). One critical (10/36): 2 + 1 mortal
    wound kill model 1. Neither (1/36): 0."""
    one = Weapon.parse("A1 S8 AP-6 D2 [TORRENT]")
    for what in (Weapon.parse("A2 S8 AP-6 D2 [TORRENT]"), [Firing(one), Firing(one)]):  # fast path, then chain
        result = attack(what, Target.parse("T4 Sv7+ W3 x2"), context=Context(critical_mortals="wound 1",
                                                                               critical_wound=2), exact=True)
        assert as_dict(result.models_destroyed) == {0: F(1, 36), 1: F(35, 36)}


# --------------------------------------------------------------------- the condition off is the weapon without it
PLAIN = "A3 BS3+ S4 AP0 D1"
UNCHANGED = [  # (weapon, target, context that must change nothing here, why)
    (PLAIN, "T4 Sv3+ W1 x5", {"beyond_conversion_range": True}, "no Conversion on the weapon"),
    ("A3 S4 AP0 D1 [TORRENT]", "T4 Sv3+ W1 x5", {"critical_mortals": "hit D3"}, "Torrent scores no Critical Hits"),
    (PLAIN, "T4 Sv3+ W1 x5", {"worsen_ap": 2}, "AP 0 cannot get worse"),
    ("A3 BS3+ S4 AP-1 D2", "T4 Sv3+ W1 x5", {"damage_bonus": 1}, "W1 models: the extra damage is lost"),
    (PLAIN, "T4 Sv3+ W2 x5", {"reroll_damage": "below-average"}, "a constant Damage is never re-rolled"),
    (PLAIN, "T4 Sv2+ W1 x5", {"save_modifier": 1}, "Sv2+: the only failure is an unmodified 1"),
    ("A3 WS3+ S4 AP-3 D1", "T4 Sv3+ W1 x5 inv-ranged4+", {}, "the ranged-only invulnerable save against melee"),
    (PLAIN, "T4 Sv3+ W1 x5 fnp-psychic4+", {}, "the psychic Feel No Pain against a plain weapon"),
    (PLAIN, "T4 Sv3+ W1 x5", {"critical_wound": 6}, "6 is the default threshold"),
    (PLAIN, "T4 Sv7+ W1 x5", {"reroll_saves": "failed"}, "no save to re-roll"),
]


@pytest.mark.parametrize(("weapon", "target", "options", "why"), UNCHANGED)
def test_a_condition_that_does_not_apply_changes_nothing(weapon, target, options, why):
    w, t = Weapon.parse(weapon), Target.parse(target)
    plain_target = Target.parse(target.replace(" inv-ranged4+", "").replace(" fnp-psychic4+", ""))
    for context in (Context(**options), Context(**options, command_reroll="hit")):  # both engine paths
        changed = attack(w, t, 4, context, exact=True)
        plain = attack(w, plain_target, 4, attrs.evolve(Context(), command_reroll=context.command_reroll),
                       exact=True)
        assert changed.damage == plain.damage and changed.models_destroyed == plain.models_destroyed, why


# --------------------------------------------------------------------- float and exact agree
EFFECTS = [
    {"reroll_saves": "ones", "save_modifier": 1, "cover": True},
    {"worsen_ap": 1, "wound_modifier_against": -1, "critical_wound": 5},
    {"critical_mortals": "hit D3", "reroll_damage": "one-die", "damage_bonus": 1},
    {"critical_mortals": "wound 1 instead", "reroll_damage": "below-average", "beyond_conversion_range": True},
]


@pytest.mark.parametrize("options", EFFECTS)
def test_float_and_exact_agree(options):
    weapon = Weapon.parse('A2 BS3+ S5 AP-1 D2D3 [SUSTAINED HITS 1, PSYCHIC, CONVERSION 12"]')
    single = Target.parse("T5 Sv3+ W4 x4 inv-ranged5+ fnp-psychic6+")
    mixed = Target.parse("T5 Sv3+ W3 x3 fnp-psychic6+; T5 Sv3+ inv4+ W5 leader")
    for what, target, models in ((weapon, single, 5), ([Firing(weapon, 5)], mixed, 1)):
        exact = attack(what, target, models, Context(**options), exact=True)
        floats = attack(what, target, models, Context(**options))
        assert exact.damage.total() == 1 and exact.models_destroyed.total() == 1
        for a, b in zip(exact.models_destroyed.probabilities(), floats.models_destroyed.probabilities()):
            assert abs(float(a) - b) < 1e-12
        for a, b in zip(exact.damage.probabilities(), floats.damage.probabilities()):
            assert abs(float(a) - b) < 1e-12


# --------------------------------------------------------------------- bad input
def test_bad_input_is_one_clear_error():
    with pytest.raises(MathhammerError, match="no Critical result"):
        Context(reroll_saves="noncrit")
    with pytest.raises(MathhammerError, match="damage re-roll must be one of"):
        Context(reroll_damage="twice")
    with pytest.raises(MathhammerError, match="critical mortal wounds must be hit|wound"):
        CriticalMortals.parse("save 1")
    with pytest.raises(MathhammerError, match="at least 1"):
        CriticalMortals.parse("hit 0")
    with pytest.raises(MathhammerError, match="AP worsened by must be 0 to 6"):
        Context(worsen_ap=-1)
    with pytest.raises(MathhammerError, match="critical wound threshold"):
        Context(critical_wound=1)
    devastating = Weapon.parse("A1 BS3+ S4 AP0 D1 [DEVASTATING WOUNDS]")
    with pytest.raises(MathhammerError, match="not modelled under the current printing"):
        attack(devastating, Target.parse("T4 Sv3+ W1 x2"), context=Context(critical_mortals="wound 1"))
    attack(devastating, Target.parse("T4 Sv3+ W1 x2"), context=Context(critical_mortals="wound 1",
                                                                        rules=Rules.named("2023")))
    with pytest.raises(MathhammerError, match="Command Re-roll kept for damage"):
        attack(Weapon.parse("A1 BS3+ S4 AP0 DD6"), Target.parse("T4 Sv3+ W3 x2"),
               context=Context(reroll_damage="ones", command_reroll="damage"))
    assert Context(reroll_saves=Reroll.ONES).reroll_saves is Reroll.ONES


# --------------------------------------------------------------------- named rules (rules/ data) use them
def _named(situation: str, effect: str):
    import tomllib

    from mathhammer_exact.data.load import READER
    from mathhammer_exact.data.modifiers import NamedRule

    text = (f'name = "X"\nkind = "ability"\nsource = "test"\nsummary = "s"\nphase = "either"\n'
            f'situation = "{situation}"\neffect = {{ {effect} }}\n')
    return READER.structure("modifiers.toml [x]", {"key": "x", **tomllib.loads(text)}, NamedRule)


@pytest.mark.parametrize(("situation", "effect", "context", "words"), [
    ("attacker", 'critical_wound = 5, critical_mortals = "hit 1"',
     {"critical_wound": 5, "critical_mortals": "hit 1"}, "Critical Wounds on 5+, Critical Hits inflict 1 mortal"),
    ("attacker", 'damage_bonus = 1, reroll_damage = "one-die"', {"damage_bonus": 1, "reroll_damage": "one-die"},
     "+1 Damage, re-roll the lowest Damage die"),
    ("target", 'wound_modifier_against = -1, worsen_ap = 1', {"wound_modifier_against": -1, "worsen_ap": 1},
     "-1 to wound it, AP of attacks against it worsened by 1"),
    ("target", 'save_modifier = 1, reroll_saves = "ones"', {"save_modifier": 1, "reroll_saves": "ones"},
     "+1 to its saving throws, re-roll saving throw rolls of 1"),
])
def test_named_rules_set_the_same_situation_a_python_user_would(situation, effect, context, words):
    from mathhammer_exact.data.modifiers import apply_modifiers

    rule = _named(situation, effect)
    assert words in rule.effect.describe()
    weapon, target = Weapon.parse("A2 BS3+ S4 AP-1 DD3"), Target.parse("T4 Sv3+ W2 x5")
    [(_, own)], _, _ = apply_modifiers([rule], [weapon], target, Context())
    assert own == Context(**context)


def test_named_rule_effects_are_checked_when_loaded():
    with pytest.raises(MathhammerError, match="critical mortal wounds must be"):
        _named("attacker", 'critical_mortals = "hit"')
    with pytest.raises(MathhammerError, match="damage re-roll must be one of"):
        _named("attacker", 'reroll_damage = "all"')
    with pytest.raises(MathhammerError, match="no Critical result"):
        _named("target", 'reroll_saves = "noncrit"')
    with pytest.raises(MathhammerError, match="changes the target's models, so situation must be"):
        _named("attacker", "worsen_ap = 1")


# --------------------------------------------------------------------- the command line
CLI_OPTIONS = [  # (options, the Context they describe, a header line naming it)
    (["--far"], {"beyond_conversion_range": True}, "target beyond Conversion range"),
    (["--crit-wound", "5", "--rules", "2023"], {"critical_wound": 5, "rules": Rules.named("2023")},
     "Critical Wounds on 5+"),
    (["--crit-mortals", "wound D3 instead"], {"critical_mortals": "wound D3 instead"},
     "Critical Wounds inflict D3 mortal wounds instead of normal damage"),
    (["--damage-bonus", "1", "--reroll-damage", "one-die"], {"damage_bonus": 1, "reroll_damage": "one-die"},
     "Damage +1, re-roll the lowest Damage die when below average"),
    (["--save-mod", "-1", "--reroll-saves", "failed", "--worsen-ap", "1", "--wound-mod-against", "-1"],
     {"save_modifier": -1, "reroll_saves": "failed", "worsen_ap": 1, "wound_modifier_against": -1},
     "against the target: wound roll -1, AP worsened by 1, saving throw -1, re-roll failed save rolls"),
]


@pytest.mark.parametrize(("options", "fields", "header"), CLI_OPTIONS)
def test_cli_options_are_the_api_fields(options, fields, header):
    import json

    from click.testing import CliRunner

    from mathhammer_exact.cli import cli

    abilities = 'CONVERSION 12", LETHAL HITS' + (", DEVASTATING WOUNDS" if "rules" in fields else "")
    weapon = f"A2 BS3+ S5 AP-2 DD3 [{abilities}]"
    target = "T4 Sv3+ W2 x5"
    base = ["attack", "-w", weapon, "-t", target, "-m", "5", "--exact"]
    table = CliRunner().invoke(cli, [*base, *options], catch_exceptions=False)
    assert table.exit_code == 0 and header in table.output
    data = json.loads(CliRunner().invoke(cli, [*base, *options, "--json"], catch_exceptions=False).output)
    api = attack(Weapon.parse(weapon), Target.parse(target), 5, Context(**fields), exact=True)
    assert data["damage"]["mean"] == str(api.damage.mean)
    plain = Context(rules=fields.get("rules", Rules()))
    assert api.damage != attack(Weapon.parse(weapon), Target.parse(target), 5, plain, exact=True).damage  # it matters


@pytest.mark.parametrize(("options", "message"), [
    (["--crit-mortals", "save 1"], "error: critical mortal wounds must be hit|wound"),
    (["--reroll-damage", "all"], "Invalid value for '--reroll-damage'"),
    (["--worsen-ap", "-1"], "error: AP worsened by must be 0 to 6"),
    (["--crit-mortals", "wound 1", "-w", "A1 BS3+ S4 AP0 D1 [DEVASTATING WOUNDS]"], "not modelled under the current"),
])
def test_cli_refuses_bad_effects_in_one_line(options, message):
    from click.testing import CliRunner

    from mathhammer_exact.cli import cli

    out = CliRunner().invoke(cli, ["attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "T4 Sv3+ W1 x5", *options])
    assert out.exit_code == 2 and message in out.output and "Traceback" not in out.output


def test_a_named_rule_does_not_silently_replace_a_damage_reroll_or_critical_mortal_wounds_already_given():
    from mathhammer_exact.data.modifiers import Effect, _improved_context

    weapon, target = Weapon.parse("A1 BS3+ S4 AP0 DD3"), Target.parse("T4 Sv3+ W2 x5")
    given = Context(reroll_damage="one-die", critical_mortals="hit 1")
    with pytest.raises(MathhammerError, match="reroll damage is set twice"):
        _improved_context(given, weapon, target, Effect(reroll_damage="ones"))
    with pytest.raises(MathhammerError, match="critical mortals is set twice"):
        _improved_context(given, weapon, target, Effect(critical_mortals="wound 1"))
    same = _improved_context(given, weapon, target, Effect(reroll_damage="one-die"))  # the same one: no conflict
    assert same.reroll_damage == given.reroll_damage
    assert _improved_context(Context(), weapon, target, Effect(reroll_damage="ones")).reroll_damage.value == "ones"
    # a rule's 'you can re-roll the Damage roll' (read as below-average) re-rolls as the player's option says
    free = _improved_context(given, weapon, target, Effect(reroll_damage="below-average"))
    assert free.reroll_damage == given.reroll_damage

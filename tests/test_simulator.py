"""Whole pipelines against the literal die-by-die simulator (fixed seed, 5 standard errors)."""

from __future__ import annotations

import math

import pytest

from mathhammer_exact import Context, Rules, Target, Weapon, attack

from .oracle import simulate

TRIALS = 3000
COMBOS = [
    ("A2 BS3+ S4 AP-1 D1 [SUSTAINED HITS 1, LETHAL HITS]", "T4 Sv3+ inv5+ W2 x5 fnp6+", 5, {}),
    ("A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]", "T4 Sv4+ W3 x5", 20, {}),
    ("A1 BS3+ S3 AP-1 D1 [RAPID FIRE 1]", "T4 Sv3+ W2 x10", 9, {"half_range": True, "reroll_hits": "ones"}),
    ("A1 BS3+ S9 AP-4 DD6 [MELTA 2]", "T10 Sv3+ W12 x1", 2, {"half_range": True}),
    ("AD6 S4 AP0 D1 [TORRENT, IGNORES COVER]", "T3 Sv5+ W1 x10", 2, {"cover": True}),
    ("AD3 BS3+ S4 AP0 D1 [BLAST]", "T3 Sv5+ W1 x11", 3, {}),
    ("A1 BS3+ S8 AP-3 D2 [HAZARDOUS, RAPID FIRE 1]", "T4 Sv3+ W2 x5", 3, {"cover": True}),
    ("A3 WS3+ S4 AP0 D1 [SUSTAINED HITS 1]", "T3 Sv4+ W1 x5", 5, {"reroll_hits": "failed"}),
    ("A4 WS3+ S3 AP0 D1", "T3 Sv4+ W1 x5 [STEALTH]", 4, {"wound_modifier": 1}),
    ("A2 BS3+ S5 AP-1 DD3 [DEVASTATING WOUNDS]", "T5 Sv2+ inv4+ W3 x3", 5, {}),
    ("A2 BS3+ S5 AP-1 DD3 [DEVASTATING WOUNDS]", "T5 Sv2+ inv4+ W3 x3", 5, {"rules": "launch"}),
    ("A2 BS3+ S5 AP-1 DD3 [DEVASTATING WOUNDS]", "T5 Sv2+ inv4+ W3 x3 fnp-mortal5+", 5, {"rules": "unsaveable"}),
    ("A2 BS3+ S5 AP-1 DD3 [DEVASTATING WOUNDS]", "T5 Sv2+ W3 x3 fnp5+ fnp-mortal4+", 5, {}),
    ("A3 BS4+ S6 AP-1 D2 [TWIN-LINKED]", "T6 Sv3+ W3 x4", 4, {"reroll_hits": "noncrit"}),
    ("A1 BS4+ S10 AP-2 DD6+1 [ANTI-VEHICLE 4+, DEVASTATING WOUNDS]", "T11 Sv2+ W14 x1 [VEHICLE]", 6, {}),
    ("A2 WS2+ S6 AP-2 D2 [LANCE, LETHAL HITS]", "T6 Sv3+ W3 x3", 4, {"charged": True}),
    ("A3 BS4+ S5 AP0 D1 [HEAVY, SUSTAINED HITS D3]", "T4 Sv4+ W1 x10", 3, {"stationary": True}),
    ("AD6 BS4+ S5 AP0 D1 [INDIRECT FIRE, BLAST]", "T4 Sv4+ W1 x10", 2, {"indirect": True}),
    ("AD6 BS4+ S5 AP0 D1 [INDIRECT FIRE, BLAST]", "T4 Sv4+ W1 x10", 2, {"indirect": True, "rules": "launch"}),
    ("A2 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", 5, {"overwatch": True}),
    ("A2 BS3+ S4 AP-1 D2", "T4 Sv3+ W3 x3 dr1", 5, {"critical_hit": 5}),
    ("A1 BS3+ S9 AP-4 DD6 [MELTA 2]", "T10 Sv2+ inv4+ W13 x1 halve", 4, {"half_range": True}),
    ("A3 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5 fnp5+", 5, {"hit_modifier": 2}),  # capped at +1
    ("A3 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", 5, {"hit_modifier": -3, "wound_modifier": -2}),
    ("A2 BS3+ S4 AP0 D1 [IGNORES COVER]", "T4 Sv4+ W1 x10", 5, {"cover": True, "reroll_wounds": "failed"}),
    ("A1 BS2+ S12 AP-3 D=6", "T12 Sv2+ inv4+ W16 x1 fnp6+", 3, {}),
    ("A2 BS3+ S4 AP-1 D1 [ANTI-INFANTRY 5+, SUSTAINED HITS 2]", "T4 Sv3+ W2 x5 [INFANTRY]", 4, {}),
    ("A5 WS3+ S5 AP-2 D2 [SUSTAINED HITS 1, LETHAL HITS, TWIN-LINKED]", "T5 Sv2+ W4 x3", 3, {}),
    ("A1 BS3+ S4 AP0 D=3 [DEVASTATING WOUNDS, LETHAL HITS]", "T4 Sv3+ W2 x5 fnp6+", 6, {"rules": "launch"}),
    ("A2 BS3+ S4 AP-1 D1 [BLAST, RAPID FIRE 1]", "T3 Sv5+ W1 x20", 4, {"half_range": True, "cover": True}),
    ("A3 BS3+ S3 AP0 D1", "T3 Sv4+ W1 x5", 4, {"extra_attacks": 1, "reroll_wounds": "noncrit"}),
    # the generic effects of units' rules
    ("A2 BS3+ S5 AP-2 DD3 [SUSTAINED HITS 1]", "T5 Sv3+ inv5+ W3 x5", 5,
     {"reroll_saves": "ones", "save_modifier": 1, "cover": True, "worsen_ap": 1}),
    ("A3 BS3+ S4 AP-1 D1", "T4 Sv3+ W2 x5", 5, {"wound_modifier": 1, "wound_modifier_against": -1, "critical_wound": 5,
                                                "critical_mortals": "wound 1"}),
    ("A2 BS3+ S5 AP-1 DD3 [LETHAL HITS, PRECISION]", "T5 Sv3+ W3 x3 fnp-mortal5+", 5, {"critical_mortals": "hit D3"}),
    ("A2 BS3+ S5 AP-1 DD3 [DEVASTATING WOUNDS]", "T5 Sv3+ W3 x3", 5, {"critical_mortals": "hit 1 instead",
                                                                     "rules": "launch"}),
    ("A2 BS3+ S6 AP-2 D2D3 [PSYCHIC]", "T5 Sv3+ W6 x2 fnp-psychic5+ halve", 4,
     {"reroll_damage": "one-die", "damage_bonus": 1}),
    ('A3 BS4+ S5 AP-1 DD6 [CONVERSION 24", SUSTAINED HITS 1]', "T6 Sv3+ W5 x2 inv-ranged4+", 4,
     {"reroll_damage": "below-average", "beyond_conversion_range": True}),
]


def _context(options: dict) -> Context:
    options = dict(options)
    if "rules" in options:
        options["rules"] = Rules.named(options["rules"])
    return Context(**options)


def _within(expected: float, sd: float, samples: list[int], label: str) -> None:
    """The sample mean is within 5 standard errors of the engine's mean (SE from the engine's sd)."""
    mean = sum(samples) / len(samples)
    assert abs(mean - expected) <= 5 * sd / math.sqrt(len(samples)) + 1e-9, \
        f"{label}: engine {expected}, simulated {mean}"


def _frequency_within(p: float, hits: list[bool], label: str) -> None:
    _within(p, math.sqrt(p * (1 - p)), [int(h) for h in hits], label)


@pytest.mark.parametrize(("weapon", "target", "models", "options"), COMBOS)
def test_engine_agrees_with_die_by_die_simulation(weapon, target, models, options):
    w, t, ctx = Weapon.parse(weapon), Target.parse(target), _context(options)
    result = attack(w, t, models, ctx)
    outcomes = simulate(w, t, models, ctx, TRIALS, seed=sum(map(ord, weapon + target)))
    for i, (stage, pmf) in enumerate(result.stages().items()):
        _within(float(pmf.mean), pmf.sd, [o[i] for o in outcomes], f"mean {stage}")
    # P(k models destroyed) for each k expected at least 10 times; the rarer values pooled in one bucket.
    destroyed = [o[5] for o in outcomes]
    p = {k: float(result.models_destroyed.p(k)) for k in range(t.model_count + 1)}
    common = [k for k in p if p[k] * TRIALS >= 10]
    for k in common:
        _frequency_within(p[k], [x == k for x in destroyed], f"P({k} destroyed)")
    rare = set(p) - set(common)
    _frequency_within(sum(p[k] for k in rare), [x in rare for x in destroyed], f"P(destroyed in {sorted(rare)})")

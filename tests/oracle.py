"""A literal, die-by-die resolution of the attack sequence: the test oracle, never the engine.

It shares no logic with the engine: it reads the same profile objects, then rolls one
D6 at a time through a `roller`, resolving each attack completely (hit, wound,
allocation, save, damage, Feel No Pain) before the next, exactly as players do at the
table. D3 is rolled as a D6 halved rounding up.

* `simulate` rolls with a seeded random generator (cross-checks within standard errors);
* `enumerate_exact` replays every possible sequence of faces, giving exact probabilities
  on tiny inputs (brute force).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

from mathhammer_exact.dice import Dice
from mathhammer_exact.model import Context, DevastatingWounds, IndirectFire, Target, Weapon

Outcome = tuple[int, int, int, int, int, int]  # attacks, hits, wounds, unsaved, damage, models destroyed


class NeedDie(Exception):
    """The scripted faces ran out: the enumerator must branch on the next die."""


class Script:
    def __init__(self, faces: list[int]):
        self.faces, self.used = faces, 0

    def __call__(self) -> int:
        if self.used == len(self.faces):
            raise NeedDie
        self.used += 1
        return self.faces[self.used - 1]


def roll_dice(dice: Dice, d6: Callable[[], int]) -> int:
    total = dice.modifier
    for _ in range(dice.count):
        face = d6()
        total += face if dice.sides == 6 else math.ceil(face / 2)
    return total


def wound_needed(s: int, t: int) -> int:
    table = [(s >= 2 * t, 2), (s > t, 3), (s == t, 4), (2 * s <= t, 6)]
    return next((need for cond, need in table if cond), 5)


def resolve(weapon: Weapon, target: Target, models: int, ctx: Context, d6: Callable[[], int]) -> Outcome:
    profile = target.single
    count = target.model_count
    rules = ctx.rules
    ranged = not weapon.melee
    indirect = weapon.indirect_fire and ctx.indirect and ranged

    # ---- number of attacks: each model rolls its own
    attacks = 0
    for _ in range(models):
        a = roll_dice(weapon.attacks, d6)
        if weapon.rapid_fire and ctx.half_range:
            a += weapon.rapid_fire
        if weapon.blast:
            a += count // 5
        attacks += a + ctx.extra_attacks

    hit_mod = ctx.hit_modifier
    if ranged and weapon.heavy and ctx.stationary:
        hit_mod += 1
    if ranged and "STEALTH" in profile.keywords:
        hit_mod -= 1
    if indirect and rules.indirect_fire is IndirectFire.LAUNCH:
        hit_mod -= 1
    hit_mod = max(-1, min(1, hit_mod))
    wound_mod = max(-1, min(1, ctx.wound_modifier + (1 if weapon.lance and ctx.charged else 0)))
    crit_wound = min([6] + [x for kw, x in weapon.anti if kw in profile.keywords])
    reroll_wounds = max(ctx.reroll_wounds, 2 if weapon.twin_linked else 0)
    cover = (ctx.cover or indirect) and ranged and not weapon.ignores_cover \
        and not (profile.save <= 3 and weapon.ap == 0)

    def test(classify: Callable[[int], str], policy: int) -> str:
        face = d6()
        verdict = classify(face)
        if (policy == 1 and face == 1) or (policy == 2 and verdict == "fail") or \
                (policy == 3 and verdict != "crit"):
            verdict = classify(d6())
        return verdict

    def hit_verdict(face: int) -> str:
        if face == 1 or (indirect and rules.indirect_fire is IndirectFire.LATER and face <= 3):
            return "fail"
        if ctx.overwatch:
            return "crit" if face == 6 else "fail"
        if face >= ctx.critical_hit:
            return "crit"
        return "hit" if face + hit_mod >= weapon.skill else "fail"

    def wound_verdict(face: int) -> str:
        if face == 1:
            return "fail"
        if face >= crit_wound:
            return "crit"
        return "wound" if face + wound_mod >= wound_needed(weapon.strength, profile.toughness) else "fail"

    def saved() -> bool:
        face = d6()
        armour_needed = max(2, profile.save - min(1, weapon.ap + (1 if cover else 0)))
        needed = min(armour_needed, profile.invulnerable or 7)
        return face != 1 and face >= needed

    def damage_roll() -> int:
        value = Fraction(roll_dice(weapon.damage, d6))
        if profile.halve_damage:
            value /= 2
        if ctx.half_range:
            value += weapon.melta
        if profile.reduce_damage:
            value = max(Fraction(1), value - 1)
        return max(1, math.ceil(value))

    wounds_left = [profile.wounds] * count
    state = {"lost": 0, "current": 0}  # current: index of the model receiving attacks

    def lose(points: int, fnp: int | None, spill: bool) -> None:
        """Apply points one at a time to the current model; excess is lost unless `spill`."""
        for _ in range(points):
            if state["current"] == count:
                return
            if fnp is not None and d6() >= fnp:
                continue
            wounds_left[state["current"]] -= 1
            state["lost"] += 1
            if wounds_left[state["current"]] == 0:
                state["current"] += 1
                if not spill:
                    return

    mortal_fnp = min([t for t in (profile.feel_no_pain, profile.feel_no_pain_mortal) if t], default=None)
    hits = wounds = unsaved = 0
    deferred: list[int] = []

    def to_wound(auto: bool) -> None:
        nonlocal wounds, unsaved
        verdict = "wound" if auto else test(wound_verdict, reroll_wounds)
        if verdict == "fail":
            return
        wounds += 1
        if verdict == "crit" and weapon.devastating_wounds:
            unsaved += 1
            if rules.devastating_wounds is DevastatingWounds.UNSAVEABLE:
                lose(damage_roll(), profile.feel_no_pain, spill=False)
            else:
                deferred.append(damage_roll())
            return
        if saved():
            return
        unsaved += 1
        lose(damage_roll(), profile.feel_no_pain, spill=False)

    for _ in range(attacks):
        if weapon.torrent:
            hits += 1
            to_wound(auto=False)
            continue
        verdict = test(hit_verdict, ctx.reroll_hits)
        if verdict == "fail":
            continue
        hits += 1
        extra = roll_dice(weapon.sustained_hits, d6) if verdict == "crit" and weapon.sustained_hits else 0
        to_wound(auto=verdict == "crit" and weapon.lethal_hits)
        for _ in range(extra):
            hits += 1
            to_wound(auto=False)

    launch = rules.devastating_wounds is DevastatingWounds.LAUNCH
    for points in deferred:
        lose(points, mortal_fnp, spill=launch)
    return attacks, hits, wounds, unsaved, state["lost"], state["current"]


def simulate(weapon: Weapon, target: Target, models: int, ctx: Context, trials: int, seed: int) -> list[Outcome]:
    rng = random.Random(seed)
    return [resolve(weapon, target, models, ctx, lambda: rng.randint(1, 6)) for _ in range(trials)]


def enumerate_exact(weapon: Weapon, target: Target, models: int, ctx: Context) -> Counter[Outcome]:
    """Exact distribution of outcomes by replaying every possible sequence of D6 faces."""
    result: Counter[Outcome] = Counter()
    stack: list[list[int]] = [[]]
    while stack:
        faces = stack.pop()
        try:
            outcome = resolve(weapon, target, models, ctx, Script(faces))
        except NeedDie:
            stack.extend(faces + [f] for f in range(1, 7))
            continue
        result[outcome] += Fraction(1, 6 ** len(faces))
    return result

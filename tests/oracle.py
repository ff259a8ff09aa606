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

import functools
import math
import random
from collections import Counter
from collections.abc import Callable, Hashable
from fractions import Fraction

import attrs

from mathhammer_exact.dice import Dice
from mathhammer_exact.model import Context, DamageReroll, DevastatingWounds, IndirectFire, Reroll, Target, Weapon

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
    """One weapon profile: (attacks, hits, wounds, unsaved, damage, models destroyed)."""
    r = resolve_unit([(weapon, models)], target, ctx, d6)
    return r["attacks"], r["hits"], r["wounds"], r["unsaved"], r["damage"], r["destroyed"]


@functools.lru_cache(maxsize=64)
def best_lethal(weapon: Weapon, target: Target, ctx: Context) -> bool:
    """Lethal Hits `best`, by brute force: a Critical Hit of `weapon` at the unharmed `target` wounds
    automatically if that deals at least the expected damage of rolling to wound (each found by
    replaying every die after a hit roll of 6)."""
    single = attrs.evolve(weapon, attacks="1", sustained_hits=None)

    def expected(auto: bool) -> Fraction:
        def procedure(d6: Callable[[], int]) -> int:
            rolled = iter([6])
            return resolve_unit([(single, 1)], target, ctx, lambda: next(rolled, None) or d6(),
                                lethal=lambda: auto)["damage"]

        return sum((k * p for k, p in enumerate_exact(procedure).items()), Fraction(0))

    return expected(True) >= expected(False)


def resolve_unit(firings: list[tuple[Weapon, int]], target: Target, ctx: Context, d6: Callable[[], int],
                 order: list[int] | None = None, lethal: Callable[[], bool] | None = None) -> dict:
    """Several weapon profiles in turn against a (mixed, possibly Attached) unit. `lethal` chooses, for each
    Critical Hit of a Lethal Hits weapon, whether it wounds automatically (default: the situation's policy)."""
    groups = target.groups
    rules = ctx.rules
    eleventh = rules.edition == "11e"
    if order is None:  # the defender's default: non-characters by fewest wounds, then characters
        order = sorted((g for g in range(len(groups)) if "CHARACTER" not in groups[g][0].keywords),
                       key=lambda g: groups[g][0].wounds)
        order += [g for g in range(len(groups)) if "CHARACTER" in groups[g][0].keywords]
    models = [{"group": g, "left": groups[g][0].wounds,
               "leader": target.attached and "CHARACTER" in groups[g][0].keywords}
              for g in order for _ in range(groups[g][1])]
    toughness = max(p.toughness for p, _ in groups if not (target.attached and "CHARACTER" in p.keywords))
    keywords = {k for p, _ in groups for k in p.keywords}
    stealthy = all("STEALTH" in p.keywords for p, _ in groups)
    totals = Counter()
    # the one roll kind it is kept for, until spent
    command_reroll = {"left": ctx.command_reroll.value if ctx.command_reroll else None}

    def receiver(precision: bool):
        alive = [m for m in models if m["left"] > 0]
        if not alive:
            return None
        guards = [m for m in alive if not m["leader"]]
        leaders = [m for m in alive if m["leader"]]
        if eleventh and precision:  # the 11th: the first CHARACTER group in the order, until it is destroyed
            chosen = next((m["group"] for m in models if m["leader"]), None)
            leaders = [m for m in leaders if m["group"] == chosen]
        pool = leaders if precision and leaders else (guards or [m for m in alive if m["leader"]])
        wounded = [m for m in pool if m["left"] < groups[m["group"]][0].wounds]
        return (wounded or pool)[0]

    def lose(points: int, weapon: Weapon, spill: bool, mortal: bool) -> None:
        """Points one at a time on one model; excess lost unless `spill` (then the next model takes them)."""
        model = receiver(weapon.precision)
        for _ in range(points):
            if model is None:
                return
            profile = groups[model["group"]][0]
            options = [profile.feel_no_pain, profile.feel_no_pain_psychic if weapon.psychic else None,
                       profile.feel_no_pain_mortal if mortal else None]
            fnp = min([t for t in options if t], default=None)
            if fnp is not None and d6() >= fnp:
                continue
            model["left"] -= 1
            totals["damage"] += 1
            if model["left"] == 0:
                if not spill:
                    return
                model = receiver(weapon.precision)

    deferred: list[tuple[Weapon, int, str]] = []  # waiting: a Devastating Wounds attack's roll, or mortal wounds

    def damage_roll(weapon: Weapon, profile, roll: int | None = None, remaining: int | None = None) -> int:
        """An attack's damage; `profile` (the model it is allocated to) None for spilling mortal wounds.
        With `remaining` (that model's wounds left) a Command Re-roll kept for damage may re-roll a roll
        below the dice's average that would not destroy the model."""

        def modified(raw: int) -> int:
            value = Fraction(raw)
            if profile is not None and profile.halve_damage:
                value /= 2
            if ctx.half_range:
                value += weapon.melta
            value += ctx.damage_bonus
            if profile is not None and profile.reduce_damage:
                value = max(Fraction(1), value - 1)
            return max(1, math.ceil(value))

        raw = rerolled_damage(weapon.damage) if roll is None else roll
        average = weapon.damage.count * Fraction(weapon.damage.sides + 1, 2) + weapon.damage.modifier
        if remaining is not None and command_reroll["left"] == "damage" and raw < average \
                and modified(raw) < remaining:
            command_reroll["left"] = None
            raw = roll_dice(weapon.damage, d6)
        return modified(raw)

    def rerolled_damage(dice: Dice) -> int:
        """A damage roll, die by die, with the attacker's damage re-roll."""
        def value(face: int) -> int:
            return face if dice.sides == 6 else math.ceil(face / 2)

        values = [value(d6()) for _ in range(dice.count)]
        total = sum(values) + dice.modifier
        average = dice.count * Fraction(dice.sides + 1, 2) + dice.modifier
        policy = ctx.reroll_damage
        if (policy is DamageReroll.ONES and total == 1) or (policy is DamageReroll.BELOW_AVERAGE and total < average):
            return roll_dice(dice, d6)
        if policy is DamageReroll.ONE_DIE and values and min(values) < Fraction(dice.sides + 1, 2):
            return total - min(values) + value(d6())
        return total

    def fire(weapon: Weapon, count: int) -> None:
        """Every attack of one weapon profile, one at a time."""
        ranged = not weapon.melee
        indirect = weapon.indirect_fire and ctx.indirect and ranged
        rolls = [roll_dice(weapon.attacks, d6) for _ in range(count)]
        average = weapon.attacks.count * Fraction(weapon.attacks.sides + 1, 2) + weapon.attacks.modifier
        lowest = min(range(count), key=lambda i: rolls[i])
        if command_reroll["left"] == "attacks" and rolls[lowest] < average:
            command_reroll["left"] = None
            rolls[lowest] = roll_dice(weapon.attacks, d6)
        attacks = 0
        for a in rolls:
            if weapon.rapid_fire and ctx.half_range:
                a += roll_dice(weapon.rapid_fire, d6)
            a += ((weapon.blast_x or weapon.blast) + weapon.cleave) * (target.model_count // 5)  # (11th: BLAST X)
            attacks += a + ctx.extra_attacks
        totals["attacks"] += attacks

        bonuses, penalties = [ctx.hit_modifier], []
        if ranged and weapon.heavy and ctx.stationary:
            bonuses.append(1)
        if ranged and stealthy and not eleventh:
            penalties.append(-1)
        if indirect and rules.indirect_fire is IndirectFire.LAUNCH:
            penalties.append(-1)
        psychic = weapon.psychic and eleventh  # the 11th: ignore any modifier to BS/WS and the hit roll
        hit_mod = sum(m for m in bonuses + penalties if not (psychic and m < 0))
        hit_mod = max(-1, min(1, hit_mod))
        # the 11th (as reported): the benefit of cover is -1 to the attacker's BS, Stealth gives it
        covered = ranged and not weapon.ignores_cover and (ctx.cover or all(p.cover for p, _ in groups) or indirect
                                                           or stealthy)
        skill = min(6, weapon.skill + (1 if eleventh and covered and not psychic else 0)) if weapon.skill else None
        choose = lethal
        if choose is None:
            policy = ctx.lethal_policy.value
            choice = best_lethal(weapon, target, ctx) if policy == "best" and weapon.lethal_hits else policy == "always"

            def choose() -> bool:
                return choice
        wound_mod = max(-1, min(1, ctx.wound_modifier + ctx.wound_modifier_against
                                + (1 if weapon.lance and ctx.charged else 0)))
        crit_wound = min([ctx.critical_wound] + [x for kw, x in weapon.anti if kw in keywords])
        crit_hit = min(ctx.critical_hit, 4 if weapon.conversion and ctx.beyond_conversion_range else 6)
        mortals = ctx.critical_mortals
        reroll_wounds = max(ctx.reroll_wounds, 2 if weapon.twin_linked else 0)

        def test(classify: Callable[[int], str], policy: int, kind: str) -> str:
            face = d6()
            verdict = classify(face)
            if (policy == 1 and face == 1) or (policy == 2 and verdict == "fail") or \
                    (policy == 3 and verdict != "crit"):
                return classify(d6())
            if verdict == "fail" and command_reroll["left"] == kind:
                command_reroll["left"] = None
                verdict = classify(d6())
            return verdict

        def hit_verdict(face: int) -> str:
            if face == 1 or (indirect and rules.indirect_fire is IndirectFire.LATER and face <= 3):
                return "fail"
            if ctx.overwatch:
                return "crit" if face == 6 else "fail"
            if face >= crit_hit:
                return "crit"
            return "hit" if face + hit_mod >= skill else "fail"

        def wound_verdict(face: int) -> str:
            if face == 1:
                return "fail"
            if face >= crit_wound:
                return "crit"
            return "wound" if face + wound_mod >= wound_needed(weapon.strength, toughness) else "fail"

        def saved(profile) -> bool:
            ap = min(0, weapon.ap + ctx.worsen_ap)
            cover = (ctx.cover or profile.cover or indirect) and ranged and not weapon.ignores_cover \
                and not (profile.save <= 3 and ap == 0) and not eleventh  # the 11th: no save bonus
            # the unmodified roll each save needs (at least 2: an unmodified 1 fails)
            armour_needed = max(2, profile.save - min(1, ap + (1 if cover else 0) + ctx.save_modifier))
            invulnerables = [x for x in (profile.invulnerable, profile.invulnerable_ranged if ranged else None) if x]
            needed = min([armour_needed] + [max(2, x - min(1, ctx.save_modifier)) for x in invulnerables])
            face = d6()
            if (ctx.reroll_saves is Reroll.ONES and face == 1) or (ctx.reroll_saves is Reroll.FAILED and face < needed):
                return d6() >= needed
            if face < needed and command_reroll["left"] == "save":
                command_reroll["left"] = None
                face = d6()
            return face != 1 and face >= needed

        def to_wound(auto: bool) -> None:
            verdict = "wound" if auto else test(wound_verdict, reroll_wounds, "wound")
            if verdict == "fail":
                return
            totals["wounds"] += 1
            if verdict == "crit" and mortals and mortals.roll == "wound":
                deferred.append((weapon, roll_dice(mortals.mortal_wounds, d6), "mortal"))
                if mortals.instead:
                    totals["unsaved"] += 1
                    return
            if verdict == "crit" and weapon.devastating_wounds:
                totals["unsaved"] += 1
                if rules.devastating_wounds is DevastatingWounds.UNSAVEABLE:
                    model = receiver(weapon.precision)
                    profile = groups[model["group"]][0] if model else groups[0][0]
                    lose(damage_roll(weapon, profile), weapon, spill=False, mortal=False)
                else:
                    deferred.append((weapon, rerolled_damage(weapon.damage), "devastating"))
                return
            model = receiver(weapon.precision)
            profile = groups[model["group"]][0] if model else groups[0][0]
            if saved(profile):
                return
            totals["unsaved"] += 1
            remaining = model["left"] if model else None
            lose(damage_roll(weapon, profile, remaining=remaining), weapon, spill=False, mortal=False)

        for _ in range(attacks):
            if weapon.torrent:
                totals["hits"] += 1
                to_wound(auto=False)
                continue
            verdict = test(hit_verdict, ctx.reroll_hits, "hit")
            if verdict == "fail":
                continue
            totals["hits"] += 1
            if verdict == "crit" and mortals and mortals.roll == "hit":
                deferred.append((weapon, roll_dice(mortals.mortal_wounds, d6), "mortal"))
                if mortals.instead:
                    continue
            extra = roll_dice(weapon.sustained_hits, d6) if verdict == "crit" and weapon.sustained_hits else 0
            to_wound(auto=verdict == "crit" and weapon.lethal_hits and choose())
            for _ in range(extra):
                totals["hits"] += 1
                to_wound(auto=False)

    for weapon, count in firings:
        fire(weapon, count)
    launch = rules.devastating_wounds is DevastatingWounds.LAUNCH
    for weapon, roll, kind in deferred:
        if kind == "mortal":  # mortal wounds inflicted by a Critical Hit or Wound: they spill over
            lose(roll, weapon, spill=True, mortal=True)
            continue
        model = receiver(weapon.precision)
        # the 11th: the attack's sequence ends, the target suffers mortal wounds equal to its Damage
        profile = None if launch or eleventh or model is None else groups[model["group"]][0]
        lose(damage_roll(weapon, profile, roll), weapon, spill=launch, mortal=True)
    per_group = [sum(1 for m in models if m["group"] == g and m["left"] == 0) for g in range(len(groups))]
    return {**{k: totals[k] for k in ("attacks", "hits", "wounds", "unsaved", "damage")},
            "destroyed": sum(per_group), "per_group": tuple(per_group)}


def simulate(weapon: Weapon, target: Target, models: int, ctx: Context, trials: int, seed: int) -> list[Outcome]:
    rng = random.Random(seed)
    return [resolve(weapon, target, models, ctx, lambda: rng.randint(1, 6)) for _ in range(trials)]


def simulate_unit(firings: list[tuple[Weapon, int]], target: Target, ctx: Context, trials: int, seed: int,
                  order: list[int] | None = None) -> list[dict]:
    rng = random.Random(seed)
    return [resolve_unit(firings, target, ctx, lambda: rng.randint(1, 6), order) for _ in range(trials)]


def enumerate_exact(procedure: Callable[[Callable[[], int]], Hashable]) -> Counter:
    """Exact distribution of a procedure's outcomes by replaying every possible sequence of D6 faces."""
    result: Counter = Counter()
    stack: list[list[int]] = [[]]
    while stack:
        faces = stack.pop()
        try:
            outcome = procedure(Script(faces))
        except NeedDie:
            stack.extend(faces + [f] for f in range(1, 7))
            continue
        result[outcome] += Fraction(1, 6 ** len(faces))
    return result

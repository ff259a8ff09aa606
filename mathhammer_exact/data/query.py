"""A datasheet unit attacking a target, by name: wargear, firing rules, named modifiers, consequences.

This is what `mathhammer unit` runs; tool authors can call `unit_attack` the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..engine.resolve import attack
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Firing, ModelProfile, MortalWounds, Target, Weapon
from .datasheet import Datasheet
from .load import datasheet as find_datasheet
from .load import modifier as find_modifier
from .modifiers import Modifier, apply_modifiers


@attrs.frozen
class Volley:
    """What a datasheet unit attacks with: weapon profiles with how many models use each, and
    for a Hazardous weapon the profile of the models using it."""

    weapons: tuple[tuple[Weapon, int, ModelProfile | None], ...]


def volley(sheet: Datasheet, loadout: Sequence[str] = (), size: int | None = None, melee: bool = False,
           pistols: bool = False, advanced: bool = False, profiles: Sequence[str] = ()) -> Volley:
    """The unit's weapons after its wargear choices and the rules on what may be used together.

    A model shoots its Pistols or its other ranged weapons, not both (MONSTER and VEHICLE
    models shoot all); after Advancing only Assault weapons shoot; in melee each model fights
    with one melee weapon. Weapons named in `loadout` come first, then the datasheet's order.
    """
    counts: dict[tuple[Weapon, ModelProfile | None], int] = {}
    for entry, gear in sheet.equip(loadout, size):
        weapons = [w for w in (sheet.profile(name, profiles) for name in gear) if w is not None]
        if melee:
            chosen = [w for w in weapons if w.melee][:1]
        else:
            ranged = [w for w in weapons if not w.melee]
            if advanced:
                ranged = [w for w in ranged if w.assault]
            big = {"MONSTER", "VEHICLE"} & set(entry.profile.keywords)
            pistol_only = [w for w in ranged if w.pistol]
            others = [w for w in ranged if not w.pistol]
            chosen = ranged if big else (pistol_only if pistols or not others else others)
        for weapon in chosen:
            key = (weapon, entry.profile if weapon.hazardous else None)
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        what = "melee weapons" if melee else ("ASSAULT weapons after Advancing" if advanced else "ranged weapons")
        raise MathhammerError(f"{sheet.name} has no {what} to attack with")
    named = [item.strip().lower() for item in loadout]

    def rank(weapon: Weapon) -> tuple[int, int]:
        base = weapon.name.split(" (")[0].lower()
        names = list(sheet.weapons)
        return (named.index(base) if base in named else len(named), names.index(base) if base in names else 0)

    ranked = sorted(counts.items(), key=lambda item: rank(item[0][0]))
    return Volley(tuple((weapon, n, bearer) for (weapon, bearer), n in ranked))


@attrs.frozen(eq=False)
class UnitReport:
    """A unit query's answer: the result, what fired, and under which named rules."""

    name: str
    result: AttackResult
    firings: tuple[Firing, ...]
    modifiers: tuple[Modifier, ...]


def unit_attack(
    attacker: str | Datasheet,
    target: Target,
    loadout: Sequence[str] = (),
    size: int | None = None,
    modifiers: Sequence[str | Modifier] = (),
    context: Context | None = None,
    melee: bool = False,
    pistols: bool = False,
    profiles: Sequence[str] = (),
    exact: bool = False,
    order: Sequence[int] | None = None,
    insane_bravery: bool = False,
) -> UnitReport:
    """A datasheet unit (by name) attacks `target` with its loadout under named modifiers."""
    sheet = attacker if isinstance(attacker, Datasheet) else find_datasheet(attacker)
    context = context or Context()
    mods = [m if isinstance(m, Modifier) else find_modifier(m) for m in (*sheet.always, *modifiers)]
    shots = volley(sheet, loadout, size, melee, pistols, context.advanced, profiles)
    weapons = [w for w, _, _ in shots.weapons]
    situated, target, context = apply_modifiers(mods, weapons, target, context)
    firings: list[Firing | MortalWounds] = [m.mortal_wounds for m in mods if m.mortal_wounds]
    firings += [Firing(w, n, ctx, bearer) for (w, ctx), (_, n, bearer) in zip(situated, shots.weapons)]
    result = attack(firings, target, context=context, exact=exact, order=order)
    if insane_bravery and result.p_battle_shocked is not None:
        result = attrs.evolve(result, p_battle_shocked=0 * result.p_below_half)
    return UnitReport(sheet.name, result, tuple(f for f in firings if isinstance(f, Firing)), tuple(mods))

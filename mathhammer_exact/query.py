"""A datasheet unit attacking a target, by name: wargear, firing rules, named modifiers, consequences.

This is what `mathhammer unit` runs; tool authors can call `unit_attack` the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from .consequences import BattleShock, battle_shock, hazardous_losses
from .datasheet import Datasheet
from .errors import MathhammerError
from .model import Context, ModelProfile, Target, Weapon
from .modifiers import Modifier, apply_modifiers
from .pmf import Pmf
from .rules_data import datasheet as find_datasheet
from .rules_data import modifier as find_modifier
from .unit import Firing, MortalWounds, UnitResult, attack_unit


@attrs.frozen
class Volley:
    """What a datasheet unit attacks with: weapon profiles with how many models use each,
    and the model that used each Hazardous weapon."""

    weapons: tuple[tuple[Weapon, int], ...]
    hazardous: tuple[ModelProfile, ...]


def volley(sheet: Datasheet, loadout: Sequence[str] = (), size: int | None = None, melee: bool = False,
           pistols: bool = False, advanced: bool = False, profiles: Sequence[str] = ()) -> Volley:
    """The unit's weapons after its wargear choices and the rules on what may be used together.

    A model shoots its Pistols or its other ranged weapons, not both (MONSTER and VEHICLE
    models shoot all); after Advancing only Assault weapons shoot; in melee each model fights
    with one melee weapon. Weapons named in `loadout` come first, then the datasheet's order.
    """
    counts: dict[Weapon, int] = {}
    hazardous: list[ModelProfile] = []
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
            counts[weapon] = counts.get(weapon, 0) + 1
            if weapon.hazardous:
                hazardous.append(entry.profile)
    if not counts:
        what = "melee weapons" if melee else ("ASSAULT weapons after Advancing" if advanced else "ranged weapons")
        raise MathhammerError(f"{sheet.name} has no {what} to attack with")
    named = [item.strip().lower() for item in loadout]

    def rank(weapon: Weapon) -> tuple[int, int]:
        base = weapon.name.split(" (")[0].lower()
        names = list(sheet.weapons)
        return (named.index(base) if base in named else len(named), names.index(base) if base in names else 0)

    return Volley(tuple(sorted(counts.items(), key=lambda item: rank(item[0]))), tuple(hazardous))


@attrs.frozen(eq=False)
class UnitReport:
    """A unit query's answer: the attack, the attacker's Hazardous losses, the target's Battle-shock."""

    result: UnitResult
    firings: tuple[Firing, ...]
    modifiers: tuple[Modifier, ...]
    hazardous: Pmf | None
    battle_shock: BattleShock


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
    weapons = [w for w, _ in shots.weapons]
    situated, target, context = apply_modifiers(mods, weapons, target, context)
    firings: list[Firing | MortalWounds] = [
        MortalWounds(m.mortal_wounds.dice, m.mortal_wounds.success) for m in mods if m.mortal_wounds]
    firings += [Firing(w, n, ctx) for (w, ctx), (_, n) in zip(situated, shots.weapons)]
    result = attack_unit(firings, target, context, exact, order)
    hazard = hazardous_losses(shots.hazardous, context.rules, exact) if shots.hazardous else None
    shock = battle_shock(target, result.models_destroyed, result.damage, insane_bravery)
    return UnitReport(result, tuple(f for f in firings if isinstance(f, Firing)), tuple(mods), hazard, shock)

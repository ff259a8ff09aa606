"""Weapons written for the command line: ``9x 24" A2 BS3+ S4 AP-1 D1 @half-range,cover``.

A leading ``Nx`` gives the number of models using the weapon (``?x`` marks the one whose number
`--need` looks for); a trailing ``@`` lists situation flags that hold for that weapon only, on top
of the situation of the whole query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import MathhammerError
from ..model import Context, Firing, MortalWounds, Target, Weapon

if TYPE_CHECKING:
    from ..data.datasheet import Datasheet, TargetUnit
    from ..units.by_name import Leaders, Nears

#: flag written after ``@`` -> the `Context` field it sets
FLAGS = {"cover": "cover", "half-range": "half_range", "charged": "charged", "stationary": "stationary",
         "advanced": "advanced", "overwatch": "overwatch", "indirect": "indirect", "engaged": "engaged",
         "far": "beyond_conversion_range"}
_COUNT = re.compile(r"\s*(\d+|\?)\s*x\s+(.*)", re.IGNORECASE | re.DOTALL)


@attrs.frozen
class Written:
    """One weapon as written: the firing, and whether its number of models is sought (``?x``)."""

    firing: Firing
    text: str  #: the weapon profile as written, without the count and flags
    counted: bool = False  #: the number of models was written (``Nx`` or ``?x``)
    sought: bool = False  #: written ``?x``
    unit: Datasheet | None = None  #: the unit named whose loadout this weapon is of, if any
    leaders: tuple[Datasheet, ...] = ()  #: the Leaders attached to that unit (`with_leader`)
    leading: bool = False  #: a weapon of the Leader (`unit`), attacking with the unit it leads
    loadout: tuple[str, ...] = ()  #: the wargear choices that unit attacks with (`with_loadout`; none: its default)


def written(text: str, models: int = 1, context: Context | None = None) -> Written:
    """Read ``[Nx ]PROFILE[ @flag,flag]``; without ``Nx`` the weapon is used by `models` models."""
    sought = False
    match = _COUNT.fullmatch(text)
    counted = match is not None
    if match:
        count, text = match.groups()
        sought = count == "?"
        models = 1 if sought else int(count)
    profile, _, flags = text.partition("@")
    if not profile.strip():
        raise MathhammerError(f"no weapon profile in {text!r}")
    situation = context
    names = [f.strip().lower() for f in flags.split(",") if f.strip()]
    if names:
        unknown = [f for f in names if f not in FLAGS]
        if unknown:
            raise MathhammerError(f"unknown situation flag @{unknown[0]} (allowed: {', '.join(FLAGS)})")
        changes: dict[str, Any] = {FLAGS[f]: True for f in names}
        situation = attrs.evolve(context or Context(), **changes)
    weapon = Weapon.parse(profile, edition=(situation or Context()).rules.edition)  # the edition's abilities
    return Written(Firing(weapon, models, situation), profile.strip(), counted, sought)


def loadout(texts: Sequence[str], models: int = 1, context: Context | None = None,
            sought: bool = False) -> list[Written]:
    """Several weapons as written, fired in the order given; ``?x`` only where `sought` allows it."""
    if not texts:
        raise MathhammerError("give at least one weapon")
    found = [written(text, models, context) for text in texts]
    if not sought and any(w.sought for w in found):
        raise MathhammerError("a weapon written '?x' goes with `attack --need`")
    return found


def weapons_or_units(texts: Sequence[str], models: int = 1, context: Context | None = None,
                     melee: bool = False, led_by: Leaders = None, near: Nears = None) -> list[Written]:
    """Several weapons as written, or units by name ('Intercessor Squad', 'army.rosz#3'): a unit
    brings every weapon its default loadout attacks with (its melee weapons with `melee`), and
    `led_by` the Leaders that join the first unit named that they can lead (`with_leader`). A name several
    factions use is settled by `near`, the question's other units (as `mathhammer unit` settles it)."""
    from ..units.by_name import datasheet  # the data layer, only when a unit is named

    found: list[Written] = []
    for text in texts:
        try:
            found += loadout([text], models, context)
            continue
        except MathhammerError as not_weapon:
            try:
                sheet = datasheet(text, near=near)
            except MathhammerError as not_unit:
                raise MathhammerError(f"{text.strip()!r} is neither a weapon profile ({not_weapon}) nor a unit "
                                      f"({not_unit})") from None
        found += unit_weapons(sheet, context, melee)
    return found if not led_by else with_leader(found, led_by, context, melee)


def unit_weapons(sheet: Datasheet, context: Context | None = None, melee: bool = False,
                 loadout: Sequence[str] = ()) -> list[Written]:
    """Every weapon a unit's loadout (its default, or the wargear choices `loadout`) attacks with (its melee weapons
    with `melee`)."""
    from .unit_attack import volley

    situation = context or Context()
    shots = volley(sheet, loadout, melee=melee, advanced=situation.advanced, unseen=situation.indirect,
                   stationary=situation.stationary)
    return [Written(Firing(weapon, n, context, bearer), f"{sheet.name}: {weapon.name}", True, unit=sheet,
                    loadout=tuple(loadout)) for weapon, n, bearer in shots.weapons]


def first_unit(found: Sequence[Written], option: str) -> Datasheet:
    """The first unit named among `found`; refused where none is (the `option` that needs one says so)."""
    unit = next((w.unit for w in found if w.unit and not w.leading), None)
    if unit is None:
        raise MathhammerError(f"{option} is for a unit named by its datasheet; name the unit")
    return unit


def with_loadout(found: Sequence[Written], loadout: Sequence[str], context: Context | None = None,
                 melee: bool = False, unit: Datasheet | None = None) -> list[Written]:
    """`found` with the weapons of `unit` (by default the first unit named) as the wargear choices `loadout` equip
    it, in their place (a trial could not field a unit's special weapons in a turn)."""
    if not loadout:
        return list(found)
    unit = unit or first_unit(found, "--loadout")
    out: list[Written] = []
    for w in found:
        if w.unit is not None and w.unit == unit and not w.leading:
            if not any(o.unit is w.unit for o in out):
                out += unit_weapons(w.unit, context, melee, loadout)
            continue
        out.append(w)
    return out


def with_leader(found: Sequence[Written], led_by: Leaders, context: Context | None = None,
                melee: bool = False, unit: Datasheet | None = None) -> list[Written]:
    """`found` and the weapons of the Leaders `led_by`, joined to `unit` where it is among them, by default to the
    first unit named that they can lead (checked). A Leader with nothing to attack with in the phase (a Tyranid Prime
    with a lash whip, shooting) adds no weapons: its unit still attacks, and its header says so."""
    from .unit_attack import attached_leaders

    unit = unit or led_unit(found, led_by)
    units = [w.unit for w in found if w.unit]
    joined = next((u for u in units if u == unit), None)
    if joined is None:  # the unit they lead attacks in another phase of the question
        return list(found)
    leaders = attached_leaders(led_by, joined)
    led = [attrs.evolve(w, leaders=leaders) if w.unit is joined else w for w in found]
    return [*led, *(attrs.evolve(w, leading=True) for leader in leaders for w in _leaders_weapons(leader, context,
                                                                                                 melee))]


def led_unit(found: Sequence[Written], led_by: Leaders) -> Datasheet:
    """The first unit named in `found` that the Leaders `led_by` can lead; refused, saying why the first cannot, where
    none can (a trial's Tyranid Prime, leading the Hormagaunts that charge, refused as leading the Leman Russ that
    shoots first)."""
    from .unit_attack import attached_leaders

    first_unit(found, "--led-by")
    units = list({id(w.unit): w.unit for w in found if w.unit}.values())
    problems = []
    for unit in units:
        try:
            attached_leaders(led_by, unit)
        except MathhammerError as exc:
            problems.append(exc)
            continue
        return unit
    raise problems[0]


def led_turn(shots: Sequence[Written], blows: Sequence[Written], led_by: Leaders, loadout: Sequence[str] = (),
             context: Context | None = None) -> tuple[list[Written], list[Written]]:
    """A turn's shooting and fighting weapons: the first unit named with the wargear choices `loadout`, and the
    Leaders `led_by` joined to the one unit they lead, the first named in either phase that they can lead; each in
    every phase its unit attacks in."""
    if loadout:
        unit = first_unit([*shots, *blows], "--loadout")
        shots = with_loadout(shots, loadout, context, False, unit)
        blows = with_loadout(blows, loadout, None, True, unit)
    if not led_by:
        return list(shots), list(blows)
    unit = led_unit([*shots, *blows], led_by)
    return with_leader(shots, led_by, context, False, unit), with_leader(blows, led_by, None, True, unit)


def _leaders_weapons(leader: Datasheet, context: Context | None, melee: bool) -> list[Written]:
    """The weapons a Leader attacks with in the phase, none where it has nothing it may use there."""
    try:
        return unit_weapons(leader, context, melee)
    except MathhammerError:  # said in its unit's header (`unit_attack._led`: 'it attacks with nothing here')
        return []


Attacking = Firing | MortalWounds  #: a weapon's attacks, or the mortal wounds an ability of the unit inflicts
Said = tuple[str, str]  #: a header line: the unit named it is about ("" for the target's), and what it says
LOADOUT = "the weapons of its loadout (its datasheet's default, or as its army list has it)"


def _its_loadout(w: Written) -> str:
    """The header's words for the weapons a unit attacks with: its loadout, or the wargear chosen for it."""
    return f"the weapons of the wargear chosen ({', '.join(item.strip() for item in w.loadout)})" if w.loadout \
        else LOADOUT


def attacking(written: Sequence[Written], target: TargetUnit, context: Context, melee: bool = False,
              one_each: bool = False, modifiers: Sequence[str] = (),
              ) -> tuple[list[list[Attacking]], Target, list[Said]]:
    """The weapons as they attack `target` in the `context` of their phase, one part for each of `written`: a unit
    named among them attacks as `mathhammer unit` makes it attack (its abilities, wargear rules and Leader applied:
    `planned_attack`), every attack of it in its first weapon's part (the others' empty); the other weapons meet the
    target's abilities alone (`defended`). With `one_each` (`plan` orders the weapons one by one), each weapon of a
    unit gets the one attack planned for it; where the unit's attacks are not one per weapon (mortal wounds an
    ability inflicts, models of a kind counted apart) they meet the target alone, and a line says so. Also the
    target as they leave it (one for all: refused where they leave it differently) and the header's lines: what
    `unit` would say of each unit (the options it names are that command's), and what the target's abilities do.
    `modifiers` names rules (`unit --with`) that each unit named attacks under, refused beside a weapon written out."""
    from .unit_attack import defended, planned_attack

    written_out = next((w for w in written if w.unit is None), None)
    if modifiers and written_out is not None:
        raise MathhammerError(f"--with applies named rules as `mathhammer unit` does, to units named by their "
                              f"datasheets; {written_out.text!r} is a weapon written out: name its unit instead")

    parts: list[list[Attacking] | None] = [None] * len(written)  # None: the weapon meets the target alone
    targets: list[Target] = []
    lines: list[Said] = []
    for i, w in enumerate(written):
        if w.unit is None or w.leading or any(o.unit is w.unit for o in written[:i]):
            continue  # a weapon alone, a Leader's (with its unit's), or a unit's already planned
        unit = w.unit
        its = planned_attack(unit, target, w.loadout, modifiers=modifiers, context=context, melee=melee,
                             led_by=w.leaders)
        mine = [j for j, o in enumerate(written)
                if o.unit is unit or o.leading and any(o.unit is leader for leader in w.leaders)]
        planned = list(its.plan.firings)
        if not one_each:
            for j in mine:
                parts[j] = planned if j == i else []
        elif [(f.weapon.name, f.models) if isinstance(f, Firing) else None for f in planned] == [
                (written[j].firing.weapon.name, written[j].firing.models) for j in mine]:
            for j, f in zip(mine, planned):
                parts[j] = [f]
        elif modifiers:  # (a review found them dropped, and the header silent on it)
            raise MathhammerError(f"--with {', '.join(map(repr, modifiers))}: a plan orders {unit.name}'s weapons one "
                                  "by one, and its attacks are not one per weapon here (mortal wounds a rule "
                                  "inflicts, or models of a kind counted apart): ask `mathhammer unit` or `turn`")
        else:
            lines += [(unit.name, f"({unit.faction}) {_its_loadout(w)}; its abilities are not applied here: its "
                                  "attacks are not one per weapon (mortal wounds an ability inflicts, or models of a "
                                  "kind counted apart); `turn` and `unit` apply them"),
                      *((unit.name, f"note: {note}") for note in unit.notes)]
            continue
        targets.append(its.plan.target)
        lines += [(unit.name, f"({unit.faction}) {_its_loadout(w)}, attacking as `mathhammer unit` makes them "
                              "attack (its abilities, wargear rules and Leader applied); the lines after its name are "
                              "that command's"),
                  *((unit.name, line) for line in its.situation if line not in target.notes)]
    alone = [w.firing for w, part in zip(written, parts) if part is None]
    if alone or not targets:
        met, left, said = defended(target, alone, context)
        targets.insert(0, left)
        lines = [("", line) for line in said] + lines
        weapons = iter(met)
        parts = [[next(weapons)] if part is None else part for part in parts]
    if any(t != targets[0] for t in targets):
        raise MathhammerError(f"the abilities of {target.label} or of the units attacking it change its models for "
                              "some of these attacks only (one unit, one phase, or one situation): ask about them "
                              "apart")
    return [part or [] for part in parts], targets[0], lines


def said(lines: Sequence[Said]) -> list[str]:
    """The header's lines, each about a unit after its name."""
    return [f"{who}: {text}" if who and not text.startswith("(") else f"{who} {text}" if who else text
            for who, text in lines]


def describe(weapons: Sequence[Written]) -> str:
    """``9 x [profile] + 1 x [profile]`` for titles."""
    return " + ".join(f"{'?' if w.sought else w.firing.models} x [{w.text}]" for w in weapons)

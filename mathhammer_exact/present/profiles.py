"""Profiles as understood: a weapon and a target said back field by field, in words.

Every answer's header prints these, so a profile read differently from what its writer meant
(``Damage 3`` where a D3 roll was meant) shows at once. `weapon_string` and `target_string`
write a profile back in the input grammar; parsing that text gives the same profile.

>>> from mathhammer_exact import Target, Weapon
>>> print(weapon_summary(Weapon.parse('24" A2 BS3+ S4 AP-1 DD3 [SUSTAINED HITS 1, LETHAL HITS]')))
Range 24" | Attacks 2 | BS 3+ | Strength 4 | AP -1 | Damage D3 (roll) | Sustained Hits 1, Lethal Hits
>>> print(weapon_summary(Weapon.parse("Melee A3 WS3+ S4 AP0 D=3")))
Melee | Attacks 3 | WS 3+ | Strength 4 | AP 0 | Damage 3
>>> print(target_summary(Target.parse("T4 Sv3+ inv5+ W2 x5 [INFANTRY]")))
5 models: Toughness 4 | Save 3+ | Invulnerable save 5+ | Wounds 2 | keywords INFANTRY
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from ..abilities import Ability
from ..dice import Dice
from ..editions import Cover
from ..engine.consequences import below_half
from ..model import Context, DevastatingWounds, Firing, ModelProfile, Target, Weapon, declared_fields, every_ability
from ..stages.hit import hit_modifier, ignores_modifiers, skill_worsened, stealth_said
from ..stages.save import has_cover
from .situation import situation


def _amount(dice: Dice) -> str:
    """``3`` for a fixed number, ``D3 (roll)`` for a roll."""
    return str(dice) if dice.count == 0 else f"{dice} (roll)"


def _spoken(ability: Ability, value: Any) -> list[tuple[str, str]]:
    """One ability's value as (words for people, text for the input grammar); several for keywords."""
    if ability.kind == "flag":
        return [(ability.words, ability.name)]
    if ability.kind == "dice":
        return [(f"{ability.words} {_amount(value)}", f"{ability.name} {value}")]
    if ability.kind == "distance":
        return [(f'{ability.words} (beyond {value}")', f'{ability.name} {value}"')]
    if ability.kind == "keyword":
        return [(f"{ability.words}-{keyword} {x}+", f"{ability.name}-{keyword} {x}+") for keyword, x in value]
    return [(f"{ability.words} {value}", f"{ability.name} {value}")]


def _abilities(weapon: Weapon) -> list[tuple[str, str]]:
    """Each ability as (words for people, text for the input grammar), in the order a datasheet prints them."""
    return [spoken for ability in every_ability(type(weapon)) if getattr(weapon, ability.field)
            for spoken in _spoken(ability, getattr(weapon, ability.field))]


def weapon_summary(weapon: Weapon) -> str:
    """The weapon as understood, field by field: ``Range 24" | Attacks 2 | BS 3+ | ... | Damage D3 (roll)``,
    then its abilities in words and any rules left out (``ignored: ...``)."""
    reach = ["Melee"] if weapon.melee else ([f'Range {weapon.range}"'] if weapon.range else [])
    skill = "N/A" if weapon.skill is None else f"{weapon.skill}+"
    parts = [*reach, f"Attacks {_amount(weapon.attacks)}", f"{'WS' if weapon.melee else 'BS'} {skill}",
             f"Strength {weapon.strength}", f"AP {weapon.ap}", f"Damage {_amount(weapon.damage)}"]
    abilities = _abilities(weapon)
    if abilities:
        parts.append(", ".join(words for words, _ in abilities))
    if weapon.ignored:
        parts.append("ignored: " + ", ".join(weapon.ignored))
    return " | ".join(parts)


def model_summary(profile: ModelProfile) -> str:
    """One model's characteristics in words: ``Toughness 4 | Save 3+ | Wounds 2 | ...``."""
    parts = [f'Move {profile.movement}"'] if profile.movement else []
    parts += [f"Toughness {profile.toughness}", f"Save {profile.save}+"]
    if profile.invulnerable:
        parts.append(f"Invulnerable save {profile.invulnerable}+")
    if profile.invulnerable_ranged:
        parts.append(f"Invulnerable save {profile.invulnerable_ranged}+ against ranged attacks")
    parts.append(f"Wounds {profile.wounds}")
    if profile.leadership:
        parts.append(f"Leadership {profile.leadership}+")
    if profile.objective_control is not None:
        parts.append(f"OC {profile.objective_control}")
    for value, against in ((profile.feel_no_pain, ""), (profile.feel_no_pain_mortal, " against mortal wounds"),
                           (profile.feel_no_pain_psychic, " against psychic attacks")):
        if value:
            parts.append(f"Feel No Pain {value}+{against}")
    if profile.reduce_damage:
        parts.append("damage reduced by 1")
    if profile.halve_damage:
        parts.append("damage halved")
    if profile.keywords:
        parts.append("keywords " + ", ".join(profile.keywords))
    if profile.ignored:
        parts.append("ignored: " + ", ".join(profile.ignored))
    return " | ".join(parts)


def target_summary(target: Target) -> str:
    """Each model group of the target with its count: ``5 models: Toughness 4 | ...``; an Attached
    unit's leader is marked; the Starting Strength of a unit that has lost models."""
    groups = []
    for profile, count in target.groups:
        label = f"{count} model{'s' if count != 1 else ''}"
        if target.attached and profile.character:
            label += " (attached leader)"
        groups.append(f"{label}: {model_summary(profile)}")
    lost = target.lost_before
    if lost:
        besides = " besides its leaders" if target.attached else ""
        already = below_half(target.model_count + lost, np.asarray(target.model_count))  # (a trial: unsaid)
        below = ": Below Half-strength already" if already else ""
        groups.append(f"Starting Strength {target.starting}{besides} ({lost} model{'s' if lost != 1 else ''} lost "
                      f"before{below})")
    return "; ".join(groups)


def weapon_string(weapon: Weapon) -> str:
    """The weapon in the input grammar (``Weapon.parse`` reads it back; with ignored rules, in
    lenient mode): ``24" A2 BS3+ S4 AP-1 DD3 [SUSTAINED HITS 1]``."""
    reach = ["Melee"] if weapon.melee else ([f'{weapon.range}"'] if weapon.range else [])
    skill = "N/A" if weapon.skill is None else f"{weapon.skill}+"
    damage = str(weapon.damage)
    damage = f"D{damage}" if weapon.damage.count or damage not in ("3", "6") else f"D={damage}"
    text = " ".join([*reach, f"A{weapon.attacks}", f"{'WS' if weapon.melee else 'BS'}{skill}",
                     f"S{weapon.strength}", f"AP{weapon.ap}", damage])
    abilities = [grammar for _, grammar in _abilities(weapon)] + list(weapon.ignored)
    return f"{text} [{', '.join(abilities)}]" if abilities else text


def _model_string(profile: ModelProfile, count: int, leader: bool, started: int | None = None) -> str:
    parts = [f'M{profile.movement}"'] if profile.movement else []
    parts += [f"T{profile.toughness}", f"Sv{profile.save}+"]
    optional = [("inv", profile.invulnerable, "+"), ("inv-ranged", profile.invulnerable_ranged, "+"),
                ("W", profile.wounds, ""), ("Ld", profile.leadership, "+"), ("OC", profile.objective_control, ""),
                ("fnp", profile.feel_no_pain, "+"), ("fnp-mortal", profile.feel_no_pain_mortal, "+"),
                ("fnp-psychic", profile.feel_no_pain_psychic, "+")]
    parts += [f"{label}{value}{plus}" for label, value, plus in optional if value is not None]
    parts += [word for word, on in (("dr1", profile.reduce_damage), ("halve", profile.halve_damage)) if on]
    parts += [f"x{count}/{started}"] if started is not None else [f"x{count}"] if count != 1 else []
    parts += ["leader"] if leader else []
    parts += list(profile.ignored)
    keywords = [k for k in profile.keywords if not (leader and k == "CHARACTER")]
    parts += [f"[{', '.join(keywords)}]"] if keywords else []
    return " ".join(parts)


def target_string(target: Target) -> str:
    """The target in the input grammar (``Target.parse`` reads it back): ``T4 Sv3+ W2 x5 [INFANTRY]``; the models
    a unit lost before are written on its last group that is not a leader (``x3/5``)."""
    lost = target.lost_before
    led = [g for g, (profile, _) in enumerate(target.groups) if not (target.attached and profile.character)]
    return "; ".join(_model_string(profile, count, target.attached and profile.character,
                                   count + lost if lost and g == led[-1] else None)
                     for g, (profile, count) in enumerate(target.groups))


def header(firings: Sequence[Firing], target: Target, context: Context) -> tuple[str, ...]:
    """Header lines saying what was asked, as understood: each weapon with its models (and its own
    situation where it differs from the query's), then the target. Firings one after the other that read alike
    are one line (a Hazardous weapon fired by models of two kinds is two firings: each kind takes its tests)."""
    said = set(situation(context))
    shown: list[tuple[int, str]] = []
    for firing in firings:
        own = [line for line in situation(firing.context) if line not in said] \
            if firing.context is not None and firing.context != context else ()
        name = f"{firing.weapon.name}: " if firing.weapon.name else ""
        text = f"{name}{weapon_summary(firing.weapon)}" + (f" ({'; '.join(x.strip() for x in own)})" if own else "")
        if shown and shown[-1][1] == text:
            shown[-1] = (shown[-1][0] + firing.models, text)
        else:
            shown.append((firing.models, text))
    return (*(f"  {models} x {text}" for models, text in shown), f"  target: {target_summary(target)}",
            *readings(firings, target, context))


def readings(firings: Sequence[Firing], target: Target, context: Context) -> tuple[str, ...]:
    """The header's lines on how rules of the edition meet these attacks and this target (Stealth, cover that
    changes nothing, a Psychic weapon's penalties ignored, Devastating Wounds beside -1 Damage): every answer's,
    a compared unit scenario's too (a trial found its Stealth unsaid)."""
    ranged = [f for f in firings if not f.weapon.melee]
    stealth = stealth_said(target, ranged[0].context or context, melee=False) if ranged else []
    return (*(f"  {line}" for line in stealth), *_cover_changes_nothing(firings, target, context),
            *_psychic_ignores(firings, target, context), *_devastating_unreduced(firings, target, context),
            *_not_switched_on(firings, context))


#: the situation fields that switch a weapon ability's bonus on (Rapid Fire and Melta within half range, Heavy
#: after Remaining Stationary, Lance after charging, Conversion beyond its range); the others an ability `needs`
#: take something away (Blast into Engagement Range, Indirect Fire) or allow it (Assault after Advancing)
_SWITCHES = ("half_range", "stationary", "charged", "beyond_conversion_range")


def _not_switched_on(firings: Sequence[Firing], context: Context) -> list[str]:
    """A line for each weapon ability whose bonus its situation does not switch on, naming the weapons that have it
    and the option that does (a trial found a Rapid Fire weapon's answer silent on its Rapid Fire not counted)."""
    declared = {field.name: field.declared for field in declared_fields()}
    unmet: dict[tuple[str, str], list[str]] = {}
    for firing in firings:
        own = firing.context or context
        for ability in every_ability(Weapon):
            value = getattr(firing.weapon, ability.field)
            if not value or ability.ranged_only and firing.weapon.melee:
                continue
            for need in ability.needs:
                if need in _SWITCHES and not getattr(own, need):
                    shown = ability.words if ability.kind == "flag" else f"{ability.words} {value}"
                    names = unmet.setdefault((shown, need), [])
                    if firing.weapon.name and firing.weapon.name not in names:
                        names.append(firing.weapon.name)
    return [f"  not applied: {shown}" + (f" ({', '.join(names)})" if names else "")
            + f": only when {declared[need].words}; {declared[need].option} applies it"
            for (shown, need), names in unmet.items()]


def _devastating_unreduced(firings: Sequence[Firing], target: Target, context: Context) -> list[str]:
    """A line where a Devastating Wounds weapon meets a target whose abilities change the Damage of an attack
    allocated to it, in an edition whose Devastating Wounds attack is not allocated (the 11th's: its mortal wounds
    are its Damage, unchanged by them; `RulesEdition.devastating_allocated`): the project's reading, said (a trial)."""
    changed = [word for word, field in (("-1 Damage", "reduce_damage"), ("halved Damage", "halve_damage"))
               if any(getattr(profile, field) for profile, _ in target.groups)]
    waiting = sorted({f.weapon.name for f in firings if f.weapon.devastating_wounds
                      and (f.context or context).rules.devastating_wounds is DevastatingWounds.SEED
                      and not (f.context or context).rules.definition.devastating_allocated})
    if not changed or not waiting:
        return []
    whose = f" ({', '.join(name for name in waiting if name)})" if any(waiting) else ""
    return [f"  Devastating Wounds{whose}: mortal wounds equal to the Damage, which the target's "
            f"{' or '.join(changed)} does not change (in the {context.rules.definition.ordinal} edition the attack is "
            "not allocated: docs/rules.md)"]


def _psychic_ignores(firings: Sequence[Firing], target: Target, context: Context) -> list[str]:
    """A line where a PSYCHIC weapon ignores penalties the header names (the 11th edition: a worse BS in cover,
    --hit-mod -1, Stealth), so that they are not read as counted against it (a trial found them unsaid)."""
    def ignores(firing: Firing, profile: ModelProfile) -> bool:  # a penalty it would have without PSYCHIC
        own, plain = firing.context or context, attrs.evolve(firing.weapon, psychic=False)
        return ignores_modifiers(firing.weapon, own) and (
            hit_modifier(plain, profile, own) < hit_modifier(firing.weapon, profile, own)
            or skill_worsened(plain, profile, own) > 0)

    ignoring = sorted({f.weapon.name or "its PSYCHIC weapon" for f in firings for profile, _ in target.groups
                       if ignores(f, profile)})
    return [f"  Psychic: {', '.join(ignoring)} ignores the penalties to its hit roll and BS (docs/rules.md)"] \
        if ignoring else []


def _cover_changes_nothing(firings: Sequence[Firing], target: Target, context: Context) -> list[str]:
    """A line where the situation gives the target the Benefit of Cover (`--cover`) and, in an edition where cover
    improves the armour save, it improves none here (`stages.save.has_cover`: Ignores Cover, a melee attack, AP 0
    against a Save of 3+ or better), so that the header's 'Benefit of Cover' is not read as counted."""
    if not context.cover or context.rules.definition.cover is not Cover.SAVE or not firings:
        return []
    if any(has_cover(f.weapon, profile, f.context or context) for f in firings for profile, _ in target.groups):
        return []
    return ["  the Benefit of Cover changes no save here (it does not count for melee attacks, Ignores Cover, or an "
            "AP 0 attack against a Save of 3+ or better)"]

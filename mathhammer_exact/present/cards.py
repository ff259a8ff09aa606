"""Profile cards: datasheets, standard targets and named rules, as text for people; datasheets and army lists
as JSON for programs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..catalogue.convert import to_datasheet
from ..data import load, text_in_force
from ..data.datasheet import Datasheet
from ..data.modifiers import NamedRule, declared_for
from ..data.text_rules import TextAbility
from ..editions import TENTH, answered_edition
from ..errors import MathhammerError
from ..model import Target, Weapon
from ..units import by_name
from .profiles import model_summary, target_string, target_summary, weapon_summary

if TYPE_CHECKING:  # annotations only: the army-list reader loads only for an army list
    from ..catalogue.roster import Roster


def _weapon_line(name: str, profile: str, weapon: Weapon) -> str:
    """One weapon profile, field by field as understood (a rolled Damage says so)."""
    label = name if profile == "default" else f"{name} - {profile}"
    return f"  {label}: {weapon_summary(weapon)}"


def card(name: str, rules_dir: str | None = None) -> str:
    """A profile card for a datasheet, a standard target or a named rule (`rules_dir`: see load.library)."""
    lib = load.library(rules_dir)
    sheets, targets, mods = lib.sheets, lib.targets, lib.rules
    index: dict[str, tuple[str, str]] = {n: ("sheet", n) for n in sheets}
    index.update({n: ("target", n) for n in targets})
    index.update({k: ("rule", k) for k in mods})
    aliases = {a: s.name for s in sheets.values() for a in s.aliases}
    aliases.update({m.name: k for k, m in mods.items()})
    try:
        kind, key = load.find(name, index, "datasheet, target or rule", aliases)
    except MathhammerError as miss:
        sheet = by_name.unit_named(name, rules_dir)
        if sheet is None:
            raise by_name.unknown_unit(name, miss) from None
        return datasheet_card(sheet, mods)
    if kind == "rule":
        rule = mods[key]
        phase = {"either": "either phase", "shooting": "Shooting phase", "fight": "Fight phase"}[rule.phase]
        edition = answered_edition()
        lines = [f"{rule.name} ({rule.kind}, {rule.source}; {phase})", f"  {rule.summary}",
                 f"  In a query: {rule.header(edition)}"]
        lines += [f"  In the {edition.ordinal} edition, {what}: {gives}" for what, given, gives in (
            ("Stealth", rule.effect.stealth, edition.stealth.words),
            ("the Benefit of Cover", rule.effect.cover, edition.cover.words)) if given and edition is not TENTH]
        for who, test in (("attacker", rule.attacker), ("target", rule.target)):
            if test:
                lines.append(f"  The {who} must be {test.describe()}.")
        if rule.ability:
            lines.append(f"  The attacker must have the {rule.ability} ability.")
        return "\n".join(lines)
    if kind == "target":
        std = targets[key]
        return f"{std.name}: {std.description}\n  {target_summary(std.target)}"
    return datasheet_card(sheets[key], mods)


def _notes(sheet: Datasheet) -> tuple[str, ...]:
    """Everything noted reading the datasheet: its own notes, its models' defences and each kind's wargear, and what
    wargear gives the whole unit while a model carries it."""
    kinds = (note for m in sheet.models for note in (*m.defences, *m.notes))
    pieces = (note for notes in sheet.unit_worn.values() for note in notes)
    return tuple(dict.fromkeys((*sheet.notes, *sheet.defence_notes, *kinds, *pieces)))


def _how(ability: TextAbility) -> str:
    declared = ability.readings and all(r.rule.listed for r in ability.readings)
    if not declared:
        return "read from its text"
    return f"its army rule, {declared_for(ability.readings[0].rule, answered_edition())} (--with applies it)"


def datasheet_card(sheet: Datasheet, rules: Mapping[str, NamedRule] | None = None) -> str:
    """The card of a datasheet, with its abilities as read from text and the army rules of `rules` it lists."""
    lines = [f"{sheet.name} ({sheet.faction}; source: {sheet.source})"]
    by_size = [sheet.counts(size) for size in sheet.allowed_sizes()]
    joining = sum(m.max or 0 for m in sheet.models if not any(counts.get(m.name) for counts in by_size))
    for m in sheet.models:  # how many at its sizes, less what kinds that join in place of its models may take; a
        # kind that joins only as a loadout names its wargear: 0 to its most
        most = max((counts.get(m.name, 0) for counts in by_size), default=m.count)
        least = min((counts.get(m.name, 0) for counts in by_size), default=m.count)
        low, high = (max(m.count, least - joining), most) if most else (0, m.max or 0)
        size = f"{low}" if low == high else f"{low}-{high}"
        lines.append(f"  {size} x {m.name}: {model_summary(m.profile)}; equipped with {', '.join(m.equipment)}")
    lines.append("Weapons:")
    for weapon_name, profiles in sheet.weapons.items():
        for profile, weapon in profiles.items():
            lines.append(_weapon_line(weapon_name, profile, weapon))
    for option in sheet.options:
        limit = " (each once per unit)" if option.each_once else (f" (up to {option.max})" if option.max else "")
        article = "an" if option.model[:1].lower() in "aeiou" else "a"
        lines.append(f"Option: {article} {option.model} {option.offer()}{limit}")
    lines.append("Abilities: " + ", ".join(sheet.abilities))
    lines += [f"  {a.name}, {_how(a)}: {a.describe()}"
              for a in text_in_force.abilities(sheet, rules or {}, frozenset() if sheet.incomplete
                                               else text_in_force.default_wargear(sheet))]
    lines.append("Keywords: " + ", ".join(sheet.keywords))
    if sheet.points:
        lines.append("Points: " + ", ".join(f"{n} model{'s' * (n != 1)}: {p}" for n, p in sheet.points.items()))
    if sheet.incomplete:
        lines.append(f"Not fielded: {sheet.incomplete}")
    elif sheet.wargear_points:
        lines.append("Wargear points: " + ", ".join(f"{item} {cost} each" for item, cost in
                                                    sorted(sheet.wargear_points.items()))
                     + "; with the default wargear: " + ", ".join(
                         f"{n} model{'s' * (n != 1)}: {sheet.points_at(n)}" for n in sheet.points
                         if n in sheet.allowed_sizes()))
    if sheet.leader_of:
        lines.append("Leader of: " + ", ".join(sheet.leader_of))
    if sheet.attached_as:
        lines.append("Led by (Attached Unit): " + "; ".join(r.describe() for r in sheet.attached_as))
    lines += [f"Note: {note}" for note in _notes(sheet)]
    return "\n".join(lines)



def datasheet_json(sheet: Datasheet) -> dict[str, Any]:
    """A datasheet for programs (the web page's size and wargear controls): the sizes it allows, the models of
    each kind (at its smallest size, with the most of a kind that may vary), the wargear a loadout may name
    and the swaps that offer it, its weapons' profiles, points, abilities, the units it can lead and what
    reading it left out."""
    counts = sheet.counts()
    return {
        "name": sheet.name, "faction": sheet.faction, "sizes": list(sheet.allowed_sizes()),
        "points": {str(size): cost for size, cost in sheet.points.items()},
        "wargear_points": dict(sheet.wargear_points),
        "models": [{"name": m.name, "count": counts[m.name], "max": m.max, "equipment": list(m.equipment),
                    "profile": target_string(Target.of(m.profile, 1))} for m in sheet.models],
        "choices": sorted(sheet.choices()),
        "options": [{"model": o.model, "replaces": list(o.replaces), "choices": list(o.choices), "max": o.max,
                     "each_once": o.each_once} for o in sheet.options],
        "weapons": [{"name": name, "profiles": list(profiles), "melee": any(w.melee for w in profiles.values())}
                    for name, profiles in sheet.weapons.items()],
        "abilities": list(sheet.abilities), "leader_of": list(sheet.leader_of),
        "led_by": [r.describe() for r in sheet.attached_as],
        "notes": list(_notes(sheet)),
    }


def army_json(army: Roster) -> dict[str, Any]:
    """An army list's units, numbered from 1 as 'FILE#NUMBER' (or '#NUMBER' with a question to the server)
    names them, each with the datasheet it is of and its datasheet's description (`datasheet_json`)."""
    units = []
    for number, record in enumerate(army.units, 1):
        sheet = to_datasheet(record)
        units.append({"number": number, "datasheet": record["datasheet"], **datasheet_json(sheet)})
    return {"name": army.name, "edition": army.edition, "detachments": list(army.detachments), "units": units}

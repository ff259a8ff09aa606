"""Turning results into text for people (tables with ASCII bars) and for programs (JSON)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .model import ModelProfile, Weapon
from .pmf import Number, Pmf
from .result import AttackResult

if TYPE_CHECKING:  # the unit engine and rules data load only for the commands that use them
    from .query import UnitReport
    from .unit import UnitResult

LABELS = {
    "attacks": "attacks",
    "hits": "hits",
    "wounds": "wounds",
    "unsaved": "unsaved wounds",
    "damage": "damage dealt (wounds lost)",
    "models_destroyed": "models destroyed",
}
BAR_WIDTH = 30
SHOWN = 0.00005  # rows with P(=k) below this are counted in one line, not printed one by one


def number(value: Number) -> str | float:
    """A probability or mean for JSON: a float, or "p/q" in exact mode."""
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    return float(value)


def readable(value: Number, digits: int = 3) -> str:
    """A mean for people: the fraction when it is short, else a decimal."""
    if isinstance(value, Fraction) and len(str(value)) <= 12:
        return f"{value} (={float(value):.{digits}f})" if value.denominator != 1 else str(value)
    return f"{float(value):.{digits}f}"


def pmf_json(pmf: Pmf) -> dict[str, Any]:
    """``{"mean", "sd", "pmf"}`` with pmf[k] = P(X = k) from k = 0."""
    probs = [Fraction(0) if pmf.exact else 0.0] * max(pmf.min, 0) + pmf.probabilities()
    return {"mean": number(pmf.mean), "sd": pmf.sd, "pmf": [number(p) for p in probs]}


def result_json(result: AttackResult | UnitResult) -> dict[str, Any]:
    """The JSON object of the `attack` command (and the core of the `unit` command's)."""
    out: dict[str, Any] = {name: pmf_json(pmf) for name, pmf in result.stages().items()}
    out["p_destroyed"] = number(result.p_destroyed)
    return out


def unit_json(report: UnitReport) -> dict[str, Any]:
    """The JSON object of the `unit` command: the attack command's keys for the distributions it
    has, plus per-group losses, the attacker's Hazardous losses and the target's Battle-shock."""
    result = report.result
    out = result_json(result)
    out["groups"] = [{"name": g.profile.name, "models": g.count, "models_destroyed": pmf_json(g.models_destroyed),
                      "p_destroyed": number(g.p_destroyed)} for g in result.groups]
    out["hazardous_models_lost"] = pmf_json(report.hazardous) if report.hazardous else None
    shock = report.battle_shock
    out["battle_shock"] = {"below_half": number(shock.below_half),
                           "failed": None if shock.failed is None else number(shock.failed)}
    out["firings"] = [{"weapon": f.weapon.name, "models": f.models} for f in report.firings]
    out["modifiers"] = [m.name for m in report.modifiers]
    return out


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2)


def distribution_table(title: str, pmf: Pmf) -> str:
    """P(=k), P(>=k) and a bar for each value; negligible tails summed in one line."""
    lines = [title, f"  {'k':>4}  {'P(=k)':>8}  {'P(>=k)':>8}"]
    probs, tails = pmf.probabilities(), pmf.survival()
    top = max(float(p) for p in probs) or 1.0
    hidden = Fraction(0) if pmf.exact else 0.0
    hidden_count = 0
    for k, (p, tail) in enumerate(zip(probs, tails), pmf.min):
        if float(p) < SHOWN:
            hidden += p
            hidden_count += 1
            continue
        bar = "#" * round(BAR_WIDTH * float(p) / top)
        lines.append(f"  {k:>4}  {float(p):8.2%}  {float(tail):8.2%}  {bar}")
    if hidden_count:
        lines.append(f"  ({hidden_count} other values, each below {SHOWN:.3%}, total {float(hidden):.4%})")
    return "\n".join(lines)


def _summary(stages: dict[str, Pmf]) -> list[str]:
    width = max(len(label) for label in LABELS.values())
    lines = [f"{'':{width}}  {'mean':>14}  {'sd':>6}  {'median':>6}"]
    for name, pmf in stages.items():
        lines.append(f"{LABELS.get(name, name):{width}}  {readable(pmf.mean):>14}  {pmf.sd:6.3f}  {pmf.median:>6}")
    return lines


def _chance(label: str, p: Number) -> str:
    exact = f"  (exactly {p})" if isinstance(p, Fraction) and len(str(p)) < 40 else ""
    return f"{label} = {float(p):.4%}{exact}"


def result_text(result: AttackResult, heading: str = "") -> str:
    """The human output of the `attack` command: means first, then one table per stage."""
    stages = result.stages()
    lines = ([heading] if heading else []) + _summary(stages)
    lines.append(_chance("P(unit destroyed)", result.p_destroyed))
    for name, pmf in stages.items():
        lines += ["", distribution_table(LABELS[name], pmf)]
    return "\n".join(lines)


def unit_text(report: UnitReport, heading: str = "") -> str:
    """The human output of the `unit` command."""
    result = report.result
    lines = [heading] if heading else []
    lines += [f"  {f.models} x {f.weapon.name}" for f in report.firings]
    if report.modifiers:
        lines.append("  with: " + ", ".join(m.name for m in report.modifiers))
    lines += [""] + _summary(result.stages())
    lines.append(_chance("P(unit destroyed)", result.p_destroyed))
    for g in result.groups:
        label = f"{g.profile.name or 'models'} ({g.count})"
        lines.append(f"  {label}: {float(g.models_destroyed.mean):.3f} destroyed on average, "
                     f"P(all destroyed) = {float(g.p_destroyed):.4%}")
    shock = report.battle_shock
    lines.append(_chance("P(target Below Half-strength, not destroyed)", shock.below_half))
    if shock.failed is not None:
        lines.append(_chance("P(target then fails its Battle-shock test)", shock.failed))
    if report.hazardous is not None:
        lines.append(f"Hazardous: {float(report.hazardous.mean):.3f} attacking models lost on average, "
                     f"P(at least one) = {float(report.hazardous.at_least(1)):.4%}")
    for name in ("damage", "models_destroyed"):
        lines += ["", distribution_table(LABELS[name], result.stages()[name])]
    return "\n".join(lines)


def _weapon_line(name: str, profile: str, weapon: Weapon) -> str:
    skill = "N/A" if weapon.skill is None else f"{weapon.skill}+"
    reach = "Melee" if weapon.melee else (f'{weapon.range}"' if weapon.range else "")
    label = name if profile == "default" else f"{name} - {profile}"
    return f"  {label:38s} {reach:>6} A{str(weapon.attacks):5s} {'WS' if weapon.melee else 'BS'}{skill:4s} " \
           f"S{weapon.strength:<3} AP{weapon.ap:<3} D{weapon.damage}"


def card(name: str) -> str:
    """A profile card for a datasheet, a standard target or a named rule."""
    from . import rules_data

    sheets, targets, mods = rules_data.datasheets(), rules_data.standard_targets(), rules_data.modifiers()
    index: dict[str, tuple[str, str]] = {n: ("sheet", n) for n in sheets}
    index.update({n: ("target", n) for n in targets})
    index.update({k: ("rule", k) for k in mods})
    aliases = {a: s.name for s in sheets.values() for a in s.aliases}
    aliases.update({m.name: k for k, m in mods.items()})
    kind, key = rules_data.find(name, index, "datasheet, target or rule", aliases)
    if kind == "rule":
        mod = mods[key]
        return f"{mod.name} ({mod.kind}, {mod.source}; affects the {mod.side})\n  {mod.summary}"
    if kind == "target":
        std = targets[key]
        return f"{std.name}: {std.description}\n  " + "; ".join(
            f"{profile_text(p)} x{n}" for p, n in std.target.groups)
    sheet = sheets[key]
    lines = [f"{sheet.name} ({sheet.faction}; source: {sheet.source})"]
    for m in sheet.models:
        size = f"{m.count}" if m.max is None else f"{m.count}-{m.max}"
        lines.append(f"  {size} x {m.name}: {profile_text(m.profile)}  equipped with {', '.join(m.equipment)}")
    lines.append("Weapons:")
    for weapon_name, profiles in sheet.weapons.items():
        for profile, weapon in profiles.items():
            lines.append(_weapon_line(weapon_name, profile, weapon))
    for option in sheet.options:
        limit = " (each once per unit)" if option.each_once else (f" (up to {option.max})" if option.max else "")
        lines.append(f"Option: a {option.model} may replace its {option.replaces} with "
                     f"{' / '.join(option.choices)}{limit}")
    lines.append("Abilities: " + ", ".join(sheet.abilities))
    lines.append("Keywords: " + ", ".join(sheet.keywords))
    if sheet.points:
        lines.append("Points: " + ", ".join(f"{n} models: {p}" for n, p in sheet.points.items()))
    return "\n".join(lines)


def profile_text(profile: ModelProfile) -> str:
    parts = [f"T{profile.toughness}", f"Sv{profile.save}+"]
    if profile.invulnerable:
        parts.append(f"inv{profile.invulnerable}+")
    parts.append(f"W{profile.wounds}")
    if profile.leadership:
        parts.append(f"Ld{profile.leadership}+")
    if profile.feel_no_pain:
        parts.append(f"fnp{profile.feel_no_pain}+")
    if profile.keywords:
        parts.append(f"[{', '.join(profile.keywords)}]")
    return " ".join(parts)

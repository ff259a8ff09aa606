"""Turning results into text for people and for programs.

Every command builds one `Report` (named distributions, named chances, and details); the
same report renders as a table with ASCII bars, JSON, CSV, Markdown or HTML (notebooks).
"""

from __future__ import annotations

import csv
import html
import io
import json
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import attrs

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
    "p_destroyed": "P(unit destroyed)",
    "p_success": "P(success)",
}
FORMATS = ("table", "json", "csv", "markdown")
BAR_WIDTH = 30
SHOWN = 0.00005  # rows with P(=k) below this are counted in one line, not printed one by one


def number(value: Number) -> str | float:
    """A probability or mean for JSON and CSV: a float, or "p/q" in exact mode."""
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
    zero = Fraction(0) if pmf.exact else 0.0
    probs = [zero] * max(pmf.min, 0) + pmf.probabilities()
    return {"mean": number(pmf.mean), "sd": pmf.sd, "pmf": [number(p) for p in probs]}


@attrs.frozen(eq=False)
class Report:
    """What a command answers, independent of how it is shown."""

    title: str
    distributions: dict[str, Pmf]  #: JSON key -> distribution
    chances: dict[str, Number] = attrs.field(factory=dict)  #: JSON key -> probability
    labels: dict[str, str] = attrs.field(factory=dict)  #: key -> words for people
    details: dict[str, Any] = attrs.field(factory=dict)  #: further JSON keys
    notes: tuple[str, ...] = ()  #: further lines for people, after the chances
    preface: tuple[str, ...] = ()  #: lines for people right under the title
    tables: tuple[str, ...] | None = None  #: distributions shown in full (default: all)
    flat: bool = False  #: JSON puts the one distribution's mean, sd and pmf at the top level
    plotted: tuple[str, ...] | None = None  #: distributions drawn by --plot (default: those shown)

    def label(self, key: str) -> str:
        return self.labels.get(key, LABELS.get(key, key.replace("_", " ")))

    @property
    def shown(self) -> dict[str, Pmf]:
        keys = self.tables if self.tables is not None else tuple(self.distributions)
        return {k: self.distributions[k] for k in keys}

    @property
    def drawn(self) -> dict[str, Pmf]:
        return self.shown if self.plotted is None else {k: self.distributions[k] for k in self.plotted}


# --------------------------------------------------------------------- formats
def to_json(report: Report) -> str:
    if report.flat:
        data: dict[str, Any] = pmf_json(next(iter(report.distributions.values())))
    else:
        data = {key: pmf_json(pmf) for key, pmf in report.distributions.items()}
    data.update({key: number(p) for key, p in report.chances.items()})
    data.update(report.details)
    return json.dumps(data, indent=2)


def _rows(pmf: Pmf) -> list[tuple[int, Number, Number]]:
    return list(zip(range(pmf.min, pmf.max + 1), pmf.probabilities(), pmf.survival()))


def to_csv(report: Report) -> str:
    """One row per value of each distribution, then one per chance:
    ``quantity,value,p_equal,p_at_least``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["quantity", "value", "p_equal", "p_at_least"])
    for key, pmf in report.distributions.items():
        for k, p, tail in _rows(pmf):
            writer.writerow([key, k, number(p), number(tail)])
    for key, p in report.chances.items():
        writer.writerow([key, "", number(p), ""])
    return out.getvalue()


def _summary(report: Report) -> list[str]:
    width = max([len(report.label(k)) for k in report.distributions] + [8])
    lines = [f"{'':{width}}  {'mean':>14}  {'sd':>6}  {'median':>6}"]
    for key, pmf in report.distributions.items():
        lines.append(f"{report.label(key):{width}}  {readable(pmf.mean):>14}  {pmf.sd:6.3f}  {pmf.median:>6}")
    return lines


def percent(p: Number) -> str:
    """A probability for people; a tiny non-zero one is not shown as 0."""
    return "< 0.0001%" if 0 < float(p) < 5e-7 else f"{float(p):.4%}"


def _chance(label: str, p: Number) -> str:
    exact = f"  (exactly {p})" if isinstance(p, Fraction) and len(str(p)) < 40 else ""
    return f"{label} = {percent(p)}{exact}"


def distribution_table(title: str, pmf: Pmf) -> str:
    """P(=k), P(>=k) and a bar for each value; negligible values summed in one line."""
    lines = [title, f"  {'k':>4}  {'P(=k)':>8}  {'P(>=k)':>8}"]
    rows = _rows(pmf)
    top = max(float(p) for _, p, _ in rows) or 1.0
    hidden = [p for _, p, _ in rows if float(p) < SHOWN]
    for k, p, tail in rows:
        if float(p) >= SHOWN:
            lines.append(f"  {k:>4}  {float(p):8.2%}  {float(tail):8.2%}  {'#' * round(BAR_WIDTH * float(p) / top)}")
    if hidden:
        lines.append(f"  ({len(hidden)} other values, each below {SHOWN:.3%}, "
                     f"total {sum(float(p) for p in hidden):.4%})")
    return "\n".join(lines)


def to_table(report: Report) -> str:
    """For people: means first, then chances and notes, then a table per distribution."""
    lines = ([report.title] if report.title else []) + list(report.preface)
    if report.distributions:
        lines += _summary(report)
    lines += [_chance(report.label(k), p) for k, p in report.chances.items()]
    lines += list(report.notes)
    for key, pmf in report.shown.items():
        lines += ["", distribution_table(report.label(key), pmf)]
    return "\n".join(lines)


def _fraction_cell(p: Number) -> str:
    text = f"{float(p):.4%}"
    return text + (f" ({p})" if isinstance(p, Fraction) and len(str(p)) <= 24 else "")


def to_markdown(report: Report) -> str:
    lines = [f"**{report.title}**", ""] if report.title else []
    if report.preface:
        lines += [f"- {line.strip()}" for line in report.preface] + [""]
    if report.distributions:
        lines += ["| quantity | mean | sd | median |", "|---|---:|---:|---:|"]
        lines += [f"| {report.label(k)} | {float(p.mean):.4f} | {p.sd:.4f} | {p.median} |"
                  for k, p in report.distributions.items()]
        lines.append("")
    if report.chances:
        lines += ["| chance | probability |", "|---|---:|"]
        lines += [f"| {report.label(k)} | {_fraction_cell(p)} |" for k, p in report.chances.items()]
        lines.append("")
    if report.notes:
        lines += [f"- {note.strip()}" for note in report.notes] + [""]
    for key, pmf in report.shown.items():
        lines += [f"*{report.label(key)}*", "", "| k | P(=k) | P(>=k) |", "|---:|---:|---:|"]
        lines += [f"| {k} | {_fraction_cell(p)} | {_fraction_cell(t)} |" for k, p, t in _rows(pmf)] + [""]
    return "\n".join(lines).strip() + "\n"


def pmf_html(pmf: Pmf, title: str = "") -> str:
    """An HTML table of a distribution (notebooks)."""
    head = f"<caption>{html.escape(title)}</caption>" if title else ""
    rows = "".join(f"<tr><td>{k}</td><td>{float(p):.4%}</td><td>{float(t):.4%}</td></tr>" for k, p, t in _rows(pmf))
    return (f"<table>{head}<thead><tr><th>k</th><th>P(=k)</th><th>P(&ge;k)</th></tr></thead>"
            f"<tbody>{rows}</tbody></table><p>mean {float(pmf.mean):.4f}, sd {pmf.sd:.4f}</p>")


def to_html(report: Report) -> str:
    parts = [f"<h4>{html.escape(report.title)}</h4>"] if report.title else []
    parts += [f"<p>{html.escape(report.label(k))}: {float(p):.4%}</p>" for k, p in report.chances.items()]
    parts += [pmf_html(pmf, report.label(k)) for k, pmf in report.shown.items()]
    return "".join(parts)


def render(report: Report, fmt: str) -> str:
    """The report in one of FORMATS."""
    return {"table": to_table, "json": to_json, "csv": to_csv, "markdown": to_markdown}[fmt](report)


# --------------------------------------------------------------------- reports of each command
def attack_report(result: AttackResult, title: str = "") -> Report:
    """The `attack` command's report (JSON: the six distributions and p_destroyed)."""
    return Report(title, result.stages(), {"p_destroyed": result.p_destroyed},
                  plotted=("damage", "models_destroyed"))


def whole_unit_report(result: UnitResult, title: str = "") -> Report:
    """A whole-unit attack: the distributions it has, and each target group's losses."""
    names = [g.profile.name or f"group {i + 1}" for i, g in enumerate(result.groups)]
    notes = [f"{name} ({g.count}): {float(g.models_destroyed.mean):.3f} destroyed on average, "
             f"P(all destroyed) = {percent(g.p_destroyed)}" for name, g in zip(names, result.groups)]
    groups = [{"name": name, "models": g.count, "models_destroyed": pmf_json(g.models_destroyed),
               "p_destroyed": number(g.p_destroyed)} for name, g in zip(names, result.groups)]
    return Report(title, result.stages(), {"p_destroyed": result.p_destroyed}, details={"groups": groups},
                  notes=tuple(notes), tables=("damage", "models_destroyed"))


def unit_report(report: UnitReport, title: str = "") -> Report:
    """The `unit` command's report: a whole-unit attack plus the target's Battle-shock, the
    attacker's Hazardous losses, and what fired under which rules."""
    base = whole_unit_report(report.result, title)
    shock = report.battle_shock
    chances = {**base.chances, "p_below_half": shock.below_half}
    notes = list(base.notes)
    if shock.failed is not None:
        chances["p_battle_shocked"] = shock.failed
    else:
        notes.append("The target has no Leadership, so its Battle-shock test is not worked out.")
    if report.hazardous is not None:
        notes.append(f"Hazardous: {float(report.hazardous.mean):.3f} attacking models lost on average, "
                     f"P(at least one) = {percent(report.hazardous.at_least(1))}")
    preface = [f"  {f.models} x {f.weapon.name}" for f in report.firings]
    if report.modifiers:
        preface.append("  with: " + ", ".join(m.name for m in report.modifiers))
    details = {
        **base.details,
        "hazardous_models_lost": pmf_json(report.hazardous) if report.hazardous else None,
        "firings": [{"weapon": f.weapon.name, "models": f.models} for f in report.firings],
        "modifiers": [m.name for m in report.modifiers],
    }
    labels = {"p_below_half": "P(target Below Half-strength, not destroyed)",
              "p_battle_shocked": "P(target then fails its Battle-shock test)"}
    return attrs.evolve(base, chances=chances, labels=labels, details=details, notes=tuple(notes),
                        preface=tuple(preface))


def _weapon_line(name: str, profile: str, weapon: Weapon) -> str:
    skill = "N/A" if weapon.skill is None else f"{weapon.skill}+"
    reach = "Melee" if weapon.melee else (f'{weapon.range}"' if weapon.range else "")
    label = name if profile == "default" else f"{name} - {profile}"
    return f"  {label:38s} {reach:>6} A{str(weapon.attacks):5s} {'WS' if weapon.melee else 'BS'}{skill:4s} " \
           f"S{weapon.strength:<3} AP{weapon.ap:<3} D{weapon.damage}"


def card(name: str) -> str:
    """A profile card for a datasheet, a standard target or a named rule."""
    from . import rules_data  # the rules data load only when asked for

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

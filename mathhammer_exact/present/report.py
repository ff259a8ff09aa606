"""Turning results into text for people and for programs.

Every command builds one `Report` (named distributions, named chances, and details); the
same report renders as a table with ASCII bars, JSON, CSV, Markdown or HTML (notebooks).
"""

from __future__ import annotations

import csv
import html
import io
import json
import sys
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import attrs

from ..pmf import Number, Pmf, pmf_html, rows
from .profiles import header
from .situation import situation

if TYPE_CHECKING:  # for annotations only: a command that prints dice tests need not load the engine
    from ..decide.unit_attack import UnitReport
    from ..engine.results import AttackResult
    from ..model import Context

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


def _decimal(n: int) -> str:
    """`str(n)` for an integer of any size: Python refuses more than 4,300 digits by default (a guard
    against parsing huge input), and an exact answer to a big volley has numbers that long."""
    limit = sys.get_int_max_str_digits()
    if not limit or abs(n).bit_length() < 14_000:  # 4,300 digits are about 14,280 bits
        return str(n)
    sys.set_int_max_str_digits(0)
    try:
        return str(n)
    finally:
        sys.set_int_max_str_digits(limit)


def short(value: Number, length: int) -> bool:
    """Whether `value` is a fraction that prints in at most `length` characters (checked without
    printing a huge one)."""
    return (isinstance(value, Fraction) and value.numerator.bit_length() + value.denominator.bit_length() < 4 * length
            and len(str(value)) <= length)


def number(value: Number) -> str | float:
    """A probability or mean for JSON and CSV: a float, or "p/q" in exact mode."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return _decimal(value.numerator)
        return f"{_decimal(value.numerator)}/{_decimal(value.denominator)}"
    return float(value)


def readable(value: Number, digits: int = 3) -> str:
    """A mean for people: the fraction when it is short, else a decimal."""
    if isinstance(value, Fraction) and short(value, 12):
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
    grid: tuple[tuple[str, ...], ...] = ()  #: rows side by side for people (first: headings), in place of the means
    records: tuple[dict[str, Any], ...] = ()  #: the same rows for programs: JSON "rows", one CSV line each

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
    """The report for programs: its title and header lines (what was asked, as understood, and what the
    answer assumed), then the distributions, chances and details; a chance worked out exactly (P(charge) from
    2D6) is a float in a float answer, as the others are (its text says it exactly too)."""
    data: dict[str, Any] = {"title": report.title} if report.title else {}
    if report.preface:
        data["header"] = [line.strip() for line in report.preface]
    if report.flat:
        data.update(pmf_json(next(iter(report.distributions.values()))))
    else:
        data.update({key: pmf_json(pmf) for key, pmf in report.distributions.items()})
    floats = bool(report.distributions) and not any(pmf.exact for pmf in report.distributions.values())
    data.update({key: number(float(p) if floats else p) for key, p in report.chances.items()})  # in the answer's mode
    data.update(report.details)
    if report.records:
        data["rows"] = list(report.records)
    return json.dumps(data, indent=2)


def to_csv(report: Report) -> str:
    """One row per value of each distribution, then one per chance:
    ``quantity,value,p_equal,p_at_least``; a report with records gives one line per record instead."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if report.records:
        columns = list(dict.fromkeys(key for record in report.records for key in record))
        records = csv.DictWriter(out, columns, lineterminator="\n")
        records.writeheader()
        records.writerows(report.records)
        return out.getvalue()
    writer.writerow(["quantity", "value", "p_equal", "p_at_least"])
    for key, pmf in report.distributions.items():
        for k, p, tail in rows(pmf):
            writer.writerow([key, k, number(p), number(tail)])
    for key, p in report.chances.items():
        writer.writerow([key, "", number(p), ""])
    return out.getvalue()


def _grid(report: Report) -> list[str]:
    """The rows side by side: the first column aligned left, the others right."""
    widths = [max(len(row[i]) for row in report.grid) for i in range(len(report.grid[0]))]
    return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
            .rstrip() for row in report.grid]


def _summary(report: Report) -> list[str]:
    width = max([len(report.label(k)) for k in report.distributions] + [8])
    lines = [f"{'':{width}}  {'mean':>14}  {'sd':>6}  {'median':>6}"]
    for key, pmf in report.distributions.items():
        lines.append(f"{report.label(key):{width}}  {readable(pmf.mean):>14}  {pmf.sd:6.3f}  {pmf.median:>6}")
    return lines


def percent(p: Number) -> str:
    """A probability for people; a tiny non-zero one is not shown as 0."""
    return "< 0.0001%" if 0 < float(p) < 5e-7 else f"{float(p):.4%}"


def equals(p: Number) -> str:
    """'= 12.3456%', or a tiny chance as `percent` shows it, '< 0.0001%' (not '= < 0.0001%': a trial)."""
    shown = percent(p)
    return shown if shown.startswith("<") else f"= {shown}"


def _chance(label: str, p: Number) -> str:
    exact = f"  (exactly {p})" if isinstance(p, Fraction) and short(p, 39) else ""
    return f"{label} {equals(p)}{exact}"


def distribution_table(title: str, pmf: Pmf) -> str:
    """P(=k), P(>=k) and a bar for each value; negligible values summed in one line, impossible ones (chance 0: a
    unit of 10 models that loses 1 wound at most) left out."""
    lines = [title, f"  {'k':>4}  {'P(=k)':>8}  {'P(>=k)':>8}"]
    values = rows(pmf)
    top = max(float(p) for _, p, _ in values) or 1.0
    hidden = [p for _, p, _ in values if 0 < float(p) < SHOWN]
    for k, p, tail in values:
        if float(p) >= SHOWN:
            lines.append(f"  {k:>4}  {float(p):8.2%}  {float(tail):8.2%}  {'#' * round(BAR_WIDTH * float(p) / top)}")
    if hidden:
        each = f"each below {SHOWN:.3%}" if len(hidden) > 1 else f"below {SHOWN:.3%}"
        lines.append(f"  ({len(hidden)} other value{'s' if len(hidden) > 1 else ''}, {each}, "
                     f"total {sum(float(p) for p in hidden):.4%})")
    return "\n".join(lines)


def to_table(report: Report) -> str:
    """For people: means first, then chances and notes, then a table per distribution."""
    lines = ([report.title] if report.title else []) + list(report.preface)
    if report.grid:
        lines += _grid(report)
    elif report.distributions:
        lines += _summary(report)
    lines += [_chance(report.label(k), p) for k, p in report.chances.items()]
    lines += list(report.notes)
    for key, pmf in report.shown.items():
        lines += ["", distribution_table(report.label(key), pmf)]
    return "\n".join(lines)


def _fraction_cell(p: Number) -> str:
    text = percent(p)
    return text + (f" ({p})" if isinstance(p, Fraction) and short(p, 24) else "")


def to_markdown(report: Report) -> str:
    lines = [f"**{report.title}**", ""] if report.title else []
    if report.preface:
        lines += [f"- {line.strip()}" for line in report.preface] + [""]
    if report.grid:
        head, *body = report.grid
        lines += ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in body] + [""]
    elif report.distributions:
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
        lines += [f"| {k} | {_fraction_cell(p)} | {_fraction_cell(t)} |" for k, p, t in rows(pmf)] + [""]
    return "\n".join(lines).strip() + "\n"


def to_html(report: Report) -> str:
    parts = [f"<h4>{html.escape(report.title)}</h4>"] if report.title else []
    if report.grid:
        cells = [("th" if i == 0 else "td", row) for i, row in enumerate(report.grid)]
        parts.append("<table>" + "".join("<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in row) + "</tr>"
                                         for tag, row in cells) + "</table>")
    parts += [f"<p>{html.escape(report.label(k))}: {html.escape(percent(p))}</p>" for k, p in report.chances.items()]
    parts += [pmf_html(pmf, report.label(k)) for k, pmf in report.shown.items()]
    return "".join(parts)


def assuming(report: Report, context: Context) -> Report:
    """The report with the situation of `context` (every assumption that is not the default) named at the
    end of its header."""
    return attrs.evolve(report, preface=report.preface + situation(context))


def render(report: Report, fmt: str) -> str:
    """The report in one of FORMATS."""
    return {"table": to_table, "json": to_json, "csv": to_csv, "markdown": to_markdown}[fmt](report)


# --------------------------------------------------------------------- reports of each command
def attack_report(result: AttackResult, title: str = "") -> Report:
    """The `attack` command's report: the distributions, P(destroyed), each target group's losses
    (when the target has several), the target's Battle-shock and the attacker's Hazardous losses."""
    chances: dict[str, Number] = {"p_destroyed": result.p_destroyed, "p_below_half": result.p_below_half}
    notes: list[str] = []
    if result.p_battle_shocked is not None:
        chances["p_battle_shocked"] = result.p_battle_shocked
    names = [g.profile.name or f"group {i + 1}" for i, g in enumerate(result.groups)]
    if len(result.groups) > 1:
        # numbered from 1 as --order, --cover-for and --precision-on take them, with the model name if any
        notes += [f"group {i}{', ' + g.profile.name if g.profile.name else ''} ({g.count}): "
                  f"{float(g.models_destroyed.mean):.3f} destroyed on average, "
                  f"P(all destroyed) {equals(g.p_destroyed)}" for i, g in enumerate(result.groups, 1)]
    if result.hazardous_tests_failed is not None:  # the tests failed, then the models they cost where known: a
        # failed test may cost a model that survives it wounds alone (a Knight's 3 mortal wounds)
        lost = result.hazardous_models_lost
        notes.append(f"Hazardous: {float(result.hazardous_tests_failed.mean):.3f} tests failed on average, "
                     f"P(at least one) {equals(result.hazardous_tests_failed.at_least(1))}"
                     + ("" if lost is None else f"; {float(lost.mean):.3f} attacking models lost on average, "
                                                f"P(at least one) {equals(lost.at_least(1))}"))
    details: dict[str, Any] = {
        "groups": [{"name": name, "models": g.count, "models_destroyed": pmf_json(g.models_destroyed),
                    "p_destroyed": number(g.p_destroyed)} for name, g in zip(names, result.groups)],
    }
    for key in ("hazardous_tests_failed", "hazardous_models_lost"):
        if getattr(result, key) is not None:
            details[key] = pmf_json(getattr(result, key))
    labels = {"p_below_half": "P(target Below Half-strength, not destroyed)",
              "p_battle_shocked": "P(target then fails its Battle-shock test)"}
    return Report(title, result.stages(), chances, labels=labels, details=details, notes=tuple(notes),
                  plotted=("damage", "models_destroyed"))


def unit_report(report: UnitReport, title: str = "") -> Report:
    """The `unit` command's report: the attack's report plus what fired under which rules."""
    base = attack_report(report.result, title)
    preface = [*header(report.firings, report.result.target, report.context)]
    preface += [f"  {line}" for line in report.situation]
    details = {
        **base.details,
        "firings": [{"weapon": f.weapon.name, "models": f.models, **({"ignored": list(f.weapon.ignored)}
                                                                    if f.weapon.ignored else {})}
                    for f in report.firings],
        "modifiers": [m.name for m in report.modifiers],
        "situation": list(report.situation),
    }
    return attrs.evolve(base, details=details, preface=tuple(preface), tables=("damage", "models_destroyed"))

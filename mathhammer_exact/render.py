"""Turning results into text for people (tables with ASCII bars) and for programs (JSON)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from .pmf import Number, Pmf
from .result import AttackResult

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


def result_json(result: AttackResult) -> dict[str, Any]:
    """The JSON object of the `attack` command."""
    out: dict[str, Any] = {name: pmf_json(pmf) for name, pmf in result.stages().items()}
    out["p_destroyed"] = number(result.p_destroyed)
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


def result_text(result: AttackResult, heading: str = "") -> str:
    """The human output of the `attack` command: means first, then one table per stage."""
    width = max(len(label) for label in LABELS.values())
    lines = [heading] if heading else []
    lines.append(f"{'':{width}}  {'mean':>14}  {'sd':>6}  {'median':>6}")
    for name, pmf in result.stages().items():
        lines.append(f"{LABELS[name]:{width}}  {readable(pmf.mean):>14}  {pmf.sd:6.3f}  {pmf.median:>6}")
    lines.append(f"P(unit destroyed) = {float(result.p_destroyed):.4%}"
                 + (f"  (exactly {result.p_destroyed})" if result.exact and len(str(result.p_destroyed)) < 40 else ""))
    for name, pmf in result.stages().items():
        lines += ["", distribution_table(LABELS[name], pmf)]
    return "\n".join(lines)

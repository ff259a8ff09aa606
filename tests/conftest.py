"""Shared helpers for the tests."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from mathhammer_exact import AttackResult, Pmf

STAGE_INDEX = {name: i for i, name in enumerate(AttackResult.STAGES)}


def marginal(outcomes: Counter, stage: str) -> dict[int, Fraction]:
    """P(stage = k) from a Counter of oracle outcome tuples with exact weights."""
    out: dict[int, Fraction] = {}
    for outcome, p in outcomes.items():
        k = outcome[STAGE_INDEX[stage]]
        out[k] = out.get(k, Fraction(0)) + p
    return out


def as_dict(pmf: Pmf) -> dict[int, Fraction]:
    """Nonzero probabilities of a Pmf by value."""
    return {k: p for k, p in enumerate(pmf.probabilities(), pmf.min) if p}

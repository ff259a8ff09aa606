"""Shared helpers for the tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from mathhammer_exact import AttackResult, Pmf
from mathhammer_exact.catalogue import index
from mathhammer_exact.catalogue.build import add_checkout

FIXTURES = Path(__file__).parent / "fixtures"

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


@pytest.fixture
def indexed_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Index an invented checkout (a folder of tests/fixtures) into this test's own data folder."""
    def add(name: str) -> None:
        monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path))
        add_checkout(FIXTURES / name)

    return add

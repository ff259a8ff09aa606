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


@pytest.fixture(scope="session", autouse=True)
def _no_players_index(tmp_path_factory: pytest.TempPathFactory):
    """Every test reads the indexes it builds, never the player's own (`mathhammer data add` on this machine, or
    $MATHHAMMER_DATA), nor the player's rules folder ($MATHHAMMER_RULES): they would change which unit a name finds
    and every "did you mean"."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(index.ENVIRONMENT, str(tmp_path_factory.mktemp("no-index")))
        patch.delenv("MATHHAMMER_RULES", raising=False)  # nor the player's own rules folder (names.toml)
        yield


@pytest.fixture
def indexed_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Index an invented checkout (a folder of tests/fixtures) into this test's own data folder."""
    def add(name: str) -> None:
        monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path))
        add_checkout(FIXTURES / name)

    return add

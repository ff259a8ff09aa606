"""What every test and doctest shares (tests/, the package's docstrings, README.md and docs/)."""

from __future__ import annotations

import pytest

from mathhammer_exact.catalogue import index


@pytest.fixture(scope="session", autouse=True)
def _no_players_index(tmp_path_factory: pytest.TempPathFactory):
    """Every test and doctest reads the indexes it builds, never the player's own (`mathhammer data add` on this
    machine, or $MATHHAMMER_DATA), nor the player's rules folder ($MATHHAMMER_RULES): they would change which unit a
    name finds and every "did you mean", and an index of another version is refused."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(index.ENVIRONMENT, str(tmp_path_factory.mktemp("no-index")))
        patch.delenv("MATHHAMMER_RULES", raising=False)  # nor the player's own rules folder (names.toml)
        yield

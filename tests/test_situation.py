"""A situation that cannot happen is refused with the reason, never answered as something else."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mathhammer_exact.cli import cli

TARGET = ["-t", "T3 Sv5+ W1 x10"]


@pytest.mark.parametrize(("args", "reason"), [
    (["-w", "Melee A1 WS3+ S4 AP0 D1", "--overwatch"], "Fire Overwatch is a shooting attack"),
    (["-w", "A1 BS3+ S4 AP0 D1 [HEAVY]", "--stationary", "--advanced"], "did not Remain Stationary"),
    (["-w", "A1 BS3+ S4 AP0 D1", "--hit-mod", "99999999999999999999999"], "hit roll modifier must be -6 to 6"),
    (["-w", "A1 BS3+ S4 AP0 D1", "--wound-mod", "-7"], "wound roll modifier must be -6 to 6"),
])
def test_a_situation_that_cannot_happen_is_refused(args, reason):
    out = CliRunner().invoke(cli, ["attack", *args, *TARGET])
    assert out.exit_code == 2
    assert out.output.count("\n") == 1 and reason in out.output, out.output

"""What a command loads before it answers: each run in a fresh interpreter, its modules listed.

Start-up time is felt on every command; what decides it is which modules load (numpy alone is
most of a query's start here), so these tests pin the modules, not a timing (benchmarks/bench.py
times them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from mathhammer_exact.cli import COMMANDS, cli, summary

RUN = """
import json, sys
from mathhammer_exact.cli import main
sys.argv = ["mathhammer", *json.loads(sys.argv[1])]
try:
    main()
finally:
    print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def loaded(*args: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules loaded by `mathhammer ARGS` (with `env` added to the environment), which must succeed."""
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(args)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def under(modules: set[str], *packages: str) -> set[str]:
    return {m for m in modules if any(m == p or m.startswith(f"{p}.") for p in packages)}


PROFILE_QUERY = ("attack", "-w", "A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]", "-m", "20", "-t", "T4 Sv4+ W3 x5")
#: the catalogue, the web, cattrs, the rules data (data.load) and units by name (units); the data types alone (a
#: datasheet's shape, a named rule's effect) may load
DATA = ("mathhammer_exact.catalogue", "mathhammer_exact.data.load", "mathhammer_exact.units",
        "mathhammer_exact.data.schema", "mathhammer_exact.web", "cattrs")


def test_help_loads_no_command_nor_numpy():
    modules = loaded("--help")
    assert under(modules, "mathhammer_exact") == {"mathhammer_exact", "mathhammer_exact.cli", "mathhammer_exact.errors"}
    assert not under(modules, "numpy", "attrs", "cattrs")


def test_a_dice_roll_loads_no_rules_data_nor_the_attack_engine():
    # (numpy it needs: every answer is a Pmf)
    modules = loaded("roll", "charge", "-d", "9")
    assert not under(modules, *DATA, "mathhammer_exact.decide", "mathhammer_exact.engine.resolve")


def test_a_query_written_out_loads_no_rules_data_nor_index_nor_server():
    assert not under(loaded(*PROFILE_QUERY), *DATA, "scipy")  # (scipy: only for the largest float states)
    # a target by name does load them: what the check above looks for is there to be seen
    assert "mathhammer_exact.data.load" in loaded(*PROFILE_QUERY[:-1], "MEQ")


def test_indexing_a_checkout_loads_no_numpy(tmp_path):
    # reading catalogues needs no arithmetic: numpy's import was a tenth of `data add`'s time
    checkout = Path(__file__).parent / "fixtures" / "bsdata"
    modules = loaded("data", "add", str(checkout), env={"MATHHAMMER_DATA": str(tmp_path)})
    assert "mathhammer_exact.catalogue.build" in modules
    assert not under(modules, "numpy")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_lists_each_command_as_its_own_help_would(name):
    with click.Context(cli) as ctx:
        command = cli.get_command(ctx, name)
    assert command is not None
    for limit in (45, 80):
        assert click.Command(name, help=summary(name)).get_short_help_str(limit) == command.get_short_help_str(limit)

"""Shell examples in README.md and docs/*.md run as doctests: `$ mathhammer ...` then its output.

An example's expected output may end with `...`: then the real output must start with the lines before it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from mathhammer_exact.cli import cli

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def examples() -> list[tuple[str, str, list[str]]]:
    found = []
    for path in FILES:
        for block in re.findall(r"```\n(.*?)```", path.read_text(), flags=re.S):
            lines = block.rstrip("\n").split("\n")
            if lines[0].startswith("$ mathhammer "):
                found.append((f"{path.name}: {lines[0][:60]}", lines[0][len("$ mathhammer "):], lines[1:]))
    return found


EXAMPLES = examples()


def test_there_are_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize(("where", "command", "expected"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_shell_example(where, command, expected):
    out = CliRunner().invoke(cli, shlex.split(command))
    assert out.exit_code == 0, out.output
    got = out.output.rstrip("\n").split("\n")
    if expected and expected[-1] == "...":
        assert got[: len(expected) - 1] == expected[:-1], where
    else:
        assert got == expected, where


def test_command_reference_is_current():
    from mathhammer_exact.cli.reference import command_reference

    def words(text: str) -> list[str]:  # line wrapping may differ between click versions
        return text.split()

    assert words((ROOT / "docs" / "commands.md").read_text()) == words(command_reference()), \
        "docs/commands.md is stale: python -m mathhammer_exact.cli.reference > docs/commands.md"


def commands_without_output() -> list[str]:
    """Commands shown in the README without their output (`mathhammer ...` lines, `\\` continued)."""
    found = []
    for block in re.findall(r"```\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S):
        for line in block.replace("\\\n", " ").split("\n"):
            if line.startswith("mathhammer ") and " data add " not in f" {line} ":
                found.append(line[len("mathhammer "):])
    return found


@pytest.mark.parametrize("command", commands_without_output())
def test_readme_commands_answer(command):
    out = CliRunner().invoke(cli, shlex.split(command))
    assert out.exit_code == 0, out.output
    assert "->" in out.output.splitlines()[0] or out.output.startswith(("Scenarios", "best", "Incursor")), out.output


def test_rules_abilities_table_is_the_declarations():
    from mathhammer_exact.present.abilities import ability_table

    assert ability_table() in (ROOT / "docs" / "rules.md").read_text(), \
        "docs/rules.md's weapon abilities table is stale: python -m mathhammer_exact.present.abilities"

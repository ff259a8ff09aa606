"""The `curl` examples in docs/server.md, run against a real `mathhammer serve` on a loopback port.

A documented command is a line `$ curl ...` at the top of a code block, followed by its output; a
line `...` in the output stands for any number of lines (none included).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .webserver import running_server

DOC = Path(__file__).resolve().parent.parent / "docs" / "server.md"
DOCUMENTED = "http://127.0.0.1:8000"


def examples() -> list[tuple[str, list[str]]]:
    found = []
    for block in re.findall(r"```\n(.*?)```", DOC.read_text(), flags=re.S):
        lines = block.rstrip("\n").split("\n")
        if lines[0].startswith("$ curl "):
            found.append((lines[0][2:], lines[1:]))
    return found


EXAMPLES = examples()


def matches(expected: list[str], got: list[str]) -> bool:
    """Whether `got` is `expected` with each `...` line standing for any lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in got)) is not None


def test_matching_with_ellipses():
    assert matches(["{", "...", "}"], ["{", "a", "b", "}"]) and matches(["{", "...", "}"], ["{", "}"])
    assert not matches(["{", "...", "}"], ["{", "a"]) and not matches(["a"], ["a", "b"])


def test_there_are_examples():
    assert len(EXAMPLES) >= 5


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server() as url:
        yield url


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c[:70] for c, _ in EXAMPLES])
def test_curl_example(server, command, expected):
    assert DOCUMENTED in command
    out = subprocess.run(shlex.split(command.replace(DOCUMENTED, server)), capture_output=True, text=True,
                         timeout=60, check=True).stdout
    got = out.rstrip("\n").split("\n")
    assert matches(expected, got), "\n".join(got)

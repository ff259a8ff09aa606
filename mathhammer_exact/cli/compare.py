"""`mathhammer compare`: scenarios side by side, each written as the options of `attack` or `unit`."""

from __future__ import annotations

import re
import shlex
from typing import Any

import click

from ..decide.compare import Scenario
from ..decide.compare import compare as side_by_side
from ..editions import asked
from ..errors import MathhammerError
from ..present.decisions import comparison_report
from . import attack as attack_command
from . import unit as unit_command
from .command import Command
from .options import emit, output_options

_LABEL = re.compile(r"\s*([^-\s:'\"][^:'\"]*?)\s*:\s+(.*)", re.DOTALL)


@click.command(cls=Command)
@click.option("--scenario", "-s", "scenarios", required=True, multiple=True,
              help="A scenario: the options of `attack`, or `unit NAME` and its options (repeat for each).")
@click.option("--all", "common", default="", help="Options added to every scenario, e.g. \"-t MEQ --half-range\".")
@click.option("--at-least", type=int,
              help="k of P(at least k models destroyed) (default: the number that leaves a unit Below Half-strength).")
@output_options
def compare(scenarios: tuple[str, ...], common: str, at_least: int | None, exact: bool, fmt: str, as_json: bool,
            plot: str | None) -> None:
    """Scenarios side by side, the first one the baseline.

    Each scenario (-s) is written as the options of `mathhammer attack`, or `unit NAME ...` for the
    options of `mathhammer unit`, optionally after a label and a colon:
    -s 'Take Aim: unit "Tempestus Command Squad" -t MEQ --with take-aim'. Where every scenario's
    points are known (--points for `attack`, the datasheet for `unit`), the scenarios are ranked
    by points destroyed (or kills) per 100 points."""
    try:
        shared = shlex.split(common)
    except ValueError as exc:
        raise MathhammerError(f"--all {common!r}: {exc}") from None
    found = [scenario(text, shared, exact) for text in scenarios]
    emit(comparison_report(side_by_side(found, at_least), "Scenarios compared"), fmt, as_json, plot)


def scenario(text: str, common: list[str], exact: bool) -> Scenario:
    """One scenario written as `attack` or `unit` options, answered."""
    match = _LABEL.fullmatch(text)
    label, written = (match.group(1), match.group(2)) if match else (" ".join(text.split()), text)
    try:
        words = shlex.split(written)
    except ValueError as exc:
        raise MathhammerError(f"scenario {text!r}: {exc}") from None
    name = words.pop(0) if words and words[0] in ("attack", "unit") else "attack"
    command = attack_command.attack if name == "attack" else unit_command.unit
    try:
        # the parent context passes on the group's settings (-h), which click keeps with the command
        params: dict[str, Any] = command.make_context(name, [*common, *words],
                                                      parent=click.get_current_context(silent=True)).params
    except click.ClickException as exc:
        raise MathhammerError(f"scenario {text!r}: {exc.format_message()}") from None
    if params["exact"] or params["fmt"] != "table" or params["as_json"] or params["plot"]:
        raise MathhammerError(f"scenario {text!r}: --exact, --format, --json and --plot go before the scenarios")
    with asked(params["edition"]):  # its units looked up in the edition it asks for, as the command alone does
        if name == "attack":
            return attack_command.scenario(params, exact, label)
        return unit_command.scenario(params, exact, label)

"""The `mathhammer` command line: thin commands that parse, call the API and render.

Each command lives in its own module and is imported only when it runs (click's lazy-group
pattern), so `mathhammer roll charge` does not load the whole-unit engine or the rules data.
Every error a user can cause ends in one line on stderr and exit status 2.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from ..errors import MathhammerError

COMMANDS = {  #: command name -> "module:object" under mathhammer_exact.cli
    "attack": "attack:attack",
    "unit": "unit:unit",
    "roll": "roll:roll",
    "datasheets": "info:datasheets",
    "show": "info:show",
    "tables": "info:tables",
    "compare": "compare:compare",
    "plan": "plan:plan",
    "turn": "turn:turn",
    "survive": "survive:survive",
    "data": "data:data",
    "roster": "roster:roster",
    "serve": "serve:serve",
    "matchup": "matchup:matchup",
    "sweep": "sweep:sweep",
}


class Commands(click.Group):
    """The top group: loads each command on first use, and turns every user error into a
    one-line message and exit status 2."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, name = COMMANDS[cmd_name].split(":")
        command = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        assert isinstance(command, click.Command)
        return command

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            sys.exit(0)
        except (MathhammerError, click.ClickException) as exc:
            message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
            click.echo(f"error: {message}", err=True)
            sys.exit(2)
        except click.exceptions.Abort:
            click.echo("error: aborted", err=True)
            sys.exit(2)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mathhammer_exact")
def cli() -> None:
    """Exact Warhammer 40,000 odds: every outcome of an attack, no sampling."""


def main() -> None:
    """Entry point of the `mathhammer` console script."""
    cli(prog_name="mathhammer")

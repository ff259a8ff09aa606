"""The `mathhammer` command line: thin commands that parse, call the API and render.

Each command lives in its own module and is imported only when it runs (click's lazy-group
pattern), so `mathhammer roll charge` does not load the whole-unit engine or the rules data, and
`mathhammer --help` loads no command at all: it reads each command's summary from its source.
Every error a user can cause ends in one line on stderr and exit status 2.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
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

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands in --help, each with the first sentence of its docstring, as click writes
        it, read from the command's module without importing it."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        with formatter.section("Commands"):
            formatter.write_dl([(name, click.Command(name, help=summary(name)).get_short_help_str(limit))
                                for name in names])

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


def summary(name: str) -> str | None:
    """The docstring of command `name`, from its module's source."""
    module, function = COMMANDS[name].split(":")
    source = Path(__file__).with_name(f"{module}.py").read_text(encoding="utf-8")
    found = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name == function]
    return ast.get_docstring(found[0]) if found else None


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mathhammer_exact")
def cli() -> None:
    """Exact Warhammer 40,000 odds: every outcome of an attack, no sampling."""


def main() -> None:
    """Entry point of the `mathhammer` console script."""
    cli(prog_name="mathhammer")

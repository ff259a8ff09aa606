"""The command reference for docs/commands.md, taken from the real --help of every command.

Regenerate with: python -m mathhammer_exact.cli.reference > docs/commands.md (a test checks it is current).
"""

from __future__ import annotations

import click

from . import cli


def _commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    with click.Context(group) as ctx:
        named = [(name, group.get_command(ctx, name)) for name in group.list_commands(ctx)]
    for name, command in named:
        assert command is not None
        path = f"{prefix} {name}"
        found.append((path, command))
        if isinstance(command, click.Group):
            found += _commands(command, path)
    return found


def command_reference() -> str:
    """Markdown with the --help text of `mathhammer` and each of its commands."""
    parts = ["# Command reference", "",
             "Generated from the real `--help` output (`python -m mathhammer_exact.cli.reference`); "
             "docs/cli.md explains the weapon and target strings and the output.", ""]
    for path, command in [("mathhammer", cli), *_commands(cli, "mathhammer")]:
        with click.Context(command, info_name=path, terminal_width=100, max_content_width=100,
                           help_option_names=["-h", "--help"]) as ctx:
            text = command.get_help(ctx)
        parts += [f"## `{path}`", "", "```", text, "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    print(command_reference(), end="")

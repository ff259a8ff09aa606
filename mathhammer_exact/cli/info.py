"""`mathhammer datasheets`, `show` and `tables`: what the rules data holds, and printable tables."""

from __future__ import annotations

from pathlib import Path

import click

from ..data import load
from ..present.cards import card
from ..present.tables import write_tables


@click.command()
def datasheets() -> None:
    """List the datasheets, standard targets and named abilities/stratagems in rules/."""
    click.echo("Datasheets:")
    for sheet in load.datasheets().values():
        click.echo(f"  {sheet.name} ({sheet.faction})")
    click.echo("Standard targets:")
    for name, std in load.standard_targets().items():
        click.echo(f"  {name}: {std.description}")
    click.echo("Abilities, stratagems, Orders (use with --with):")
    for key, mod in load.modifiers().items():
        click.echo(f"  {key}: {mod.name} ({mod.kind})")


@click.command()
@click.argument("name")
def show(name: str) -> None:
    """Show a datasheet, standard target or named rule."""
    click.echo(card(name))


@click.command()
@click.option("--out", default="docs/tables", show_default=True, type=click.Path(file_okay=False),
              help="Folder to write the tables to.")
def tables(out: str) -> None:
    """Write probability tables (Markdown and CSV): hit, wound, save, charge, seed weapons vs standard targets."""
    for path in write_tables(Path(out)):
        click.echo(f"wrote {path}")



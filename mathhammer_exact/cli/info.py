"""`mathhammer datasheets`, `show` and `tables`: what the rules data holds, and printable tables."""

from __future__ import annotations

from pathlib import Path

import click

from ..data import load
from ..present.cards import card
from ..present.tables import write_tables
from .options import RULES_DIR


@click.command()
@RULES_DIR
def datasheets(rules_dir: str | None) -> None:
    """List the datasheets, standard targets and named abilities/stratagems in rules/."""
    lib = load.library(rules_dir)
    click.echo("Datasheets:")
    for sheet in lib.sheets.values():
        click.echo(f"  {sheet.name} ({sheet.faction})")
    click.echo("Standard targets:")
    for name, std in lib.targets.items():
        click.echo(f"  {name}: {std.description}")
    click.echo("Abilities, stratagems, Orders (use with --with):")
    for key, mod in lib.rules.items():
        click.echo(f"  {key}: {mod.name} ({mod.kind})")


@click.command()
@click.argument("name")
@RULES_DIR
def show(name: str, rules_dir: str | None) -> None:
    """Show a datasheet, standard target or named rule."""
    click.echo(card(name, rules_dir))


@click.command()
@click.option("--out", default="docs/tables", show_default=True, type=click.Path(file_okay=False),
              help="Folder to write the tables to.")
def tables(out: str) -> None:
    """Write probability tables (Markdown and CSV): hit, wound, save, charge, seed weapons vs standard targets."""
    for path in write_tables(Path(out)):
        click.echo(f"wrote {path}")



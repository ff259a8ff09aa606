"""`mathhammer datasheets`, `show` and `tables`: what the rules data holds, and printable tables."""

from __future__ import annotations

from pathlib import Path

import click

from ..catalogue import library
from ..catalogue.battlescribe import EDITIONS
from ..catalogue.index import normalise
from ..data import load
from ..errors import MathhammerError, did_you_mean
from ..present.cards import card
from ..present.tables import write_tables
from ..units import lookup
from .command import Command
from .options import RULES_DIR, edition_option


@click.command(cls=Command)
@click.option("--search", help="Find units whose name has these words, among rules/ and your indexed BSData data.")
@RULES_DIR
@edition_option
def datasheets(search: str | None, rules_dir: str | None, edition: str | None) -> None:
    """List the datasheets, standard targets and named abilities/stratagems in rules/."""
    lib = load.library(rules_dir)
    wanted = edition or library.default_edition()
    sheets = [s for s in lib.sheets.values() if s.edition == wanted or (edition is None and search is None)]
    if search is not None:
        called, found = lookup.search(search, sheets, lib.names, wanted)
        if called:
            click.echo(called)
        for name, faction, _ in found:
            click.echo(f"{name} ({faction})")
        if not found:  # an empty search is an answer, not an error: exit 0, but say so
            close = library.close_names(search, wanted)
            known = {normalise(name): name for name in [*(s.name for s in sheets), *close]}
            unindexed = ("" if wanted in library.editions() else
                         f" (the {EDITIONS[wanted][1]} edition's data is not indexed: `mathhammer data add PATH`)")
            click.echo(f"no unit's name has every word of {search!r}{did_you_mean([normalise(search)], known)}"
                       f"{unindexed}")
        return
    click.echo("Datasheets:")
    for sheet in sheets:
        click.echo(f"  {sheet.name} ({sheet.faction})")
    if not sheets:
        click.echo(f"  none of the {EDITIONS[wanted][1]} edition in rules/ (its indexed units: --search TEXT)")
    click.echo("Standard targets:")
    for name, std in lib.targets.items():
        click.echo(f"  {name}: {std.description}")
    click.echo("Abilities, stratagems, Orders (use with --with):")
    for key, mod in lib.rules.items():
        click.echo(f"  {key}: {mod.name} ({mod.kind})")
    indexed = library.describe()
    if indexed:
        counts = ", ".join(f"{info['units']} of the {EDITIONS[info['edition']][1]} edition" for info in indexed)
        click.echo(f"Your indexed BSData units: {counts} (find them with --search TEXT)")


@click.command(cls=Command)
@click.argument("name")
@RULES_DIR
@edition_option
def show(name: str, rules_dir: str | None, edition: str | None) -> None:
    """Show a datasheet, standard target or named rule."""
    click.echo(card(name, rules_dir))


@click.command(cls=Command)
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Folder to write the tables to (made if missing; its parent must exist).")
@click.option("--force", is_flag=True, help="Replace files of the same names that mathhammer did not write.")
def tables(out: str, force: bool) -> None:
    """Write probability tables (Markdown and CSV): hit, wound, save, charge, built-in weapons vs standard targets.

    All the files are written or none; a file mathhammer did not write (or that was changed since)
    is never replaced without --force, and a symbolic link is never written through."""
    if not out.strip():
        raise MathhammerError("--out needs a folder name, e.g. --out tables")
    for path in write_tables(Path(out), force):
        click.echo(f"wrote {path}")

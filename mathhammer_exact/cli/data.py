"""`mathhammer data`: index the player's own BSData checkouts (10th and 11th edition) so every unit can be asked
for by name."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..catalogue.battlescribe import EDITIONS
from ..catalogue.bsdata import checkout_files
from ..catalogue.build import add_checkout
from ..catalogue.index import ENVIRONMENT, index_path, remove_index
from ..catalogue.library import describe, editions
from ..errors import MathhammerError
from .command import Group, edition_name


@click.group(cls=Group)
def data() -> None:
    """Index a local clone of the BSData catalogues, 10th edition (wh40k-10e) or 11th (wh40k-11e); both may be
    indexed side by side (your copy: nothing of it ships with mathhammer).

    Each edition's index is one file in your data directory (or in $MATHHAMMER_DATA); `unit`, `show`,
    `datasheets --search` and `--target` then find every indexed unit by name."""


@data.command()
@click.argument("path", type=click.Path(path_type=Path))
def add(path: Path) -> None:
    """Index the checkout at PATH (a folder with a .gst and .cat files, or the .json files of wh40k-11e),
    replacing the previous index of its edition."""
    with click.progressbar(length=len(checkout_files(path)), label="reading catalogues", file=sys.stderr) as bar:
        report = add_checkout(path, lambda _: bar.update(1))
    for line in report.lines():
        click.echo(line)


@data.command(name="list")
def list_() -> None:
    """Say what is indexed, for each edition: where from, when, how many units."""
    found = describe()
    if not found:
        click.echo(f"no index yet at {index_path()} (run `mathhammer data add PATH`; ${ENVIRONMENT} moves it)")
    for info in found:
        revision = f" at {info['revision']}" if info.get("revision") else ""
        click.echo(f"{EDITIONS[info['edition']][1]} edition: {info['units']} units from {info['source']}{revision}, "
                   f"indexed {info['indexed']}")
        click.echo(f"index: {info['path']}")
        if info.get("missing"):
            click.echo(f"catalogues linked but not in the checkout: {', '.join(sorted(info['missing']))}")


@data.command()
@click.option("--edition", metavar="|".join(EDITIONS), callback=edition_name,
              help="The edition whose index to delete (needed when both are indexed).")
def remove(edition: str | None) -> None:
    """Delete an edition's index (your checkout is not touched)."""
    if edition is None:
        indexed = editions()
        if len(indexed) > 1:
            raise MathhammerError(f"indexes of {' and '.join(indexed)} are here: say which to remove with --edition")
        edition = indexed[0] if indexed else "10e"
    click.echo(f"removed {remove_index(index_path(edition))}")

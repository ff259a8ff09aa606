"""`mathhammer data`: index the player's own BSData checkout so every unit can be asked for by name."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..catalogue.build import add_checkout
from ..catalogue.index import ENVIRONMENT, index_path, remove_index
from ..catalogue.library import describe


@click.group()
def data() -> None:
    """Index a local clone of the BSData 10th edition catalogues (your copy: nothing of it ships with mathhammer).

    The index is one file in your data directory (or in $MATHHAMMER_DATA); `unit`, `show`,
    `datasheets --search` and `--target` then find every indexed unit by name."""


@data.command()
@click.argument("path", type=click.Path(path_type=Path))
def add(path: Path) -> None:
    """Index the checkout at PATH (a folder with a .gst and .cat files), replacing the previous index."""
    files = len(list(path.glob("*.gst")) + list(path.glob("*.cat"))) if path.is_dir() else 0
    with click.progressbar(length=files, label="reading catalogues", file=sys.stderr) as bar:
        report = add_checkout(path, lambda _: bar.update(1))
    for line in report.lines():
        click.echo(line)


@data.command(name="list")
def list_() -> None:
    """Say what is indexed: where from, when, how many units."""
    info = describe()
    if info is None:
        click.echo(f"no index yet at {index_path()} (run `mathhammer data add PATH`; ${ENVIRONMENT} moves it)")
        return
    revision = f" at {info['revision']}" if info.get("revision") else ""
    click.echo(f"{info['units']} units from {info['source']}{revision}, indexed {info['indexed']}")
    click.echo(f"index: {info['path']}")


@data.command()
def remove() -> None:
    """Delete the index (your checkout is not touched)."""
    click.echo(f"removed {remove_index()}")

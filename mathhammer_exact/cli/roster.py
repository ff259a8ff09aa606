"""`mathhammer roster`: the units of an exported army list, numbered for `unit` and `--target`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..catalogue.battlescribe import EDITIONS
from ..catalogue.roster import read_roster
from ..present.cards import army_json
from .command import Command


@click.command(cls=Command)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the units as JSON (what the web server's /api/army "
                                                      "answers).")
def roster(file: Path, as_json: bool) -> None:
    """List the units of an army list exported from BattleScribe or New Recruit (FILE.ros, FILE.rosz, or New
    Recruit's JSON export, FILE.json).

    Use a unit as FILE#NUMBER or FILE#NAME wherever a unit name goes, e.g.
    `mathhammer unit 'army.rosz#2' --target 'army.rosz#Boyz'`."""
    army = army_json(read_roster(file))
    if as_json:
        click.echo(json.dumps(army, indent=2))
        return
    click.echo(f"{army['name']} ({file}): {len(army['units'])} units, {EDITIONS[army['edition']][1]} edition")
    if army["detachments"]:  # its rules are named with the units that list them, as not modelled
        click.echo(f"detachment: {', '.join(army['detachments'])}")
    for unit in army["units"]:
        points = f", {sum(unit['points'].values())} pts" if unit["points"] else ""
        size = sum(m["count"] for m in unit["models"])
        called = f" ({unit['datasheet']})" if unit["datasheet"] != unit["name"] else ""
        click.echo(f"#{unit['number']} {unit['name']}{called} ({unit['faction']}{points}): "
                   f"{size} model{'s' * (size != 1)}")
        for model in unit["models"]:  # each profile as a profile string, to copy into --target
            click.echo(f"    {model['count']} x {model['name']}: {model['profile']}; {', '.join(model['equipment'])}")
        if unit["abilities"]:  # the list's own, its enhancements too (Appraising Glare on an Einhyr Champion)
            click.echo(f"    abilities: {', '.join(unit['abilities'])}")
        if unit["leader_of"]:
            click.echo(f"    can lead: {', '.join(unit['leader_of'])}")
        for note in unit["notes"]:
            click.echo(f"    note: {note}")

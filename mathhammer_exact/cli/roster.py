"""`mathhammer roster`: the units of an exported army list, numbered for `unit` and `--target`."""

from __future__ import annotations

from pathlib import Path

import click

from ..catalogue.battlescribe import EDITIONS
from ..catalogue.convert import to_datasheet
from ..catalogue.roster import read_roster
from ..model import Target
from ..present.profiles import target_string


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
def roster(file: Path) -> None:
    """List the units of an army list exported from BattleScribe or New Recruit (FILE.ros, FILE.rosz, or New
    Recruit's JSON export, FILE.json).

    Use a unit as FILE#NUMBER or FILE#NAME wherever a unit name goes, e.g.
    `mathhammer unit 'army.rosz#2' --target 'army.rosz#Boyz'`."""
    army = read_roster(file)
    click.echo(f"{army.name} ({file}): {len(army.units)} units, {EDITIONS[army.edition][1]} edition")
    for number, record in enumerate(army.units, 1):
        sheet = to_datasheet(record)
        points = f", {sum(sheet.points.values())} pts" if sheet.points else ""
        size = sum(m.count for m in sheet.models)
        called = f" ({record['datasheet']})" if record["datasheet"] != sheet.name else ""
        click.echo(f"#{number} {sheet.name}{called} ({sheet.faction}{points}): {size} model{'s' * (size != 1)}")
        for model in sheet.models:
            profile = target_string(Target.of(model.profile, 1))  # as a profile string, to copy into --target
            click.echo(f"    {model.count} x {model.name}: {profile}; {', '.join(model.equipment)}")
        if sheet.leader_of:
            click.echo(f"    can lead: {', '.join(sheet.leader_of)}")
        for note in sheet.notes:
            click.echo(f"    note: {note}")

"""`mathhammer matchup`: every unit of one army attacking every unit of another."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import click

from ..errors import MathhammerError
from ..present import report as present
from ..sweep.queries import FIGURES
from .command import Command
from .options import context_from, situation_options

OUT_SUFFIXES = (".parquet", ".csv")


@click.command(cls=Command)
@click.argument("army_a")
@click.argument("army_b")
@click.option("--phase", type=click.Choice(["shooting", "fight", "both"]), default="shooting", show_default=True,
              help="Which phase the units attack in; both: each phase, one table each.")
@click.option("--melee", is_flag=True, help="The same as --phase fight.")
@click.option("--both", "both_ways", is_flag=True, help="Also ARMY_B attacking ARMY_A.")
@click.option("--figure", "figures", multiple=True, type=click.Choice(FIGURES),
              help="Show only this figure (repeatable; default: all four). The first is the one --plot draws (default: "
                   "points destroyed per 100 points where the points are known, else mean models destroyed).")
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(present.FORMATS, case_sensitive=False),
              help="Tables for people (table, markdown), or the long table, one record per pair (json, csv).")
@click.option("--out", type=click.Path(dir_okay=False), help="Also write the long table to FILE.parquet or FILE.csv.")
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Also draw a heatmap, the numbers in its cells, to FILE.png or FILE.svg (needs the [plot] extra).")
@functools.partial(situation_options, output=False)
def matchup(army_a: str, army_b: str, phase: str, melee: bool, both_ways: bool, figures: tuple[str, ...], fmt: str,
            out: str | None, plot: str | None, **situation: Any) -> None:
    """Every unit of ARMY_A attacks every unit of ARMY_B with its whole loadout: mean damage, mean
    models destroyed, P(unit destroyed) and points destroyed per 100 points spent. Needs the [scale]
    extra.

    An army is an army list (FILE.ros, FILE.rosz, New Recruit's FILE.json), a FILE.txt of unit names one
    a line, or unit names separated by commas ('Intercessor Squad x10, Hellblaster Squad'); a unit is
    named as for `mathhammer unit`, at the size after 'x' or its smallest."""
    from ..present.matchups import matchup_json, preface, render_matchup, save_heatmap
    from ..sweep.matchup import PHASES_OF, frame_of, read_armies, records

    if melee and phase not in ("shooting", "fight"):
        raise MathhammerError("--melee is the same as --phase fight; give one of them")
    if out is not None and Path(out).suffix.lower() not in OUT_SUFFIXES:
        raise MathhammerError(f"--out writes FILE.parquet or FILE.csv, got {out!r}")
    context = context_from(situation)
    found = records(*read_armies(army_a, army_b), PHASES_OF["fight" if melee else phase], context, both_ways)
    assumed = preface(context)
    shown = figures or FIGURES
    if out is not None or plot is not None:
        frame = frame_of(found)
        if out is not None:
            _write(frame, Path(out))
        if plot is not None:
            drawn = shown[0] if figures else next(
                (f for f in ("points_destroyed_per_100", "mean_models_destroyed") if frame[f].notna().any()),
                FIGURES[0])
            save_heatmap(frame, plot, drawn, assumed)
    # JSON from the records as they are (the server's answer, no pandas needed); the tables from the frame
    click.echo(matchup_json(found, assumed) if fmt.lower() == "json"
               else render_matchup(frame_of(found), fmt.lower(), shown, assumed))


def _write(frame: Any, path: Path) -> None:
    from ..files import write_files

    if path.suffix.lower() == ".csv":
        data = frame.to_csv(index=False).encode()
    else:
        import io

        sink = io.BytesIO()
        frame.to_parquet(sink, index=False)
        data = sink.getvalue()
    write_files(path.parent, {path.name: data}, hint="remove it or choose another file name")

"""A matchup for people: one table per figure (rows attackers, columns targets) for each army and
phase, the reasons where a unit cannot attack, what each answer said of its units (as `mathhammer unit`
says it), and a heatmap with the numbers in its cells. JSON and
CSV give the long table instead: one record per attacker, target and phase."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from ..data.datasheet import LISTED
from ..model import Context, declared_fields
from .plot import checked_path, pyplot, save_figure
from .report import Report, render
from .situation import situation

FIGURES = {"mean_damage": "mean damage", "mean_models_destroyed": "mean models destroyed",
           "p_destroyed": "P(unit destroyed)", "points_destroyed_per_100": "points destroyed per 100 points"}


def preface(context: Context) -> tuple[str, ...]:
    """What every matchup assumes, then the situation's header lines."""
    return ("each unit attacks with its whole loadout, at its size in the army (else its smallest)",
            "a weapon of several profiles fires the one that deals the target the most expected damage (said where "
            "there is a choice)",
            "each Leader attacks and is attacked alone (an army list does not say which unit it leads)",
            "points destroyed: the target's points times the share of its models destroyed",
            *(line.strip() for line in situation(context)))  # (a header's indent is the table's, not a JSON line's)


def matchup_json(records: Sequence[dict[str, Any]], preface: Sequence[str]) -> str:
    """The long table as JSON, `mathhammer matchup --format json` and the server's answer: the assumptions, what
    the answers said of their units for each army and phase (`_notes`, as the tables say it), then one record
    per attacker, target and phase (null for a figure without an answer)."""
    rows = tuple({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                 for row in records)
    keys = dict.fromkeys((row["army"], row["phase"]) for row in rows)
    notes = [{"army": army, "phase": phase, "notes": said} for army, phase in keys
             if (said := _notes([row for row in rows if (row["army"], row["phase"]) == (army, phase)]))]
    return render(Report("", {}, details={"assumptions": list(preface), "notes": notes}, records=rows), "json")


def _cell(figure: str, value: float) -> str:
    if value is None or math.isnan(value):
        return "-"
    if figure == "p_destroyed":
        return "<0.1%" if 0 < value < 0.0005 else f"{value:.1%}"
    return f"{value:.2f}"


def _groups(frame: Any) -> list[tuple[tuple[str, str], Any]]:
    """(army, phase) and its rows, in the frame's order."""
    keys = list(dict.fromkeys(zip(frame["army"], frame["phase"])))
    return [((army, phase), frame[(frame["army"] == army) & (frame["phase"] == phase)]) for army, phase in keys]


def _reasons(rows: Any) -> list[str]:
    """One line per attacker that cannot attack some targets, with the reason."""
    lines = []
    for attacker in dict.fromkeys(rows["attacker"]):
        own = rows[(rows["attacker"] == attacker) & rows["reason"].notna()]
        for reason in dict.fromkeys(own["reason"]):
            targets = list(own[own["reason"] == reason]["target"])
            which = "" if len(targets) == (rows["attacker"] == attacker).sum() else f" (against {', '.join(targets)})"
            lines.append(f"not answered: {attacker}{which}: {reason}")
    return lines


def _notes(rows: Sequence[dict[str, Any]]) -> list[str]:
    """What the answers (`rows`, the records of one army and phase) said of their units (abilities not applied,
    weapons not fired, ...), as `mathhammer unit` says it: a line every answer said, once; a target's own notes,
    once for it; a line every answer of an attacker said, under its name; one it said against some targets, with
    them; and, where they name options that a matchup does not take (--with), that those are `mathhammer unit`'s."""
    answered = [(row["attacker"], row["target"], [line for line in row["notes"] if not line.endswith(LISTED)])
                for row in rows
                if row["reason"] is None or (isinstance(row["reason"], float) and math.isnan(row["reason"]))]
    listed = any(line.endswith(LISTED) for row in rows for line in row["notes"])  # said once, not for each unit
    every = [line for line in dict.fromkeys(line for _, _, notes in answered for line in notes)
             if all(line in notes for _, _, notes in answered)]
    lines = [f"every answer: {line}" for line in every]
    if listed:
        lines.append(f"units of an army list: profiles as the list gives them {LISTED}")
    of_target: set[tuple[str, str]] = set()  # a target's own (its notes, what it has), said in every answer at it
    for target in dict.fromkeys(t for _, t, _ in answered):
        at_it = [notes for _, t, notes in answered if t == target]
        for line in dict.fromkeys(line for notes in at_it for line in notes if line.startswith(("target note (",
                                                                                                "target has "))):
            if line not in every and all(line in notes for notes in at_it):
                of_target.add((target, line))
                said = line.split("): ", 1)[1] if line.startswith("target note (") else line
                lines.append(f"about {target} as a target: {said}")
    for attacker in dict.fromkeys(a for a, _, _ in answered):
        own = [(target, notes) for a, target, notes in answered if a == attacker]
        for line in dict.fromkeys(line for target, notes in own for line in notes
                                  if line not in every and (target, line) not in of_target):
            targets = [target for target, notes in own if line in notes and (target, line) not in of_target]
            which = "" if len(targets) == len(own) else f" against {', '.join(targets)}"
            lines.append(f"about {attacker}{which}: {line}")
    taken = {field.declared.option for field in declared_fields()}  # a matchup's situation options: its own too
    named = [flag for flag in dict.fromkeys(re.findall(r"(?<![\w-])--[a-z][a-z-]*", " ".join(lines)))
             if flag not in taken]
    if named:
        lines.append(f"{', '.join(named)}: options of `mathhammer unit`, which asks one pair of these units (a unit "
                     "of an army list is written FILE#N)")
    return lines


def reports(frame: Any, figures: Sequence[str], preface: Sequence[str] = ()) -> list[Report]:
    """One report per army, phase and figure, its grid the attackers (rows) against the targets."""
    out: list[Report] = []
    for (army, phase), rows in _groups(frame):
        attackers, targets = list(dict.fromkeys(rows["attacker"])), list(dict.fromkeys(rows["target"]))
        records = rows.to_dict("records")
        cells = {(a, t): row for a, t, row in zip(rows["attacker"], rows["target"], records)}
        against = rows["against"].iloc[0]
        for i, figure in enumerate(figures):
            grid = [(f"{army} attacks ->", *targets)]
            grid += [(a, *(_cell(figure, cells[a, t][figure]) for t in targets)) for a in attackers]
            notes = (*_reasons(rows), *_notes(records)) if i == len(figures) - 1 else ()
            out.append(Report(f"{FIGURES[figure]}: {army} against {against}, {phase} phase", {},
                              preface=tuple(preface) if not out else (), grid=tuple(grid), notes=notes))
    return out


def render_matchup(frame: Any, fmt: str, figures: Sequence[str], preface: Sequence[str] = ()) -> str:
    """The matchup in one of the report formats for a table: tables for people (table, markdown), the long
    table for programs (csv; JSON is `matchup_json`, from the records)."""
    if fmt == "csv":
        records = tuple({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                        for row in frame.to_dict("records"))
        return render(Report("", {}, details={"assumptions": list(preface)}, records=records), fmt)
    return "\n\n".join(render(report, fmt).rstrip("\n") for report in reports(frame, figures, preface))


def save_heatmap(frame: Any, path: str, figure: str, preface: Sequence[str] = ()) -> None:
    """A heatmap of one figure, one panel per army and phase, the number written in each cell
    (a cell with no answer is blank). Written by the safe writer."""
    target = checked_path(path)
    plt = pyplot()
    groups = _groups(frame)
    fig, axes = plt.subplots(1, len(groups), squeeze=False,
                             figsize=(max(6.0, 1.3 * frame["target"].nunique() + 3) * len(groups),
                                      0.45 * frame["attacker"].nunique() + 2.5))
    shown = frame[figure].astype(float)  # one colour scale for every panel (a trial found 1.5% as yellow as 53.8%)
    low, high = (float(shown.min()), float(shown.max())) if shown.notna().any() else (0.0, 1.0)
    for ax, ((army, phase), rows) in zip(axes[0], groups):
        attackers, targets = list(dict.fromkeys(rows["attacker"])), list(dict.fromkeys(rows["target"]))
        values = rows.pivot(index="attacker", columns="target", values=figure).reindex(index=attackers,
                                                                                       columns=targets)
        image = ax.imshow(values.to_numpy(dtype=float), cmap="viridis", aspect="auto", vmin=low, vmax=high)
        for i, a in enumerate(attackers):
            for j, t in enumerate(targets):
                value = values.loc[a, t]
                if not math.isnan(value):  # dark cells (low values) get white numbers
                    light = image.norm(value) > 0.6
                    ax.text(j, i, _cell(figure, value), ha="center", va="center", fontsize="small",
                            color="black" if light else "white")
        ax.set_xticks(range(len(targets)), targets, rotation=35, ha="right", fontsize="small")
        ax.set_yticks(range(len(attackers)), attackers, fontsize="small")
        ax.set_title(f"{army} against {rows['against'].iloc[0]}\n{phase} phase: {FIGURES[figure]}", fontsize="medium")
    if preface:
        fig.suptitle("; ".join(preface), fontsize="small")
    save_figure(fig, target)

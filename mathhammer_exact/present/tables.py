"""Probability tables to print and bring to the table, written as Markdown and CSV.

Each table is computed with the engine's own stages, exactly; fractions are printed where
they are short enough to read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import attrs

from ..data import load
from ..engine.resolve import attack
from ..files import write_files
from ..model import Context, ModelProfile, Reroll, Target, Weapon
from ..pmf import Number
from ..rolls import charge
from ..stages.hit import hit_odds
from ..stages.save import unsaved_chance
from ..stages.wound import wound_odds
from .report import short

READABLE = 9  #: longest fraction printed as a fraction; longer ones are decimals


@attrs.frozen
class Table:
    name: str  #: file name without suffix
    title: str
    note: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def markdown(self) -> str:
        lines = [f"# {self.title}", "", self.note, "", "| " + " | ".join(self.header) + " |",
                 "|" + "|".join("---" if i == 0 else "---:" for i in range(len(self.header))) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines) + "\n"

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.header)
        writer.writerows(self.rows)
        return out.getvalue()


def cell(p: Number) -> str:
    """A probability: the exact fraction if short, else a decimal."""
    if isinstance(p, Fraction) and short(p, READABLE):
        return str(p)
    return f"{float(p):.6f}"


def _weapon(text: str) -> Weapon:
    return Weapon.parse(text)


MODEL = ModelProfile(toughness=4, save=7, wounds=1)


def hit_table() -> Table:
    rows = []
    for skill in range(2, 7):
        for modifier in (-1, 0, 1):
            weapon = _weapon(f"A1 BS{skill}+ S4 AP0 D1")
            cells = [cell(hit_odds(weapon, MODEL, Context(hit_modifier=modifier, reroll_hits=policy)).passed)
                     for policy in Reroll]
            rows.append((f"{skill}+", f"{modifier:+d}", *cells))
    header = ("BS/WS", "modifier", *(f"re-roll {r.name.lower()}" for r in Reroll))
    note = "Critical Hits on 6; an unmodified 1 always fails; re-rolls act before modifiers."
    return Table("hit", "Hit roll: chance to hit", note, header, tuple(rows))


def wound_table() -> Table:
    toughness = range(1, 15)
    rows = []
    for strength in range(1, 17):
        weapon = _weapon(f"A1 BS3+ S{strength} AP0 D1")
        rows.append((f"S{strength}", *(cell(wound_odds(weapon, attrs.evolve(MODEL, toughness=t), Context()).passed)
                                       for t in toughness)))
    return Table("wound", "Wound roll: chance to wound", "No modifiers or re-rolls; an unmodified 6 always wounds.",
                 ("S \\ T", *(f"T{t}" for t in toughness)), tuple(rows))


def save_table() -> Table:
    aps = range(0, -5, -1)
    header = ["Sv", "invulnerable", *(f"AP{ap}{' cover' if cover else ''}" for ap in aps for cover in (False, True))]
    rows = []
    for invulnerable in (None, 6, 5, 4):
        for save in range(2, 8):
            model = attrs.evolve(MODEL, save=save, invulnerable=invulnerable)
            cells = [cell(unsaved_chance(_weapon(f"24\" A1 BS3+ S4 AP{ap} D1"), model, Context(cover=cover)))
                     for ap in aps for cover in (False, True)]
            rows.append((f"{save}+", f"{invulnerable}+" if invulnerable else "none", *cells))
    return Table("save", "Saving throw: chance a wound is NOT saved",
                 "Ranged attacks. Cover adds 1 to armour saves, not for Sv 3+ or better against AP0, never to "
                 "invulnerable saves; the defender uses the better save.", tuple(header), tuple(rows))


def charge_table() -> Table:
    rows = tuple((f'{d}"', cell(charge(d).p_success), cell(charge(d, reroll=True).p_success))
                 for d in range(2, 13))
    return Table("charge", "Charge roll: chance to make the distance",
                 "2D6 at least the distance; a re-roll re-rolls the whole roll when it fails.",
                 ("distance", "no re-roll", "re-roll"), rows)


def _built_in_weapons() -> Iterator[tuple[str, Weapon]]:
    for sheet in load.datasheets().values():
        for name, profiles in sheet.weapons.items():
            for profile, weapon in profiles.items():
                yield f"{sheet.name}: {name}" + ("" if profile == "default" else f" ({profile})"), weapon


def weapons_table() -> Table:
    rows = []
    for label, weapon in _built_in_weapons():
        for name, standard in load.standard_targets().items():
            target: Target = standard.target
            result = attack(weapon, target, 1, exact=True)
            rows.append((label, name, cell(result.damage.mean), cell(result.models_destroyed.mean),
                         cell(result.models_destroyed.at_least(1)), cell(result.p_destroyed)))
    return Table("weapons", "Every built-in weapon against every standard target",
                 "One model attacking, out of half range, no other abilities; see rules/targets.toml for the targets.",
                 ("weapon", "target", "E[damage]", "E[models destroyed]", "P(at least one)", "P(unit destroyed)"),
                 tuple(rows))


def all_tables() -> list[Table]:
    return [hit_table(), wound_table(), save_table(), charge_table(), weapons_table()]


def write_tables(out: Path, force: bool = False) -> list[Path]:
    """Write every table as NAME.md and NAME.csv, and an index README.md, into `out`, all or none
    (see `files.write_files`: files the program did not write are replaced only with `force`)."""
    tables = all_tables()
    index = ["# Probability tables", "", "Written by `mathhammer tables`; a test checks they match what it writes now.",
             ""] + [f"- [{t.title}]({t.name}.md) ([CSV]({t.name}.csv))" for t in tables]
    texts = {"README.md": "\n".join(index) + "\n"}
    for table in tables:
        texts.update({f"{table.name}.md": table.markdown(), f"{table.name}.csv": table.csv()})
    return write_files(out, {name: text.encode() for name, text in texts.items()}, force,
                       hint="choose another --out, or add --force to replace it", make=True)

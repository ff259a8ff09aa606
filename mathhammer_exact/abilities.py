"""Weapon abilities as data: what each is called, the kind of value it takes, which weapons may
have it, what it needs from the situation, the stage it acts in and what it does, in words.

Each entry is declared once, on the `model.Weapon` field it sets (`model.ability_field`); the
parser, the profile's validator, the card printer and docs/rules.md's table read the entries and
act by `Kind`, never by an ability's name. A rules edition's abilities are a tuple of entries
(`Edition`; the 10th's is `model.TENTH_EDITION`, the entries on `Weapon`'s fields): the parser
(`parsing.weapon_fields`) and the table take any edition, so another one can leave an ability
out, add one (on a field of its own), or read one differently (`attrs.evolve` of an entry: another
spelling, kind or words) without touching the code that reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import attrs

from .dice import Dice

#: The kind of value an ability takes, as printed:
#: ``flag`` (the name alone), ``number`` (NAME X, X a whole number), ``dice`` (NAME X, X a number or
#: dice), ``distance`` (NAME X", in inches), ``keyword`` (NAME-KEYWORD X+, which a weapon may have
#: several of, one per keyword).
Kind = Literal["flag", "number", "dice", "distance", "keyword"]

#: Where an ability acts: a stage of one attack (the `stages` module of that name), the `engine`'s
#: sequence of a unit's attacks (``sequence``, ``allocation``), or the choice of which weapons a
#: unit attacks with (``unit``, in `data.query`).
Stage = Literal["attacks", "hit", "wound", "save", "damage", "allocation", "sequence", "unit"]

_FORMS: dict[str, str] = {"flag": "{}", "number": "{} X", "dice": "{} X", "distance": '{} X"',
                          "keyword": "{}-KEYWORD X+"}


@attrs.frozen
class Ability:
    """One weapon ability as a rules edition prints it.

    `name` is the printed name in capitals (``TWIN-LINKED``); `words` how a card writes it
    (``Twin-linked``); `x` what its X is, in words (``extra damage``); `needs` the situation fields
    (of `model.Context`) it reads; `rule` what it does, for docs/rules.md. `field` is the
    `model.Weapon` field it sets, filled in where the field is declared."""

    name: str
    kind: Kind
    words: str
    stage: Stage
    rule: str
    ranged_only: bool = False
    needs: tuple[str, ...] = ()
    x: str = ""
    field: str = ""

    @property
    def spelling(self) -> str:
        """The name as the parser matches it: capitals, a hyphen read as a space (TWIN LINKED)."""
        return " ".join(self.name.replace("-", " ").split())

    @property
    def form(self) -> str:
        """How a profile writes it, X standing for its value: ``NAME X``, ``NAME-KEYWORD X+``, ``NAME``."""
        return _FORMS[self.kind].format(self.name)

    def combine(self, current: Any, granted: Any) -> Any:
        """The value when a rule grants this ability to a weapon that may already have it: a
        keyword ability adds its keywords; the same ability twice does not stack, so a value
        that can be rolled keeps the better one on average; otherwise the granted value."""
        if self.kind == "keyword":
            return tuple(sorted({*current, *granted}))
        if self.kind == "dice":
            new = Dice.parse(granted)
            return new if current is None or new.mean > current.mean else current
        return granted


#: The abilities a rules edition has, in the order a datasheet prints them.
Edition = tuple[Ability, ...]


def flags(edition: Sequence[Ability]) -> dict[str, Ability]:
    """The edition's flag abilities by the spelling the parser matches."""
    return {ability.spelling: ability for ability in edition if ability.kind == "flag"}

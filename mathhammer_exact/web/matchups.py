"""The matchup question (the CLI's `mathhammer matchup`: army against army) as pydantic models beside those of
`schemas`: each army is units by name, or an army list sent with the question, or units of that list by number;
the answer is the command's `--format json`."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .schemas import MAX_ITEMS, STRICT, Army, Name, Situation, Text, example


class MatchupArmy(BaseModel):
    """One army: its `units`, each named as for /api/unit with its size after 'x' ('Incursor Squad x10', else
    its smallest size; '#3' a unit of the army list sent), or every unit of the army list sent (`army`)."""

    model_config = STRICT

    name: Text | None = Field(default=None, description="The army's name in the answer (default: the army list's "
                                                        "name, else 'army A' or 'army B').")
    units: Annotated[list[Name], Field(min_length=1, max_length=MAX_ITEMS)] | None = Field(
        default=None, description="The army's units, in order (default: every unit of the army list sent).")
    army: Army = None

    @model_validator(mode="after")
    def _some_units(self) -> Self:
        if self.units is None and self.army is None:
            raise ValueError('give the army\'s "units" by name, or its army list as "army" (or both: its units '
                             "'#NUMBER' of the list)")
        return self


class MatchupQuery(BaseModel):
    """Every unit of one army attacking every unit of the other with its whole loadout (the CLI's `matchup`): mean
    damage, mean models destroyed, P(unit destroyed) and points destroyed per 100 points spent. Answered in
    floating point."""

    model_config = ConfigDict(**STRICT, **example(
        army_a={"units": ["Incursor Squad x10", "Tempestus Command Squad"]},
        army_b={"name": "theirs", "units": ["Tempestus Command Squad", "Incursor Squad"]}, phase="both"))

    army_a: MatchupArmy
    army_b: MatchupArmy
    phase: Literal["shooting", "fight", "both"] = Field(
        default="shooting", description="Which phase the units attack in; both: each phase.")
    both: bool = Field(default=False, description="Also army_b attacking army_a.")
    situation: Situation = Field(default_factory=Situation)


class MatchupRow(BaseModel):
    """One attacker against one target in one phase; null figures (and the `reason`) where it cannot attack."""

    army: str = Field(description="The attacking army's name.")
    against: str = Field(description="The other army's name.")
    attacker: str = Field(description="The attacking unit, labelled with its place in its army ('#1 Boyz').")
    attacker_faction: str | None
    phase: str
    models: int | None = Field(description="Models in the attacking unit.")
    target: str
    target_faction: str | None
    target_models: int
    edition: str | None = Field(description="The rules edition this answer was given in ('10e', '11e').")
    mean_damage: float | None
    mean_models_destroyed: float | None
    p_destroyed: float | None
    points_destroyed_per_100: float | None = Field(description="The target's points destroyed per 100 points of the "
                                                               "attacker's (null where a point value is missing).")
    attacker_points: int | None
    target_points: int | None
    reason: str | None = Field(description="Why the unit cannot attack in this phase (null where it can).")
    notes: list[str] = Field(description="What this answer said of its units, as `mathhammer unit` says it "
                                         "(abilities not applied, weapons not fired, which faction's unit a name "
                                         "was taken for).")


class MatchupNotes(BaseModel):
    """What the answers of one army and phase said of their units, each line once (as the CLI's tables say it):
    'every answer: ...', 'about UNIT as a target: ...', 'about UNIT [against TARGETS]: ...'."""

    army: str
    phase: str
    notes: list[str]


class MatchupAnswer(BaseModel):
    """`mathhammer matchup --format json`: what the answer assumes, what its answers said of their units (by army
    and phase), then one row per attacker, target and phase, army_a's units attacking first."""

    assumptions: list[str]
    notes: list[MatchupNotes]
    rows: list[MatchupRow]

"""The player's units for the page's controls, as pydantic models: units found by name in the server's rules
data and index, one datasheet's sizes, models and wargear, and the units of an army list sent to the server
(read from the request, kept nowhere)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .schemas import STRICT, Answer, Army, ArmyList, Name, Situation

MAX_FOUND = 50  #: the most units one search answers


class FoundUnit(Answer):
    name: str
    faction: str
    points: dict[str, int] = Field(description="Points by unit size (models), where the data gives them.")


class FoundUnits(Answer):
    """The units whose names hold the words typed, the unit of that name first; `more` when there were more
    than `limit`."""

    units: list[FoundUnit]
    more: bool
    elsewhere: list[str] = []  #: where none is found: the other indexed editions whose units hold the words


class UnitModels(Answer):
    name: str
    count: int = Field(description="Models of this kind in a unit of the smallest size.")
    max: int | None = Field(description="The most models of this kind, where the number may vary.")
    equipment: list[str]
    profile: str = Field(description="One model's profile in the target grammar, e.g. 'T4 Sv3+ W2 Ld6+'.")


class UnitOption(Answer):
    model: str
    replaces: list[str]
    choices: list[str]
    max: int | None
    each_once: bool


class UnitWeapon(Answer):
    name: str
    profiles: list[str]
    melee: bool


class DatasheetAnswer(Answer):
    """A datasheet for the page's controls: the unit sizes it allows, its models, the wargear a loadout may name
    (`choices`) and the swaps that offer it, its weapons' profiles, points, abilities, the units it can
    lead and the Leaders that may lead it besides those that name it."""

    name: str
    faction: str
    sizes: list[int]
    points: dict[str, int]  #: by unit size, before what its wargear costs
    wargear_points: dict[str, int]  #: wargear -> the points of each one carried (the 11th edition prices some)
    models: list[UnitModels]
    choices: list[str]
    options: list[UnitOption]
    weapons: list[UnitWeapon]
    abilities: list[str]
    leader_of: list[str]
    led_by: list[str]  #: the Leaders its Attached Unit ability admits besides those that name it ('a CHAPLAIN Leader of
    #: Assault Intercessor Squad')
    notes: list[str]


class DatasheetQuery(BaseModel):
    """One unit by name (a datasheet of the rules data, an indexed unit, or '#3' of the army list sent)."""

    model_config = ConfigDict(**STRICT, json_schema_extra={"examples": [{"name": "Tempestus Command Squad"}]})

    name: Name
    near: Name | None = Field(default=None, description="The question's other unit, which settles a name that "
                                                        "several factions use.")
    situation: Situation = Field(default_factory=Situation, description=(
        "Its edition alone (the CLI's `show --edition`): the edition whose data the unit is looked up in."))
    army: Army = None


class ArmyQuery(BaseModel):
    """An army list to read (the CLI's `roster`)."""

    model_config = STRICT

    army: ArmyList


class ArmyUnit(DatasheetAnswer):
    number: int = Field(description="Its number in the list, from 1: '#NUMBER' names it in a question.")
    datasheet: str = Field(description="The datasheet it is of (its name may be the player's own).")


class ArmyAnswer(Answer):
    """`mathhammer roster --json`: the army list's name, its edition ("10e", "11e"), its detachments and its units,
    in the list's order."""

    name: str
    edition: str
    detachments: list[str]  #: the detachment each force of the list chose, as it names it (its rules not modelled)
    units: list[ArmyUnit]

"""The decision questions' requests and answers (the CLI's `attack --need`, `unit --need`, `plan`, `turn` and
`survive`), as pydantic models beside those of `schemas`: the same strictness, names and limits."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from .schemas import (
    LEADER_WARGEAR,
    MAX_ITEMS,
    STRICT,
    Army,
    AttackAnswer,
    AttackQuery,
    Distribution,
    FiringQuery,
    Headed,
    Leaders,
    Loadout,
    Name,
    NamedRules,
    PanelRow,
    Probability,
    Query,
    Situation,
    Text,
    UnitAnswer,
    UnitQuery,
    example,
)

Wanted = Annotated[float | str, Field(description='The chance wanted: a number (0.9) or a string ("9/10", "90%").')]
AT_LEAST = Field(default=None, description="Models destroyed that count (default: the whole target).")


class AttackNeedQuery(AttackQuery):
    """The fewest models of one weapon (the others as given) that reach a chance of destroying the target
    (the CLI's `attack --need`)."""

    model_config = example(weapons=[{"weapon": "A2 BS3+ S4 AP-1 D1"}], target="MEQ", need="90%", at_least=1)

    need: Wanted
    at_least: int | None = AT_LEAST
    weapon: int | None = Field(
        default=None, description='The weapon whose models are sought, numbered from 1 (default: the only one); '
                                  'its "models" are left out.')


class UnitNeedQuery(UnitQuery):
    """The smallest unit size its datasheet allows that reaches a chance of destroying the target (the CLI's
    `unit --need`)."""

    model_config = example(attacker="Incursor Squad", target="MEQ", need=0.6, at_least=1)

    need: Wanted
    at_least: int | None = AT_LEAST


class Needed(BaseModel):
    """The answer's number of models, the chance with it and with one fewer (or the next smaller size); for a unit
    that reaches it at no size, `models` null and the chance at its `largest` size."""

    models: int | None
    at_least: int
    wanted: Probability
    p: Probability
    p_below: Probability | None
    largest: int | None = None


class AttackNeedAnswer(AttackAnswer):
    """`mathhammer attack --need --json`: the attack at the fewest models, and the search's answer."""

    need: Needed


class UnitNeedAnswer(UnitAnswer):
    """`mathhammer unit --need --json`: the unit's attack at the smallest size, and the search's answer."""

    need: Needed


class UnitWeapons(BaseModel):
    """A unit by name standing for every weapon of its default loadout (its melee weapons in a fight)."""

    model_config = STRICT

    unit: Name = Field(description="A unit by name, e.g. 'Intercessor Squad', or '#2' of the army list sent.")


Armament = Annotated[list[FiringQuery | UnitWeapons], Field(max_length=MAX_ITEMS)]


class PlanQuery(Query):
    """Every firing order of the weapons (and every split between two targets), best first (the CLI's `plan`)."""

    model_config = example(weapons=[{"weapon": "A2 BS3+ S4 AP-1 D1", "models": 5}, {"weapon": "A1 BS3+ S9 AP-3 D=3"}],
                           targets=["MEQ", "GEQ"])

    weapons: Annotated[list[FiringQuery | UnitWeapons], Field(min_length=1, max_length=MAX_ITEMS)]
    targets: Annotated[list[Name], Field(min_length=1, max_length=2)] = Field(
        description="The target, or two targets to split the weapons between.")
    goal: Literal["destroy", "kills"] = Field(
        default="destroy", description="destroy: P(the target destroyed; with two, both); kills: expected models "
                                       "destroyed.")
    top: int = Field(default=10, ge=1, description="Best alternatives shown (the answer's rows hold every one).")
    led_by: Leaders | None = Field(
        default=None, description="A Leader (or two, as a list) joined to the first unit named that it can lead.")
    named_rules: NamedRules = Field(default_factory=list, alias="with")  #: of the units named
    situation: Situation = Field(default_factory=Situation)
    army: Army = None


class PlanRow(BaseModel):
    """One alternative: its rank, the weapons (numbered from 1) fired at each target in order, its value."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, str] = Field(init=False)  # target_1, target_2: e.g. "2, 1"

    rank: int
    value: Probability


class PlanAnswer(Headed):
    """`mathhammer plan --json`: the best plan's models destroyed at each target (`models_destroyed_1`, ...)
    and every alternative considered, best first."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Distribution] = Field(init=False)

    goal: str
    weapons: list[str]
    queries: int
    rows: list[PlanRow]


class TurnQuery(Query):
    """Shoot, charge and fight one target in one turn, its state carried through (the CLI's `turn`)."""

    model_config = example(target="MEQ", shoot=[{"weapon": "A2 BS3+ S4 AP-1 D1", "models": 5}],
                           fight=[{"weapon": "Melee A3 WS3+ S4 AP-1 D1", "models": 5}], distance=7)

    target: Name = Field(description="The target: a datasheet, a standard target or a profile.")
    target_models: int | None = Field(default=None, description="Models in the target unit.")
    leader: Leaders | None = Field(default=None, description="Attach a leader (or two, as a list) to the target.")
    target_loadout: Loadout = Field(
        default_factory=list, description="The target's wargear choices, e.g. ['medi-pack'].")
    leader_loadout: Loadout = Field(
        default_factory=list, description=f"The wargear choices of the target's Leaders. {LEADER_WARGEAR}")
    shoot: Armament = Field(default_factory=list, description="Ranged weapons fired first, or units by name.")
    fight: Annotated[list[FiringQuery | UnitWeapons], Field(min_length=1, max_length=MAX_ITEMS)] = Field(
        description="Melee weapons of the charging unit, or units by name (their melee weapons).")
    distance: int = Field(le=100, description="Charge distance needed, in inches (2D6 >= it).")
    charge_reroll: bool = Field(default=False, description="Re-roll the charge roll when it fails.")
    charge_modifier: int = Field(default=0, ge=-12, le=12, description="Charge roll modifier, e.g. -2.")
    overwatch: Annotated[list[FiringQuery], Field(max_length=MAX_ITEMS)] = Field(
        default_factory=list, description='The target\'s side fires Overwatch at the charger: weapons with their '
                                          '"models", or one weapon without, fired by each model of the target left '
                                          'after the shooting.')
    charger: Text | None = Field(default=None, description="One charging model's profile for Fire Overwatch.")
    loadout: Loadout = Field(default_factory=list, description="The wargear choices of the first unit named in shoot "
                                                                "or fight (in each phase it attacks in).")
    led_by: Leaders | None = Field(
        default=None, description="A Leader (or two, as a list) joined to the first unit named in shoot or fight "
                                          "that it can lead, in each phase that unit attacks in.")
    order: Annotated[list[int], Field(max_length=MAX_ITEMS)] | None = Field(
        default=None, description="Defender's allocation order of the target's model groups, numbered from 1.")
    named_rules: NamedRules = Field(default_factory=list, alias="with")  #: each in every phase that can use it
    situation: Situation = Field(default_factory=Situation)
    army: Army = None


class TurnAnswer(Headed):
    """`mathhammer turn --json`."""

    damage: Distribution
    models_destroyed: Distribution
    p_destroyed: Probability
    p_below_half: Probability
    p_battle_shocked: Probability | None = None
    p_destroyed_by_shooting: Probability
    p_charge: Probability
    fighters: Distribution
    fights: int


class SurviveQuery(Query):
    """How a unit fares against each standard attacker (the CLI's `survive`)."""

    OPTION_KEYS: ClassVar[dict[str, str]] = {"--target-loadout": '"loadout"'}  #: its unit is the target: `keys.in_keys`

    model_config = example(unit="Incursor Squad")

    unit: Name = Field(description="The unit: a datasheet, a standard target or a profile.")
    target_models: int | None = Field(default=None, description="Models in the unit.")
    loadout: Loadout = Field(default_factory=list, description="The unit's wargear choices, e.g. ['3 brute shields'].")
    leader: Leaders | None = Field(default=None, description="Attach a leader (or two, as a list) to the unit.")
    leader_loadout: Loadout = Field(
        default_factory=list, description=f"The wargear choices of the unit's Leaders. {LEADER_WARGEAR}")
    attackers: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = Field(
        default_factory=list, description="Only these standard attackers (default: all of them; see /api/catalogue).")
    at_least: int | None = Field(
        default=None, description="k of P(at least k models destroyed) (default: the number that leaves it Below "
                                  "Half-strength).")
    situation: Situation = Field(default_factory=Situation, description=(
        "Its edition alone (the CLI's --edition): each standard attacker attacks in its own situation."))
    army: Army = None


class SurviveAnswer(Headed):
    """`mathhammer survive --json`: a row per standard attacker, and its models destroyed as
    `models_destroyed_1`, ..."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Distribution] = Field(init=False)

    rows: list[PanelRow]

"""The API's requests and answers as pydantic models: FastAPI validates requests with them and
documents both in /openapi.json.

Requests carry size limits of their own only where the engine has none (how many weapons, how
long a string, how many dice tests); the rules (BS 2+ to 6+, a dice expression) and the engine's
size limits (models, wounds, work) are checked by the engine, with the CLI's one-line messages.
Unknown keys are refused, so a misspelled option is never silently ignored, and requests are strict:
a value of the wrong JSON type (`true` or `"5"` for a number, `1e3` for a count) is refused, never
converted. Names are never read as files: the server reads no file a client names.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self

import attrs
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model, model_validator
from pydantic_core import PydanticCustomError

from ..catalogue import ARMY_LISTS
from ..editions import answered_in
from ..errors import MathhammerError
from ..model import Context, Rules, SituationField, declared_fields
from ..present import rolls
from ..present.report import Report

MAX_TEXT = 300  #: characters in a weapon, target or name string
MAX_TESTS = 1000  #: dice tests (Desperate Escape, Hazardous) in one question
MAX_ITEMS = 30  #: weapons in one attack, named rules or loadout entries in one query
MAX_SCENARIOS = 10  #: scenarios in one comparison

Text = Annotated[str, Field(max_length=MAX_TEXT)]


#: the models a unit has left of those it started with ('x3/5'), whose slash is no path's
_LEFT_OF = re.compile(r"\bx[=:]?[0-9]+/[0-9]+\b", re.IGNORECASE)


def _no_file(text: str) -> str:
    """A name the server may look up: never an army-list file (`FILE#UNIT`) or anything like a path, refused
    before any file is touched, with the same line whether or not such a file exists. '#3' or '#NAME' names a
    unit of the army list sent with the question (`army`); 'x3/5' is a unit's models left of its Starting Strength."""
    text_alone = _LEFT_OF.sub("", text)
    sent = text.lstrip().startswith("#") and not any(mark in text_alone for mark in "/\\")
    if not sent and (any(mark in text_alone for mark in "#/\\") or text.strip().lower().endswith(ARMY_LISTS)):
        raise PydanticCustomError("file_name", 'the server reads no files: send the army list with the question as '
                                               '"army" and name its units \'#NUMBER\' or \'#NAME\'; or give a '
                                               'datasheet or standard target by name, or a profile')
    return text


def _base64(text: str) -> str:
    """An army list's bytes in base64, checked here (decoded by the worker that reads the list)."""
    try:
        base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise PydanticCustomError("base64", "not base64 ({error})", {"error": str(exc)}) from None
    return text


Name = Annotated[Text, AfterValidator(_no_file)]  #: a datasheet or standard target by name, or a profile
Loadout = Annotated[list[Text], Field(max_length=MAX_ITEMS)]  #: wargear choices, as a list
#: rules applied by name (`unit --with`), given as "with"
NamedRules = Annotated[list[Text], Field(max_length=MAX_ITEMS, description="Named abilities, stratagems or Orders, "
                                                                          "e.g. ['take-aim'].")]
LEADER_WARGEAR = ("Each choice goes to the Leader that can take it, or to the one named before a colon: "
                  "'Captain: power fist'; a Leader of one model.")
#: the Leaders attached to a unit: one, or several (two where a Leader's datasheet allows it: a Captain, a Lieutenant)
Leaders = Name | Annotated[list[Name], Field(min_length=1, max_length=MAX_ITEMS)]
Count = Annotated[int, Field(le=MAX_TESTS)]
ARMY_TEXT = ("An army list exported from BattleScribe (.ros, .rosz) or New Recruit (.json): the file's bytes in "
             "base64, gzip-compressed or not. Its units are named '#NUMBER' (from 1, as /api/army numbers them) "
             "or '#NAME' wherever the question names a unit. It is read for this question only and kept nowhere.")
#: an army list sent with a question, read for it alone and kept nowhere (the server writes no file)
ArmyList = Annotated[str, AfterValidator(_base64), Field(description=ARMY_TEXT)]
Army = Annotated[ArmyList | None, Field(description=ARMY_TEXT)]  #: an army list, if the question has one
Probability = Annotated[float | str, Field(description='a number, or with "exact": true a fraction "p/q"')]


STRICT = ConfigDict(extra="forbid", strict=True)  #: a request's keys: none unknown, no value converted


def example(**body: Any) -> ConfigDict:
    """A request's configuration with one example body, shown in /openapi.json (a test asks each one)."""
    return ConfigDict(json_schema_extra={"examples": [body]})


class Query(BaseModel):
    """What every question has: no unknown keys, and exact fractions on request."""

    model_config = STRICT

    exact: bool = Field(default=False, description='Exact fractions ("p/q" strings) instead of floating point.')


class SituationBase(BaseModel):
    """What the web request's situation does; its fields are made from the declarations of
    `Context`'s fields (`situation_model`)."""

    model_config = STRICT
    fields_of: ClassVar[type[Context]] = Context  #: the engine's class the fields are declared on

    def context(self) -> Context:
        """The engine's `Context` (which checks the rules, e.g. the critical hit threshold); the edition left out
        is the player's ($MATHHAMMER_EDITION), as on the command line (`editions.answered_in`)."""
        fields = self.model_dump()
        if "edition" in fields:
            fields["edition"] = answered_in(fields["edition"])
        return self.fields_of(**fields)

    def over(self, query: Self) -> Self:
        """This weapon's situation: the fields given here, the query's for the rest (so the target's
        re-rolled saves, say, still hold for a weapon within half range). The edition is the whole question's:
        a weapon's of another is refused (a trial found one answered under two editions at once)."""
        edition = getattr(self, "edition", None)
        if "edition" in self.model_fields_set and edition != getattr(query, "edition", None):
            raise MathhammerError(f'a weapon\'s "situation" gives the edition {edition!r}, the question\'s is '
                                  f'{getattr(query, "edition", None) or "the default"}: the edition is the whole '
                                  'question\'s; give it in the question\'s "situation.edition"')
        return query.model_copy(update={name: getattr(self, name) for name in self.model_fields_set})


def choice_type(field: SituationField) -> Any:
    """The values a field with choices takes, as a `Literal`."""
    return Literal.__getitem__(field.declared.choices)


def _value(fields_of: type[Context], field: SituationField, choice: str) -> Any:
    """The field's value for a choice as a player writes it (as its converter reads it; alone, since a choice
    may need others, as the 11th edition's Lethal Hits policies do)."""
    converter = attrs.fields_dict(fields_of)[field.name].converter
    return converter(choice) if callable(converter) else choice


def situation_model(fields_of: type[Context] = Context, name: str = "Situation") -> type[SituationBase]:
    """The request's situation: one field for each declared field of `fields_of`, with its name, its
    default as JSON has it, its choices, its help and its bounds (in the description only: `Context`
    refuses a value out of bounds, with the message the command gives)."""
    fields: dict[str, Any] = {}
    for field in declared_fields(fields_of):
        declared = field.declared
        kind: Any = int
        if isinstance(field.default, bool):
            kind = bool
        elif declared.choices:
            kind = choice_type(field) if field.spoken is not None else choice_type(field) | None
        elif declared.metavar is not None:
            kind = Text | None
        extra: dict[str, Any] = {  # the bounds described here, refused by `Context` with the command's message
            key: bound for key, bound in (("minimum", declared.low), ("maximum", declared.high)) if bound is not None}
        if declared.choices:  # the header's words for each choice but the default, e.g. for the page's options
            extra["x-words"] = {choice: declared.say(_value(fields_of, field, choice))
                                for choice in declared.choices if choice != field.spoken}
        elif declared.metavar is not None:
            extra["x-metavar"] = declared.metavar
        fields[field.name] = (kind, Field(default=field.spoken, description=declared.help,
                                          json_schema_extra=extra or None))
    model = create_model(name, __base__=SituationBase, __doc__="The situation of an attack: the fields of "
                         "`mathhammer_exact.Context` (the CLI's situation options); `x-words` says each choice "
                         "as the answer's header does, `x-metavar` what a free text field takes.", **fields)
    model.fields_of = fields_of
    return model


_DECLARED = {field.name: field for field in declared_fields()}
RerollPolicy = choice_type(_DECLARED["reroll_hits"])  #: `Reroll` members, lower case
CommandRerollKind = choice_type(_DECLARED["command_reroll"])  #: `CommandReroll` values
DamageRerollPolicy = choice_type(_DECLARED["reroll_damage"])  #: `DamageReroll` values
if TYPE_CHECKING:  # the type checker sees what the models are made of
    Situation = SituationBase
    RulesWording = str
else:
    Situation = situation_model()
    RulesWording = choice_type(_DECLARED["rules"])  #: `Rules.PRESETS`
SaveRerollPolicy = choice_type(_DECLARED["reroll_saves"])  #: the `Reroll` members a saving throw can have


class FiringQuery(BaseModel):
    """One weapon profile and how many models use it."""

    model_config = STRICT

    weapon: Text = Field(description="Weapon profile in datasheet notation, e.g. 'A2 BS3+ S4 AP-1 D1 [LETHAL HITS]'.")
    models: int = Field(default=1, description="Models attacking with this weapon.")
    situation: Situation | None = Field(
        default=None, description="This weapon's own situation: the fields given replace the query's, the others "
                                  "are the query's (as a weapon's @flags on the command line).")


class TargetFields(Query):
    """The target: written out, or a datasheet or standard target by name."""

    target: Name = Field(description="A profile ('T4 Sv3+ W2 x5', groups separated by ';'), a datasheet "
                                     "('Incursor Squad') or a standard target (MEQ, TEQ, ...); one that has lost "
                                     "models with its Starting Strength: 'Incursor Squad x3/5', 'T4 Sv3+ W2 x3/5'.")
    target_models: int | None = Field(
        default=None, description="Models in the target unit (one whose models are alike).")
    leader: Leaders | None = Field(
        default=None, description="Attach a leader to the target, e.g. 'T4 Sv3+ inv4+ W4 Ld6+', or two: "
                                  "['Captain', 'Lieutenant'] (where a Leader's datasheet allows it).")
    order: Annotated[list[int], Field(max_length=MAX_ITEMS)] | None = Field(
        default=None, description="Defender's allocation order of the target's model groups, numbered from 1 as "
                                  "the answer lists them, e.g. [2, 1].")
    situation: Situation = Field(default_factory=Situation)
    army: Army = None


class AttackQuery(TargetFields):
    """Weapon profiles, written out, fired in the order given at one target (the CLI's `attack`)."""

    model_config = example(weapons=[{"weapon": "A1 BS3+ S4 AP0 DD3 [SUSTAINED HITS 1]", "models": 20}],
                           target="T4 Sv4+ W3 x5")

    weapons: Annotated[list[FiringQuery], Field(min_length=1, max_length=MAX_ITEMS)]
    points: int | None = Field(
        default=None, description="The attacker's points: the answer adds kills and points destroyed per 100 points.")
    target_points: int | None = Field(default=None, description="The target's points (each model an equal share).")


class UnitQuery(TargetFields):
    """A datasheet unit, by name, attacks with its whole loadout (the CLI's `unit`)."""

    model_config = example(attacker="Tempestus Command Squad", target="Incursor Squad", loadout=["plasma gun"])

    attacker: Name = Field(description="Datasheet name, e.g. 'Tempestus Command Squad'.")
    loadout: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = Field(
        default_factory=list, description="Wargear choices, e.g. ['plasma gun', 'meltagun'].")
    size: int | None = Field(default=None, description="Models in the attacking unit (default: its smallest size).")
    named_rules: NamedRules = Field(default_factory=list, alias="with")
    melee: bool = Field(default=False, description="Fight with melee weapons instead of shooting.")
    pistols: bool = Field(
        default=False, description="Models shoot their Pistols instead of their other ranged weapons.")
    profiles: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = Field(
        default_factory=list, description="Weapon profiles to use, e.g. ['supercharge'].")
    insane_bravery: bool = Field(default=False, description="The target passes its Battle-shock test.")
    half_range_for: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = Field(
        default_factory=list, description="Weapons within half range when the others are not, e.g. ['meltagun'].")
    cover_for: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = Field(
        default_factory=list,
        description="Target model groups (numbered from 1, or a model name) with the Benefit of Cover.")
    precision: bool = Field(default=True, description="false: decline Precision (wounds allocated as any other).")
    precision_on: Text | None = Field(
        default=None, description="Precision wounds go to this leader group (numbered from 1, or a model name) first.")
    led_by: Leaders | None = Field(
        default=None, description="A Leader attached to the attacking unit (a CHARACTER unit by name): its weapons "
                                  "attack with the unit's; or two, as a list (where a Leader's datasheet allows it).")
    target_loadout: Loadout = Field(
        default_factory=list, description="The target's wargear choices, e.g. ['medi-pack'].")
    led_by_loadout: Loadout = Field(
        default_factory=list, description=f"The wargear choices of the attacking unit's Leaders. {LEADER_WARGEAR}")
    leader_loadout: Loadout = Field(
        default_factory=list, description=f"The wargear choices of the target's Leaders. {LEADER_WARGEAR}")
    without: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = Field(
        default_factory=list, description="Abilities of either unit read from its datasheet, or the attacker's own "
                                          "named rules, left out.")


class ScenarioQuery(BaseModel):
    """One compared scenario: an `attack` or a `unit` question (its `exact` is the comparison's)."""

    model_config = STRICT

    label: Text | None = Field(default=None, description="Its name in the answer (default: what it asks).")
    attack: AttackQuery | None = None
    unit: UnitQuery | None = None

    @model_validator(mode="after")
    def one_question(self) -> ScenarioQuery:
        question = self.attack or self.unit
        if question is None or (self.attack and self.unit):
            raise ValueError("give a scenario either an attack or a unit question")
        for key in ("exact", "army"):
            if getattr(question, key):
                raise ValueError(f'"{key}" goes on the comparison, not in a scenario')
        return self


class CompareQuery(Query):
    """Scenarios side by side, the first the baseline (the CLI's `compare`)."""

    model_config = example(scenarios=[{"unit": {"attacker": "Tempestus Command Squad", "target": "MEQ"}},
                                      {"label": "with Take Aim!", "unit": {
                                          "attacker": "Tempestus Command Squad", "target": "MEQ",
                                          "with": ["take-aim"]}}])

    scenarios: Annotated[list[ScenarioQuery], Field(min_length=1, max_length=MAX_SCENARIOS)]
    army: Army = None
    at_least: int | None = Field(
        default=None, description="k of P(at least k models destroyed) (default: the number that leaves each "
                                  "target Below Half-strength).")


# --------------------------------------------------------------------- answers (the CLI's --json)
class Answer(BaseModel):
    """An answer's schema lists every key it has (the tests hold the answers to it)."""

    model_config = ConfigDict(extra="forbid")

class Headed(Answer):
    """What every answer starts with: its title and the lines of its header (what was asked, as understood:
    each weapon and its models, the target, each rule in force and what it stands for, what is not
    modelled, and the situation assumed), as the command prints them under its title."""

    title: str | None = None
    header: list[str] | None = None


class Distribution(Answer):
    """A distribution of a count: pmf[k] = P(X = k), from k = 0."""

    mean: Probability
    sd: float
    pmf: list[Probability]


class GroupAnswer(Answer):
    name: str
    models: int
    models_destroyed: Distribution
    p_destroyed: Probability


class AttackAnswer(Headed):
    """`mathhammer attack --json`. `wounds` and `unsaved` are there where they are defined."""

    attacks: Distribution
    hits: Distribution
    wounds: Distribution | None = None
    unsaved: Distribution | None = None
    damage: Distribution
    models_destroyed: Distribution
    p_destroyed: Probability
    p_below_half: Probability
    p_battle_shocked: Probability | None = None
    groups: list[GroupAnswer]
    hazardous_tests_failed: Distribution | None = None
    hazardous_models_lost: Distribution | None = None
    points: int | None = None
    target_points: int | None = None
    kills_per_100_points: Probability | None = None
    points_destroyed_per_100_points: Probability | None = None


class FiringAnswer(Answer):
    weapon: str
    models: int


class UnitAnswer(AttackAnswer):
    """`mathhammer unit --json`: the attack's answer plus what fired under which named rules, and the
    situation each rule stands for."""

    firings: list[FiringAnswer]
    modifiers: list[str]
    situation: list[str]


class TestAnswer(Headed):
    """A test that passes or fails: the final roll and P(success)."""

    __test__ = False  # not a pytest test class

    roll: Distribution
    p_success: Probability


class CountAnswer(Headed, Distribution):
    """A count (advance roll, models lost)."""


class GrenadeAnswer(Headed):
    """The Grenade stratagem: the wounds the target loses to its mortal wounds, the models destroyed, P(unit
    destroyed)."""

    damage: Distribution
    models_destroyed: Distribution
    p_destroyed: Probability


class PanelRow(Answer):
    """One scenario's numbers (or, for `survive`, one standard attacker's)."""

    label: str
    k: int
    damage: Probability
    kills: Probability
    p_destroyed: Probability
    p_at_least: Probability
    hazardous_models_lost: Probability | None = Field(
        None, description="the attacker's mean models lost to Hazardous (null: no Hazardous weapon)")


class CompareRow(PanelRow):
    """One scenario's numbers, their changes from the first scenario's, and where every scenario's points
    are known its efficiency and rank (1: the most efficient)."""

    damage_change: Probability
    kills_change: Probability
    p_destroyed_change: Probability
    p_at_least_change: Probability
    points: int | None = None
    target_points: int | None = None
    kills_per_100_points: Probability | None = None
    points_destroyed_per_100_points: Probability | None = None
    rank: int | None = None


class CompareAnswer(BaseModel):
    """`mathhammer compare --json`: a row per scenario, and each scenario's models destroyed as
    `models_destroyed_1`, `models_destroyed_2`, ..."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Distribution] = Field(init=False)

    title: str | None = None
    header: list[str] | None = Field(None, description="What each scenario's answer assumed (the rules, what was not "
                                                         "applied): a line every scenario said once, the others after "
                                                         "their scenario's label.")
    rows: list[CompareRow]


class ErrorAnswer(Answer):
    """A question the server does not answer, and why, in one line."""

    error: str


class DatasheetInfo(BaseModel):
    name: str
    faction: str
    sizes: list[int]
    weapons: list[str]


class TargetInfo(BaseModel):
    name: str
    description: str


class RuleInfo(BaseModel):
    key: str
    name: str
    kind: str
    side: str
    phase: str
    summary: str


class Catalogue(BaseModel):
    """What the rules data holds: datasheets, standard targets, named rules (for `with`) and the standard
    attackers of `survive`."""

    datasheets: list[DatasheetInfo]
    targets: list[TargetInfo]
    rules: list[RuleInfo]
    attackers: list[TargetInfo]


# --------------------------------------------------------------------- dice tests
class RollQuery(Query):
    """A dice test outside the attack sequence (the CLI's `roll ...`); `answer` is the answer's schema."""

    answer: ClassVar[type[BaseModel]] = CountAnswer

    situation: Situation = Field(default_factory=Situation, description=(
        "Its edition alone (the CLI's --edition): the header says what the test is taken as."))

    def report(self) -> Report:
        raise NotImplementedError


class ChargeQuery(RollQuery):
    """Charge roll: 2D6 (plus modifier) at least the distance."""

    model_config = example(distance=9)

    answer = TestAnswer

    distance: int = Field(le=100, description="Inches the charge must cover (9 after Deep Strike).")
    reroll: bool = Field(default=False, description="Re-roll the whole roll when it fails (e.g. Command Re-roll).")
    modifier: int = Field(default=0, ge=-12, le=12, description="Added to the roll, e.g. -2.")

    def report(self) -> Report:
        return rolls.charge_report(self.distance, self.reroll, self.modifier, self.exact)


class AdvanceQuery(RollQuery):
    """Advance roll: D6 inches added to Move."""

    model_config = example()

    def report(self) -> Report:
        return rolls.advance_report(self.exact)


class BattleShockQuery(RollQuery):
    """Battle-shock test: 2D6 at least Leadership passes."""

    model_config = example(ld=7)

    answer = TestAnswer

    ld: int = Field(description="The unit's best Leadership, e.g. 7 for Ld7+.")
    insane_bravery: bool = Field(default=False, description="The stratagem: the test is passed.")

    def report(self) -> Report:
        return rolls.battle_shock_report(self.ld, self.insane_bravery, self.exact)


class DesperateEscapeQuery(RollQuery):
    """Desperate Escape: each test fails on a 1-2 and a model is destroyed."""

    model_config = example(tests=3)

    tests: Count = Field(description="Number of Desperate Escape tests.")

    def report(self) -> Report:
        return rolls.desperate_escape_report(self.tests, self.exact)


class HazardousQuery(RollQuery):
    """Hazardous tests: one D6 per weapon, each 1 costs a model."""

    model_config = example(weapons=2)

    weapons: Count = Field(description="Hazardous weapons used.")
    bearer: Text = Field(default="T3 Sv4+ W1", description="Profile of the models carrying them.")
    rules: RulesWording = Field(
        default="current", description="current: a failed test inflicts 3 mortal wounds on a bearer; 2023: it "
                                       "destroys one (CHARACTER, MONSTER, VEHICLE: 3 mortal wounds).")

    def report(self) -> Report:
        return rolls.hazardous_report(self.weapons, self.bearer, Rules.named(self.rules), self.exact)


class GrenadeQuery(RollQuery):
    """Grenade stratagem: six D6, each 4+ is a mortal wound (spilling over, Feel No Pain applies)."""

    model_config = example(target="GEQ")

    answer = GrenadeAnswer

    target: Name = Field(description="The target unit, e.g. 'T3 Sv5+ W1 x10' or GEQ.")
    army: Army = None

    def report(self) -> Report:
        return rolls.grenade_report(self.target, self.exact)


ROLLS: dict[str, type[RollQuery]] = {  #: the CLI's `roll` subcommands
    "charge": ChargeQuery, "advance": AdvanceQuery, "battle-shock": BattleShockQuery,
    "desperate-escape": DesperateEscapeQuery, "hazardous": HazardousQuery, "grenade": GrenadeQuery,
}

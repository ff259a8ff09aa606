"""The rules editions as data: each edition's reading of the rules where the 10th and the 11th differ.

An `RulesEdition` says which weapon abilities exist only in some editions, the printings of the rules that
changed within it (Devastating Wounds, Indirect Fire, Hazardous), what the Benefit of Cover does, what
Stealth gives, whether Lethal Hits is a choice, what Heavy needs, what a Psychic weapon may ignore and
the cap on roll modifiers. What the project does not know of an edition's rules is taken from the 10th
and listed in `assumed`, which every answer under that edition states. `model.Rules` selects an edition
and a printing within it; the stages read the edition from there. docs/rules.md tells the same.
"""

from __future__ import annotations

import contextlib
import enum
import os
from collections.abc import Iterator
from contextvars import ContextVar

import attrs

from .errors import MathhammerError


class DevastatingWounds(enum.Enum):
    """How a Critical Wound of a Devastating Wounds weapon deals its damage, by printing (docs/rules.md).
    The member names are historical: SEED is the current printing, LAUNCH the 2023 one."""

    SEED = "seed"  #: current: mortal wounds equal to D, after the unit's other attacks, excess lost (default)
    LAUNCH = "launch"  #: 2023: mortal wounds equal to D that spill over to the next model
    UNSAVEABLE = "unsaveable"  #: a reading of the current one: no save; damage applied as a normal attack


class IndirectFire(enum.Enum):
    """What Indirect Fire does to the hit roll at a target that is not visible, by printing."""

    LATER = "later"  #: current: unmodified hit rolls of 1-3 fail; the target has the Benefit of Cover (default)
    LAUNCH = "launch"  #: 2023: -1 to hit; the target has the Benefit of Cover


class Hazardous(enum.Enum):
    """What a failed Hazardous test does, by printing."""

    MORTAL_WOUNDS = "mortal"  #: current: a bearer suffers 3 mortal wounds (default)
    DESTROY = "destroy"  #: 2023: a bearer is destroyed (CHARACTER, MONSTER, VEHICLE: 3 mortal wounds)


class Cover(enum.Enum):
    """What the Benefit of Cover does to a ranged attack."""

    SAVE = "save"  #: +1 to the armour saving throw (not for a 3+ save or better against AP 0): the 10th
    SKILL = "skill"  #: the attacker's BS worsens by 1; no bonus to the save: the 11th, as reported

    @property
    def words(self) -> str:
        return {Cover.SAVE: "+1 to the armour saving throw against ranged attacks (not for a Save of 3+ or better "
                            "against AP 0)",
                Cover.SKILL: "the attacker's BS worsened by 1 for ranged attacks, no bonus to the save (as "
                             "reported)"}[self]


class Stealth(enum.Enum):
    """What a unit whose every model has Stealth gets against ranged attacks."""

    HIT = "hit"  #: -1 to the hit roll (Ignores Cover does not cancel it): the 10th
    COVER = "cover"  #: the Benefit of Cover (so Ignores Cover cancels it): the 11th

    @property
    def words(self) -> str:
        return {Stealth.HIT: "-1 to the hit roll",
                Stealth.COVER: "the Benefit of Cover (not against Ignores Cover)"}[self]


class LethalHits(enum.Enum):
    """Which Critical Hits of a Lethal Hits weapon wound automatically (a choice in the 11th edition)."""

    ALWAYS = "always"  #: every one (the 10th edition's rule)
    NEVER = "never"  #: none: each rolls to wound (it may then be a Critical Wound)
    BEST = "best"  #: each one as the choice with the higher expected damage, given the rest of the profile

    @property
    def words(self) -> str:
        return {LethalHits.ALWAYS: "every Critical Hit wounds automatically",
                LethalHits.NEVER: "every Critical Hit rolls to wound",
                LethalHits.BEST: "each Critical Hit wounds automatically or rolls to wound, whichever is "
                                 "expected to deal more"}[self]


@attrs.frozen
class Printing:
    """One printing of an edition's rules that changed within it."""

    name: str
    devastating_wounds: DevastatingWounds = DevastatingWounds.SEED
    indirect_fire: IndirectFire = IndirectFire.LATER
    hazardous: Hazardous = Hazardous.MORTAL_WOUNDS


@attrs.frozen
class RulesEdition:
    """What one edition's rules say where the editions differ (see the module's docstring)."""

    name: str  #: as a player writes it: "10e"
    ordinal: str  #: "10th"
    printings: tuple[Printing, ...]  #: the first is the default
    cover: Cover
    stealth: Stealth
    lethal_hits: tuple[LethalHits, ...]  #: the policies a player may choose; the first is the default
    heavy: str  #: what Heavy's +1 to hit needs, in words (the situation's `stationary` stands for it)
    psychic_ignores_modifiers: bool  #: a PSYCHIC weapon may ignore modifiers to its BS/WS and hit roll
    abilities: frozenset[str]  #: of the weapon abilities only some editions have (`EDITION_ABILITIES`), its own
    precision_one_group: bool  #: Precision picks one CHARACTER group until it is destroyed (else any CHARACTER)
    modifier_cap: int = 1  #: hit and wound roll modifiers add up to at most +cap and at least -cap
    #: a waiting Devastating Wounds attack (the current printing) is still allocated to a model, so the target's
    #: changes to an allocated attack's Damage (-1, halved) act on its mortal wounds; in the 11th its attack sequence
    #: ends and the target suffers mortal wounds equal to the Damage
    devastating_allocated: bool = True
    #: two CHARACTER units may join one unit where one is a SUPPORT (keyword) and the other not: "at most one Leader
    #: and one Support" (the 11th: docs/rules.md); else one, unless a datasheet lets it take two
    leader_and_support: bool = False
    assumed: tuple[str, ...] = ()  #: what is taken from the 10th edition, unknown for this one
    reported: tuple[str, ...] = ()  #: rules read from reports, not from the rules text, with their sources

    def printing(self, name: str) -> Printing:
        """The printing called `name` (case does not matter)."""
        key = name.strip().lower()
        found = next((p for p in self.printings if p.name == key), None)
        if found is None:
            allowed = ", ".join(p.name for p in self.printings)
            raise MathhammerError(f"the {self.ordinal} edition has no rules printing {name!r} (allowed: {allowed})")
        return found


#: The weapon abilities only some editions have (`model.Weapon` fields, read by `model.ELEVENTH_ADDS`), as printed.
EDITION_ABILITIES = {"cleave": "CLEAVE X", "blast_x": "BLAST X"}

TENTH = RulesEdition(
    name="10e", ordinal="10th",
    printings=(Printing("current"),
               Printing("2023", DevastatingWounds.LAUNCH, IndirectFire.LAUNCH, Hazardous.DESTROY),
               Printing("unsaveable-devastating", devastating_wounds=DevastatingWounds.UNSAVEABLE)),
    cover=Cover.SAVE, stealth=Stealth.HIT, lethal_hits=(LethalHits.ALWAYS,),
    heavy="the attacker Remained Stationary", psychic_ignores_modifiers=False, abilities=frozenset(),
    precision_one_group=False)

ELEVENTH = RulesEdition(
    name="11e", ordinal="11th", printings=(Printing("current"),),  # Devastating Wounds: the 10th's current
    cover=Cover.SKILL, stealth=Stealth.COVER, lethal_hits=(LethalHits.BEST, LethalHits.ALWAYS, LethalHits.NEVER),
    heavy='the attacker is unengaged, was not set up this turn and no model of it moved more than 3"',
    psychic_ignores_modifiers=True, abilities=frozenset(EDITION_ABILITIES), precision_one_group=True,
    devastating_allocated=False, leader_and_support=True,
    assumed=("the saving throw", "the +1/-1 caps of hit and wound roll modifiers", "Battle-shock", "charges",
             "Indirect Fire's hit roll", "Blast not fired into Engagement Range", "Hazardous' test (the hazard roll)"),
    reported=("cover is -1 to the attacker's BS for ranged attacks, beyond the hit roll's +1/-1 cap, BS 6+ at worst, "
              "and no bonus to the save (core rule 13.08 as game-datacards transcribes it; prismnews.com; "
              "infinitearchive.org)",))

EDITIONS = {edition.name: edition for edition in (TENTH, ELEVENTH)}
ENVIRONMENT = "MATHHAMMER_EDITION"  #: the environment variable holding a player's default edition
_ASKED: ContextVar[str | None] = ContextVar("edition asked", default=None)  #: see `asked`


def edition(name: str) -> RulesEdition:
    """The edition called `name` ("10e" or "11e", or as players write them: "11", "11th"; case does not matter)."""
    key = str(name).strip().lower()
    found = EDITIONS.get(key) or EDITIONS.get(key.removesuffix("th") + "e")
    if found is None:
        raise MathhammerError(f"unknown rules edition {name!r} (allowed: {', '.join(EDITIONS)})")
    return found


@contextlib.contextmanager
def asked(name: str | None) -> Iterator[None]:
    """Within the block the edition a question asks for (`--edition`; None: none) is known as `asked_edition`, so
    that the units it names are looked up in that edition's data (where it is indexed), as its rules answer it."""
    token = _ASKED.set(edition(name).name if name else None)
    try:
        yield
    finally:
        _ASKED.reset(token)


def asked_edition() -> str | None:
    """The edition the question being answered asks for (`asked`), if any."""
    return _ASKED.get()


def answered_in(name: str | None) -> str | None:
    """The edition a question is answered in: the one it asks for (`--edition`, a request's "edition"), else the
    player's ($MATHHAMMER_EDITION), else None (the edition of the units it names). The command line and the server
    both take it from here."""
    return name or player_default()


def answered_edition() -> RulesEdition:
    """The edition of a question that names no unit to take one from (a dice test, a named rule's card): the one it
    asks for (`asked`), else the player's, else the 10th."""
    name = answered_in(asked_edition())
    return edition(name) if name else TENTH


def player_default() -> str | None:
    """The edition $MATHHAMMER_EDITION names, if it is set (a bad value is refused)."""
    value = os.environ.get(ENVIRONMENT, "").strip()
    if not value:
        return None
    try:
        return edition(value).name
    except MathhammerError as exc:
        raise MathhammerError(f"${ENVIRONMENT}: {exc}") from None

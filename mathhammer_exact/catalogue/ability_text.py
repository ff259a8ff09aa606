"""Reading datasheet abilities from their text into the engine's own effects, with their conditions.

Datasheet abilities are written in a small set of phrasings: a subject ("each time a model in this
unit makes a ranged attack", "each time an attack targets this unit", "weapons equipped by models
in this unit have"), conditions ("that targets a MONSTER or VEHICLE unit", "if it made a Charge
move this turn", "while this model is leading a unit") and effects ("you can re-roll the Hit
roll", "add 1 to the Wound roll", "that attack has the [LETHAL HITS] ability"). Each sentence is
read into a `NamedRule` of the existing vocabulary (`data.modifiers.Effect`), or refused: every
clause of a sentence that speaks of attacks must be understood, else the whole ability is reported
as not modelled, never half-applied. A condition no query option states ("within 9\"", "once per
battle") is kept as what the reading `needs`, for --with NAME.

"You can re-roll" is read as a player would use it: failed hit and wound rolls, a Damage roll
below its average. Invulnerable saves and Feel No Pain that a unit always has are left to
`catalogue.abilities`, which puts them in the model profile.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any, Literal

import attrs

from ..data.modifiers import FLAGS, STACKED, Effect, Keywords, NamedRule, Phase
from ..data.names import loose
from ..data.text_rules import Reading, Role, Scope, TextAbility, leading
from ..errors import MathhammerError
from .abilities import feel_no_pain, invulnerable, unjoined
from .ability_clauses import (
    EFFECT_JOIN,
    EFFECT_START,
    Condition,
    ForOthers,
    Subject,
    Unreadable,
    clean,
    condition_before,
    not_understood,
    read_effect,
    split_clauses,
    target_condition,
)

#: how an ability counts in `mathhammer data add`'s report
Kind = Literal["effects", "profile", "unmodelled", "others", "other"]

_ATTACKS = re.compile(r"hit rolls?\b|wound rolls?\b|damage rolls?\b|number of attacks|armour penetration|"
                      r"(?:strength|attacks|damage|"
                      r"ballistic skill|weapon skill|toughness|save) characteristic|critical (?:hit|wound)|"
                      r"\[[a-z0-9 +-]+\]|invulnerable save|feel no pain|benefit of cover|"
                      r"\b(?:sustained hits|lethal hits|devastating wounds)\b", re.I)  # (those named bare too)
#: an ability that says which attackers may target the unit (Lone Operative's phrasing): who may shoot, not the odds
_WHO_MAY_TARGET = re.compile(r"can only be (?:selected|chosen) as the target of an? (?:ranged )?attacks? if", re.I)
TARGETED_ONLY = "it limits which attackers may target the unit; the answer assumes this attack may be made"
#: the abilities a datasheet lists by name alone (core rules) that no query models, with whose attacks they are
#: about and why not, by the start of the name ("Lone Operative", "Lone Operative 12\"")
BY_NAME: dict[str, tuple[Role, str]] = {"lone operative": ("target", TARGETED_ONLY)}
#: a Damaged profile ("Damaged: 1-5 wounds remaining"): always the unit's own, whatever its words say of "this unit"
_DAMAGED = re.compile(r"damaged\b.*\bwounds? remaining", re.I)
DAMAGED = "its words are not read; the answer assumes more wounds remaining than it names"
#: mortal wounds the unit inflicts on an enemy unit besides its attacks, as it charges, moves over it, shoots or fights,
#: or at the end of a phase ('Each time this unit ends a Charge move, ... roll one D6 ...: for each 4+, that enemy unit
#: suffers D3 mortal wounds': Brass Stampede; 'At the end of the Fight phase, ... select one enemy unit ...':
#: Relentless Carnage), in an ability that says nothing else about attacks
_OWN_MORTALS = re.compile(r"(?:\benemy\b[^.]*?\b(?:that|the|each|those|every)|\b(?:that|the|each|those|every) enemy) "
                          r"(?:units?|models?) (?:\w+ )?suffers? [^.]*?mortal wounds?", re.I)
#: ... that it inflicts as it is destroyed (Death Vision of Sanguinius): as it is attacked
_AS_DESTROYED = re.compile(r"\bthis (?:model|unit) is destroyed\b", re.I)
OWN_MORTALS = "it inflicts mortal wounds on enemy units besides its attacks"
#: the unit attacks once more (Sentinel Storm): a second volley is a question of its own
_AGAIN = re.compile(r"\b(?:it|this unit|this model) can (?P<verb>shoot|fight) again\b", re.I)
#: weapons chosen for the phase beside the others (the Tesseract Vault's Powers of the C'tan: "select up to 2 different
#: C'tan Powers weapons ... equipped with those weapons in addition to its other weapons")
_MORE_WEAPONS = re.compile(r"select up to (?P<n>\w+) (?:different )?(?P<kind>.+?) weapons\b.*?\bequipped with those "
                           r"weapons in addition to its other weapons", re.I | re.S)
#: an ability chosen from others for a while, written elsewhere on the datasheet or as a list ("select one Triarch
#: ability. Until the start of the next battle round, this unit has that ability": the Silent King's Voice of the
#: Triarch, Abaddon's Warmaster, a Lord of Change's Master of Magicks)
_CHOSEN = re.compile(r"\bselect one (?!of the following\b)(?:of the )?(?P<which>[^.:]{0,60}?)\babilit(?:y|ies)\b"
                     r"(?! below)[^:]*?\b(?:has|have|gains?) that ability\b", re.I | re.S)
#: an invulnerable save against melee attacks only (Wyches: 6+, and 4+ against melee attacks), which the model profile
#: does not hold: read as the Fight phase's
_MELEE_ONLY = re.compile(r"invulnerable save against\s+melee attacks", re.I)
#: a second invulnerable save joined to a first ('This unit has a 6+ Invulnerable save against ranged attacks, and 4+
#: Invulnerable save against melee attacks': Ynnari Wyches), read as a sentence of its own
_TWO_SAVES = re.compile(r"^(?P<first>This unit has an? [2-6]\+ invulnerable save against ranged attacks),?\s*and\s+"
                        r"(?:an?\s+)?(?=[2-6]\+ invulnerable save against\s+melee attacks)", re.I | re.M)
#: a save improved against melee attacks ('This invulnerable save is improved to 4+ against melee attacks': Howling
#: Banshees), said as one of its own
_IMPROVED = re.compile(r"\bthis invulnerable save is improved to (?=[2-6]\+ against\s+melee attacks)", re.I)
#: a unit that may shoot in a turn in which it Advanced ('that unit is eligible to shoot and declare a charge in a turn
#: in which it Advanced or Fell Back': a Watch Master's Strategic Knowledge), read as its ranged weapons having
#: [ASSAULT], which lets them shoot after Advancing (Falling Back and charging are not what the answer asks)
_ADVANCED = re.compile(r"\b(?P<who>this model['’]s unit|this unit|this model|that unit) is eligible to shoot"
                       r"(?: and declare a charge)? in a turn in which it (?:Advanced(?: or Fell Back)?|Fell Back or "
                       r"Advanced)(?:(?P<more>,? and you )|(?=\.|\n|$))", re.I)


def _as_assault(found: re.Match[str]) -> str:
    who = found["who"].lower()
    holders = "this model" if who == "this model" else f"models in {who}"
    return f"ranged weapons equipped by {holders} have the [ASSAULT] ability" + (". You " if found["more"] else "")


#: models destroyed with others of their unit (the Silent King's Triarchal Menhirs, when Szarekh is destroyed; a
#: Guardian Defenders' platform, with the last Guardian)
_FALL_WITH = re.compile(r"\b(?:if|when) (?:this unit\W?s (?P<one>[^,.]+?) model is (?:ever )?destroyed|the last "
                        r"(?P<last>[^,.]+?) model in this unit is destroyed|one model in this unit is destroyed), "
                        r"(?:all of this unit\W?s remaining|any remaining|the remaining) (?:(?P<others>[^,.]+?) )?"
                        r"models? (?:in this unit )?(?:are|is) (?:also )?destroyed", re.I)
#: "a model makes an attack that targets this unit" (Beguiling Form): "an attack targets this unit"
_MAKES_AT_IT = re.compile(r"\ba model makes an? ((?:ranged |melee )?)attack that targets (this (?:unit|model)|the "
                          r"bearer's unit)\b", re.I)
#: an attack at the unit: what an ability the reader does not read is about ("after an attack has been allocated
#: to this model, you can change the Damage characteristic of that attack to 0")
_AT_IT = re.compile(r"\battacks?\b[^.]*?\b(?:allocated to|targets?|made against) (?:this|a model in this|this "
                    r"model's) (?:model|unit)\b", re.I)
_BULLET = re.compile(r"(?:^|\n)\s*(?:■|•|-(?=\s))\s*")
_SENTENCE = re.compile(r"(?<=[.!])\s+(?=[A-Z■•])")
#: characteristics an ability changes that no attack uses (Objective Control, Move, Leadership): dropped
_NOT_ATTACK = r"(?:objective control|move(?:ment)?|leadership) characteristics?"
_NOT_ATTACK_CHANGE = re.compile(  # 'add 6" (or 2D6") to this model's Movement characteristic and ...'
    r"\b(?:subtract|add) (?:\d*D)?\d+\"? (?:from|to) (?:its|this model'?s|the) " + _NOT_ATTACK
    + r"(?: of [^,.]*?)?,? and |"
    r"\b(?:models in (?:this|that) unit|this model|it) (?:has|have) an? " + _NOT_ATTACK + r" of \d+[+\"]?,? and |"
    r",? and (?:models in (?:this|that) unit|this model|it) (?:has|have) an? " + _NOT_ATTACK + r" of \d+[+\"]?(?=\.?$)",
    re.I)
#: the unit's own place near friendly models ("while this unit is within 12\" of one or more friendly PSYKER
#: models"): a condition of its own attacks, for --with, not an ability for other units
_NEAR_FRIENDS = re.compile(r"\b(?:while|if) (?:this|this model's) (?:unit|model) is within \d+\" of "
                           r"(?:one or more |a )?friendly [^,]*?\bmodels?\b", re.I)


# --------------------------------------------------------------------- subjects
_WHO = r"(?P<who>models? in (?:this|that|the bearer's|this model's) unit|this unit|this model|the bearer's unit|" \
       r"the bearer|that unit|it)"
_KIND = r"(?:(?P<kind>ranged|melee|psychic) )?"
_SUBJECTS: list[tuple[str, re.Pattern[str]]] = [
    ("attack", re.compile(r"each time (?:a|one) model in (?P<whose>this|that|the bearer's|this model's) unit makes "
                          r"an? " + _KIND + r"attack", re.I)),
    ("attack", re.compile(r"each time (?P<who>this model|the bearer) makes? an? " + _KIND + r"attack", re.I)),
    ("attack", re.compile(r"each time (?:a|one) model in (?P<whose>this|that|this model's) unit (?=targets .+? with "
                          r"an? (?:(?:ranged|melee) )?attack)", re.I)),
    ("attack", re.compile(r"each time an? " + _KIND + r"attack (?:is )?made by (?:a model in )?" + _WHO
                          + r"(?= targets| is|,)", re.I)),
    ("defend", re.compile(r"each time an? " + _KIND + r"attack (?:targets|is made against) " + _WHO, re.I)),
    ("defend", re.compile(r"each time an? " + _KIND + r"attack is allocated to (?:a model in )?" + _WHO, re.I)),
    ("weapons", re.compile(r"(?:the |all (?:of the )?)?" + _KIND + r"weapons equipped by " + _WHO
                           + r" (?:have|has)\b", re.I)),  # 'All weapons equipped by the bearer have ...': Root-carved
    ("weapons", re.compile(r"(?P<who>this model|the bearer|this unit)'s " + _KIND + r"weapons (?:have|has)\b", re.I)),
    ("weapons", re.compile(_KIND + r"weapons (?P<who>it is|they are) equipped with (?:have|has)\b", re.I)),
    ("weapons", re.compile(r"\b(?P<who>its) " + _KIND + r"weapons (?:have|has)\b", re.I)),
    ("have", re.compile(r"(?:^|(?<=, )|(?<=: ))" + _WHO + r" (?:has|have) (?=an? [2-6]\+ invulnerable|an "
                        r"invulnerable save of|the feel no pain|an? [2-6]\+ feel no pain|the benefit of cover)", re.I)),
    # one weapon of its by name ('its doomsday cannon has the [DEVASTATING WOUNDS] ability': a Doomsday Ark's)
    ("weapons", re.compile(r"\b(?P<who>its|this model's|the bearer's) (?!(?:ranged|melee|psychic|unit)\b)"
                           r"(?P<named>[a-z][\w'-]*(?: [a-z][\w'-]*){0,5}?)(?: weapons?)? (?:has|have) (?=the \[)",
                           re.I)),  # 'The bearer's Eldritch Storm weapon has ...': Eldritch Storm
]
#: this unit's own attacks, or attacks at it, in a sentence whose subject is not read ('each time an attack made
#: by this model with its 'urty syringe scores a Critical Wound', 'each time this model targets an enemy unit with
#: its heavy death ray', 'each time an enemy unit within 18" of this model targets this model'), or what a Leader
#: gives the unit it leads: not modelled, and named, never taken for other units' attacks as it names another unit
_OWN_ATTACKS = re.compile(r"\battacks? made by (?:this (?:model|unit)|the bearer)\b|(?<!of )\b(?:this (?:model|unit)|"
                          r"the bearer) (?:targets|makes an? (?:\w+ )?attack|shoots|fights)\b", re.I)
_AT_THIS = re.compile(r"\btargets this (?:model|unit)\b(?!')", re.I)
_ARMY = re.compile(r"\bfrom your army\b", re.I)  #: 'each time a model from your army makes an attack': not this unit's
_DEFENCE = re.compile(r"feel no pain|invulnerable save|save characteristic|toughness characteristic", re.I)
#: a sentence about the defences of the model or unit itself ('the bearer has no invulnerable save')
_OWN_DEFENCE = re.compile(r"\b(?:the bearer|this model|this unit)\b[^.]*?\b(?:has|have) (?:no |an? )?"
                          r"(?:[2-6]\+ )?(?:invulnerable save|feel no pain)", re.I)
#: "add 1 to the Attacks characteristic of melee weapons equipped by models in this unit" is written as an
#: attack's characteristic: "each time a model in this unit makes a melee attack, add 1 to the Attacks ..."
_WEAPON_CHARACTERISTIC = re.compile(
    r"(?P<op>add (?P<n>\d) to|improve|subtract (?P<m>\d) from|worsen) the (?P<chars>(?:strength|attacks|armour "
    r"penetration|damage|ballistic skill|weapon skill)(?:(?:,| and|, and) (?:strength|attacks|armour penetration|"
    r"damage|ballistic skill|weapon skill))*) characteristics? of "
    r"(?:the )?(?:(?:(?P<kind>ranged|melee|psychic) )?weapons|(?P<named>[a-z][\w' -]*?)(?: weapons?)?) equipped by "
    r"(?P<who>(?P<own>(?:(?-i:[A-Z][\w'-]*) )+)?models? in (?:this|that|this model's) unit|that unit|this model|"
    r"the bearer)"
    r"(?: by (?P<by>\d))?", re.I)
#: a restriction a query of one target always keeps: dropped
_ONE_TARGET = re.compile(r",? and you can only select one enemy unit as the target of all of this unit's attacks", re.I)
#: a characteristic of some of this unit's weapons only, that `_WEAPON_CHARACTERISTIC` does not turn into an attack's:
#: "add 2 to the Attacks characteristic of bolt rifles equipped by models in this unit", "this model's Omnissian axe
#: has an Attacks characteristic of 6", "double the Attacks characteristic of weapons equipped by X models in that unit"
_CHARACTERISTIC = r"\b(?:attacks|strength|armour penetration|damage) characteristic of "
_SOME_WEAPONS = re.compile(
    _CHARACTERISTIC + r"(?!that attack\b)[^,.]+? equipped by (?:[\w ]*?models? in )?(?P<who>this unit|that unit|"
    r"this model's unit|this model\b|the bearer\b)|\b(?:this model|the bearer)'s [\w' -]+? has an? (?:attacks|strength|"
    r"damage) characteristic of|" + _CHARACTERISTIC + r"(?:this model's|the bearer's) [\w' -]+?(?= for\b| by\b|[,.]|$)",
    re.I)
#: another unit's attacks: "each time a friendly ... model makes an attack", "each time that VEHICLE model ..."
_OTHERS = re.compile(r"\bfriendly\b|\benemy unit (?:is )?within\b|\bthat (?!attack\b)[\w ]*?model\b|"
                     r"\bselect(?:ed)? one (?:friendly|enemy)|\bthat (?:enemy )?unit\b|fortification|"
                     r"\bthose .* models\b|a model is affected|each time a model in that|in that enemy unit", re.I)


def _scope(who: str, leading: bool, own_unit: bool) -> Scope:
    """Whose ability it is; `own_unit`: the sentence named this unit before ('each time this model's unit makes a
    Charge move, ... models in that unit'), so "that unit" is this one."""
    who = who.lower()
    if "that unit" in who and own_unit and not leading:
        return "unit"
    if "that unit" in who:
        if not leading:
            raise ForOthers("another unit")
        return "leading"
    if leading:
        raise Unreadable("a leader's own attacks while leading")
    if "bearer's" in who or "this model's unit" in who or "this unit" in who:
        return "unit"
    return "bearer" if "bearer" in who else "model"


def _as_attack(sentence: str) -> tuple[str, tuple[str, ...]]:
    """The sentence with a weapon characteristic written as an attack's ('... of that attack by 1'), and the weapons
    it names, if it names some ('bolt rifles': the attacks of those weapons only)."""
    match = _WEAPON_CHARACTERISTIC.search(sentence)
    if not match or (match.group("kind") or "").lower() == "psychic":  # Psychic Attacks: not read
        return sentence, ()
    who = match.group("who").lower()
    person = f"a model in {who.split(' in ', 1)[1]} makes" if " in " in who else \
        "a model in that unit makes" if who == "that unit" else f"{who} makes"
    if match.group("own") and who.endswith(" in this unit"):  # 'Paladin Squad models in this unit': each of its own
        person = "this model makes"
    op = match.group("op").split()[0].lower()
    n = match.group("n") or match.group("m") or match.group("by") or ""
    verb = {"add": "improve", "subtract": "worsen"}.get(op, op)
    kind = f"{match.group('kind').lower()} " if match.group("kind") else ""
    article = "an" if not kind else "a"
    rewritten = (f"each time {person} {article} {kind}attack, {verb} the {match.group('chars')} characteristics of "
                 f"that attack by {n}")
    rest = sentence[match.end():]
    rest = re.sub(r"^ and those weapons have ", " and that attack has ", rest, flags=re.I)
    rest = re.sub(r"characteristics? of those weapons", "characteristic of that attack", rest, flags=re.I)
    named = tuple(n.strip() for n in re.split(r",| and ", match.group("named") or "") if n.strip())
    if {n.lower() for n in named} == {"ranged", "melee"}:  # 'ranged and melee weapons': every weapon, none by name
        named = ()
    return sentence[:match.start()] + rewritten + rest, named


def _subject(sentence: str, leading: bool) -> tuple[Subject, re.Match[str]] | None:
    found = [(m, kind) for kind, pattern in _SUBJECTS for m in [pattern.search(sentence)] if m]
    if not found:
        return None
    match, kind = min(found, key=lambda f: f[0].start())
    groups = match.groupdict()
    who = groups.get("who") or f"a model in {groups['whose']} unit"
    if who.lower() in ("it", "it is", "they are") or groups.get("named"):
        who = "the bearer" if who.lower() == "the bearer's" else "this model"
    attack = (groups.get("kind") or "").lower()
    if attack == "psychic":
        raise Unreadable("Psychic Attacks only")
    role: Role = "target" if kind in ("defend", "have") else "attacker"
    before_it = sentence[:match.start()]  # 'while an enemy unit is within 3" of this unit, ... in that unit': not it
    own_unit = bool(re.search(r"\b(?:this|this model's) unit\b", before_it, re.I)
                    and not re.search(r"\b(?:enemy|friendly)\b", before_it, re.I))
    named = (groups["named"],) if groups.get("named") else ()
    return Subject(role, _scope(who, leading, own_unit), attack, weapons=kind == "weapons", named=named), match


# --------------------------------------------------------------------- sentences
@attrs.frozen
class Parsed:
    """One sentence read: its subject, condition, phase and the Effect's fields."""

    subject: Subject
    condition: Condition
    fields: dict[str, Any]
    phase: Phase


_FOR_EACH = re.compile(r"\bfor each\b", re.I)  #: 'for each WRACKS model embarked ...': a bonus per thing counted
#: 'the Attacks characteristics of this model's Frostfang' (Battle-lust), said as 'the Attacks characteristic of
#: Frostfang equipped by this model'
_ITS_WEAPON = re.compile(r"\b(attacks|strength|armour penetration|damage) characteristics? of "
                         r"(this model|the bearer)'s ((?:(?!to\b)[\w'-]+ ?){1,4}?)(?=[,.]|$)", re.I)
#: 'In your Movement phase, if this model Remains Stationary, ...' (a Doomsday Ark's Overwhelming Obliteration)
_STATIONARY_IN_MOVEMENT = re.compile(r"^in your movement phase, (?=if (?:this|the bearer's) (?:model|unit) remains "
                                     r"stationary\b)", re.I)
#: 'While this model is leading a unit, ...' ('When ...': a Death Company Captain's Lost to Fury), or a unit of one
#: keyword ('leading a BLOOD CLAWS unit': War Howl)
_LEADING = re.compile(r"^(?:[Ww]hile|[Ww]hen) (?:this model|the bearer) is leading an? "
                      r"(?:(?P<unit>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*?) )?(?:unit|UNIT),\s*")

#: '(excluding Extra Attacks weapons)' beside the weapons a sentence gives an ability to (Headwoppa's Killchoppa)
_EXCLUDING = re.compile(r"\s*\(excluding (?P<ability>[\w -]+?) weapons\)", re.I)


def _excluding(sentence: str) -> tuple[str, tuple[str, ...]]:
    """The sentence without its asides that exclude the weapons of a weapon ability, and those abilities (as the
    parser spells them); an aside that names no such ability is left in place."""
    found: list[str] = []

    def taken(match: re.Match[str]) -> str:
        spelling = " ".join(match["ability"].replace("-", " ").upper().split())
        if spelling not in FLAGS:
            return match.group(0)
        found.append(spelling)
        return ""

    return _EXCLUDING.sub(taken, sentence), tuple(found)


_THAT_UNIT = re.compile(r"\bthat unit\b", re.I)
_ANOTHER = re.compile(r"\b(?:enemy|friendly|another|other)\b", re.I)  #: a sentence that names another unit


def _sentence(sentence: str, previous: Parsed | None, before: str) -> list[Parsed]:
    """What a sentence about attacks does: one reading per condition its clauses carry. Unreadable if a clause is
    not understood, ForOthers if it is about other units' attacks."""
    sentence = _ITS_WEAPON.sub(r"\1 characteristic of \3 equipped by \2", sentence)  # as the usual wording says it
    sentence = _STATIONARY_IN_MOVEMENT.sub("", sentence)  # the phase where it Remains Stationary: when, not a condition
    sentence, excluding = _excluding(sentence)
    sentence, named = _as_attack(_ONE_TARGET.sub("", _NOT_ATTACK_CHANGE.sub("", sentence)))
    sentence = _MAKES_AT_IT.sub(r"an \1attack targets \2", sentence)  # as the usual wording says it
    leading, leads = False, ""
    if lead := _LEADING.match(sentence):
        leading, leads, sentence = True, (lead["unit"] or "").upper(), sentence[lead.end():]
    some = _SOME_WEAPONS.search(sentence)
    if some and (some.group("who") or "").lower() != "that unit" or some and leading:
        raise Unreadable(f"a change to its weapons' characteristics this reader does not read ({some.group(0)!r})",
                         "attacker")
    if (re.search(r"\b(?:this|this model's) unit\b", before, re.I)
            and not _ANOTHER.search(f"{before} {sentence}")):
        # the sentence before named this unit and no other ('... spend 1 Pain token to Empower that unit. While that
        # unit is Empowered, each time a model in that unit ...'): "that unit" is this one
        sentence = re.sub(r"\bthat unit\b", "this unit", sentence, flags=re.I)
    if previous is not None and previous.subject.scope == "leading" and _THAT_UNIT.search(sentence) and not \
            _ANOTHER.search(sentence):
        leading = True  # it goes on about the unit it leads ('If that unit has the X keyword, models in that unit ...')
    found = _subject(sentence, leading)
    if found is not None and (named or leads or excluding):
        if excluding and found[0].role != "attacker":
            raise Unreadable("a rule about some weapons' attacks at this unit", "target")
        found = (attrs.evolve(found[0], named=named, leads=leads, excluding=excluding), found[1])
    if found is None:
        goes_on = previous is not None and re.match(r"^(?:if|while|whilst|when)\b", sentence, re.I)
        if _AT_THIS.search(sentence) and not _ARMY.search(sentence) or leading and _DEFENCE.search(sentence):
            raise Unreadable("what it does to an attack at this unit is not read", "target")
        if (leading or _OWN_ATTACKS.search(sentence)) and not goes_on:
            raise Unreadable("what it does to this unit's attacks is not read", "attacker")
        if _OTHERS.search(sentence) and not goes_on:
            raise ForOthers("another unit")
        if previous is None and _AT_IT.search(sentence) and not _OTHERS.search(sentence) \
                and not _ARMY.search(sentence):  # at the unit itself (Stealth Drones)
            raise Unreadable("what it does to an attack at this unit is not read", "target")
        if previous is None and _OWN_DEFENCE.search(sentence):  # its own save (a Shadowfield lost once failed)
            raise Unreadable("what it does to its own saves is not read", "target")
        if previous is None:
            raise Unreadable("it names no attack this reader knows")
        if excluding:  # it goes on about the attacks of the sentence before, but not all of them
            raise Unreadable("the weapons it excludes ('excluding ... weapons') are not read", "attacker")
        cut = sentence.rfind(", ")  # 'If the target of that attack is X, you can re-roll the Hit roll instead.'
        subject, prefix, rest = previous.subject, sentence[:max(cut, 0)], sentence[cut + 2:] if cut >= 0 else sentence
        inherited = previous.condition  # the sentence goes on about the attacks of the one before
    else:
        subject, match = found
        prefix, rest = sentence[:match.start()], sentence[match.end():]
        if _OTHERS.search(_NEAR_FRIENDS.sub("", prefix)) and subject.scope != "leading":
            raise ForOthers("another unit")
        inherited = Condition()
    try:
        return _read(subject, prefix, rest, inherited, before)
    except Unreadable as why:
        why.role = subject.role
        raise


def _read(subject: Subject, prefix: str, rest: str, inherited: Condition, before: str) -> list[Parsed]:
    """The conditions before and after a sentence's subject and the effects after them, one reading per condition."""
    phases: list[Phase] = []
    condition = inherited
    for clause in split_clauses(prefix):
        condition += condition_before(clause, phases, before)
    rest, more, subject = _after_subject(rest, subject, phases, before)
    condition += more
    groups: dict[Condition, dict[str, Any]] = {}
    for clause in EFFECT_JOIN.split(rest):
        if clause.strip():
            clause, own = _trailing(clause, phases, before)
            read_effect(clause, subject, groups.setdefault(condition + own, {}))
    out = []
    kinds: dict[str, Phase] = {"ranged": "shooting", "melee": "fight"}
    for where, fields in groups.items():
        phase: Phase = fields.pop("_phase", None) or kinds.get(subject.kind) or (phases[0] if phases else "either")
        out.append(Parsed(subject, where, fields, phase))
    if not out:
        raise Unreadable("no effect is understood")
    return out


def _trailing(clause: str, phases: list[Phase], before: str) -> tuple[str, Condition]:
    """An effect with its own condition after it ('add 1 to the Hit roll if this unit is below its Starting
    Strength'), split."""
    match = re.search(r"\s+(?P<cond>(?:if|while) .+)$", clause.strip().rstrip("."), re.I)
    if not match:
        return clause, Condition()
    return clause[:match.start()], condition_before(match.group("cond"), phases, before)


#: the attacks of one weapon only: "with its Wolf Guard weapon", "with a gauss destructor" (`read_abilities` checks
#: that the unit has a weapon of that name)
_WITH_WEAPON = re.compile(r"^with (?:its|this model's|the bearer's|an?) (?P<name>(?!one\b)[\w' -]+?)"
                          r"(?=\s+that targets\b|\s+against\b|\s*,|\s*\.?$)", re.I)


def _after_subject(rest: str, subject: Subject, phases: list[Phase],
                   before: str) -> tuple[str, Condition, Subject]:
    """The condition written after the subject ('that targets ...', 'with a melee weapon', 'if it made a Charge move
    this turn', '... when targeting ...'), the effects after it, and the subject with the kind of attack it named."""
    condition = Condition()
    rest = rest.strip()
    if kind := re.match(r"^with an? (?P<kind>ranged|melee) weapon\b", rest, re.I):
        if subject.kind and subject.kind != kind.group("kind").lower():
            raise Unreadable(not_understood(kind.group(0)))
        subject = attrs.evolve(subject, kind=kind.group("kind").lower())
        rest = rest[kind.end():].strip()
    if weapon := _WITH_WEAPON.match(rest):
        if subject.named:
            raise Unreadable(not_understood(weapon.group(0)))
        subject = attrs.evolve(subject, named=(weapon.group("name"),))
        rest = rest[weapon.end():].strip()
    elif re.match(r"^with (?:its|this model's|the bearer's|their|a|an|one) ", rest, re.I):
        raise Unreadable("attacks with one of its weapons only")
    target = re.match(rf"^(?:that )?(?:targets?|is allocated to|against) (?P<target>.+?)(?:,\s*(?=(?:{EFFECT_START}|"
                      r"if |while |until ))|,?$)", rest, re.I)
    if target:
        aimed = target.group("target")
        if kind := re.search(r" with an? (?P<kind>ranged|melee) attack$", aimed, re.I):
            subject, aimed = attrs.evolve(subject, kind=kind.group("kind").lower()), aimed[:kind.start()]
        condition += target_condition(aimed)
        rest = rest[target.end():].strip()
    while match := re.match(r"^,?\s*(?P<clause>(?:if|while|until)[^,]+),", rest, re.I):
        condition += condition_before(match.group("clause"), phases, before)
        rest = rest[match.end():].strip()
    rest = rest.lstrip(", ").strip()
    if subject.weapons:  # "weapons ... have the [X] ability (while|when) targeting ..."
        if match := re.search(r"\s*,?\s*(?:while|when) targeting (?P<target>.+?)\.?$", rest, re.I):
            condition += target_condition(match.group("target"))
            rest = rest[:match.start()]
    return rest, condition, subject


#: an aura for friendly units near this model or unit ('While a friendly TYRANIDS unit is within 6" of this model,
#: ranged weapons equipped by models in that unit have ...'; Eightbound's Beacons of Rage, 'of this unit'): a model is
#: always within range of its own aura, so its own unit is one of them where it has those keywords (`convert` settles
#: that against the unit's keywords)
_AURA = re.compile(r"(?:while|whilst) a friendly (?P<keywords>[^,()]+?) unit is within \d+[\"”″] of (?:this model|"
                   r"this unit|the bearer), (?P<rest>.+)", re.I)


def _own_aura(sentence: str, name: str = "") -> str:
    """An aura's sentence (`_AURA`) as its own unit's ('While this unit is a TYRANIDS unit, ... in this unit ...');
    any other sentence as it is, and so one of two effects joined by 'and' (its condition would be read as the
    first's), and one of an ability named as one of a set ('Relic of the Matriarch - ...': in force where chosen)."""
    aura = _AURA.fullmatch(sentence)
    if aura is None or re.search(r"\band each time\b", aura["rest"], re.I) or " - " in name:
        return sentence
    keywords = aura["keywords"].strip()
    rest = re.sub(r"\bthat unit\b", "this unit", aura["rest"], flags=re.I)
    # auras' shorter forms, as their unit's abilities write them ('melee weapons in that unit', 'the Armour
    # Penetration of')
    rest = re.sub(r"\bweapons in this unit\b", "weapons equipped by models in this unit", rest, flags=re.I)
    rest = re.sub(r"\bArmour Penetration of\b", "Armour Penetration characteristic of", rest, flags=re.I)
    return f"While this unit is {'an' if keywords[:1].upper() in 'AEIOU' else 'a'} {keywords} unit, {rest}"


#: a change to weapons' characteristics and an ability for them in one sentence ('Add 1 to the Damage characteristics
#: of melee weapons equipped by the bearer, and those weapons have the [PRECISION] ability': Aspect of Murder; '...
#: of the bearer's melee weapons, and the bearer's melee weapons have ...': Furnace of Plagues), read as two where
#: the sentence starts so (a condition before it would hold for the first half alone)
_AND_THOSE_WEAPONS = re.compile(
    r"(?:^|(?<=\. ))(?P<change>add [0-9]+ to the [\w ]+? characteristics? of (?P<weapons>(?:the bearer's |this "
    r"model's )?(?:(?:ranged|melee) )?weapons(?: equipped by (?:the bearer|this model|models in this unit))?)), and "
    r"(?:those weapons|(?P=weapons)) have\b", re.I | re.M)

#: an ability for weapons and a change to attacks in one sentence ('The bearer's ranged weapons have the [LETHAL HITS]
#: ability, and each time the bearer makes a ranged attack, ...'), read as two where the sentence starts so
_HAVE_AND_EACH_TIME = re.compile(r"(?:^|(?<=\. ))(?P<weapons>[^.,]*?\bweapons\b[^.,]*? have the \[[^\]]+\] "
                                 r"abilit(?:y|ies)), and (?=each time\b)", re.I | re.M)


def _sentences(text: str) -> Iterator[str]:
    """The sentences of an ability; a bulleted list after 'while ...:' gives each bullet that condition. A condition
    inside a sentence ('re-roll a Hit roll of 1 and, if X, you can re-roll the Hit roll instead', '... (if X, Y
    instead)') starts a sentence of its own, which goes on about the same attacks."""
    text = clean(text)
    text = re.sub(r",? and, (?=(?:if|while) [^,]+, )", ". ", text, flags=re.I)
    text = unjoined(text)
    text = re.sub(r"^[2-6]\+\s*\n", "", text)  # a save's value on a line of its own, before its words (a Judiciar's)
    text = _TWO_SAVES.sub(r"\g<first>. This unit has a ", text)  # '6+ against ranged attacks, and 4+ against melee
    text = _IMPROVED.sub("This unit has a ", text).replace("+ against melee attacks", "+ invulnerable save against "
                                                            "melee attacks") if _IMPROVED.search(text) else text
    text = _ADVANCED.sub(_as_assault, text)
    text = _AND_THOSE_WEAPONS.sub(lambda m: f"{m['change']}. {m['weapons'][0].upper()}{m['weapons'][1:]} have", text)
    text = _HAVE_AND_EACH_TIME.sub(r"\g<weapons>. ", text)
    text = re.sub(r" \((if [^,()]+, [^()]+?)\)\.?", lambda m: f". {m.group(1)[0].upper()}{m.group(1)[1:]}.", text)
    text = re.sub(r"\. (if|while|each)\b", lambda m: f". {m.group(1).capitalize()}", text)
    pieces = _BULLET.split(text)
    if len(pieces) > 1:
        intro = pieces[0].strip()
        if re.search(r"select one|one of the following|choose", intro, re.I):
            if any(_ATTACKS.search(p) for p in pieces):  # (the choices, or what they are for: Zephyrim's weapons)
                raise Unreadable("a choice of effects")
            return
        head = re.sub(r"[:.]\s*$", "", intro).strip()
        for piece in (p.strip() for p in pieces[1:] if p.strip()):
            joined = f"{head}, {piece[0].lower()}{piece[1:]}" if head else piece
            yield from _SENTENCE.split(joined.replace("\n", " "))
        return
    yield from _SENTENCE.split(text.replace("\n", " "))


# --------------------------------------------------------------------- a whole ability
@attrs.frozen
class Verdict:
    """What the reader made of one ability, and how it counts in `data add`'s report: effects read, in the
    model profile (an invulnerable save or Feel No Pain the unit always has), not modelled, about other
    units' attacks, or about something other than attacks."""

    kind: Kind
    ability: TextAbility | None = None  #: what the datasheet keeps (effects, or not modelled with the reason)


def _rule(parsed: Parsed, name: str) -> NamedRule:
    fields = dict(parsed.fields)
    fields.pop("_instead", None)  # checked by `_instead`
    if against := fields.pop("_against", ""):  # Feel No Pain against mortal wounds or psychic attacks only
        kinds = [kind for kind in ("mortal", "psychic") if kind in against.lower()]
        if not kinds or "inflicted by" in against.lower():  # against ranged attacks, or some mortal wounds alone
            raise Unreadable(f"Feel No Pain {against} only", parsed.subject.role)
        value = fields.pop("feel_no_pain")
        fields.update({f"feel_no_pain_{kind}": value for kind in kinds})
    if parsed.subject.role == "attacker":  # the kind of attack its subject names, or the one skill it improves
        fields["weapons"] = fields.pop("_weapons", None) or {"ranged": "ranged", "melee": "melee"}.get(
            parsed.subject.kind, "all")
        fields["weapon_names"] = parsed.subject.named
        fields["excluding"] = parsed.subject.excluding
    if "abilities" in fields:
        fields["abilities"] = tuple(dict.fromkeys(fields["abilities"]))
    condition = parsed.condition
    every = tuple(dict.fromkeys(condition.all_of))
    some = () if set(condition.any_of) & set(every) else tuple(dict.fromkeys(condition.any_of))
    target = Keywords(all_of=every, any_of=some, none_of=tuple(dict.fromkeys(condition.none_of)))
    if parsed.subject.role == "target" and target:
        raise Unreadable("a condition on the attacking unit")
    if condition.strength:  # only the rolls' situation fields wait for the attack's Strength (`Effect`)
        if set(fields) - {field.name for field in STACKED} - {"weapons", "weapon_names", "excluding"}:
            raise Unreadable("a condition on the attack's Strength, for more than its rolls")
        fields["strength_vs_toughness"] = condition.strength
    effect = Effect(**fields)
    if parsed.subject.leads and parsed.subject.role != "attacker":
        raise Unreadable(f"a defence of the {parsed.subject.leads} units it leads alone")
    leads = Keywords(all_of=(parsed.subject.leads,)) if parsed.subject.leads else Keywords()
    # its key and source name the unit: `read_ability` fills them in
    return NamedRule(key="", name=name, kind="ability", source="", summary=effect.describe(),
                     phase=parsed.phase, situation=parsed.subject.role, effect=effect, target=target, attacker=leads,
                     requires=tuple(dict.fromkeys(condition.requires)),
                     led_by=condition.led_by if parsed.subject.role == "target" else "")


#: a defence a datasheet gives the unit of the model that carries it ("Models in the bearer's unit have a 4+
#: invulnerable save": Azrael's Lion Helm), which is the whole Attached unit where that model leads one (a kind of
#: model's wargear is its unit's by `Datasheet.unit_worn`, while it is carried)
_BEARERS_UNIT = re.compile(r"\bbearer\W?s unit\b", re.I)


def _in_profile(parsed: Parsed, name: str, text: str) -> bool:
    """An invulnerable save or Feel No Pain the unit, a model or the bearer of wargear always has, that
    `catalogue.abilities` reads from the same text into the model profile (the bearer's: its model's): not applied
    a second time, nor named as not applied (a Theyn's weavefield crest was 'the bearer's alone', and in his
    profile). Not another of the same text (Wyches' 4+ against melee attacks beside their 6+)."""
    fields = parsed.fields
    if (not set(fields) <= {"invulnerable", "feel_no_pain", "_against"} or parsed.subject.role != "target"
            or parsed.subject.scope not in ("unit", "model", "bearer") or parsed.condition.needs
            or parsed.condition.requires):
        return False
    saved = [(invulnerable(name, text), fields["invulnerable"])] if "invulnerable" in fields else []
    saved += [(feel_no_pain(name, "", text), fields["feel_no_pain"])] if "feel_no_pain" in fields else []
    return all(r is not None and not r.get("conditional") and r["value"] == value for r, value in saved)


def read_ability(unit: str, name: str, text: str, model: str = "") -> Verdict:
    """One ability of `unit` (written on its `model` kind, or "" for the datasheet) read from its text: once
    per name, text and kind of model (a checkout gives one ability to many units: 4,363 abilities of
    10th-edition BSData are 2,768 such), its rules then named for `unit`."""
    verdict = _read_text(clean(name).rstrip(":").strip(), text, model)
    ability = verdict.ability
    if ability is None or not ability.readings:
        return verdict
    readings = tuple(attrs.evolve(reading, rule=attrs.evolve(reading.rule, key=f"{unit}/{ability.name}#{index}",
                                                             source=f"{unit} datasheet (read from its text)"))
                     for index, reading in enumerate(ability.readings))
    return attrs.evolve(verdict, ability=attrs.evolve(ability, readings=readings))


@functools.lru_cache(maxsize=8192)
def _read_text(name: str, text: str, model: str) -> Verdict:
    """`read_ability` of a unit not yet named (its rules' keys and sources are left for it to fill)."""
    if name.lower().startswith("invulnerable save") and not (_MELEE_ONLY.search(text) or _IMPROVED.search(text)):
        return Verdict("profile")  # its value is read by catalogue.abilities
    if _WHO_MAY_TARGET.search(clean(text)):
        return Verdict("unmodelled", TextAbility(name, model, unmodelled=TARGETED_ONLY, role="target"))
    if again := _AGAIN.search(clean(text)):
        return Verdict("unmodelled", TextAbility(name, model, role="attacker", unmodelled=(
            f"it lets the unit {again['verb'].lower()} again; the answer is one volley (ask again for the second)")))
    if _CHOSEN.search(clean(text)):  # the chosen one may change its attacks or those at it (Magnus's Impossible Form)
        return Verdict("unmodelled", TextAbility(name, model, role="either", unmodelled=(
            "a choice among abilities, made for a while: the chosen one is not read")))
    if fallen := _FALL_WITH.search(clean(text)):
        dies = f"its {fallen['one']} model" if fallen["one"] else f"the last {fallen['last']} model" if \
            fallen["last"] else "another"
        return Verdict("unmodelled", TextAbility(name, model, role="target", unmodelled=(
            f"its {fallen['others'] or 'other'} models are destroyed with {dies}; the answer counts them destroyed "
            "only by the attacks allocated to them")))
    if more := _MORE_WEAPONS.search(clean(text)):
        return Verdict("unmodelled", TextAbility(name, model, role="attacker", unmodelled=(
            f"it adds up to {more['n']} {more['kind']} weapons for the phase; the answer fires one profile of each "
            "weapon the unit carries, --profile chooses which")))
    readings: list[Reading] = []
    profile = others = False
    try:
        previous: Parsed | None = None
        before = ""
        for written in (s.strip() for s in _sentences(text)):
            sentence = _own_aura(written, name)
            if not _ATTACKS.search(sentence):
                before = sentence
                continue
            try:
                parsed = _sentence(sentence, previous, before)
            except ForOthers:
                others = True
                continue
            except Unreadable:
                if sentence != written:  # an aura not read for its own unit: other units' business, as before
                    others = True
                    continue
                saved = invulnerable(name, sentence)
                if previous is None and saved is not None and not saved.get("conditional"):
                    profile = True  # 'Asurmen has a 4+ invulnerable save': catalogue.abilities put it in the profile
                    continue
                raise
            if any(_FOR_EACH.search(need) for one in parsed for need in one.condition.needs):
                raise Unreadable("an effect that grows with a count ('for each ...') is not read",
                                 parsed[0].subject.role)
            previous = parsed[0]
            for one in parsed:
                if _in_profile(one, name, text) and (model or not _BEARERS_UNIT.search(text)):
                    profile = True  # (a datasheet's for the bearer's unit: its whole unit's, not its profile's alone)
                    continue
                _instead(one, readings)
                try:
                    rule = _rule(one, name)
                except MathhammerError as exc:
                    raise Unreadable(str(exc)) from None
                led = one.condition.led_by  # settled by the Leader the query attaches to a target; else assumed
                needs = (*one.condition.needs, *([leading(led, "this unit")] if led and not
                                                 rule.led_by else []))
                readings.append(Reading(rule, one.subject.scope, "; ".join(dict.fromkeys(needs))))
    except Unreadable as why:
        damaged = _DAMAGED.match(name) and why.role == "attacker"  # its words say which wounds remaining: not read
        return Verdict("unmodelled", TextAbility(name, model, unmodelled=DAMAGED if damaged else str(why),
                                                 role=why.role))
    if readings:
        return Verdict("effects", TextAbility(name, model, tuple(readings)))
    if _DAMAGED.match(name):
        return Verdict("unmodelled", TextAbility(name, model, unmodelled=DAMAGED, role="attacker"))
    if not profile and not others and _OWN_MORTALS.search(clean(text)):
        role: Role = "target" if _AS_DESTROYED.search(clean(text)) else "attacker"
        return Verdict("unmodelled", TextAbility(name, model, unmodelled=OWN_MORTALS, role=role))
    return Verdict("profile" if profile else "others" if others else "other")


def _instead(parsed: Parsed, before: Sequence[Reading]) -> None:
    """Check a defence given "instead" of one a sentence before gave (Nexus of Devotion: Feel No Pain 5+, and 4+
    instead for HYBRID METAMORPHS): both are read, and where both hold the better is used (`data.modifiers`: the
    lowest), which is the one given instead only where it is better; Unreadable otherwise."""
    if not parsed.fields.get("_instead"):
        return
    kind = "feel_no_pain" if "feel_no_pain" in parsed.fields else "invulnerable"
    earlier = [value for r in before if (value := getattr(r.rule.effect, kind)) is not None]
    if not earlier or min(earlier) <= parsed.fields[kind]:
        raise Unreadable(f"a {kind.replace('_', ' ')} given instead of another that is not worse", "target")


#: a defence of the CHARACTER leading the unit ("while a CHARACTER model is leading this unit, that CHARACTER model
#: has ...")
_FOR_LEADER = re.compile(r"\bthat\W+character\b", re.I)
#: a defence of the unit's CHARACTER models alone ("While this unit contains a Traitor Ogryn model, CHARACTER models in
#: this unit have the Feel No Pain 4+ ability": a Traitor Enforcer's Mutated Bodyguard)
_ITS_CHARACTERS = re.compile(r"\bcharacter models in (?:this|that) unit\b", re.I)


def conditional_defence(unit: str, name: str, text: str, fields: dict[str, Any], ranged: bool,
                        bearer: str = "", scope: Scope = "unit") -> Reading:
    """An invulnerable save or Feel No Pain (`fields`) that ability `name` gives under a condition, as
    `catalogue.abilities` reads it: for --with NAME, given to the models it belongs to (the `bearer`'s kind; the
    CHARACTER leading the unit, whose leading the query itself settles; the unit's CHARACTER models; else every
    model), and whose it is (`scope`: a Leader's own "this model" stays its own when it leads)."""
    leader = bool(_FOR_LEADER.search(clean(text)))
    effect = Effect(**fields)
    rule = NamedRule(key=f"{unit}/{name}#{bearer}{'/'.join(fields)}", name=name, kind="ability",
                     source=f"{unit} datasheet (read from its text)", summary=effect.describe(),
                     phase="shooting" if ranged else "either", situation="target", effect=effect,
                     models=("CHARACTER",) if leader or _ITS_CHARACTERS.search(clean(text)) else
                     (bearer,) if bearer else ())
    return Reading(rule, scope, needs="" if leader else "under the condition its text states")


def _by_name(name: str) -> Verdict | None:
    """An ability the datasheet lists by name alone, not modelled, if `BY_NAME` knows it (else None: not read)."""
    found = next((why for start, why in BY_NAME.items() if clean(name).lower().startswith(start)), None)
    if found is None:
        return None
    role, reason = found
    return Verdict("unmodelled", TextAbility(clean(name), unmodelled=reason, role=role))


def _unarmed(verdict: Verdict, weapons: Collection[str]) -> Verdict:
    """`verdict`, not modelled if a reading is for the attacks of weapons the unit has none of (by those names,
    `Effect.names_weapon`; 'with a Torrent weapon' names a weapon ability, not a weapon): applied, it would change
    nothing, silently."""
    ability = verdict.ability
    unarmed = [] if ability is None else [r.rule.effect.weapon_names for r in ability.readings if r.rule.effect
                                          .weapon_names and not any(r.rule.effect.names_weapon(w) for w in weapons)]
    if not unarmed or ability is None:
        return verdict
    why = f"it names a weapon this unit does not have ({unarmed[0][0]!r})"
    return Verdict("unmodelled", TextAbility(ability.name, ability.model, unmodelled=why, role="attacker"))


#: the attacks of one kind of the unit's models, named as the text names it ('each time a Sisters Repentia model in
#: this unit makes a melee attack')
_KIND_ATTACKS = re.compile(r"\b[Ee]ach time an? (?P<kind>[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*) model in this unit makes\b")


def _of_kind(name: str, text: str, model: str, models: Collection[str]) -> tuple[str, str, str]:
    """An ability of the datasheet (not written on a kind of model) about the attacks of one kind of its `models`,
    as if written on that kind: (name, text about "this model", the kind as the datasheet names it); else as given."""
    found = None if model else _KIND_ATTACKS.search(clean(text))
    kind = next((m for m in models if found and loose(m) == loose(found["kind"])), None)
    if kind is None:
        return name, text, model
    return name, _KIND_ATTACKS.sub("Each time this model makes", clean(text)), kind


def read_abilities(unit: str, texts: Iterable[Sequence[str]], kinds: Counter[str],
                   unmodelled: Counter[str], listed: Iterable[str] = (),
                   weapons: Collection[str] = (), models: Collection[str] = ()) -> tuple[TextAbility, ...]:
    """The abilities of a unit record (its `ability_texts`: name, text, model kind; and the names `listed` without a
    text, core rules as `BY_NAME` knows them) that change attacks or are not modelled, each name once; `kinds` counts
    every ability by how it was read, `unmodelled` those not modelled. A reading for the attacks of one weapon must
    name one of the unit's `weapons`; one for the attacks of one kind of its `models` is that kind's (`_of_kind`)."""
    out: list[TextAbility] = []
    seen: set[str] = set()
    texts = [_of_kind(name, text, model, models) for name, text, model in texts]
    written = {name for name, _, _ in texts}
    for name, text, model in [*texts, *((n, "", "") for n in listed if n not in written)]:
        if name in seen:
            continue
        seen.add(name)
        verdict = _unarmed(read_ability(unit, name, text, model), weapons) if name in written else _by_name(name)
        if verdict is None:
            continue
        kinds[verdict.kind] += 1
        if verdict.ability is not None:
            out.append(verdict.ability)
            if verdict.kind == "unmodelled":
                unmodelled[verdict.ability.name] += 1
    return tuple(out)

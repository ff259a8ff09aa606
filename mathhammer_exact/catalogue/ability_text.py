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

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal

import attrs

from ..data.modifiers import Effect, Flag, Keywords, NamedRule, Phase
from ..data.text_rules import Reading, Role, Scope, TextAbility
from ..errors import MathhammerError
from ..model import Reroll
from .abilities import feel_no_pain, invulnerable

#: how an ability counts in `mathhammer data add`'s report
Kind = Literal["effects", "profile", "unmodelled", "others", "other"]

#: words that show a sentence is about attacks (their rolls, characteristics or weapon abilities)
_ATTACKS = re.compile(r"hit rolls?\b|wound rolls?\b|damage rolls?\b|armour penetration|(?:strength|attacks|damage|"
                      r"ballistic skill|weapon skill) characteristic|critical (?:hit|wound)|\[[a-z0-9 +-]+\]|"
                      r"invulnerable save|feel no pain|benefit of cover", re.I)
_BULLET = re.compile(r"(?:^|\n)\s*(?:■|•|-(?=\s))\s*")
_SENTENCE = re.compile(r"(?<=[.!])\s+(?=[A-Z■•])")
#: characteristics an ability changes that no attack uses (Objective Control, Move, Leadership): dropped
_NOT_ATTACK_CHANGE = re.compile(r"\b(?:subtract|add) \d+\"? (?:from|to) (?:its|this model'?s|the) (?:objective control|"
                                r"move|leadership) characteristics?(?: of [^,.]*?)?,? and ", re.I)


def clean(text: str) -> str:
    """The text without markup (^^, **), with plain hyphens and quotes, single spaces, known misprints set right."""
    text = re.sub(r"[\^*]+", "", text)
    text = re.sub(r"\s+abilit(?:y|ies)\]", "]", text)  # '[IGNORES COVER abilities]'
    for odd, plain in (("\u2011", "-"), ("\u2010", "-"), ("\u2013", "-"), ("\u2019", "'"), ("\u2018", "'"),
                       ("\u00a0", " "), ("unmodifed", "unmodified"), ("abilties", "abilities"),
                       (" form the ", " from the "), ("worsen that armour", "worsen the armour"),
                       ("roll or 1", "roll of 1")):
        text = text.replace(odd, plain)
    return re.sub(r"[ \t]+", " ", text).strip()


class Unreadable(Exception):
    """A sentence about attacks that this reader does not understand (the reason is its message); `role` says whose
    attacks it was about, when that was read before the words that were not."""

    role: Role | None = None


class ForOthers(Exception):
    """A sentence about other units' attacks (an aura, a unit selected earlier): not this unit's."""


# --------------------------------------------------------------------- subjects
@attrs.frozen
class Subject:
    """Who makes or suffers the attacks a sentence speaks of."""

    role: Role
    scope: Scope
    kind: str  #: "ranged", "melee" or "" (every attack)
    weapons: bool = False  #: "weapons equipped by ... have": the effects are weapon abilities


_WHO = r"(?P<who>models? in (?:this|that|the bearer's|this model's) unit|this unit|this model|the bearer|that unit|it)"
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
    ("weapons", re.compile(r"(?:the )?" + _KIND + r"weapons equipped by " + _WHO + r" (?:have|has)\b", re.I)),
    ("weapons", re.compile(r"(?P<who>this model|the bearer|this unit)'s " + _KIND + r"weapons (?:have|has)\b", re.I)),
    ("weapons", re.compile(_KIND + r"weapons (?P<who>it is|they are) equipped with (?:have|has)\b", re.I)),
    ("weapons", re.compile(r"\b(?P<who>its) " + _KIND + r"weapons (?:have|has)\b", re.I)),
    ("have", re.compile(r"(?:^|(?<=, )|(?<=: ))" + _WHO + r" (?:has|have) (?=an? [2-6]\+ invulnerable|an "
                        r"invulnerable save of|the feel no pain|an? [2-6]\+ feel no pain|the benefit of cover)", re.I)),
]
#: "add 1 to the Attacks characteristic of melee weapons equipped by models in this unit" is written as an
#: attack's characteristic: "each time a model in this unit makes a melee attack, add 1 to the Attacks ..."
_WEAPON_CHARACTERISTIC = re.compile(
    r"(?P<op>add (?P<n>\d) to|improve|subtract (?P<m>\d) from|worsen) the (?P<chars>(?:strength|attacks|armour "
    r"penetration|damage)(?:(?:,| and|, and) (?:strength|attacks|armour penetration|damage))*) characteristics? of "
    r"(?:the )?(?:(?P<kind>ranged|melee) )?weapons equipped by (?P<who>models? in (?:this|that|this model's) unit|"
    r"this model|the bearer)(?: by (?P<by>\d))?", re.I)
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


def _as_attack(sentence: str) -> str:
    """The sentence with a weapon characteristic written as an attack's ('... of that attack by 1')."""
    match = _WEAPON_CHARACTERISTIC.search(sentence)
    if not match:
        return sentence
    who = match.group("who").lower()
    person = f"{who} makes" if " in " not in who else f"a model in {who.split(' in ', 1)[1]} makes"
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
    return sentence[:match.start()] + rewritten + rest


def _subject(sentence: str, leading: bool) -> tuple[Subject, re.Match[str]] | None:
    found = [(m, kind) for kind, pattern in _SUBJECTS for m in [pattern.search(sentence)] if m]
    if not found:
        return None
    match, kind = min(found, key=lambda f: f[0].start())
    groups = match.groupdict()
    who = groups.get("who") or f"a model in {groups['whose']} unit"
    if who.lower() in ("it", "it is", "they are"):
        who = "this model"
    attack = (groups.get("kind") or "").lower()
    if attack == "psychic":
        raise Unreadable("Psychic Attacks only")
    role: Role = "target" if kind in ("defend", "have") else "attacker"
    own_unit = bool(re.search(r"\b(?:this|this model's) unit\b", sentence[:match.start()], re.I))
    return Subject(role, _scope(who, leading, own_unit), attack, weapons=kind == "weapons"), match


# --------------------------------------------------------------------- conditions
@attrs.frozen
class Condition:
    """What must hold for a sentence's effects: target keywords, situation options, and what no option states."""

    all_of: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()
    none_of: tuple[str, ...] = ()
    requires: tuple[Flag, ...] = ()
    needs: tuple[str, ...] = ()

    def __add__(self, other: Condition) -> Condition:
        if self.any_of and other.any_of:
            raise Unreadable("two tests of the target's keywords")
        return Condition(self.all_of + other.all_of, self.any_of + other.any_of, self.none_of + other.none_of,
                         self.requires + other.requires, self.needs + other.needs)


_KEYWORD = re.compile(r"[A-Z][A-Za-z'-]*(?: [A-Z][A-Za-z'-]*)*$")
_PLURALS = {"MONSTERS": "MONSTER", "VEHICLES": "VEHICLE", "CHARACTERS": "CHARACTER", "WALKERS": "WALKER",
            "BEASTS": "BEAST", "TITANICS": "TITANIC"}


def _keywords(text: str) -> tuple[str, ...]:
    """'Monster or Vehicle' -> (MONSTER, VEHICLE); a word that is not a keyword (not capitalised) refuses."""
    words = [w.strip() for w in re.split(r",\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and/or\s+|\s+and\s+", text) if w.strip()]
    words = [re.sub(r"^(?:enemy|non-)\s*", "", w) for w in words]
    if not words or not all(_KEYWORD.match(w) for w in words):
        raise Unreadable(f"the target {text!r} is not understood")
    return tuple(_PLURALS.get(w.upper(), w.upper()) for w in words)


def _any(text: str) -> Condition:
    """A target with any of the keywords ('Monster or Vehicle'), or with each word of one ('Psyker Character')."""
    keywords = _keywords(text)
    if len(keywords) == 1 and " " in keywords[0]:
        return Condition(all_of=tuple(keywords[0].split()))
    if any(" " in k for k in keywords):
        raise Unreadable(f"the target {text!r} is not understood")
    return Condition(any_of=keywords)


def _none(text: str) -> Condition:
    keywords = _keywords(text)
    if any(" " in k for k in keywords):
        raise Unreadable(f"the target {text!r} is not understood")
    return Condition(none_of=keywords)


_UNSETTLED = re.compile(r"within \d+\"|objective marker|starting strength|half-strength|battle-shocked|closest|"
                        r"selected|chosen|\bthat (?:enemy )?unit\b|\bits \w+|visible|within range|wholly within|"
                        r"engagement range|afflicted|hit by|\bthat was\b|\bfrom your army\b|oath of moment|contains|"
                        r"half strength|deployment zone|\bany other\b|spotted|marked|riven|suppressed", re.I)


def _target(text: str) -> Condition:
    """'a MONSTER or VEHICLE unit', 'a unit that can FLY', 'units without the TITANIC keyword', 'a unit within half
    range'; a target no option or keyword states (within 9", the unit selected earlier) is kept as needed."""
    text = text.strip().rstrip(".")
    plain = re.sub(r"^(?:an?|the|one or more) (?:enemy )?", "", text, flags=re.I)
    if match := re.fullmatch(r"units? \(excluding (?:units? that can )?(?P<kw>.+?)\)", plain, re.I):
        return _none(match.group("kw"))
    if re.fullmatch(r"units? within half range", plain, re.I):
        return Condition(requires=("half_range",))
    if _UNSETTLED.search(plain):
        return Condition(needs=(f"if the target is {text}",))
    if match := re.fullmatch(r"units? that (can|cannot) (\w+)", plain, re.I):
        return _none(match.group(2)) if match.group(1).lower() == "cannot" else _any(match.group(2))
    if match := re.fullmatch(r"units? without the (.+?) keywords?", plain, re.I):
        return _none(match.group(1))
    if match := re.fullmatch(r"units? that (has|does not have) the (.+?) keywords?", plain, re.I):
        return _any(match.group(2)) if match.group(1).lower() == "has" else _none(match.group(2))
    if re.fullmatch(r"units?|models?", plain, re.I):
        return Condition()
    if match := re.fullmatch(r"non-(.+?)(?: (?:unit|model)s?)?", plain, re.I):
        return _none(match.group(1))
    match = re.fullmatch(r"(.+?)(?: (?:unit|model)s?)?", plain, re.I)
    assert match is not None
    return _any(match.group(1))


_OWN = r"(?:this|the bearer's|this model's) (?:unit|model)"
_PHASES: list[tuple[re.Pattern[str], Phase]] = [
    (re.compile(r"^in (?:your|the|your opponent's) shooting phase$", re.I), "shooting"),
    (re.compile(r"^in the fight phase$", re.I), "fight"),
    (re.compile(rf"^each time {_OWN} is selected to shoot$", re.I), "shooting"),
    (re.compile(rf"^each time {_OWN} is selected to fight$", re.I), "fight"),
]
_FLAGS: list[tuple[re.Pattern[str], Flag]] = [
    (re.compile(rf"^(?:each time|if|after|while) (?:{_OWN}|it) (?:ends|made|makes|has made) a charge move"
                r"(?: this turn)?$", re.I), "charged"),
    (re.compile(rf"^(?:if|while) (?:{_OWN}|it) (?:remained|has remained) stationary(?: this turn)?$", re.I),
     "stationary"),
    (re.compile(r"^(?:if|while) (?:this|that) (?:unit|model|attack'?s? target) is within half range"
                r"(?: of the (?:target|attacking model))?$", re.I), "half_range"),
]
_NEUTRAL = re.compile(r"^(?:until the end of the (?:phase|turn)|but instead|instead|in addition|then)$", re.I)
#: a heading before the text, such as 'Invented text:' (no condition in it)
_HEADING = re.compile(r"(?!.*\b(?:if|while|whilst|when|until|each time|once|after|at the start|at the end)\b)[^,:]+:",
                      re.I)
_AFTER_USE = re.compile(r"^(?:if (?:it|you|they) (?:does|do)(?: so)?|if so|when (?:it|you) (?:does|do)(?: so)?)$",
                        re.I)


def _if_target(clause: str) -> Condition | None:
    """'if the target of that attack does not have the IMPERIUM or CHAOS keywords', 'if that attack targets a
    TITANIC unit', 'if that target is within range of an objective marker'."""
    match = re.match(r"^(?:if|when|while) (?:the target of that attack|that attack's target|that target|the target)"
                     r" (?P<verb>does not have|has|is not|is) (?:the )?(?P<rest>.+)$", clause, re.I)
    if match:
        verb, rest = match.group("verb").lower(), match.group("rest")
        if verb in ("has", "does not have") and (kw := re.fullmatch(r"(.+?) keywords?", rest, re.I)):
            return _none(kw.group(1)) if verb == "does not have" else _any(kw.group(1))
        if verb == "is" and not _UNSETTLED.search(rest):
            return _target(rest)
        return Condition(needs=(clause[0].lower() + clause[1:],))
    match = re.match(r"^(?:if|when) that attack targets (?P<rest>.+)$", clause, re.I)
    return _target(match.group("rest")) if match else None


def _prefix(clause: str, phases: list[Phase], before: str) -> Condition:
    """A condition written before the subject: a phase, a charge, Remaining Stationary, a target, else what it
    needs (for 'if it does', the sentence before it, which says what 'it' is)."""
    clause = clause.strip().strip(",").strip()
    if not clause or _NEUTRAL.match(clause) or _HEADING.fullmatch(clause):
        return Condition()
    if re.search(r"(?:strength|toughness) characteristic", clause, re.I):
        raise Unreadable("a condition on the attack's Strength")
    target = _if_target(clause)
    if target is not None:
        return target
    for pattern, phase in _PHASES:
        if pattern.match(clause):
            phases.append(phase)
            return Condition()
    for pattern, flag in _FLAGS:
        if pattern.match(clause):
            return Condition(requires=(flag,))
    if _AFTER_USE.match(clause):
        return Condition(needs=(f"after '{before.rstrip('.')}'" if before else clause,))
    return Condition(needs=(clause[0].lower() + clause[1:],))


def _clauses(prefix: str) -> list[str]:
    """The conditions before the subject, one per clause: a comma ends a clause only where a new one starts
    ('while within 6\" of one or more friendly A, B or C models' is one)."""
    prefix = prefix.strip().rstrip(",").strip()
    out: list[str] = []
    for part in (p.strip() for p in prefix.split(", ") if p.strip()):
        starts = re.match(r"^(?:if|while|when|until|in|each time|after|at|once|but|instead|then)\b", part, re.I)
        if out and not starts:
            out[-1] += ", " + part
        else:
            out.append(part)
    return out


# --------------------------------------------------------------------- effects
_ROLL = r"(?:hit|wound|damage)(?: roll)?"
_ROLLS = rf"(?P<rolls>{_ROLL}(?:(?:,| and| or)(?: you can re-roll)?(?: the)? {_ROLL})*) rolls?"
_CHARS = r"(?:strength|armour penetration|damage|attacks)"
_EFFECTS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?:you can )?re-roll (?:the |a |that )?" + _ROLLS + r"(?P<ones> of (?:1|one))?"
                r"(?: (?:instead|as well))?", re.I), "reroll"),
    (re.compile(r"(?:you can )?(?P<op>add|subtract) (?P<n>\d) (?:to|from) (?:the|that attack's) (?P<roll>hit|wound) "
                r"roll(?: instead| as well)?", re.I), "roll modifier"),
    (re.compile(rf"(?P<op>improve|worsen) the (?P<chars>{_CHARS}(?:(?:,| and|, and) {_CHARS})*) characteristics? of "
                r"(?:that|the) attack by (?P<n>\d)", re.I), "characteristics"),
    (re.compile(rf"(?P<op>add|subtract) (?P<n>\d) (?:to|from) the (?P<chars>{_CHARS}(?: and {_CHARS})*) "
                r"characteristics? of (?:that|the) attack", re.I), "characteristics"),
    (re.compile(r"subtract 1 from that attack's damage characteristic", re.I), "reduce damage"),
    (re.compile(r"halve the damage characteristic of (?:that|the) attack", re.I), "halve"),
    (re.compile(r"(?:that attack|it) (?:has|gains) the (?P<abilities>\[[^\]]+\](?:(?:,| and| or) \[[^\]]+\])*) "
                r"abilit(?:y|ies)", re.I), "abilities"),
    (re.compile(r"(?:the )?(?P<abilities>\[[^\]]+\](?:(?:,| and) \[[^\]]+\])*)(?: abilit(?:y|ies))?", re.I),
     "weapon abilities"),
    (re.compile(r"(?:a successful |an )?unmodified (?P<roll>hit|wound) roll of (?P<n>[2-5])\+ scores a critical "
                r"(?:hit|wound)", re.I), "critical"),
    (re.compile(r"(?:(?:models in (?:this|that) unit|models in it|it|this model|this unit) (?:has|have) )?"
                r"(?:an? (?P<n>[2-6])\+ invulnerable save|an invulnerable save of (?P<n2>[2-6])\+)"
                r"(?P<ranged> against ranged attacks(?: only)?)?(?: against that attack)?", re.I), "invulnerable"),
    (re.compile(r"(?:the feel no pain (?P<n>[2-6])\+ ability|an? (?P<n2>[2-6])\+ feel no pain(?: ability)?)"
                r"(?P<against> against .+)?", re.I), "feel no pain"),
    (re.compile(r"(?:(?:models in (?:this|that) unit|models in it|it|this model|this unit) (?:has|have) )?"
                r"the benefit of cover(?: against that attack)?", re.I), "cover"),
]
_CHARACTERISTIC = {"strength": "strength_bonus", "attacks": "attacks_bonus", "damage": "damage_bonus",
                   "armour penetration": "ap_bonus"}
_STARTS = r"(?:you can |re-roll|add |subtract |improve |worsen |halve |that attack|it has|an unmodified|a successful|" \
          r"the \[|\[|models in|it has the)"
_JOIN = re.compile(rf",? and (?={_STARTS})|, (?:or )?(?={_STARTS})", re.I)


def _words(clause: str) -> str:
    """The reason for words not understood, quoting them (shortened)."""
    clause = clause.strip()
    return f"the words '{clause if len(clause) < 80 else clause[:77] + '...'}' are not understood"


def _effect(clause: str, subject: Subject, fields: dict[str, Any]) -> None:
    """Add what one clause does to `fields` (the Effect's fields), or refuse the clause."""
    clause = clause.strip().rstrip(".").strip()
    for pattern, kind in _EFFECTS:
        match = pattern.fullmatch(clause)
        if match:
            _apply(kind, {k: (v or "") for k, v in match.groupdict().items()}, match.group(0), subject, fields)
            return
    raise Unreadable(_words(clause))


def _apply(kind: str, groups: dict[str, str], clause: str, subject: Subject, fields: dict[str, Any]) -> None:
    defending = subject.role == "target"
    if kind == "reroll":
        if defending:
            raise Unreadable("a re-roll for the attacks against it")
        for roll in (r.lower() for r in re.findall(r"hit|wound|damage", groups["rolls"], re.I)):
            if roll == "damage":
                fields["reroll_damage"] = "ones" if groups["ones"] else "below-average"
            else:
                policy = Reroll.ONES if groups["ones"] else Reroll.FAILED
                fields[f"reroll_{roll}s"] = max(fields.get(f"reroll_{roll}s", Reroll.NONE), policy)
    elif kind == "roll modifier":
        n = int(groups["n"]) * (1 if groups["op"].lower() == "add" else -1)
        roll = groups["roll"].lower()
        name = "wound_modifier_against" if defending and roll == "wound" else f"{roll}_modifier"
        fields[name] = fields.get(name, 0) + n
    elif kind == "characteristics":
        n = int(groups["n"])
        worse = groups["op"].lower() in ("worsen", "subtract")
        for char in (c.lower() for c in re.findall(_CHARS, groups["chars"], re.I)):
            if defending and worse and char == "armour penetration":
                fields["worsen_ap"] = fields.get("worsen_ap", 0) + n
            elif defending and worse and char == "damage" and n == 1:
                fields["reduce_damage"] = True
            elif not defending and not worse:
                fields[_CHARACTERISTIC[char]] = fields.get(_CHARACTERISTIC[char], 0) + n
            else:
                raise Unreadable(_words(clause))
    elif kind == "reduce damage":
        if not defending:
            raise Unreadable(_words(clause))
        fields["reduce_damage"] = True
    elif kind == "halve":
        if not defending:
            raise Unreadable("halving its own Damage")
        fields["halve_damage"] = True
    elif kind in ("abilities", "weapon abilities"):
        if defending:
            raise Unreadable(_words(clause))
        if " or [" in clause.lower():
            raise Unreadable("a choice of weapon abilities")
        fields.setdefault("abilities", []).extend(
            " ".join(a.split()).upper() for a in re.findall(r"\[([^\]]+)\]", groups["abilities"]))
    elif kind == "critical":
        if defending:
            raise Unreadable("Critical rolls of the attacks against it")
        fields[f"critical_{groups['roll'].lower()}"] = int(groups["n"])
    else:  # invulnerable save, Feel No Pain, Benefit of Cover: the unit's own models
        if not defending:
            raise Unreadable(_words(clause))
        if kind == "invulnerable":
            fields["invulnerable"] = int(groups["n"] or groups["n2"])
            if groups["ranged"]:
                fields["_phase"] = "shooting"
        elif kind == "feel no pain":
            fields["feel_no_pain"] = int(groups["n"] or groups["n2"])
            if groups["against"]:  # in the profile if always held, else not modelled (see _rule)
                fields["_against"] = groups["against"].strip()
        else:
            fields["cover"] = True


# --------------------------------------------------------------------- sentences
@attrs.frozen
class Parsed:
    """One sentence read: its subject, condition, phase and the Effect's fields."""

    subject: Subject
    condition: Condition
    fields: dict[str, Any]
    phase: Phase


def _sentence(sentence: str, previous: Parsed | None, before: str) -> list[Parsed]:
    """What a sentence about attacks does: one reading per condition its clauses carry. Unreadable if a clause is
    not understood, ForOthers if it is about other units' attacks."""
    sentence = _as_attack(_NOT_ATTACK_CHANGE.sub("", sentence))
    leading = False
    if lead := re.match(r"^while this model is leading a unit,\s*", sentence, re.I):
        leading, sentence = True, sentence[lead.end():]
    found = _subject(sentence, leading)
    if found is None:
        goes_on = previous is not None and re.match(r"^(?:if|while|whilst|when)\b", sentence, re.I)
        if _OTHERS.search(sentence) and not goes_on:
            raise ForOthers("another unit")
        if previous is None:
            raise Unreadable("it names no attack this reader knows")
        cut = sentence.rfind(", ")  # 'If the target of that attack is X, you can re-roll the Hit roll instead.'
        subject, prefix, rest = previous.subject, sentence[:max(cut, 0)], sentence[cut + 2:] if cut >= 0 else sentence
        inherited = previous.condition  # the sentence goes on about the attacks of the one before
    else:
        subject, match = found
        prefix, rest = sentence[:match.start()], sentence[match.end():]
        if _OTHERS.search(prefix) and subject.scope != "leading":
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
    for clause in _clauses(prefix):
        condition += _prefix(clause, phases, before)
    rest, more, subject = _after_subject(rest, subject, phases, before)
    condition += more
    groups: dict[Condition, dict[str, Any]] = {}
    for clause in _JOIN.split(rest):
        if clause.strip():
            clause, own = _trailing(clause, phases, before)
            _effect(clause, subject, groups.setdefault(condition + own, {}))
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
    return clause[:match.start()], _prefix(match.group("cond"), phases, before)


def _after_subject(rest: str, subject: Subject, phases: list[Phase],
                   before: str) -> tuple[str, Condition, Subject]:
    """The condition written after the subject ('that targets ...', 'with a melee weapon', 'if it made a Charge move
    this turn', '... when targeting ...'), the effects after it, and the subject with the kind of attack it named."""
    condition = Condition()
    rest = rest.strip()
    if kind := re.match(r"^with an? (?P<kind>ranged|melee) weapon\b", rest, re.I):
        if subject.kind and subject.kind != kind.group("kind").lower():
            raise Unreadable(_words(kind.group(0)))
        subject = attrs.evolve(subject, kind=kind.group("kind").lower())
        rest = rest[kind.end():].strip()
    if re.match(r"^with (?:its|this model's|the bearer's|their|a|an|one) ", rest, re.I):
        raise Unreadable("attacks with one of its weapons only")
    target = re.match(rf"^(?:that )?(?:targets?|is allocated to) (?P<target>.+?)(?:,\s*(?=(?:{_STARTS}|if |while |"
                      r"until ))|,?$)", rest, re.I)
    if target:
        aimed = target.group("target")
        if kind := re.search(r" with an? (?P<kind>ranged|melee) attack$", aimed, re.I):
            subject, aimed = attrs.evolve(subject, kind=kind.group("kind").lower()), aimed[:kind.start()]
        condition += _target(aimed)
        rest = rest[target.end():].strip()
    while match := re.match(r"^,?\s*(?P<clause>(?:if|while|until)[^,]+),", rest, re.I):
        condition += _prefix(match.group("clause"), phases, before)
        rest = rest[match.end():].strip()
    rest = rest.lstrip(", ").strip()
    if subject.weapons:  # "weapons ... have the [X] ability (while|when) targeting ..."
        if match := re.search(r"\s*,?\s*(?:while|when) targeting (?P<target>.+?)\.?$", rest, re.I):
            condition += _target(match.group("target"))
            rest = rest[:match.start()]
    return rest, condition, subject


def _sentences(text: str) -> Iterator[str]:
    """The sentences of an ability; a bulleted list after 'while ...:' gives each bullet that condition. A condition
    inside a sentence ('re-roll a Hit roll of 1 and, if X, you can re-roll the Hit roll instead', '... (if X, Y
    instead)') starts a sentence of its own, which goes on about the same attacks."""
    text = clean(text)
    text = re.sub(r",? and, (?=(?:if|while) [^,]+, )", ". ", text, flags=re.I)
    text = re.sub(r" \((if [^,()]+, [^()]+?)\)\.?", lambda m: f". {m.group(1)[0].upper()}{m.group(1)[1:]}.", text)
    text = re.sub(r"\. (if|while)\b", lambda m: f". {m.group(1).capitalize()}", text)
    pieces = _BULLET.split(text)
    if len(pieces) > 1:
        intro = pieces[0].strip()
        if re.search(r"select one|one of the following|choose", intro, re.I):
            if any(_ATTACKS.search(p) for p in pieces[1:]):
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


def _rule(unit: str, name: str, index: int, parsed: Parsed) -> NamedRule:
    fields = dict(parsed.fields)
    if "_against" in fields:
        raise Unreadable(f"Feel No Pain {fields['_against']} only")
    if parsed.subject.role == "attacker":
        fields["weapons"] = {"ranged": "ranged", "melee": "melee"}.get(parsed.subject.kind, "all")
    if "abilities" in fields:
        fields["abilities"] = tuple(dict.fromkeys(fields["abilities"]))
    condition = parsed.condition
    every = tuple(dict.fromkeys(condition.all_of))
    some = () if set(condition.any_of) & set(every) else tuple(dict.fromkeys(condition.any_of))
    target = Keywords(all_of=every, any_of=some, none_of=tuple(dict.fromkeys(condition.none_of)))
    if parsed.subject.role == "target" and target:
        raise Unreadable("a condition on the attacking unit")
    effect = Effect(**fields)
    return NamedRule(key=f"{unit}/{name}#{index}", name=name, kind="ability",
                     source=f"{unit} datasheet (read from its text)", summary=effect.describe(),
                     phase=parsed.phase, situation=parsed.subject.role, effect=effect, target=target,
                     requires=tuple(dict.fromkeys(condition.requires)))


def _in_profile(parsed: Parsed, name: str, text: str) -> bool:
    """An invulnerable save or Feel No Pain the unit always has, that `catalogue.abilities` reads from the same
    text into the model profile: not applied a second time."""
    fields = parsed.fields
    if (not set(fields) <= {"invulnerable", "feel_no_pain", "_against"} or parsed.subject.role != "target"
            or parsed.subject.scope not in ("unit", "model") or parsed.condition.needs or parsed.condition.requires):
        return False
    saved = [invulnerable(name, text)] if "invulnerable" in fields else []
    saved += [feel_no_pain(name, "", text)] if "feel_no_pain" in fields else []
    return all(r is not None and not r.get("conditional") for r in saved)


def read_ability(unit: str, name: str, text: str, model: str = "") -> Verdict:
    """One ability of `unit` (written on its `model` kind, or "" for the datasheet) read from its text."""
    name = clean(name).rstrip(":").strip()
    if name.lower().startswith("invulnerable save"):
        return Verdict("profile")  # its value is read by catalogue.abilities
    readings: list[Reading] = []
    profile = others = False
    try:
        previous: Parsed | None = None
        before = ""
        for sentence in (s.strip() for s in _sentences(text)):
            if not _ATTACKS.search(sentence):
                before = sentence
                continue
            if re.search(r"ha(?:s|ve) an? [2-6]\+ invulnerable save|invulnerable save of [2-6]\+", sentence, re.I) \
                    and not re.search(r"\b(?:while|if|until|when|each time|once)\b", sentence, re.I):
                profile = True  # 'Asurmen has a 4+ invulnerable save': in the model profile
                continue
            try:
                parsed = _sentence(sentence, previous, before)
            except ForOthers:
                others = True
                continue
            previous = parsed[0]
            for one in parsed:
                if _in_profile(one, name, text):
                    profile = True
                    continue
                try:
                    rule = _rule(unit, name, len(readings), one)
                except MathhammerError as exc:
                    raise Unreadable(str(exc)) from None
                readings.append(Reading(rule, one.subject.scope, "; ".join(dict.fromkeys(one.condition.needs))))
    except Unreadable as why:
        return Verdict("unmodelled", TextAbility(name, model, unmodelled=str(why), role=why.role))
    if readings:
        return Verdict("effects", TextAbility(name, model, tuple(readings)))
    return Verdict("profile" if profile else "others" if others else "other")


def read_abilities(unit: str, texts: Iterable[Sequence[str]], kinds: Counter[str],
                   unmodelled: Counter[str]) -> tuple[TextAbility, ...]:
    """The abilities of a unit record (its `ability_texts`: name, text, model kind) that change attacks or are not
    modelled, each name once; `kinds` counts every ability by how it was read, `unmodelled` those not modelled."""
    out: list[TextAbility] = []
    seen: set[str] = set()
    for name, text, model in texts:
        if name in seen:
            continue
        seen.add(name)
        verdict = read_ability(unit, name, text, model)
        kinds[verdict.kind] += 1
        if verdict.ability is not None:
            out.append(verdict.ability)
            if verdict.kind == "unmodelled":
                unmodelled[verdict.ability.name] += 1
    return tuple(out)

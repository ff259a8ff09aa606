"""The phrases ability texts are made of: conditions ("that targets a MONSTER or VEHICLE unit", "if this unit
made a Charge move this turn", "while this model has 1-5 wounds remaining") and effects ("you can re-roll the
Hit roll", "subtract 1 from the Damage characteristic of that attack"), read into a `Condition` and the fields
of a `data.modifiers.Effect`. `catalogue.ability_text` finds the subject of each sentence and puts them together.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import attrs

from ..data.modifiers import Flag, Phase, StrengthTest
from ..data.text_rules import Role, Scope
from ..model import ELEVENTH_EDITION, Reroll

#: a weapon ability a text names without its brackets: 'have the IGNORES COVER ability', 'the Devastating Wounds
#: ability'
_BARE_ABILITY = re.compile(r"\bthe ((?:" + "|".join(sorted((re.escape(a.spelling) for a in ELEVENTH_EDITION),
                                                           key=len, reverse=True))
                           + r")(?: [0-9D+]+)?) abilit(?:y|ies)\b", re.I)


@functools.lru_cache(maxsize=16384)
def clean(text: str) -> str:
    """The text without markup (^^, **), with plain hyphens and quotes, single spaces, known misprints set right, and
    a weapon ability written without its brackets given them ('the IGNORES COVER ability': an omnispex's); worked out
    once per text (a checkout's ability names and texts repeat: 10th-edition BSData's 15,600 are 4,600)."""
    text = re.sub(r"[\^*]+", "", text)
    text = re.sub(r"\babilty\b", "ability", text)  # Furnace of Plagues' misprint, before the brackets are given
    text = re.sub(r"\s+abilit(?:y|ies)\]", "]", text)  # '[IGNORES COVER abilities]'
    text = _BARE_ABILITY.sub(lambda bare: f"the [{bare[1].upper()}] ability", text)
    for odd, plain in (("\u2011", "-"), ("\u2010", "-"), ("\u2013", "-"), ("\u2019", "'"), ("\u2018", "'"),
                       ("\u00a0", " "), ("unmodifed", "unmodified"), ("abilties", "abilities"),
                       (" form the ", " from the "), ("worsen that armour", "worsen the armour"),
                       ("roll or 1", "roll of 1"), ("Feel Not Pain", "Feel No Pain")):
        text = text.replace(odd, plain)
    text = re.sub(r"(re-roll an? (?:Hit|Wound) roll) 1\b", r"\1 of 1", text, flags=re.I)  # 're-roll a Wound roll 1'
    return re.sub(r"[ \t]+", " ", text).strip()


class Unreadable(Exception):
    """A sentence about attacks that this reader does not understand (the reason is its message); `role` says whose
    attacks it was about, when that was read before the words that were not."""

    def __init__(self, reason: str, role: Role | None = None):
        super().__init__(reason)
        self.role = role


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
    named: tuple[str, ...] = ()  #: the attacks of these weapons only ("the Attacks characteristic of bolt rifles")
    leads: str = ""  #: 'while this model is leading a BLOOD CLAWS unit': the keyword the unit it leads must have
    excluding: tuple[str, ...] = ()  #: not weapons with these abilities ('(excluding Extra Attacks weapons)')


# --------------------------------------------------------------------- conditions
@attrs.frozen
class Condition:
    """What must hold for a sentence's effects: target keywords, situation options, and what no option states."""

    all_of: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()
    none_of: tuple[str, ...] = ()
    requires: tuple[Flag, ...] = ()
    needs: tuple[str, ...] = ()
    strength: StrengthTest = ""  #: the attack's Strength against the target's Toughness
    led_by: str = ""  #: 'while a CHARACTER model is leading this unit': that keyword

    def __add__(self, other: Condition) -> Condition:
        if self.any_of and other.any_of:
            raise Unreadable("two tests of the target's keywords")
        if self.strength and other.strength:
            raise Unreadable("two tests of the attack's Strength")
        if self.led_by and other.led_by:
            raise Unreadable("two tests of the unit's Leader")
        return Condition(self.all_of + other.all_of, self.any_of + other.any_of, self.none_of + other.none_of,
                         self.requires + other.requires, self.needs + other.needs, self.strength or other.strength,
                         self.led_by or other.led_by)


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


def target_condition(text: str) -> Condition:
    """'a MONSTER or VEHICLE unit', 'a unit that can FLY', 'units without the TITANIC keyword', 'a unit within half
    range'; a target no option or keyword states (within 9", the unit selected earlier) is kept as needed."""
    text = text.strip().rstrip(".")
    plain = re.sub(r"^(?:an?|the|one or more) (?:enemy )?", "", text, flags=re.I)
    if match := re.fullmatch(r"units? \(excluding (?:units? that can )?(?P<kw>.+?)\)", plain, re.I):
        return _none(match.group("kw"))
    if re.fullmatch(r"units? within half range", plain, re.I):
        return Condition(requires=("half_range",))
    if match := re.fullmatch(r"units? that contains? one or more models with the (\w+) ability", plain, re.I):
        return _any(match.group(1))  # 'a unit that contains one or more models with the Stealth ability'
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
    (re.compile(rf"^(?:(?:if|while) (?:{_OWN}|it) (?:remained|has remained|remains)|each time (?:{_OWN}|it) "
                r"remains) stationary(?: this turn)?$", re.I), "stationary"),
    (re.compile(r"^(?:if|while) (?:this|that) (?:unit|model|attack'?s? target) is within half range"
                r"(?: of the (?:target|attacking model))?$", re.I), "half_range"),
]
#: what follows a trigger the query settles: the effect lasts at least as long as the attacks asked about
_NEUTRAL = re.compile(r"^(?:until the (?:end of the (?:phase|turn)|start of your next (?:command|movement) phase)|"
                      r"but instead|instead|in addition|then)$", re.I)
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
            return target_condition(rest)
        return Condition(needs=(clause[0].lower() + clause[1:],))
    match = re.match(r"^(?:if|when) that attack targets (?P<rest>.+)$", clause, re.I)
    return target_condition(match.group("rest")) if match else None


#: "if a Critical Hit is scored, that attack has ...": a condition of the roll itself, not of the query
_CRITICAL = re.compile(r"^(?:if|when|each time) (?:a|that attack scores a) critical (?:hit|wound)(?: is scored)?$",
                       re.I)
CRITICAL_ONLY = ("an effect on the attacks that score a Critical Hit or Wound only: the engine gives an effect to "
                 "all of a weapon's attacks or none, and allocates a weapon's wounds all with Precision or all without")


#: 'while a CHARACTER model is leading this unit', 'while an ADEPTA SORORITAS CHARACTER is leading this unit'
_LED = re.compile(r"while an? (?:friendly )?([a-z][a-z' -]*?) (?:model )?is leading this unit", re.I)
#: 'if the Strength characteristic of that attack is greater than the Toughness characteristic of this unit'
_WHOSE = r"(?:the target|(?:this|that|the target's|the bearer's) (?:unit|model))"
_STRENGTH_VS_TOUGHNESS = re.compile(rf"if the strength characteristic of that attack is (greater|less) than (?:the "
                                    rf"toughness characteristic of {_WHOSE}|{_WHOSE}['’]s toughness characteristic)",
                                    re.I)


def condition_before(clause: str, phases: list[Phase], before: str) -> Condition:
    """A condition written before the subject: a phase, a charge, Remaining Stationary, a target, else what it
    needs (for 'if it does', the sentence before it, which says what 'it' is)."""
    clause = clause.strip().strip(",").strip()
    if not clause or _NEUTRAL.match(clause) or _HEADING.fullmatch(clause):
        return Condition()
    if led := _LED.fullmatch(clause):
        return Condition(led_by=led.group(1).upper())
    if compared := _STRENGTH_VS_TOUGHNESS.fullmatch(clause):
        return Condition(strength="above" if compared.group(1).lower() == "greater" else "below")
    if re.search(r"(?:strength|toughness) characteristic", clause, re.I):
        raise Unreadable("a condition on the attack's Strength")
    if _CRITICAL.match(clause):
        raise Unreadable(CRITICAL_ONLY)
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
        phases.extend(_phase_of(before))  # 'Each time this unit is selected to shoot, it can ...': that phase's
        return Condition(needs=(f"if it is used ('{before.rstrip('.')}')" if before else clause,))
    return Condition(needs=(clause[0].lower() + clause[1:],))


def _phase_of(sentence: str) -> list[Phase]:
    """The phase a sentence's opening clause binds it to ('Each time this unit is selected to shoot, ...'), if any."""
    opening = sentence.split(",")[0].strip()
    return [phase for pattern, phase in _PHASES if pattern.match(opening)]


def split_clauses(prefix: str) -> list[str]:
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
_ROLLS = rf"(?P<rolls>{_ROLL}(?:(?:,| and)(?: you can re-roll)?(?: the)? {_ROLL})*) rolls?"
_CHARS = r"(?:strength|armour penetration|damage|attacks|ballistic skill|weapon skill)"
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
    (re.compile(r"a critical (?:hit|wound) is scored on an unmodified (?P<roll>hit|wound) roll of (?P<n>[2-5])\+"
                r"(?:,? instead of only (?:on )?(?:an? )?6)?", re.I), "critical"),
    (re.compile(r"(?:(?:models in (?:this|that) unit|models in it|it|this model|this unit) (?:has|have) )?"
                r"(?:an? (?P<n>[2-6])\+ invulnerable save|an invulnerable save of (?P<n2>[2-6])\+)"
                r"(?P<ranged> against ranged attacks(?: only)?)?(?P<melee> against\s+melee attacks(?: only)?)?"
                r"(?: against that attack)?(?P<instead> instead)?", re.I), "invulnerable"),
    (re.compile(r"(?:the feel no pain (?P<n>[2-6])\+ ability|an? (?P<n2>[2-6])\+ feel no pain(?: ability)?)"
                r"(?P<against> against .+?)?(?P<instead> instead)?", re.I), "feel no pain"),
    (re.compile(r"(?:(?:models in (?:this|that) unit|models in it|it|this model|this unit) (?:has|have) )?"
                r"the benefit of cover(?: against that attack)?", re.I), "cover"),
]
#: the skill each kind of attack rolls to hit with: improving one is the skill bonus of those attacks alone
_SKILLS = {"ballistic skill": "ranged", "weapon skill": "melee"}
_CHARACTERISTIC = {"strength": "strength_bonus", "attacks": "attacks_bonus", "damage": "damage_bonus",
                   "armour penetration": "ap_bonus"}
#: how an effect clause starts: where a list of effects is split ("add 1 to the Hit roll and add 1 to ...")
EFFECT_START = r"(?:you can |re-roll|add |subtract |improve |worsen |halve |that attack|it has|an unmodified|" \
               r"a successful|the \[|\[|models in|it has the)"
EFFECT_JOIN = re.compile(rf",? and (?={EFFECT_START})|, (?:or )?(?={EFFECT_START})", re.I)


def not_understood(clause: str) -> str:
    """The reason for words not understood, quoting them (shortened)."""
    clause = clause.strip()
    return f"the words '{clause if len(clause) < 80 else clause[:77] + '...'}' are not understood"


def read_effect(clause: str, subject: Subject, fields: dict[str, Any]) -> None:
    """Add what one clause does to `fields` (the Effect's fields), or refuse the clause."""
    clause = clause.strip().rstrip(".").strip()
    for pattern, kind in _EFFECTS:
        match = pattern.fullmatch(clause)
        if match:
            _apply(kind, {k: (v or "") for k, v in match.groupdict().items()}, match.group(0), subject, fields)
            return
    raise Unreadable(not_understood(clause))


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
        chars = [c.lower() for c in re.findall(_CHARS, groups["chars"], re.I)]
        if skills := [_SKILLS[c] for c in chars if c in _SKILLS]:
            if defending or worse or len(skills) == 1 and subject.kind not in ("", skills[0]):
                raise Unreadable(not_understood(clause))
            fields["skill_bonus"] = n
            if len(skills) == 1 and not subject.kind:
                fields["_weapons"] = skills[0]
        for char in (c for c in chars if c not in _SKILLS):
            if defending and worse and char == "armour penetration":
                fields["worsen_ap"] = fields.get("worsen_ap", 0) + n
            elif defending and worse and char == "damage" and n == 1:
                fields["reduce_damage"] = True
            elif not defending and not worse:
                fields[_CHARACTERISTIC[char]] = fields.get(_CHARACTERISTIC[char], 0) + n
            else:
                raise Unreadable(not_understood(clause))
    elif kind == "reduce damage":
        if not defending:
            raise Unreadable(not_understood(clause))
        fields["reduce_damage"] = True
    elif kind == "halve":
        if not defending:
            raise Unreadable("halving its own Damage")
        fields["halve_damage"] = True
    elif kind in ("abilities", "weapon abilities"):
        if defending:
            raise Unreadable(not_understood(clause))
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
            raise Unreadable(not_understood(clause))
        if groups.get("instead"):  # in place of the one a sentence before gave (`ability_text._instead`)
            fields["_instead"] = True
        if kind == "invulnerable":
            fields["invulnerable"] = int(groups["n"] or groups["n2"])
            if groups["ranged"] or groups["melee"]:
                fields["_phase"] = "shooting" if groups["ranged"] else "fight"
        elif kind == "feel no pain":
            fields["feel_no_pain"] = int(groups["n"] or groups["n2"])
            if groups["against"]:  # mortal wounds or psychic attacks alone (`ability_text._rule`)
                fields["_against"] = groups["against"].strip()
        else:
            fields["cover"] = True

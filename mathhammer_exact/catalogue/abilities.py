"""What rules text tells about a unit: invulnerable saves, Feel No Pain, which units a Leader joins.

BattleScribe data gives these as abilities written for people; what is read from prose is marked
as inferred, so a player can check it. Each reading says whom it is for (`scope`): the bearer of the
wargear or the model that has the ability ("the bearer has...", "this model has..."), the whole unit
("models in this unit", "the bearer's unit"), or the unit a CHARACTER leads ("while this model is
leading a unit"), so a bearer's save is never given to the whole unit; what is for the unit a CHARACTER leads
is left to `ability_text`, whose readings apply when it leads the unit of the question.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from ..data.names import normalise
from ..model import ELEVENTH_EDITION

Record = dict[str, Any]
#: every weapon ability's name (the 11th edition's hold the 10th's), normalised: a rule of that name written on a
#: weapon's entry is the weapon's, not its unit's
WEAPON_ABILITIES = tuple(dict.fromkeys(normalise(ability.name) for ability in ELEVENTH_EDITION))

_SAVE = re.compile(r"\b([2-6])\+")
_PROSE_INVULNERABLE = re.compile(r"ha(?:s|ve) an? ([2-6])\+ invulnerable save|invulnerable save of ([2-6])\+", re.I)
_FNP = re.compile(r"feel not? pain ([2-6])\+", re.I)  #: and 'Feel Not Pain 6+', a Kroot Flesh Shaper's misprint
_CONDITION = re.compile(r"\b(while|until|if|when|each time|during|instead)\b", re.I)


_LEADING = re.compile(r"(?:while|when) (?:this model|the bearer) (?:is leading|leads) a unit", re.I)
_UNIT = re.compile(r"\b(?:bearer['’]?s unit|models? in (?:this|that|the bearer['’]?s|its) unit|this unit|that unit)\b",
                   re.I)
_BEARER = re.compile(r"\b(?:the bearer|this model|that model)\b", re.I)


def scope(text: str, at: int) -> str:
    """Whom what `text` says at `at` is for: 'leading' (the unit this CHARACTER leads), 'unit', or 'model'
    (the bearer of the wargear, or the model whose ability it is), read from the subject of its sentence
    (or of the list a bullet belongs to); 'unit' where the text names none."""
    start = max(text.rfind(".", 0, at), text.rfind("\n", 0, at)) + 1
    end = text.find(".", at)
    sentence = text[start:end if end >= 0 else len(text)]
    head = text[:at]
    if _LEADING.search(sentence) or (_LEADING.search(head) and not _BEARER.search(sentence)):
        return "leading"
    if _UNIT.search(sentence):
        return "unit"
    return "model" if _BEARER.search(sentence) else "unit"


#: a save whose sentence goes on as another: "The bearer has a 4+ invulnerable save and each time an attack is ..."
_JOINED = re.compile(r"(?<=invulnerable save),?\s+and (?=each time\b)", re.I)


def unjoined(text: str) -> str:
    """`text` with a save's sentence that goes on as another ('... a 4+ invulnerable save and each time ...') made
    two sentences, where nothing before the save makes it conditional: 'While ..., models have a 4+ invulnerable
    save and each time ...' keeps its condition for both."""
    def split(match: re.Match[str]) -> str:
        start = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start())) + 1
        return match.group(0) if _CONDITION.search(text[start:match.start()]) else ". "
    return _JOINED.sub(split, text)


def _conditional(text: str, at: int) -> bool:
    """True if what `text` says at position `at` holds only under a condition: its sentence has one
    ('while this unit is in cover, models have a 5+ invulnerable save'), or it is a bullet of a list
    whose introduction has one ('... until your next Command phase: - models have a 5+ ...')."""
    line = text.rfind("\n", 0, at) + 1
    start = max(text.rfind(".", 0, at), line - 1) + 1
    end = text.find(".", at)
    end = end if end >= 0 else len(text)
    joined = _JOINED.search(text, at)  # 'has a 4+ invulnerable save and each time ...': a sentence of its own
    if joined and joined.start() < end and not _CONDITION.search(text[start:joined.start()]):
        end = joined.start()
    if _CONDITION.search(text[start:end]):
        return True
    bullets = re.compile(r"^\s*[-■•*]", re.M)
    first = bullets.search(text)
    return bool(bullets.match(text, line)) and first is not None and bool(_CONDITION.search(text[:first.start()]))


#: an invulnerable save against melee attacks alone, joined to another ('6+ ... against ranged attacks, and 4+
#: Invulnerable save against melee attacks': Ynnari Wyches), or a sentence of its own ('This unit has a 4+
#: Invulnerable save against melee attacks': Wyches)
_MELEE_JOINED = re.compile(r",?\s*and\s+(?:an?\s+)?[2-6]\+ invulnerable save against\s+melee attacks", re.I)
#: (each match starts where a sentence or line does: tried from every character, as '[^.\n]*' alone would be, a
#: long text costs the square of its length; 10th-edition BSData took 2.6 s of indexing so)
_MELEE_ONLY = re.compile(r"(?:(?<=[.\n])|^)(?:[^.\n]*\b[2-6]\+ invulnerable save against\s+melee attacks[^.\n]*\.?|"
                         r"[^.\n]*\bimproved to [2-6]\+ against\s+melee attacks[^.\n]*\.?)", re.I)
_WORDED_SAVE = re.compile(r"\b([2-6])\+ invulnerable save", re.I)


def invulnerable(name: str, text: str) -> Record | None:
    """The invulnerable save an ability gives. An ability named 'Invulnerable Save' states it (its value
    in its text or its name); in other abilities it is inferred from prose such as 'models in this unit
    have a 4+ invulnerable save', and marked so."""
    return _fresh(_invulnerable(name, text))


def _fresh(reading: Record | None) -> Record | None:
    """A copy of a reading worked out once per text (a checkout gives one ability to many units: 32,000
    readings of 10th-edition BSData are 5,800 texts), so that each holder has its own."""
    return None if reading is None else dict(reading)


@functools.lru_cache(maxsize=8192)
def _invulnerable(name: str, text: str) -> Record | None:
    rest = _MELEE_ONLY.sub("", _MELEE_JOINED.sub("", text))  # one against melee attacks alone: the text reader's
    ranged = "ranged attacks" in rest.lower()
    if name.strip().lower().startswith("invulnerable save"):
        # where one against melee attacks was left out, the value of a save its words give (not a Judiciar's '4+',
        # his melee save's, on a line before them)
        worded = _WORDED_SAVE.search(rest)
        match = worded if rest != text else _SAVE.search(text) or _SAVE.search(name)
        # whose its words say: 'This model has ...' written on one kind of model is that kind's (Makari's 2+ beside
        # Ghazghkull's 4+), not the unit's
        whose = scope(rest, worded.start()) if worded and _BEARER.search(rest) and not _UNIT.search(rest) else "unit"
        return {"value": int(match.group(1)), "ranged_only": ranged, "from": name, "inferred": False,
                "scope": whose} if match else None
    match = _PROSE_INVULNERABLE.search(rest)
    if match is None:
        return None
    value = int(match.group(1) or match.group(2))
    return {"value": value, "ranged_only": ranged, "from": name, "inferred": True,
            "conditional": _conditional(text, match.start()), "scope": scope(text, match.start())}


def is_weapon_rule(name: str) -> bool:
    """Whether a rule called `name` is a weapon ability ('Blast', 'Sustained Hits 1', 'Anti-Infantry 4+'), not one
    whose name begins as one does ('Psychic Assassin')."""
    plain = normalise(name)
    return any(plain == ability or re.fullmatch(rf"{re.escape(ability)} (?:\S+ )?\S*\d\S*", plain)
               for ability in WEAPON_ABILITIES)


#: what a piece of wargear or an Enhancement gives its bearer, each in a sentence of its own with no condition
_BEARER_HAS = {"more_wounds": re.compile(r"add ([0-9]+) to the bearer.s wounds characteristic", re.I),
               "wounds": re.compile(r"the bearer has a wounds characteristic of ([0-9]+)", re.I),
               "save": re.compile(r"the bearer has a save characteristic of ([2-6])\+", re.I)}


def bearer_characteristics(text: str) -> dict[str, int]:
    """The characteristics `text` gives the bearer, by what they do: Wounds added ('Add 2 to the bearer's Wounds
    characteristic': more_wounds), Wounds set ('The bearer has a Wounds characteristic of 4': wounds) and a Save
    set ('The bearer has a Save characteristic of 2+ and ...': save), each where its sentence says it and nothing
    that makes it conditional ('Shield-Captain model only. Add 2 ...' gives 2; 'While ..., add 1 ...' nothing)."""
    return dict(_bearer_characteristics(text)) if "bearer" in text.lower() else {}


@functools.lru_cache(maxsize=8192)
def _bearer_characteristics(text: str) -> tuple[tuple[str, int], ...]:
    """`bearer_characteristics`, worked out once per text (a checkout's texts repeat)."""
    found = {}
    for sentence in re.split(r"(?<=\.)\s+|\n+", re.sub(r"[^\S\n]+", " ", text)):  # 'Save characteristic of\xa02+'
        sentence = sentence.strip().rstrip(".")
        for what, pattern in _BEARER_HAS.items():
            if (match := pattern.match(sentence)) and re.fullmatch(r"(?:,? and .*)?", sentence[match.end():]):
                found[what] = int(match[1])
    return tuple(found.items())


def feel_no_pain(name: str, suffix: str, text: str) -> Record | None:
    """The Feel No Pain a rule gives: its name ('Feel No Pain' with '5+' appended by a link, or 'Feel No
    Pain 5+' in a roster), else an ability's text (inferred)."""
    return _fresh(_feel_no_pain(name, suffix, text))


@functools.lru_cache(maxsize=8192)
def _feel_no_pain(name: str, suffix: str, text: str) -> Record | None:
    label = f"{name} {suffix}".strip()
    if label.lower().startswith("feel no pain"):
        match = re.search(r"(\d)\+", label)
        return {"value": int(match.group(1)), "from": label, "inferred": False, "scope": "unit"} if match else None
    match = _FNP.search(text)
    if match:
        against = " ".join(w for w in ("mortal", "psychic") if w in text.lower())
        return {"value": int(match.group(1)), "from": name, "inferred": True, "against": against,
                "conditional": _conditional(text, match.start()), "scope": scope(text, match.start())}
    return None


_LISTED = re.compile(r"\s*[-•]\s*")  #: a line of a list written with dashes ('- Breacher Team')


def leader_units(text: str) -> list[str]:
    """The units a Leader ability names ('can be attached to the following units:'), in each form the data
    writes them: one per '■' bullet (to the end of its line), one per line of a list of '- A' lines (blank
    lines between them allowed, ended by the first other line, such as the note after it), else the line
    after the colon split at commas; markup and asides left out; none from other text (such as the core
    rule called Leader)."""
    head, found, rest = text.partition(":")
    if not found or "attached to" not in head.lower():
        return []
    lines = re.sub(r"\([^)]*\)|[*^]", "", rest).strip().split("\n")  # markup and asides ('(excluding FLY)') out
    if "■" in rest:
        items = [bullet.split("\n")[0] for bullet in "\n".join(lines).split("■")[1:]]
    elif _LISTED.match(lines[0]):
        items = []
        for line in lines:
            if line.strip() and not _LISTED.match(line):
                break
            items.append(line)
    else:
        items = re.split(r"[,;]", lines[0])
    names = [re.sub(r"\s+", " ", item).strip(" .-•") for item in items]
    return [n for n in names if n and len(n) < 60]


_ATTACHED_UNIT = re.compile(
    r"\bif an? (?P<who>.+?) from your army(?: with the leader ability)?(?: \(excluding (?P<not>[^)]+)\))? can be "
    r"attached to (?:an? )?(?P<units>[^,.]+?), it can (?:instead )?be attached to this unit", re.I)
_KIND = re.compile(r"\s+(?:unit|model)s?$", re.I)  #: 'Chaplain model', 'a LEGIONARIES unit': the word left out


def attached_as(text: str) -> list[Record]:
    """What an "Attached Unit" ability allows ('If a Chaplain model from your army with the Leader ability can be
    attached to Assault Intercessor Squad, it can be attached to this unit instead'): for each unit it names, the
    keywords one of which the Leader must have (none: any Leader) and those it must not have."""
    match = _ATTACHED_UNIT.search(re.sub(r"\s+", " ", re.sub(r"[*^]", "", text)))
    if not match:
        return []

    def words(phrase: str) -> list[str]:
        while _KIND.search(phrase):
            phrase = _KIND.sub("", phrase)
        return [w.strip().upper() for w in re.split(r",|\bor\b|\band\b", phrase, flags=re.I)
                if w.strip() and w.strip().lower() not in ("unit", "model")]

    leaders, excluding = words(match["who"]), words(match["not"] or "")
    return [{"unit": unit.title() if unit.isupper() else unit, "leaders": leaders, "excluding": excluding}
            for unit in (re.sub(r"^(?:either )?an? ", "", u.strip(), flags=re.I)
                         for u in re.split(r"\bor\b", _KIND.sub("", match["units"]), flags=re.I))]


_BESIDE = re.compile(
    r"\b(?:attach this (?:model|unit)|this (?:model|unit) can be attached) (?:to )?(?P<units>[^:.]*?),?"
    r"(?: and can do so)? even if (?:one or more |one |an? )?(?:other )?(?P<who>[^.:]+?) (?:(?:model|unit)s? )?"
    r"(?:has|have) ?(?:already ?)?been attached", re.I)
_ANY_LED = re.compile(r"^(?:(?:one of )?the above|an?(?: unit it can lead)?|)$", re.I)  #: any unit it can lead
_NOT_TWICE = re.compile(r"cannot have two|more than one of the same|never include more than one", re.I)


def joins_beside(text: str) -> list[Record]:
    """What a Leader ability allows beyond one Leader per unit ('You can attach this model to one of the above units
    even if one Captain or Chapter Master model has already been attached to it'): the units it may so join
    (none: any it can lead), the keywords or names one of which the Leader already there must have (none: any
    CHARACTER), and whether two Leaders of its own datasheet are barred ('a unit cannot have two ...')."""
    plain = re.sub(r"\s+", " ", re.sub(r"[*^]", "", text))
    match = _BESIDE.search(plain)
    if not match:
        return []
    units = _KIND.sub("", match["units"].strip())
    named = [] if _ANY_LED.match(units) else [
        re.sub(r"^an? ", "", unit.strip(), flags=re.I) for unit in re.split(r",|\bor\b", units) if unit.strip()]
    who = [w.strip().upper() for w in re.split(r",|\bor\b|\band\b", _KIND.sub("", match["who"])) if w.strip()]
    anyone = who in (["CHARACTER"], ["LEADER"])
    return [{"units": [unit.title() if unit.isupper() else unit for unit in named], "leaders": [] if anyone else who,
             "not_twice": bool(_NOT_TWICE.search(plain))}]


#: a bodyguard unit's leave for two Leaders ('This unit can have up to two Leader units attached to it, provided no
#: more than one of those units is a COMMAND SQUAD unit'; Boyz: 'If this unit has a Starting Strength of 20, you can
#: attach up to two Leader units to it instead of one (but only if one of those is a WARBOSS model)')
_TWO_LEADERS = re.compile(r"\b(?:can have up to two Leader units attached to it|attach up to two Leader units to it)",
                          re.I)
_AT_SIZE = re.compile(r"\bStarting Strength of (\d+)", re.I)
_ONE_OF_THEM = re.compile(r"\bonly if one of those is an? (?P<who>[^.)]+?) (?:model|unit)\b", re.I)
_AT_MOST_ONE = re.compile(r"\bno more than one of those units is an? (?P<who>[^.)]+?) unit\b", re.I)
_NO_DUPLICATES = re.compile(r"\bnot duplicates\b", re.I)


def two_leaders(text: str) -> list[Record]:
    """A bodyguard unit's leave to take two Leaders: the Starting Strength it needs (None: any), the keyword one of
    them must have, the keyword no more than one may have, and whether two of one datasheet are barred."""
    plain = re.sub(r"\s+", " ", re.sub(r"[*^]", "", text))
    if not _TWO_LEADERS.search(plain):
        return []
    size, one, most = _AT_SIZE.search(plain), _ONE_OF_THEM.search(plain), _AT_MOST_ONE.search(plain)
    return [{"size": int(size[1]) if size else None, "one_of": one["who"].upper() if one else "",
             "at_most_one": most["who"].upper() if most else "", "not_twice": bool(_NO_DUPLICATES.search(plain))}]


_BARE_CONVERSION = re.compile(r"^(\s*)conversion(\s*)$", re.I)  #: the keyword as datasheets print it, no distance
_INCHES = re.compile(r"\b([0-9]+)\s*(?:\"|”|″|-inch\b| inch(?:es)?\b)")


def with_conversion_range(chars: dict[str, str], rules: Iterable[tuple[str, str]]) -> dict[str, str]:
    """A weapon profile's characteristics with a bare 'Conversion' keyword given the distance its rule's text
    states ('Conversion 18"'): datasheets print the keyword bare and the distance in the weapon's rule (12",
    18" or 24" in BSData's 10th edition). Left bare (not modelled, and named so) where the weapon's rules
    named Conversion state no one distance."""
    words = chars.get("Keywords", "").split(",")
    bare = [i for i, word in enumerate(words) if _BARE_CONVERSION.match(word)]
    distances = {int(found) for name, text in rules if name.strip().lower().startswith("conversion")
                 for found in _INCHES.findall(text)}
    if not bare or len(distances) != 1:
        return chars
    words[bare[0]] = _BARE_CONVERSION.sub(rf'\g<1>Conversion {distances.pop()}"\g<2>', words[bare[0]])
    return {**chars, "Keywords": ",".join(words)}


#: a weapon the unit has only if it Remains Stationary (a Strike Team's DS8 Support Turret)
_STILL_WEAPON = re.compile(r"if this unit Remains Stationary\b.*?\bequipped with the (.+?) weapon", re.I | re.S)


def stationary_weapon(text: str) -> str | None:
    """The weapon an ability gives the unit only while it Remained Stationary ('if this unit Remains Stationary,
    ... its Shas'ui model is equipped with the support turret weapon'), if it gives one."""
    found = _STILL_WEAPON.search(text)
    return found[1].strip() if found else None


def best(current: Record | None, found: Record | None) -> Record | None:
    """Of two readings of one kind (invulnerable save, Feel No Pain), the one to use: a stated one before
    one inferred from prose, an unconditional one before one under a condition, else the first found."""
    if found is None or current is None:
        return current or found
    return found if _rank(found) < _rank(current) else current


def _rank(reading: Record) -> tuple[bool, bool]:
    return bool(reading.get("conditional")), bool(reading.get("inferred"))


#: a weapon's Attacks raised for each more of it its model carries (a Deff Dread's dread klaws: 'Dead Choppy')
_PER_COPY = re.compile(r"attacks characteristic of this weapon is increased by ([1-3]) for each additional (.+?) "
                       r"(?:this model|the bearer) is equipped with", re.I)


def per_copy(name: str, rules: Iterable[tuple[str, str]]) -> list[object] | None:
    """[attacks added for each copy of the weapon `name` beyond the first that its model carries, the rule's name],
    where one of its `rules` (name, text) says so of this very weapon; else None."""
    for rule, text in rules:
        found = _PER_COPY.search(" ".join(text.split()))
        if found and normalise(found[2]).rstrip("s") == normalise(name).rstrip("s"):
            return [int(found[1]), rule.strip()]
    return None


#: a change to the unit's Charge rolls: a re-roll ('you can re-roll Advance and Charge rolls made for this unit'),
#: or a number added ('add 1 to Charge rolls made for the bearer's unit', 11th: 'this unit has +1 to charge rolls');
#: for whom ('made for ...'), what comes before it in its sentence and what follows (a condition either way); tried
#: only where a sentence starts (tried at every place, the lazy `before` made the search quadratic in the sentence)
_CHARGE_ROLLS = re.compile(
    r"(?<![^.;\n])(?P<before>[^.;\n]*?)"
    r"(?:(?P<reroll>\bre[-‑ ]?roll)|\badd (?P<add>[1-3])(?! ?\")(?: to)?|\+(?P<plus>[1-3]) to)"
    r" (?:that |the )?(?:Advance (?:and(?:/or)? )?)?Charge rolls?"  # (read with its markup left out: `charge_rolls`)
    r"(?: made)?(?: for (?P<whose>this unit|this model(?:['’]s unit)?|the bearer(?:['’]s unit)?|that unit|it|them|"
    r"[^.;,]*?unit from your army))?(?P<after>[^.;\n]*)", re.I)
#: a trigger that every charge meets ('each time this unit declares a charge'): no condition
_EVERY_CHARGE = re.compile(r"\beach time (?:this|that) (?:unit|model) declares a charge\b,?", re.I)
_CHARGE_SUBJECT = re.compile(r"[\s,:–-]*(?:(?:and )?you can|(?:this|that) (?:unit|model) (?:can|has))$", re.I)
_INSTEAD = re.compile(r"\binstead\b", re.I)
_CHARGE_AFTER = re.compile(r"^,?\s*(?:in a turn|if|while|when|during|until|each time|after)\b", re.I)


def charge_rolls(text: str) -> list[Record]:
    """What an ability does to the Charge rolls of its unit: each {"reroll": bool, "add": int, "leading": the unit
    this model leads (not its own), "condition": the words it waits on ("" for none), "instead": in place of what the
    ability gives otherwise (Optimised Gait's +2 near Battleline units)}. Changes to other units' rolls (an enemy's,
    a unit from your army) are not the unit's: left out."""
    found: list[Record] = []
    plain = " ".join(text.replace("*", "").replace("^^", "").split())
    if "charge roll" not in plain.lower():  # (most texts: the pattern's search costs seconds of indexing otherwise)
        return found
    for match in _CHARGE_ROLLS.finditer(plain):
        whose = (match["whose"] or "this unit").lower()
        before = _EVERY_CHARGE.sub("", match["before"]).strip(" ,")
        leading = bool(_LEADING.search(before)) and whose == "that unit"
        if leading:
            before = _LEADING.sub("", before).strip(" ,")
        if whose in ("it", "them") or whose.endswith("from your army"):
            continue  # another unit's (pinned, an enemy's), or one chosen from the army
        after = match["after"]
        # what it waits on: a condition before it ('while this unit contains...', 'that unit' of one), a choice or a
        # trigger it is listed under ('If you do:', 'Banner of ...:'), or one after it ('in a turn in which...')
        waits = ":" in before or bool(_CONDITION.search(before)) or whose == "that unit" and not leading
        before = _CHARGE_SUBJECT.sub("", before).strip(" ,:")
        condition = " ".join(part for part in (before if waits else "",
                                               after.strip(" ,") if _CHARGE_AFTER.match(after) else "") if part)
        found.append({"reroll": bool(match["reroll"]), "add": int(match["add"] or match["plus"] or 0),
                      "leading": leading, "condition": condition, "instead": bool(_INSTEAD.search(after))})
    return found

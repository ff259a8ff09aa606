"""Reading weapon and target profiles written the way datasheets print them.

The parsers return the fields of a profile; `model.Weapon.parse` and `model.Target.parse` build
the objects (so this module sits below the model and imports nothing from it).

The grammar is strict, because a calculator that guesses answers a different question than the
one asked: a characteristic given twice, or two that contradict each other, is an error naming
both tokens; a number is ASCII digits only; a zero that means nothing (``A0``, an ability's X of 0) is an
error; ``D3`` and ``D6`` after the other stats are refused as ambiguous (Damage 3, or a D3 roll?).
In lenient mode (for profiles read from a catalogue rather than typed) an ability the engine
does not model, or one whose distance is not given, is kept by name in ``ignored``
instead of refused.
"""

from __future__ import annotations

import re
from typing import Any

from .abilities import Ability, Edition, flags
from .dice import Dice
from .errors import MathhammerError, did_you_mean

_INCHES = r'(?:"|IN|”|″)'
_SEP = "[=:]?"  # `A=2D6` and `A:2D6` are accepted as well as `A2D6`
_NUM = "([0-9]{1,12})"  # only ASCII digits are numbers; the size limits say what is too large

_WEAPON_HELP = (
    "write e.g. '24\" A2 BS3+ S4 AP-1 D1 [SUSTAINED HITS 1]': range, A<dice>, BS<n>+ or WS<n>+, S<n>, AP<n>, D<dice>"
)
_WEAPON_LABELS = {"range": "the range", "attacks": "Attacks (A)", "skill": "BS/WS", "strength": "Strength (S)",
                  "ap": "AP", "damage": "Damage (D)"}


def _ascii_digits(token: str) -> str:
    """`token`, refused if it holds a digit other than 0-9 (``int`` would read '４' as 4)."""
    odd = None if token.isascii() else next((c for c in token if c.isnumeric() and not c.isascii()), None)
    if odd is not None:
        raise MathhammerError(f"{token!r}: only the digits 0-9 are numbers, not {odd!r}")
    return token


def _dice(token: str, text: str, what: str) -> Dice:
    """`text` read as a dice expression, with an error that names the whole token."""
    try:
        return Dice.parse(text)
    except MathhammerError as exc:
        raise MathhammerError(f"{what} in {token!r}: {exc}") from None


def _positive_dice(token: str, text: str, what: str) -> Dice:
    dice = _dice(token, text, what)
    if dice.count == 0 and dice.modifier == 0:
        raise MathhammerError(f"{token!r} means nothing: {what} must be at least 1 (leave the ability out instead)")
    return dice


def _split_brackets(text: str) -> tuple[str, list[str]]:
    """Separate the stat tokens from the comma-separated abilities in [brackets]."""
    if text.count("[") != text.count("]") or text.count("[") > 1:
        raise MathhammerError(f"unbalanced brackets in {text!r}: put abilities in one [..., ...] group")
    match = re.search(r"\[(.*)\]", text)
    if match is None:
        return text, []
    inner = [" ".join(part.split()) for part in match.group(1).split(",")]
    return text[: match.start()] + " " + text[match.end() :], [part for part in inner if part]


def _help(edition: Edition) -> str:
    """The abilities `edition` knows, for a refusal: its flags in alphabetical order, then the rest."""
    return "known: " + ", ".join(sorted(flags(edition)) + [a.form for a in edition if a.kind != "flag"])


def _read(ability: Ability, token: str, word: str, plain: str) -> tuple[str, dict[str, Any]] | None:
    """The slot (what it sets, for spotting repeats) and `Weapon` fields of `token` read as `ability`,
    or None if it is not that ability. `word` is the token in capitals, `plain` with hyphens as spaces."""
    name, field = ability.spelling, ability.field
    if not plain.startswith(name):
        return None
    literal = re.escape(name)
    if ability.kind == "flag":
        return (field, {field: True}) if plain == name else None
    value = plain[len(name):].strip()
    if ability.kind in ("dice", "number") and value and " " not in value \
            and word[:-len(value)].rstrip().endswith("-"):
        # a minus sign is no hyphen here: 'CLEAVE -1' (or 'CLEAVE-1') is not CLEAVE 1 (a trial found it read so)
        raise MathhammerError(f"{token!r}: {ability.name} X ({ability.x}) must be at least 1, not negative")
    if ability.kind == "dice":
        m = re.fullmatch(rf"{literal} (\S+)", plain)
        return (field, {field: _positive_dice(token, m.group(1), ability.name)}) if m else None
    if ability.kind == "number":
        if not (m := re.fullmatch(rf"{literal} (\S+)", plain)):
            return None
        if not re.fullmatch(_NUM, m.group(1)):
            raise MathhammerError(f"{ability.name} takes a whole number of {ability.x}, e.g. {ability.name} 2, "
                                  f"not {token!r}")
        if int(m.group(1)) == 0:
            raise MathhammerError(f"{token!r} means nothing: {ability.name} must be at least 1 "
                                  "(leave the ability out instead)")
        return field, {field: int(m.group(1))}
    if ability.kind == "distance":
        m = re.fullmatch(rf"{literal} {_NUM}{_INCHES}?", word)
        return (field, {field: int(m.group(1))}) if m else None
    m = re.fullmatch(rf"{literal}[- ]([^0-9]+?) {_NUM}\+?", word)
    if m is None:
        return None
    keyword = m.group(1).strip()
    return f"{name.lower()} {keyword}", {field: ((keyword, int(m.group(2))),)}


def _ability(token: str, edition: Edition) -> tuple[Ability, str, dict[str, Any]] | None:
    """The ability of `edition` that one printed ability is, with its slot and `Weapon` fields, or
    None if it is not one of them."""
    word = " ".join(token.upper().split())
    plain = " ".join(word.replace("-", " ").split())  # TWIN-LINKED, Twin Linked, Twin-linked
    for ability in _by_first_word(edition).get(plain.split(" ", 1)[0], ()):
        if found := _read(ability, token, word, plain):
            return ability, *found
    return None


_FIRST_WORDS: dict[int, tuple[Edition, dict[str, list[Ability]]]] = {}  #: each edition's abilities by first word


def _by_first_word(edition: Edition) -> dict[str, list[Ability]]:
    """`edition`'s abilities by the first word of their name, in order (worked out once per edition, kept by
    identity: hashing an edition costs more than reading it): a printed ability is read only as those, since every
    form `_read` reads has a space or a hyphen after the name."""
    kept = _FIRST_WORDS.get(id(edition))
    if kept is None or kept[0] is not edition:
        if len(_FIRST_WORDS) >= 16:  # editions built on the fly (a test's): kept a while, not for ever
            _FIRST_WORDS.clear()
        table: dict[str, list[Ability]] = {}
        for ability in edition:
            table.setdefault(ability.spelling.split(" ", 1)[0], []).append(ability)
        kept = _FIRST_WORDS[id(edition)] = edition, table
    return kept[1]


def _unknown_ability(token: str, edition: Edition) -> MathhammerError:
    word = " ".join(token.upper().replace("-", " ").split())
    bare = next((a for a in edition if a.kind in ("distance", "number", "dice") and a.spelling == word), None)
    if bare is not None:  # 'CLEAVE' without its X
        if bare.kind == "distance":
            return MathhammerError(f"{token!r} needs {bare.x}, e.g. {bare.name} 12\"")
        return MathhammerError(f"{token!r} needs its X, {bare.x} ({bare.form}), e.g. {bare.name} 1")
    names = {a.spelling: a.spelling for a in edition}
    hint = did_you_mean([word, word.rsplit(" ", 1)[0]], names)
    return MathhammerError(f"unknown weapon ability {token!r}{hint}; {_help(edition)}")


def ability_fields(token: str, edition: Edition) -> dict[str, Any]:
    """The `Weapon` fields one printed ability of `edition` sets, e.g. ``SUSTAINED HITS D3`` ->
    sustained_hits (`model.ability_fields` reads the 10th edition's).

    >>> from mathhammer_exact.model import TENTH_EDITION
    >>> ability_fields("Twin-linked", TENTH_EDITION)
    {'twin_linked': True}
    >>> ability_fields("LETAL HITS", TENTH_EDITION)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mathhammer_exact.errors.MathhammerError: unknown weapon ability 'LETAL HITS' (did you mean 'LETHAL HITS'?); ...
    """
    found = _ability(token, edition)
    if found is None:
        raise _unknown_ability(token, edition)
    return found[2]


_RANGE, _WHOLE = re.compile(rf"{_NUM}{_INCHES}?"), re.compile(_NUM)  # the stat tokens, compiled once
_NO_SKILL, _SKILL = re.compile(rf"(?:(BS|WS){_SEP})?N/A"), re.compile(rf"(BS|WS){_SEP}{_NUM}\+?")
_AP, _STRENGTH = re.compile(rf"AP{_SEP}(-|[+-]?[0-9]{{1,4}})"), re.compile(rf"S{_SEP}(.+)")
_ATTACKS, _DAMAGE = re.compile(rf"A{_SEP}([0-9D+-]+)"), re.compile(r"D([=:]?)([0-9D+-]+)")
#: a rolled value, and one whose D was read as Damage's ("D3+1" meant as a D3+1 roll: DD3+1)
_ROLLED, _DICE_WITHOUT_D = re.compile(r"[0-9]*D[36]([+-][0-9]+)?"), re.compile(r"[36][+-][0-9]+")


def _stat(token: str, edition: Edition) -> tuple[str, dict[str, Any]]:
    """The slot and `Weapon` fields of one stat token (``24"``, ``A2``, ``BS3+``, ``S4``, ``AP-1``, ``D1``)."""
    up = token.upper()
    if m := _RANGE.fullmatch(up):
        if int(m.group(1)) == 0:
            raise MathhammerError(f"range {token!r} means nothing: give 1\" or more, or Melee")
        return "range", {"range": int(m.group(1))}
    if up == "MELEE":
        return "range", {"melee": True}
    if m := _NO_SKILL.fullmatch(up):
        return "skill", {"skill": None, "melee": m.group(1) == "WS"}
    if m := _SKILL.fullmatch(up):
        return "skill", {"skill": int(m.group(2)), "melee": m.group(1) == "WS"}
    if m := _AP.fullmatch(up):
        ap = 0 if m.group(1) == "-" else int(m.group(1))
        if ap > 0:
            raise MathhammerError(f"AP must be 0 or negative (e.g. AP-1), got {token!r}")
        return "ap", {"ap": ap}
    if m := _STRENGTH.fullmatch(up):
        value = m.group(1)
        if _WHOLE.fullmatch(value):
            return "strength", {"strength": int(value)}
        if value == "*":
            raise MathhammerError(f"{token!r}: this Strength is given elsewhere on the datasheet; write the number, "
                                  "e.g. S6")
        if _ROLLED.fullmatch(value):
            raise MathhammerError(f"{token!r}: a Strength rolled for each attack is not modelled; "
                                  "write a whole-number Strength, e.g. S7")
    elif m := _ATTACKS.fullmatch(up):
        return "attacks", {"attacks": _positive_dice(token, m.group(1), "Attacks")}
    elif m := _DAMAGE.fullmatch(up):
        sep, value = m.groups()
        if not sep and value in ("3", "6"):
            raise MathhammerError(
                f"{token!r} is ambiguous: write D={value} for Damage {value}, or DD{value} (also D=D{value}) "
                f"for a D{value} roll")
        if not sep and _DICE_WITHOUT_D.fullmatch(value):
            raise MathhammerError(f"{token!r}: the D of Damage comes first: for a D{value} roll write DD{value} "
                                  f"(also D=D{value})")
        return "damage", {"damage": _dice(token, value, "Damage")}
    if _ability(token, edition) is not None:
        raise MathhammerError(f"{token!r} is an ability: put abilities in one [..., ...] group after the stats")
    raise MathhammerError(f"unknown weapon token {token!r} ({_WEAPON_HELP})")


def _once(seen: dict[str, str], slot: str, token: str, what: str) -> None:
    """Record that `token` set `slot`; a second token for the same slot is an error naming both."""
    if slot in seen:
        raise MathhammerError(f"{seen[slot]!r} and {token!r} both give {what}: write it once")
    seen[slot] = token


def weapon_fields(text: str, edition: Edition, name: str = "", lenient: bool = False) -> dict[str, Any]:
    """The `Weapon` fields of ``[range] A.. BS..+|WS..+ S.. AP.. D.. [abilities]``, the abilities
    those of `edition`.

    With `lenient`, an unknown ability is kept by name in ``ignored`` instead of refused.
    """
    stats, abilities = _split_brackets(text)
    fields: dict[str, Any] = {"name": name, "ignored": ()}
    seen: dict[str, str] = {}
    for token in abilities:
        found = _ability(_ascii_digits(token), edition)
        if found is None:
            if not lenient:
                raise _unknown_ability(token, edition)
            fields["ignored"] += (token,)
            continue
        ability, slot, values = found
        _once(seen, slot, token, f"the ability {slot.upper().replace('_', ' ')}")
        for field, value in values.items():
            fields[field] = fields.get(field, ()) + value if ability.kind == "keyword" else value
    for token in stats.split():
        slot, values = _stat(_ascii_digits(token), edition)
        if slot in seen and slot == "skill" and seen[slot].upper()[:2] != token.upper()[:2]:
            raise MathhammerError(f"{seen[slot]!r} and {token!r} together: a weapon has BS (ranged) or WS (melee), "
                                  "not both")
        _once(seen, slot, token, _WEAPON_LABELS[slot])
        fields.update(values)
    fields["melee"] = _melee(seen)
    if fields.get("torrent"):
        fields.setdefault("skill", None)
    missing = [label for key, label in (("attacks", "A"), ("skill", "BS or WS"), ("strength", "S"),
                                        ("ap", "AP"), ("damage", "D")) if key not in fields]
    if missing:
        raise MathhammerError(f"weapon {text!r} is missing {', '.join(missing)} ({_WEAPON_HELP})")
    return fields


def _melee(seen: dict[str, str]) -> bool:
    """Whether the tokens make a melee weapon (``Melee`` or ``WS``), which has no range and no BS."""
    skill, reach = seen.get("skill", ""), seen.get("range", "")
    if reach.upper() == "MELEE" and skill.upper().startswith(("BS", "N/A")):
        raise MathhammerError(f"'Melee' with {skill!r}: a melee weapon has WS, e.g. WS3+")
    if reach and reach.upper() != "MELEE" and skill.upper().startswith("WS"):
        raise MathhammerError(f"{reach!r} with {skill!r}: a ranged weapon has BS; a melee weapon is 'Melee' with WS")
    return reach.upper() == "MELEE" or skill.upper().startswith("WS")


_TARGET_HELP = ("write e.g. 'T4 Sv3+ inv5+ W2 x5 fnp6+ [INFANTRY]'; also M6\", Ld6+, OC2, inv-ranged4+, "
                "fnp-mortal5+, fnp-psychic5+, dr1, halve, stealth, leader, and x3/5 for 3 models left of 5")
_MODEL_TOKENS = {re.compile(pattern): meaning for pattern, meaning in {  # pattern -> (field, what it is called)
    rf"T{_SEP}{_NUM}": ("toughness", "Toughness (T)"),
    rf"SV{_SEP}{_NUM}\+?": ("save", "the save (Sv)"),
    rf"W{_SEP}{_NUM}": ("wounds", "Wounds (W)"),
    rf"INV(?:ULNERABLE)?{_SEP}{_NUM}\+?": ("invulnerable", "an invulnerable save"),
    rf"INV(?:ULNERABLE)?-RANGED{_SEP}{_NUM}\+?": ("invulnerable_ranged", "an invulnerable save against ranged attacks"),
    rf"FNP{_SEP}{_NUM}\+?": ("feel_no_pain", "Feel No Pain"),
    rf"FNP-MORTAL{_SEP}{_NUM}\+?": ("feel_no_pain_mortal", "Feel No Pain against mortal wounds"),
    rf"FNP-PSYCHIC{_SEP}{_NUM}\+?": ("feel_no_pain_psychic", "Feel No Pain against psychic attacks"),
    rf"LD{_SEP}{_NUM}\+?": ("leadership", "Leadership (Ld)"),
    rf"OC{_SEP}{_NUM}": ("objective_control", "Objective Control (OC)"),
    rf"M{_SEP}{_NUM}(?:\+?{_INCHES}?|{_INCHES}\+)": ("movement", "Move (M)"),  # 20+" or 20"+ (aircraft)
}.items()}  # compiled once
_COUNT = re.compile(rf"X{_SEP}(-?[0-9]{{1,12}})(?:/([0-9]{{1,12}}))?")  #: 'x3', or 'x3/5': 3 left of 5
_MODEL_WORDS = {"DR1": ("reduce_damage", "damage reduction"), "HALVE": ("halve_damage", "halved damage"),
                "STEALTH": ("stealth", "Stealth"), "LEADER": ("leader", "the leader mark")}
_MODEL_NAMES = ["T", "SV", "W", "INV", "INV-RANGED", "FNP", "FNP-MORTAL", "FNP-PSYCHIC", "LD", "OC", "M", "X",
                *_MODEL_WORDS]


def is_profile(text: str) -> bool:
    """Whether `text` is a target written as a profile (its first word a characteristic, as in
    ``T4 Sv3+ W2`` or a pasted stat line ``M6" T4 ...``) rather than a unit's name."""
    first = _ascii_digits(text.split(maxsplit=1)[0]).upper() if text.strip() else ""
    return first in ("M-", 'M-"') or any(pattern.fullmatch(first) for pattern in _MODEL_TOKENS)


def model_fields(text: str, name: str = "", lenient: bool = False) -> tuple[dict[str, Any], int, int | None, bool]:
    """The `ModelProfile` fields of one model group, its count, the models it started the battle with where it has
    lost some (``x3/5``: 3 left of 5; else None), and whether it is an attached leader, from ``T4 Sv3+ W2 x5 ...``.
    With `lenient`, an unknown token is kept by name in ``ignored``."""
    stats, keywords = _split_brackets(text)
    upper = [" ".join(k.upper().split()) for k in keywords]
    for i, keyword in enumerate(upper):
        if keyword in upper[:i]:
            raise MathhammerError(f"the keyword {keywords[i]!r} is given twice in {text!r}: write it once")
    fields: dict[str, Any] = {"name": name, "ignored": ()}
    seen: dict[str, str] = {}
    count, started = 1, None
    words: set[str] = set()
    for token in stats.split():
        up = _ascii_digits(token).upper()
        if up in _MODEL_WORDS:
            word, what = _MODEL_WORDS[up]
            _once(seen, word, token, what)
            words.add(word)
            continue
        if m := _COUNT.fullmatch(up):
            _once(seen, "count", token, "the model count (x)")
            count, started = int(m.group(1)), None if m.group(2) is None else int(m.group(2))
            continue
        if up in ("M-", 'M-"'):
            _once(seen, "movement", token, "Move (M)")
            continue
        for pattern, (field, what) in _MODEL_TOKENS.items():
            if m := pattern.fullmatch(up):
                _once(seen, field, token, what)
                fields[field] = int(m.group(1))
                break
        else:
            if lenient:
                fields["ignored"] += (token,)
                continue
            hint = did_you_mean([re.sub(r"[0-9+\"]", "", up)], {name: name for name in _MODEL_NAMES})
            raise MathhammerError(f"unknown target token {token!r}{hint} ({_TARGET_HELP})")
    if "stealth" in words:
        if "STEALTH" in upper:
            raise MathhammerError(f"'stealth' and the keyword STEALTH both give Stealth in {text!r}: write it once")
        keywords = [*keywords, "STEALTH"]
    leader = "leader" in words
    if leader:
        keywords = [*keywords, "CHARACTER"]
        fields["name"] = name or "leader"
    fields["keywords"] = keywords
    fields["reduce_damage"] = "reduce_damage" in words
    fields["halve_damage"] = "halve_damage" in words
    missing = [label for key, label in (("toughness", "T"), ("save", "Sv"), ("wounds", "W")) if key not in fields]
    if missing:
        raise MathhammerError(f"target {text!r} is missing {', '.join(missing)} ({_TARGET_HELP})")
    if count < 1:
        raise MathhammerError(f"model count must be at least 1, got x{count}")
    if started is not None and started < count:
        raise MathhammerError(f"x{count}/{started}: more models left ({count}) than the unit started with "
                              f"({started}, its Starting Strength)")
    if started is not None and leader:
        raise MathhammerError(f"x{count}/{started} on a leader: write the leaders it has left (x{count}); "
                              "a Starting Strength is given for the unit they lead")
    return fields, count, started, leader

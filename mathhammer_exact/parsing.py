"""Reading weapon and target profiles written the way datasheets print them.

The parsers return the fields of a profile; `model.Weapon.parse` and `model.Target.parse` build
the objects (so this module sits below the model and imports nothing from it).
"""

from __future__ import annotations

import re
from typing import Any

from .errors import MathhammerError

_FLAGS = {
    "LETHAL HITS": "lethal_hits",
    "DEVASTATING WOUNDS": "devastating_wounds",
    "TWIN-LINKED": "twin_linked",
    "TORRENT": "torrent",
    "BLAST": "blast",
    "LANCE": "lance",
    "HEAVY": "heavy",
    "IGNORES COVER": "ignores_cover",
    "INDIRECT FIRE": "indirect_fire",
    "HAZARDOUS": "hazardous",
    "PRECISION": "precision",
    "PISTOL": "pistol",
    "ASSAULT": "assault",
}
_NUMBERED = {"RAPID FIRE": "rapid_fire", "MELTA": "melta"}
_WEAPON_HELP = (
    "write e.g. '24\" A2 BS3+ S4 AP-1 D1 [SUSTAINED HITS 1]': A<dice>, BS<n>+ or WS<n>+, S<n>, AP<n>, D<dice>"
)


def _split_brackets(text: str) -> tuple[str, list[str]]:
    """Separate the stat tokens from the comma-separated abilities in [brackets]."""
    if text.count("[") != text.count("]") or text.count("[") > 1:
        raise MathhammerError(f"unbalanced brackets in {text!r}: put abilities in one [..., ...] group")
    match = re.search(r"\[(.*)\]", text)
    if match is None:
        return text, []
    inner = [part.strip() for part in match.group(1).split(",") if part.strip()]
    return text[: match.start()] + " " + text[match.end() :], inner


def ability_fields(token: str) -> dict[str, Any]:
    """The `Weapon` fields one printed ability sets, e.g. ``SUSTAINED HITS D3`` -> sustained_hits."""
    word = " ".join(token.upper().split())
    if word in _FLAGS:
        return {_FLAGS[word]: True}
    if word.startswith("SUSTAINED HITS "):
        return {"sustained_hits": word.removeprefix("SUSTAINED HITS ")}
    for prefix, field in _NUMBERED.items():
        if word.startswith(prefix + " ") and word[len(prefix) + 1 :].isdigit():
            return {field: int(word[len(prefix) + 1 :])}
    anti = re.fullmatch(r"ANTI-(.+?) (\d)\+", word)
    if anti:
        return {"anti": ((anti.group(1), int(anti.group(2))),)}
    raise MathhammerError(
        f"unknown weapon ability {token!r} (known: {', '.join(sorted(_FLAGS))}, RAPID FIRE X, MELTA X, "
        "SUSTAINED HITS X, ANTI-KEYWORD X+)"
    )


def weapon_fields(text: str, name: str = "") -> dict[str, Any]:
    """The `Weapon` fields of ``[range] A.. BS..+|WS..+ S.. AP.. D.. [abilities]``."""
    stats, abilities = _split_brackets(text)
    fields: dict[str, Any] = {"name": name, "anti": ()}
    for ability in abilities:
        for field, value in ability_fields(ability).items():
            fields[field] = fields["anti"] + value if field == "anti" else value
    tokens = stats.replace("=", "").split()
    for token in tokens:
        up = token.upper()
        if m := re.fullmatch(r'(\d+)(?:"|IN|”|″)', up):
            fields["range"] = int(m.group(1))
        elif up == "MELEE":
            fields["melee"] = True
        elif up in ("BSN/A", "WSN/A", "N/A"):
            fields["skill"] = None
        elif m := re.fullmatch(r"(BS|WS)(\d+)\+?", up):
            fields["skill"] = int(m.group(2))
            fields["melee"] = fields.get("melee", False) or m.group(1) == "WS"
        elif m := re.fullmatch(r"AP([+-]?\d+)", up):
            ap = int(m.group(1))
            if ap > 0:
                raise MathhammerError(f"AP must be 0 or negative (e.g. AP-1), got {token!r}")
            fields["ap"] = ap
        elif m := re.fullmatch(r"S(\d+)", up):
            fields["strength"] = int(m.group(1))
        elif up.startswith("A") and len(up) > 1:
            fields["attacks"] = up[1:]
        elif up.startswith("D") and len(up) > 1:
            fields["damage"] = up[1:]
        else:
            raise MathhammerError(f"unknown weapon token {token!r} ({_WEAPON_HELP})")
    if fields.get("torrent"):
        fields.setdefault("skill", None)
    missing = [key for key, label in (("attacks", "A"), ("skill", "BS/WS"), ("strength", "S"),
                                      ("ap", "AP"), ("damage", "D")) if key not in fields]
    if missing:
        labels = {"attacks": "A", "skill": "BS or WS", "strength": "S", "ap": "AP", "damage": "D"}
        raise MathhammerError(f"weapon {text!r} is missing {', '.join(labels[k] for k in missing)} ({_WEAPON_HELP})")
    return fields


_TARGET_HELP = "write e.g. 'T4 Sv3+ inv5+ W2 x5 fnp6+ [INFANTRY]'"


def model_fields(text: str, name: str = "") -> tuple[dict[str, Any], int, bool]:
    """The `ModelProfile` fields of one model group, its count, and whether it is an attached leader,
    from ``T4 Sv3+ W2 x5 ...``."""
    stats, keywords = _split_brackets(text)
    fields: dict[str, Any] = {"keywords": keywords, "name": name}
    count = 1
    leader = False
    patterns = {
        r"T(\d+)": "toughness",
        r"SV(\d+)\+?": "save",
        r"W(\d+)": "wounds",
        r"INV(?:ULNERABLE)?(\d+)\+?": "invulnerable",
        r"FNP(\d+)\+?": "feel_no_pain",
        r"FNP-MORTAL(\d+)\+?": "feel_no_pain_mortal",
        r"LD(\d+)\+?": "leadership",
    }
    for token in stats.replace("=", "").split():
        up = token.upper()
        if up == "DR1":
            fields["reduce_damage"] = True
            continue
        if up == "HALVE":
            fields["halve_damage"] = True
            continue
        if up == "LEADER":
            leader = True
            fields["keywords"] = [*keywords, "CHARACTER"]
            fields["name"] = name or "leader"
            continue
        if m := re.fullmatch(r"X(-?\d+)", up):
            count = int(m.group(1))
            continue
        for pattern, field in patterns.items():
            if m := re.fullmatch(pattern, up):
                fields[field] = int(m.group(1))
                break
        else:
            raise MathhammerError(
                f"unknown target token {token!r} ({_TARGET_HELP}; also fnp-mortal5+, Ld7+, dr1, halve, leader)")
    missing = [label for key, label in (("toughness", "T"), ("save", "Sv"), ("wounds", "W")) if key not in fields]
    if missing:
        raise MathhammerError(f"target {text!r} is missing {', '.join(missing)} ({_TARGET_HELP})")
    if count < 1:
        raise MathhammerError(f"model count must be at least 1, got x{count}")
    return fields, count, leader

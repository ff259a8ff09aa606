"""Loading rules/ (datasheets, named modifiers, standard targets), validated with clear errors.

Every problem in a data file names the file and the key; every unknown name asked for
says what is known, with a "did you mean" when something is close.
"""

from __future__ import annotations

import difflib
import functools
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs

from ..errors import MathhammerError
from ..model import ModelProfile, MortalWounds, Reroll, Target, Weapon
from .datasheet import Datasheet, ModelEntry, WargearOption
from .modifiers import Modifier

T = TypeVar("T")


def rules_dir() -> Path:
    """rules/ installed inside the package, or at the top of a source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "rules", package.parent / "rules"):
        if (candidate / "modifiers.toml").is_file():
            return candidate
    raise MathhammerError(f"cannot find the rules/ data next to {package}")


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise MathhammerError(f"{path.name}: not valid TOML: {exc}") from None


def _build(where: str, factory: Any, **fields: Any) -> Any:
    try:
        return factory(**fields)
    except MathhammerError as exc:
        raise MathhammerError(f"{where}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise MathhammerError(f"{where}: {exc}") from None


def _keys(where: str, table: Mapping[str, Any], required: set[str], optional: set[str]) -> None:
    missing = required - set(table)
    unknown = set(table) - required - optional
    if missing:
        raise MathhammerError(f"{where}: missing key {', '.join(sorted(missing))}")
    if unknown:
        raise MathhammerError(
            f"{where}: unknown key {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(required | optional))})")


# --------------------------------------------------------------------- modifiers
_MODIFIER_FIELDS = {a.name for a in attrs.fields(Modifier)} - {"key"}
_MODIFIER_REQUIRED = {"name", "kind", "source", "summary", "side"}


def parse_modifier(where: str, key: str, table: Mapping[str, Any]) -> Modifier:
    _keys(where, table, _MODIFIER_REQUIRED, _MODIFIER_FIELDS - _MODIFIER_REQUIRED)
    fields = dict(table)
    against = fields.get("reroll_wounds_against")
    if against is not None:
        _keys(f"{where}.reroll_wounds_against", against, {"keywords", "policy"}, set())
        fields["reroll_wounds_against"] = (tuple(k.upper() for k in against["keywords"]),
                                           Reroll.parse(against["policy"]))
    mortal = fields.get("mortal_wounds")
    if mortal is not None:
        _keys(f"{where}.mortal_wounds", mortal, {"dice", "success"}, set())
        fields["mortal_wounds"] = _build(f"{where}.mortal_wounds", MortalWounds, dice=mortal["dice"],
                                         success=mortal["success"], name=fields["name"])
    return _build(where, Modifier, key=key, **fields)


@functools.lru_cache(maxsize=4)
def modifiers(directory: Path | None = None) -> dict[str, Modifier]:
    """Every named modifier in rules/modifiers.toml by key."""
    path = (directory or rules_dir()) / "modifiers.toml"
    return {key: parse_modifier(f"{path.name} [{key}]", key, table) for key, table in _read(path).items()}


# --------------------------------------------------------------------- datasheets
_STAT_TOKENS = ("M", "OC")


def _model_profile(where: str, stats: str, keywords: list[str], name: str) -> ModelProfile:
    kept = [t for t in stats.split() if not any(t.upper().startswith(p) and t[len(p):][:1].isdigit()
                                               for p in _STAT_TOKENS)]
    profile = _build(where, ModelProfile.parse, text=" ".join(kept) + f" [{', '.join(keywords)}]", name=name)
    return profile


def parse_datasheet(where: str, data: Mapping[str, Any]) -> Datasheet:
    _keys(where, data, {"name", "faction", "source", "keywords", "models", "weapons"},
          {"aliases", "faction_keywords", "abilities", "always", "sizes", "points", "options"})
    weapons: dict[str, dict[str, Any]] = {}
    for weapon_name, profiles in data["weapons"].items():
        if not isinstance(profiles, dict) or not profiles:
            raise MathhammerError(f"{where} weapons.{weapon_name!r}: give one or more named profiles")
        weapons[weapon_name.lower()] = {
            profile: _build(f"{where} weapons.{weapon_name!r}.{profile}", Weapon.parse, text=text,
                            name=weapon_name if profile == "default" else f"{weapon_name} ({profile})")
            for profile, text in profiles.items()}
    models = []
    for i, entry in enumerate(data["models"]):
        at = f"{where} models[{i}]"
        _keys(at, entry, {"name", "count", "stats", "equipment"}, {"keywords", "max"})
        keywords = [*data["keywords"], *entry.get("keywords", [])]
        equipment = tuple(e.lower() for e in entry["equipment"])
        for item in equipment:
            if item not in weapons:
                raise MathhammerError(f"{at}.equipment: no weapon named {item!r} on this datasheet")
        models.append(ModelEntry(entry["name"], _model_profile(at, entry["stats"], keywords, entry["name"]),
                                 entry["count"], equipment, entry.get("max")))
    options = []
    for i, entry in enumerate(data.get("options", [])):
        at = f"{where} options[{i}]"
        _keys(at, entry, {"model", "replaces", "with"}, {"each_once", "max", "note"})
        if entry["model"] not in {m.name for m in models}:
            raise MathhammerError(f"{at}.model: no model named {entry['model']!r} on this datasheet")
        options.append(WargearOption(entry["model"], entry["replaces"].lower(),
                                     tuple(c.lower() for c in entry["with"]), entry.get("each_once", False),
                                     entry.get("max")))
    always = tuple(data.get("always", ()))
    known = modifiers()
    for key in always:
        if key not in known:
            raise MathhammerError(f"{where} always: unknown modifier {key!r}")
    return Datasheet(
        name=data["name"], faction=data["faction"], source=data["source"],
        keywords=tuple(data["keywords"]), faction_keywords=tuple(data.get("faction_keywords", ())),
        abilities=tuple(data.get("abilities", ())), models=tuple(models), weapons=weapons,
        options=tuple(options), sizes=tuple(data.get("sizes", ())),
        points={int(k): v for k, v in data.get("points", {}).items()}, always=always,
        aliases=tuple(data.get("aliases", ())),
    )


@functools.lru_cache(maxsize=4)
def datasheets(directory: Path | None = None) -> dict[str, Datasheet]:
    """Every datasheet in rules/datasheets/ by name."""
    folder = (directory or rules_dir()) / "datasheets"
    sheets = [parse_datasheet(path.name, _read(path)) for path in sorted(folder.glob("*.toml"))]
    return {sheet.name: sheet for sheet in sheets}


# --------------------------------------------------------------------- standard targets
@attrs.frozen
class StandardTarget:
    name: str
    description: str
    target: Target


@functools.lru_cache(maxsize=4)
def standard_targets(directory: Path | None = None) -> dict[str, StandardTarget]:
    path = (directory or rules_dir()) / "targets.toml"
    out = {}
    for name, table in _read(path).items():
        where = f"{path.name} [{name}]"
        _keys(where, table, {"description", "profile"}, set())
        out[name] = StandardTarget(name, table["description"], _build(where, Target.parse, text=table["profile"]))
    return out


# --------------------------------------------------------------------- lookup by name
def find(name: str, table: Mapping[str, T], kind: str, aliases: Mapping[str, str] | None = None) -> T:
    """Case-insensitive lookup with a "did you mean" on a miss."""
    index = {key.lower(): key for key in table}
    index.update({alias.lower(): key for alias, key in (aliases or {}).items()})
    wanted = " ".join(name.strip().lower().split())
    if wanted in index:
        return table[index[wanted]]
    close = difflib.get_close_matches(wanted, list(index), n=1, cutoff=0.6)
    hint = f" (did you mean {index[close[0]]!r}?)" if close else ""
    raise MathhammerError(f"unknown {kind} {name!r}{hint}; known: {', '.join(sorted(table))}")


def datasheet(name: str) -> Datasheet:
    sheets = datasheets()
    aliases = {alias: sheet.name for sheet in sheets.values() for alias in sheet.aliases}
    return find(name, sheets, "datasheet", aliases)


def modifier(name: str) -> Modifier:
    mods = modifiers()
    return find(name, mods, "ability or stratagem", {m.name: key for key, m in mods.items()})


def find_target(text: str, models: int | None = None, leader: str | None = None) -> Target:
    """A target by datasheet or standard-target name, or written as a profile; `models` sets the
    size of a unit of alike models, `leader` attaches a CHARACTER written as a profile."""
    if re.match(r"\s*T\d", text, re.IGNORECASE):
        target = Target.parse(text)
    else:
        sheets, standard = datasheets(), standard_targets()
        names = {**{n: ("sheet", n) for n in sheets}, **{n: ("standard", n) for n in standard}}
        aliases = {a: s.name for s in sheets.values() for a in s.aliases}
        kind, name = find(text, names, "target (datasheet or standard target)", aliases)
        target = sheets[name].as_target(models) if kind == "sheet" else standard[name].target
        models = None if kind == "sheet" else models
    if models is not None:
        if len(target.groups) != 1:
            raise MathhammerError("--models sets the size of a target whose models are all alike")
        target = Target.of(target.groups[0][0], models)
    if leader:
        profile = ModelProfile.parse(leader, name="leader")
        profile = attrs.evolve(profile, keywords=(*profile.keywords, "CHARACTER"))
        target = Target((*target.groups, (profile, 1)), attached=True)
    return target

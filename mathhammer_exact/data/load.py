"""Loading the rules folders (datasheets, named rules, standard targets and attackers, names), validated on load.

The shipped rules/ comes first; a user's own folder (`--rules-dir`, or the environment variable
MATHHAMMER_RULES) is layered over it with the same validation: its entries add to or replace the
shipped ones by name. Every file is read and checked before anything is used, so a problem stops
the whole load with ONE message naming the file, the entry and the field; nothing half-loads.
Every unknown name asked for says what is known, with a "did you mean" when something is close.
"""

from __future__ import annotations

import functools
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs

from ..errors import MathhammerError, did_you_mean
from ..model import ModelProfile, Target, Weapon
from .datasheet import Datasheet, ModelEntry, WargearOption, either
from .modifiers import NamedRule, improved_bearer
from .names import loose, normalise
from .schema import Reader

T = TypeVar("T")
ENVIRONMENT = "MATHHAMMER_RULES"  #: names the user's rules folder when --rules-dir is not given


# --------------------------------------------------------------------- the files' shapes
def _at_least_one(_inst: object, attribute: attrs.Attribute, value: int | None) -> None:
    if value is not None and value < 1:
        raise MathhammerError(f"{attribute.name} must be at least 1, got {value}")


@attrs.frozen
class ModelRow:
    """`[[models]]` in a datasheet file."""

    name: str
    count: int = attrs.field(validator=_at_least_one)
    stats: str
    equipment: tuple[str, ...]
    keywords: tuple[str, ...] = ()
    max: int | None = attrs.field(default=None, validator=_at_least_one)


@attrs.frozen
class OptionRow:
    """`[[options]]` in a datasheet file (`with_` is written `with`)."""

    model: str
    replaces: str
    with_: tuple[str, ...]
    each_once: bool = False
    max: int | None = attrs.field(default=None, validator=_at_least_one)
    note: str = ""
    gives: dict[str, tuple[str, ...]] = attrs.field(factory=dict)


@attrs.frozen
class SheetFile:
    """One datasheet file."""

    name: str
    faction: str
    source: str
    keywords: tuple[str, ...]
    models: tuple[ModelRow, ...]
    weapons: dict[str, dict[str, str]]
    aliases: tuple[str, ...] = ()
    faction_keywords: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()
    always: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    points: dict[str, int] = attrs.field(factory=dict)
    options: tuple[OptionRow, ...] = ()
    wargear: dict[str, tuple[str, ...]] = attrs.field(factory=dict)


@attrs.frozen
class TargetRow:
    """One standard target in targets.toml."""

    description: str
    profile: str


@attrs.frozen
class AttackerRow:
    """One standard attacker in attackers.toml: weapons written as for `mathhammer attack -w`."""

    description: str
    weapons: tuple[str, ...] = attrs.field()

    @weapons.validator
    def _some(self, _attribute: attrs.Attribute, value: tuple[str, ...]) -> None:
        if not value:
            raise MathhammerError("weapons must list one or more weapons")


@attrs.frozen
class NamesFile:
    """names.toml: names players use for units and factions that the data names otherwise."""

    units: dict[str, str] = attrs.field(factory=dict)
    factions: dict[str, str] = attrs.field(factory=dict)


READER = Reader()
READER.rename(OptionRow, with_="with")


# --------------------------------------------------------------------- reading files
def shipped_dir() -> Path:
    """rules/ installed inside the package, or at the top of a source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "rules", package.parent / "rules"):
        if (candidate / "modifiers.toml").is_file():
            return candidate
    raise MathhammerError(f"cannot find the rules/ data next to {package}")


def _read(path: Path, label: str) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except IsADirectoryError:
        raise MathhammerError(f"{label}: is a folder; a TOML file belongs here") from None
    except UnicodeDecodeError as exc:
        raise MathhammerError(f"{label}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at "
                              f"position {exc.start}); save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise MathhammerError(f"{label}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise MathhammerError(f"{label}: cannot be read: {exc.strerror}") from None


@attrs.frozen
class Folder:
    """The raw, validated entries of one rules folder, before they are layered."""

    rules: dict[str, tuple[str, Any]]  #: key -> (where, table)
    sheets: list[tuple[str, SheetFile]]  #: (where, file)
    targets: dict[str, tuple[str, TargetRow]]
    attackers: dict[str, tuple[str, AttackerRow]]
    names: dict[str, dict[str, tuple[str, str]]]  #: "units"/"factions" -> loose name -> (name meant, where)

    @classmethod
    def read(cls, folder: Path, shipped: bool) -> Folder:
        label = (lambda p: f"rules/{p.relative_to(folder)}") if shipped else str
        if not folder.is_dir():
            raise MathhammerError(f"rules folder {folder} does not exist or is not a folder")
        rules: dict[str, tuple[str, Any]] = {}
        sheets: list[tuple[str, SheetFile]] = []
        path = folder / "modifiers.toml"
        if shipped or path.exists():
            rules = {key: (f"{label(path)} [{key}]", table) for key, table in _read(path, label(path)).items()}
        targets = _entries(folder / "targets.toml", label, shipped, TargetRow)
        attackers = _entries(folder / "attackers.toml", label, shipped, AttackerRow)
        names = _names(folder / "names.toml", label, shipped)
        sheet_dir = folder / "datasheets"
        if sheet_dir.exists():
            if not sheet_dir.is_dir():
                raise MathhammerError(f"{label(sheet_dir)}: is a file; a folder of datasheet files belongs here")
            named: dict[str, str] = {}  # one datasheet per name in a folder: which of two would be meant?
            for path in sorted(sheet_dir.glob("*.toml")):
                sheet = READER.structure(label(path), _read(path, label(path)), SheetFile)
                if normalise(sheet.name) in named:
                    raise MathhammerError(f"{label(path)} name: {sheet.name!r} is already the name of the datasheet "
                                          f"in {named[normalise(sheet.name)]}; give each datasheet its own name")
                named[normalise(sheet.name)] = label(path)
                sheets.append((label(path), sheet))
        return cls(rules, sheets, targets, attackers, names)


def _entries(path: Path, label: Callable[[Path], str], shipped: bool, row: type[T]) -> dict[str, tuple[str, T]]:
    """Each table of a file of named entries (standard targets, standard attackers) as a `row`, with
    where it was read; the shipped file must be there, a user's may be left out."""
    if not shipped and not path.exists():
        return {}
    return {name: (where, READER.structure(where, table, row))
            for name, table in _read(path, label(path)).items() for where in [f"{label(path)} [{name}]"]}


def _names(path: Path, label: Callable[[Path], str], shipped: bool) -> dict[str, dict[str, tuple[str, str]]]:
    """The names table of a folder, by the loose form of each name (the shipped file must be there)."""
    if not shipped and not path.exists():
        return {"units": {}, "factions": {}}
    written = READER.structure(label(path), _read(path, label(path)), NamesFile)
    tables: dict[str, dict[str, tuple[str, str]]] = {}
    for table, entries in (("units", written.units), ("factions", written.factions)):
        tables[table] = {}
        for name, meant in entries.items():
            where = f"{label(path)} [{table}] {name!r}"
            key = loose(name)
            if not key or not loose(meant):
                raise MathhammerError(f"{where}: a name and the name it stands for are words, got {name!r} = "
                                      f"{meant!r}")
            if key == loose(meant):
                raise MathhammerError(f"{where}: stands for itself ({meant!r}); plurals and 'Squad' are matched "
                                      "without an entry")
            if key in tables[table]:
                raise MathhammerError(f"{where}: the same name as {tables[table][key][1]} (plurals and case do not "
                                      "matter); give it once")
            tables[table][key] = (meant, where)
    return tables


# --------------------------------------------------------------------- building the library
@attrs.frozen
class StandardTarget:
    name: str
    description: str
    target: Target


@attrs.frozen
class StandardAttacker:
    """A standard attacker of `mathhammer survive`. Its weapons are written in the command line's
    syntax (``10x PROFILE @half-range``), which the decision layer reads; `where` names the file and
    entry for its messages."""

    name: str
    description: str
    weapons: tuple[str, ...]
    where: str


@attrs.frozen
class Names:
    """What players call units and factions that the data names otherwise (rules/names.toml and a user's),
    by the loose form of the name: (the name meant, where the entry is written)."""

    units: Mapping[str, tuple[str, str]] = attrs.field(factory=dict)
    factions: Mapping[str, tuple[str, str]] = attrs.field(factory=dict)


@attrs.frozen(eq=False)
class Library:
    """Everything the rules folders hold, by name: named rules, datasheets, standard targets and attackers."""

    rules: Mapping[str, NamedRule]
    sheets: Mapping[str, Datasheet]
    targets: Mapping[str, StandardTarget]
    attackers: Mapping[str, StandardAttacker]
    names: Names
    folders: tuple[Path, ...]

    @classmethod
    def load(cls, folders: tuple[Path, ...]) -> Library:
        """The first folder is the shipped data; each later one is layered over it."""
        raw = [Folder.read(folder, shipped=i == 0) for i, folder in enumerate(folders)]
        rule_tables = {key: entry for folder in raw for key, entry in folder.rules.items()}
        shipped = {key for key, entry in rule_tables.items() if raw[0].rules.get(key) is entry}
        rules = {key: _rule(where, key, table, "10e" if key in shipped else None)
                 for key, (where, table) in rule_tables.items()}
        targets = {name: _target(where, name, row) for folder in raw for name, (where, row) in folder.targets.items()}
        files = {normalise(sheet.name): (where, sheet) for folder in raw for where, sheet in folder.sheets}
        sheets = {sheet.name: build_sheet(where, sheet, rules) for where, sheet in files.values()}
        attackers = {name: StandardAttacker(name, row.description, row.weapons, where)
                     for folder in raw for name, (where, row) in folder.attackers.items()}
        names = Names(*({key: entry for folder in raw for key, entry in folder.names[table].items()}
                        for table in ("units", "factions")))
        return cls(rules, sheets, targets, attackers, names, folders)


def _rule(where: str, key: str, table: Any, edition: str | None) -> NamedRule:
    """A named rule from its table; `edition`, where known, the edition whose rule it is (the shipped rules/ are the
    10th's, which their tables do not say)."""
    if isinstance(table, dict):
        if "key" in table:
            raise MathhammerError(f"{where} key: the entry's name in brackets is its key; leave this field out")
        table = {**table, "key": key, **({"edition": edition} if edition else {})}
    return READER.structure(where, table, NamedRule)


def _target(where: str, name: str, row: TargetRow) -> StandardTarget:
    try:
        return StandardTarget(name, row.description, Target.parse(row.profile))
    except MathhammerError as exc:
        raise MathhammerError(f"{where} profile: {exc}") from None


_STAT_TOKENS = ("M", "OC")


def _model_profile(stats: str, keywords: list[str], name: str) -> ModelProfile:
    kept = [t for t in stats.split() if not any(t.upper().startswith(p) and t[len(p):][:1].isdigit()
                                               for p in _STAT_TOKENS)]
    return ModelProfile.parse(" ".join(kept) + f" [{', '.join(keywords)}]", name=name)


def build_sheet(where: str, raw: SheetFile, rules: Mapping[str, NamedRule]) -> Datasheet:
    """The datasheet of a validated file; references between its parts are checked here."""
    def fail(field: str, message: str) -> MathhammerError:
        return MathhammerError(f"{where} {field}: {message}")

    weapons: dict[str, dict[str, Weapon]] = {}
    for weapon_name, profiles in raw.weapons.items():
        if not profiles:
            raise fail(f"weapons.{weapon_name!r}", "give one or more named profiles")
        weapons[weapon_name.lower()] = {}
        for profile, text in profiles.items():
            label = weapon_name if profile == "default" else f"{weapon_name} ({profile})"
            try:
                weapons[weapon_name.lower()][profile] = Weapon.parse(text, name=label)
            except MathhammerError as exc:
                raise fail(f"weapons.{weapon_name!r}.{profile}", str(exc)) from None
    wargear = {item.lower(): keys for item, keys in raw.wargear.items()}
    for item, keys in wargear.items():
        for key in keys:
            if key not in rules:
                raise fail(f"wargear.{item!r}", f"no named rule {key!r}")
    known = set(weapons) | set(wargear)

    def check_items(field: str, items: tuple[str, ...]) -> tuple[str, ...]:
        lowered = tuple(i.lower() for i in items)
        for item in lowered:
            if item not in known:
                raise fail(field, f"no weapon or wargear named {item!r} on this datasheet")
        return lowered

    unit_keywords = [*raw.keywords, *raw.faction_keywords]
    models = []
    for i, row in enumerate(raw.models):
        if row.max is not None and row.max < row.count:
            raise fail(f"models[{i}].max", f"the most models of this kind is at least its count ({row.count}), "
                                           f"got {row.max}")
        try:
            model = _model_profile(row.stats, [*unit_keywords, *row.keywords], row.name)
        except MathhammerError as exc:
            raise fail(f"models[{i}].stats", str(exc)) from None
        models.append(ModelEntry(row.name, model, row.count, check_items(f"models[{i}].equipment", row.equipment),
                                 row.max))
    options = []
    for i, option in enumerate(raw.options):
        if option.model not in {m.name for m in models}:
            raise fail(f"options[{i}].model", f"no model named {option.model!r} on this datasheet")
        check_items(f"options[{i}].replaces", (option.replaces,))
        choices = tuple(c.lower() for c in option.with_)
        gives = {}
        for choice, items in option.gives.items():
            if choice.lower() not in choices:
                raise fail(f"options[{i}].gives", f"{choice!r} is not one of this option's choices")
            gives[choice.lower()] = check_items(f"options[{i}].gives.{choice!r}", items)
        check_items(f"options[{i}].with", tuple(c for c in choices if c not in gives))
        options.append(WargearOption(option.model, option.replaces.lower(), choices, option.each_once, option.max,
                                     gives))
    for key in raw.always:
        if key not in rules:
            raise fail("always", f"no named rule {key!r}")
    sheet = Datasheet(
        name=raw.name, faction=raw.faction, source=raw.source, keywords=raw.keywords,
        faction_keywords=raw.faction_keywords, abilities=raw.abilities, models=tuple(models), weapons=weapons,
        options=tuple(options), sizes=raw.sizes, always=raw.always, aliases=raw.aliases, wargear=wargear)
    fillable, allowed = sheet.fillable_sizes(), sheet.allowed_sizes()
    for size in raw.sizes:
        if size not in fillable:
            raise fail("sizes", f"its models make units of {either(fillable)} models, not {size}")
    points = {}
    for written, cost in raw.points.items():
        if not written.isascii() or not written.isdigit():
            raise fail("points", f"unit sizes are whole numbers of models, got {written!r}")
        if int(written) not in allowed:
            raise fail(f"points.{written}", f"the unit comes in units of {either(allowed)} models, not {written}")
        if cost < 1:
            raise fail(f"points.{written}", f"a unit costs 1 point or more, got {cost}")
        points[int(written)] = cost
    return attrs.evolve(sheet, points=points)


@functools.lru_cache(maxsize=8)
def _cached(folders: tuple[Path, ...]) -> Library:
    return Library.load(folders)


def library(user: str | Path | None = None) -> Library:
    """The shipped rules with the user's folder layered over it: `user`, else $MATHHAMMER_RULES."""
    chosen = user or os.environ.get(ENVIRONMENT) or None
    folders = (shipped_dir(),) + ((Path(chosen).expanduser().resolve(),) if chosen else ())
    return _cached(folders)


def modifiers(user: str | Path | None = None) -> Mapping[str, NamedRule]:
    """Every named rule by key."""
    return library(user).rules


def datasheets(user: str | Path | None = None) -> Mapping[str, Datasheet]:
    """Every datasheet by name."""
    return library(user).sheets


def standard_targets(user: str | Path | None = None) -> Mapping[str, StandardTarget]:
    """Every standard target by name."""
    return library(user).targets


def standard_attackers(user: str | Path | None = None) -> Mapping[str, StandardAttacker]:
    """Every standard attacker by name, in the files' order (the shipped ones first)."""
    return library(user).attackers


# --------------------------------------------------------------------- lookup by name
def find(name: str, table: Mapping[str, T], kind: str, aliases: Mapping[str, str] | None = None) -> T:
    """Lookup by name or alias as players type names: case, punctuation and spaces or hyphens do not
    matter ('take aim' finds Take Aim!); a name that could mean two entries is refused, an unknown
    one gets a "did you mean"."""
    names = [(key, key) for key in table] + list((aliases or {}).items())
    meant: dict[str, set[str]] = {}
    for written, key in names:
        meant.setdefault(normalise(written), set()).add(key)
    keys = sorted(meant.get(normalise(name), ()))
    if len(keys) == 1:
        return table[keys[0]]
    if keys:
        raise MathhammerError(f"{kind} {name!r} could be any of {', '.join(keys)}: write its name exactly")
    raise unknown(name, table, kind, aliases)


def unknown(name: str, table: Mapping[str, Any], kind: str, aliases: Mapping[str, str] | None) -> MathhammerError:
    """No entry of `table` (or alias) is called `name`: what is known, with a "did you mean"."""
    shown = {normalise(written): key for written, key in [(key, key) for key in table] + list((aliases or {}).items())}
    hint = did_you_mean([normalise(name)], shown)
    return MathhammerError(f"unknown {kind} {name!r}{hint}; known: {', '.join(sorted(table))}")


def label(sheet: Datasheet) -> str:
    """A unit as a header names it: 'Intercessor Squad (Space Marines)'."""
    return f"{sheet.name} ({sheet.faction})"


def modifier(name: str, user: str | Path | None = None) -> NamedRule:
    rules = modifiers(user)
    return find(name, rules, "ability or stratagem", {m.name: key for key, m in rules.items()})


def equipped(sheet: Datasheet, size: int | None = None, loadout: Sequence[str] = (),
             user: str | Path | None = None) -> Target:
    """A datasheet target with its wargear: the wargear's rules that protect the bearer's unit apply."""
    target = sheet.as_target(size, loadout)
    for rule in wargear_rules(sheet, loadout, size, user):
        target = attrs.evolve(target, groups=tuple((improved_bearer(p, rule.effect), n) for p, n in target.groups))
    return target


def wargear_rules(sheet: Datasheet, loadout: Sequence[str], size: int | None,
                   user: str | Path | None) -> list[NamedRule]:
    rules = modifiers(user)
    carried = sorted({item for _, gear in sheet.equip(loadout, size) for item in gear})
    return [rules[key] for item in carried for key in sheet.wargear.get(item, ())]

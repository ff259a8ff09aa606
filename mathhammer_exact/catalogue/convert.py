"""From profiles as BattleScribe prints them (characteristics as strings) to the project's weapon and
model strings, parsed by `Weapon.parse` and `ModelProfile.parse`; and from a unit record to a `Datasheet`.

A profile that does not parse is left out of the datasheet and named in its notes, with the reason,
never a crash: one odd weapon must not hide the rest of the unit.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from itertools import combinations
from typing import Any

import attrs

from ..data.datasheet import (
    UNIT_WIDE,
    AttachedUnit,
    ChargeRoll,
    Datasheet,
    JoinsBeside,
    Least,
    Limit,
    ModelEntry,
    TwoLeaders,
    WargearOption,
)
from ..data.names import normalise
from ..data.text_in_force import has_keywords
from ..data.text_rules import TextAbility
from ..errors import MathhammerError
from ..model import ModelProfile, Weapon
from .abilities import (
    Record,
    attached_as,
    best,
    charge_rolls,
    feel_no_pain,
    joins_beside,
    stationary_weapon,
    two_leaders,
)
from .ability_text import conditional_defence, read_abilities

_UNKNOWN = re.compile(r"unknown (?:weapon ability|weapon token|target token) '([^']*)'")


def weapon_text(chars: Mapping[str, str], melee: bool) -> str:
    """'24" A2 BS3+ S4 AP-1 D=1 [ASSAULT, HEAVY]' from a weapon profile's characteristics (Damage written
    D=, so that a printed '3' and a printed 'D3' cannot be confused)."""
    reach = chars.get("Range", "").strip()
    if reach.isdigit():
        reach += '"'
    elif reach.upper() in ("N/A", "-"):  # no range printed
        reach = ""
    skill_name = "WS" if melee or "WS" in chars else "BS"
    skill = chars.get(skill_name, chars.get("BS", chars.get("WS", ""))).replace(" ", "")
    keywords = chars.get("Keywords", "").strip()
    parts = [reach, f"A{chars.get('A', '')}", f"{skill_name}{skill}", f"S{chars.get('S', '')}",
             f"AP{chars.get('AP', '')}", f"D={chars.get('D', '')}"]
    text = " ".join(p.replace(" ", "") if i else p for i, p in enumerate(parts) if p)
    return f"{text} [{keywords}]" if keywords and keywords != "-" else text


def model_text(stats: Mapping[str, str], extra: str = "", keywords: tuple[str, ...] = ()) -> str:
    """'M6" T4 Sv3+ W2 Ld6+ OC2 inv4+ [INFANTRY]' from a unit profile's characteristics (named in either
    edition's way: the 10th's 'SV', the 11th's 'Sv')."""
    by_name = {key.upper(): value for key, value in stats.items()}
    parts = [f"{label}{by_name[label.upper()]}" for label in ("M", "T", "Sv", "W", "Ld", "OC")
             if by_name.get(label.upper(), "").strip() not in ("", "-")]
    text = " ".join(p.replace(" ", "") for p in parts) + (f" {extra}" if extra else "")
    return f"{text} [{', '.join(keywords)}]" if keywords else text


_COLUMN = "InSv"  #: the 11th edition's unit profile column of the invulnerable save
_COLUMN_VALUE = re.compile(r"([2-6])\+\s*(\*|\(ranged\))?", re.I)


def column_invulnerable(stats: Mapping[str, str]) -> Record | None:
    """The invulnerable save a unit profile's own column gives ('4+'; '5+ (Ranged)'; '-' or empty for none).
    Where it gives one, it is the model's (before what abilities say: an 'Invulnerable Save' ability of
    one model of the unit is read as the whole unit's). A value with an asterisk ('5+*') holds only as a
    footnote says (the datasheet's Invulnerable Save ability: against ranged attacks, no re-rolls): read as
    under a condition, so that the ability's own reading, where there is one, decides."""
    text = (_column(stats) or "").strip()
    if text in ("", "-"):
        return None
    found = _COLUMN_VALUE.fullmatch(text)
    if found is None:
        return {"unreadable": text, "from": f"{_COLUMN} {text}"}
    return {"value": int(found[1]), "ranged_only": (found[2] or "").lower() == "(ranged)",
            "from": f"the {_COLUMN} column ({text})", "inferred": False, "conditional": found[2] == "*",
            "scope": "model"}


def _column(stats: Mapping[str, str]) -> str | None:
    """A unit profile's invulnerable save column as written (None where the profile has no such column)."""
    return next((v for k, v in stats.items() if k.upper() == _COLUMN.upper()), None)


def _empty_column(record: Mapping[str, Any], model: Mapping[str, Any]) -> list[str]:
    """A note where a model's invulnerable save column is left empty (not '-') while another model of its unit has one
    there: the data may have missed it (a trial found an 11th-edition Wolf Guard Pack Leader's so, beside his
    squad's 4+); read as none, and said."""
    column = _column(model["stats"])
    if column is None or column.strip():
        return []
    others = [(other["name"], (_column(other["stats"]) or "").strip()) for other in record["models"]
              if other is not model and (found := column_invulnerable(other["stats"])) and "value" in found]
    if not others:
        return []
    name, value = others[0]
    return [f"{model['name']}: its invulnerable save column is empty in the data, where {name}'s gives {value}: "
            "read as none (the data may have left it out)"]


def reason(error: MathhammerError) -> str:
    """A short reason for the report: the unknown word, else the message up to its advice."""
    match = _UNKNOWN.search(str(error))
    return f"unknown {match.group(1)!r}" if match else str(error).split(";")[0]


def parse_weapon(chars: Mapping[str, str], melee: bool, name: str, edition: str = "10e") -> Weapon:
    """A catalogue's weapon profile, read leniently with the abilities of its `edition`: a rule the engine
    does not model is kept by name in `Weapon.ignored` (and reported with the answer), not refused."""
    return _parse_weapon(weapon_text(chars, melee), name, edition)


@functools.lru_cache(maxsize=4096)
def _parse_weapon(text: str, name: str, edition: str) -> Weapon:
    """Read once per printed profile, name and edition: a checkout gives most of its weapons to several units
    (9,090 profiles of 10th-edition BSData are 3,595 of these), and a `Weapon` is immutable."""
    return Weapon.parse(text, name=name, lenient=True, edition=edition)


@attrs.frozen
class Tally:
    """Counts of what parsed, for the report of `mathhammer data add` and the whole-set test."""

    weapons: Counter[str] = attrs.field(factory=Counter)  #: found, parsed, failed
    units: Counter[str] = attrs.field(factory=Counter)
    failures: Counter[str] = attrs.field(factory=Counter)  #: reason -> profiles
    unmodelled: Counter[str] = attrs.field(factory=Counter)  #: rule name -> profiles that ignore it
    abilities: Counter[str] = attrs.field(factory=Counter)  #: how each ability's text was read (ability_text.Kind)
    abilities_unmodelled: Counter[str] = attrs.field(factory=Counter)  #: ability name -> units, for those not modelled

    def add(self, other: Tally) -> None:
        for mine, theirs in ((self.weapons, other.weapons), (self.units, other.units),
                             (self.failures, other.failures), (self.unmodelled, other.unmodelled),
                             (self.abilities, other.abilities),
                             (self.abilities_unmodelled, other.abilities_unmodelled)):
            mine.update(theirs)


def _read_apart(entry: Mapping[str, Any]) -> Mapping[str, str]:
    """A weapon profile's characteristics, less the rule its unit's datasheet applies (`Datasheet.per_copy`: each dread
    klaw beyond the first adds an attack), which is then no rule the weapon leaves unmodelled."""
    chars, copies = entry["chars"], entry.get("per_copy")
    if not copies:
        return chars
    words = [word for word in chars.get("Keywords", "").split(",") if normalise(word) != normalise(copies[1])]
    return {**chars, "Keywords": ",".join(words) or "-"}


def _weapons(record: Mapping[str, Any], notes: list[str], tally: Tally) -> dict[str, dict[str, Weapon]]:
    """The unit's weapons by name (lower case), each with its profiles by name (lower case, as players type
    them). A weapon with a ranged and a melee profile keeps both, so its bearer shoots with one and
    fights with the other; a melee profile named like a ranged one is called 'melee' ('X melee')."""
    weapons: dict[str, dict[str, Weapon]] = {}
    for weapon_name, profiles in record["weapons"].items():
        parsed: dict[tuple[str, bool], Weapon] = {}
        for entry in profiles:
            profile = entry["profile"]
            label = weapon_name if profile == "default" else f"{weapon_name} ({profile})"
            tally.weapons["found"] += 1
            try:
                weapon = parse_weapon(_read_apart(entry), entry["melee"], label, record.get("edition", "10e"))
            except MathhammerError as exc:
                tally.weapons["failed"] += 1
                tally.failures[reason(exc)] += 1
                notes.append(f"weapon {label} left out: {reason(exc)}")
                continue
            tally.weapons["parsed"] += 1
            for rule in getattr(weapon, "ignored", ()):
                tally.unmodelled[rule] += 1
            parsed[profile.lower(), weapon.melee] = weapon  # one name may have a ranged and a melee profile
        if parsed:
            weapons[weapon_name.lower()] = {
                (("melee" if name == "default" else f"{name} melee") if melee and (name, False) in parsed else name): w
                for (name, melee), w in parsed.items()}
    return weapons


def _defence(record: Mapping[str, Any], model: Mapping[str, Any], notes: list[str], read: Collection[str] = (),
             held: dict[str, dict[str, Any]] | None = None) -> str:
    """The invulnerable save, Feel No Pain and Stealth tokens of one model: what its profile's invulnerable
    save column gives (11th edition), what the unit's abilities give every model, and what its own abilities
    and wargear give it (the bearer). What is read from prose is noted as inferred; what holds only under a
    condition goes to `held` (ability name -> reading key -> `Reading`, for --with NAME), unless its ability
    is one of `read` (normalised names of abilities read from text: each answer says whether the query
    applies it)."""
    held = {} if held is None else held
    texts = {name: text for name, text, _ in record.get("ability_texts", ())}

    def hold(found: Mapping[str, Any], fields: dict[str, int]) -> None:
        bearer = model["name"] if found.get("scope") != "unit" and (
            found is model.get("invulnerable") or found is model.get("feel_no_pain")) else ""
        reading = conditional_defence(record.get("name", ""), found["from"], texts.get(found["from"], ""), fields,
                                      bool(found.get("ranged_only")), bearer,
                                      "model" if found.get("scope") == "model" else "unit")
        held.setdefault(found["from"], {})[reading.rule.key] = reading

    tokens = []
    column = column_invulnerable(model["stats"])
    if column and "unreadable" in column:
        notes.append(f"invulnerable save column {column['from']!r} of {model['name']} not read (a value such as "
                     "4+, 5+ (Ranged) or -)")
        column = None
    found = _worn_or_best(record.get("invulnerable"), model.get("invulnerable"))
    # the model's own column first, but not over wargear it carries (a Dire Avenger Exarch's shimmershield: 4+)
    inv = _worn_or_best(column, found) if column and not column["conditional"] else best(found, column)
    # a model's own, not its unit's from wargear one of its models carries (a weavefield crest: everyone's)
    whose = _bearer(model, inv) if inv and inv.get("scope") != "unit" and model.get("invulnerable") is inv else ""
    if not inv and column is None:
        notes.extend(_empty_column(record, model))
    if inv:
        how = f"inferred from the text of {inv['from']!r}" if inv.get("inferred") else f"from {inv['from']!r}"
        what = _described("invulnerable", inv)
        if inv.get("conditional"):
            if normalise(inv["from"]) not in read:
                hold(inv, {"invulnerable": inv["value"]})
        else:
            tokens.append(f"inv{'-ranged' if inv.get('ranged_only') else ''}{inv['value']}+")
            if (inv.get("inferred") or whose) and not inv.get("unit_of"):  # a piece's for its unit: `_unit_notes`
                notes.append(f"{what}{whose} {how}")
    fnp = _worn_or_best(record.get("feel_no_pain"), model.get("feel_no_pain"))
    whose = _bearer(model, fnp) if fnp and fnp.get("scope") != "unit" and model.get("feel_no_pain") is fnp else ""
    if fnp:
        against = fnp.get("against", "").split()
        what = _described("feel_no_pain", fnp)
        how = f"inferred from the text of {fnp['from']!r}" if fnp.get("inferred") else f"from {fnp['from']!r}"
        if fnp.get("conditional"):
            if normalise(fnp["from"]) in read:
                pass
            elif against:  # no effect stands for a Feel No Pain against some attacks only
                notes.append(f"{what}{whose} under a condition ({how}): not applied")
            else:
                hold(fnp, {"feel_no_pain": fnp["value"]})
        else:
            tokens += [f"fnp{'-' + kind if kind else ''}{fnp['value']}+" for kind in against or [""]]
            if (fnp.get("inferred") or whose) and not fnp.get("unit_of"):
                notes.append(f"{what}{whose} {how}")
    carried = {piece.lower() for piece in record.get("bearers", {})}  # wargear's: as its bearer carries it
    for name, text, kind in record.get("ability_texts", ()):  # one against some attacks beside a general one
        other = feel_no_pain(name, "", text)  # (Aleya: 3+ against Psychic Attacks and mortal wounds; 5+ against all)
        if (other and other.get("against") and not other.get("conditional") and other["scope"] != "leading"
                and kind in ("", model["name"]) and name.lower() not in carried
                and not (fnp and fnp["from"] == other["from"])):
            tokens += [f"fnp-{against}{other['value']}+" for against in other["against"].split()]
    if "STEALTH" not in record["keywords"] and any(a.strip().lower() in AS_KEYWORD for a in record["abilities"]):
        tokens.append("stealth")
    return " ".join(dict.fromkeys(tokens))


#: abilities a profile is given as its keyword, which the engine applies from it (`stages.hit`): no army rule left out,
#: where a list copies one with no publication (a trial found 'not applied: Stealth (... not modelled)' beside it)
AS_KEYWORD = ("stealth",)


def _in_army_with(ability: TextAbility, choice: str) -> TextAbility:
    """An ability the catalogue shows only in an army that makes the selection `choice` (Shadow Legion: a Khorne
    daemon's Murderer's Cowl): its readings need it, which --with NAME assumes; one not modelled says so."""
    if not choice:
        return ability
    need = f"in an army with {choice}"
    if ability.unmodelled:
        return attrs.evolve(ability, unmodelled=f"{ability.unmodelled}; only {need}")
    return attrs.evolve(ability, readings=tuple(attrs.evolve(r, needs="; ".join(filter(None, (r.needs, need))))
                                                for r in ability.readings))


def main_kind(models: Sequence[Mapping[str, Any]], largest: int) -> Mapping[str, Any] | None:
    """Of a unit record's kinds of model, the one whose number follows the unit size: its group's default choice,
    else the one that can be most numerous (`largest`: the unit's largest size, for a kind with no most)."""
    variable = [m for m in models if m["max"] != m["min"]]
    return max(variable, key=lambda m: (m.get("default", False), m["max"] or largest), default=None)


def _composition(record: Mapping[str, Any]) -> list[tuple[dict[str, Any], int, int | None]]:
    """(model, default count, most) for every kind of model, the kind whose number follows the unit size
    (its group's default choice, else the one that can be most numerous) first among those that vary; the
    others start at their least and join the unit in its place when a loadout names their wargear."""
    largest = max(record["sizes"], default=1)
    main = main_kind(record["models"], largest)
    ordered = sorted(record["models"], key=lambda m: m is not main)
    return [(m, m["min"], None if m["max"] == m["min"] else m["max"] or largest) for m in ordered]


def _sizes(record: Mapping[str, Any], models: list[ModelEntry], notes: list[str],
           aboard: int = 0) -> tuple[tuple[int, ...], dict[int, int]]:
    """The unit sizes the models can fill (the models of fixed number, plus at least the minimum of the
    kind whose number follows the size), with their points; the catalogue's sizes count `aboard` models more,
    left out (they ride in another until it is destroyed: `_ABOARD`)."""
    fixed = sum(m.count for m in models if m.max is None)
    least = fixed + sum(m.count for m in models if m.max is not None)
    most = fixed + sum(m.max for m in models if m.max is not None) if any(m.max for m in models) else fixed
    sizes = tuple(size - aboard for size in record["sizes"] if least <= size - aboard <= most)
    if not sizes:
        notes.append(f"unit size read as {least} (the catalogue's sizes, {', '.join(map(str, record['sizes']))}, "
                     "do not fit its models); points not read")
        return (least,), {}
    return sizes, {int(k) - aboard: v for k, v in record["points"].items() if int(k) - aboard in sizes}


def _size_limits(record: Mapping[str, Any], models: list[ModelEntry]) -> tuple[Limit, ...]:
    """The record's limits on kinds of model, for the kinds that were read."""
    read = {m.name for m in models}
    return tuple(Limit(limit["what"], tuple((start, most) for start, most in limit["most"]),
                       tuple(k for k in limit.get("kinds", ()) if k in read), tuple(limit.get("items", ())))
                 for limit in record.get("limits", ()))


MOST_WORN = 4  #: pieces of wargear of one kind of model whose every combination gets its own profile (16 at most);
#: a kind with more keeps the profile of its default wargear whatever it carries


def _may_carry(model: Mapping[str, Any]) -> tuple[str, ...]:
    """The wargear a kind of model carries by default or its swaps offer, by name."""
    offered = [item for option in model["options"]
               for item in (*option["with"], *(i for items in option.get("gives", {}).values() for i in items))]
    return tuple(dict.fromkeys(item.lower() for item in (*model["equipment"], *offered)))


def _worn(model: Mapping[str, Any], bearers: Mapping[str, Any], unit_wide: Collection[str]) -> tuple[str, ...]:
    """The wargear that gives this kind of model something (`bearers`): as its bearer, carried by default or
    offered by its swaps, by name; or as a model of the unit while any model carries it (`unit_wide`), by
    `UNIT_WIDE` and its name."""
    return tuple(dict.fromkeys((*(item for item in _may_carry(model) if item in bearers),
                                *(UNIT_WIDE + item for item in unit_wide))))


def _bearer(model: Mapping[str, Any], reading: Mapping[str, Any] | None) -> str:
    """Whose a defence is, as a note says it: the bearer's, and while it carries the wargear that gives it."""
    piece = (reading or {}).get("bearer_of")
    return f" (the bearer: {model['name']}{f', while it carries {piece.lower()}' if piece else ''})"


def _worn_or_best(current: dict[str, Any] | None, worn: dict[str, Any] | None) -> dict[str, Any] | None:
    """Of the unit's (or the profile's column) reading and the model's own (`best`), that of wargear it carries (for
    itself, or for its unit) where it is the better of two unconditional ones that hold against the same attacks (a
    Dire Avenger Exarch's shimmershield, 4+, over the unit's 5+): a model uses its best save; else the first."""
    if worn and (worn.get("bearer_of") or worn.get("unit_of")) and current and current is not worn \
            and not worn.get("conditional") \
            and not current.get("conditional") and worn["value"] < current["value"] \
            and (worn.get("ranged_only"), worn.get("against")) == (current.get("ranged_only"), current.get("against")):
        return worn
    return best(current, worn)


def _unit_notes(piece: str, gives: Mapping[str, Any]) -> tuple[str, ...]:
    """What is said where the unit is the target and one of its models carries `piece`: the defences it gives every
    model (`Datasheet.unit_worn`)."""
    notes = []
    for kind, reading in gives.items():
        how = "inferred from the text of" if reading.get("inferred") else "from"
        notes.append(f"{_described(kind, reading)} for every model while one carries {piece} "
                     f"({how} {reading['from']!r})")
    return tuple(notes)


def _described(kind: str, reading: Mapping[str, Any]) -> str:
    """A defence read (`kind` 'invulnerable' or 'feel_no_pain') as the header says it, with the attacks it holds
    against: 'invulnerable save 4+ against ranged attacks', 'Feel No Pain 4+ against mortal wounds and psychic
    attacks'."""
    if kind == "invulnerable":
        return f"invulnerable save {reading['value']}+{' against ranged attacks' if reading.get('ranged_only') else ''}"
    against = reading.get("against", "").split()
    victims = " and ".join({"mortal": "mortal wounds", "psychic": "psychic attacks"}[a] for a in against)
    return f"Feel No Pain {reading['value']}+{' against ' + victims if against else ''}"


def _carrying(model: Mapping[str, Any], pieces: Collection[str], bearers: Mapping[str, Any],
              notes: list[str] | None = None) -> dict[str, Any]:
    """`model` with what `pieces` of wargear give their bearer: an invulnerable save and Feel No Pain after the
    model's own (`best`), a Wounds characteristic, and Wounds added to it by a piece no model carries by default
    (said where the unit is the target: `Datasheet.defences_for`). The Wounds set are said in `notes`, if given."""
    gives = [bearers[piece] for piece in pieces if piece in bearers]  # as its bearer
    out = dict(model)
    for kind in ("invulnerable", "feel_no_pain"):  # the bearer's, and its unit's (a weavefield crest's)
        out[kind] = functools.reduce(best, [*(g.get(kind) for g in gives), *(
            bearers[piece.removeprefix(UNIT_WIDE)].get("unit", {}).get(kind) for piece in pieces
            if piece.removeprefix(UNIT_WIDE) in bearers)], model.get(kind))
    wounds = max((g["wounds"] for g in gives if "wounds" in g), key=lambda w: w["value"], default=None)
    key = next((k for k in model["stats"] if k.upper() == "W"), None)
    if wounds is not None and key is not None and model["stats"][key].strip() != str(wounds["value"]):
        out["stats"] = {**model["stats"], key: str(wounds["value"])}
        if notes is not None:
            notes.append(f"Wounds {wounds['value']} for {model['name']}: its profile's {model['stats'][key]}, and "
                         f"{wounds['from']!r} gives its bearer {wounds['value']}")
    more = sum(g["more_wounds"]["value"] for g in gives if "more_wounds" in g)
    own = out["stats"].get(key, "").strip() if key is not None else ""
    if more and key is not None and own.isdigit():
        out["stats"] = {**out["stats"], key: str(int(own) + more)}
    return out


def _profile(record: Mapping[str, Any], model: Mapping[str, Any], keywords: tuple[str, ...],
             notes: list[str] | None = None, read: Collection[str] = (),
             held: dict[str, dict[str, Any]] | None = None) -> ModelProfile:
    """One kind of model's profile, its defences read (`_defence`: noted in `notes` and held in `held`, if given)."""
    defence = _defence(record, model, [] if notes is None else notes, read, {} if held is None else held)
    return ModelProfile.parse(model_text(model["stats"], defence, keywords), name=model["name"], lenient=True)


#: a kind of model that rides inside another of its unit until that one is destroyed (Canis Rex's Sir Hekhtur)
_ABOARD = re.compile(r"if your (?P<host>.+?) model is destroyed, this model is treated as a model disembarking", re.I)


#: a condition on the unit's own models ('while this unit contains one or more PSYKER models', '... a Repentia
#: Superior model')
_CONTAINS = re.compile(r"(?:while|whilst|if) this unit contains (?:one or more|an?) (.+?) models?", re.I)


#: an aura's reading for its own unit (`ability_text._own_aura`): 'while this unit is a TYRANIDS unit'
_IS_A = re.compile(r"(?:while|whilst|if) this unit is an? (.+?) unit", re.I)


def _contained(abilities: tuple[TextAbility, ...], models: list[ModelEntry]) -> tuple[TextAbility, ...]:
    """`abilities` with a reading that needs the unit to contain a model of a keyword or kind settled where every
    unit of the datasheet does (a kind of at least one model: a Scarab Occult Sorcerer, PSYKER); one of a kind a
    unit may leave out keeps its condition, for --with. An aura's reading for its own unit holds where every model
    has the keywords it names, and is left out where none has them (the aura is for other units only)."""
    present = [m for m in models if m.count >= 1]

    def holds(needs: str) -> bool | None:  # None: not settled here
        if found := _CONTAINS.fullmatch(needs.strip()):
            wanted = normalise(found[1])
            return any(wanted in map(normalise, m.profile.keywords) or wanted in (normalise(m.name),
                                                                              normalise(m.name) + "s")
                       for m in present) or None
        if found := _IS_A.fullmatch(needs.strip()):
            kinds = [has_keywords(m.profile.keywords, found[1].upper()) for m in present]
            return True if kinds and all(kinds) else False if not any(kinds) else None
        return None

    settled = [(a, [(r, holds(r.needs)) for r in a.readings]) for a in abilities]
    return tuple(attrs.evolve(a, readings=tuple(attrs.evolve(r, needs="") if held else r for r, held in readings
                                                if held is not False))
                 for a, readings in settled if not readings or any(held is not False for _, held in readings))


def to_datasheet(record: Mapping[str, Any], tally: Tally | None = None) -> Datasheet:
    """A `Datasheet` for an indexed unit record; what could not be read is named in its notes."""
    tally = tally if tally is not None else Tally()
    notes: list[str] = list(record.get("notes", ()))
    weapons = _weapons(record, notes, tally)
    keywords = tuple(dict.fromkeys(record["keywords"]))  # once each, in order
    read_rules = read_abilities(record["name"], record.get("ability_texts", ()), tally.abilities,
                                tally.abilities_unmodelled, record["abilities"], record["weapons"],
                                [model["name"] for model in record["models"]])
    needs = {normalise(name): choice for name, choice in record.get("ability_needs", {}).items()}
    read_rules = tuple(_in_army_with(a, needs.get(normalise(a.name), "")) for a in read_rules)
    read = {normalise(a.name) for a in read_rules if a.readings}
    defences: list[str] = list(record.get("defence_notes", ()))  # the unit's: said where the unit is the target
    held: dict[str, dict[str, Any]] = {}
    models, options = [], []
    bearers = {name.lower(): gives for name, gives in record.get("bearers", {}).items()}
    composition = _composition(record)
    # wargear that protects every model of the unit while one carries it, and what the unit carries by default
    unit_wide = tuple(dict.fromkeys(item for model in record["models"] for item in _may_carry(model)
                                    if "unit" in bearers.get(item, {})))
    unit_carried = {item.lower() for model, count, _ in composition if count for item in model["equipment"]}
    aboard = {model: found["host"] for name, text, model in record.get("ability_texts", ())
              if model and (found := _ABOARD.search(text))}
    for model, count, most in composition:
        if model["name"] in aboard:  # not on the battlefield until the model it rides in is destroyed
            notes.append(f"{model['name']} is not on the battlefield until the {aboard[model['name']]} model is "
                         "destroyed (then it disembarks): left out of the unit's attacks and of it as a target (the "
                         f"unit destroyed is the {aboard[model['name']]} model destroyed)")
            continue
        tally.units["model profiles"] += 1
        # the unit's, its faction's (as in rules/: 'while an ADEPTA SORORITAS CHARACTER is leading') and its own
        kind_keywords = tuple(dict.fromkeys((*keywords, *record["faction_keywords"], *model.get("keywords", ()))))
        equipment = tuple(w.lower() for w in model["equipment"])
        worn = _worn(model, bearers, unit_wide)
        mine: list[str] = list(model.get("defence_notes", ()))  # this kind's: said where it is in the target
        try:
            carried = frozenset(worn).intersection({*equipment,
                                                    *(UNIT_WIDE + p for p in unit_wide if p in unit_carried)})
            profile = _profile(record, _carrying(model, carried, bearers, mine), kind_keywords, mine, read, held)
            profiles = {frozenset(pieces): _profile(record, _carrying(model, pieces, bearers), kind_keywords)
                        for k in range(len(worn) + 1) for pieces in combinations(worn, k)
                        if frozenset(pieces) != carried} if len(worn) <= MOST_WORN else {}
        except MathhammerError as exc:
            tally.units["model profiles failed"] += 1
            tally.failures[f"unit profile: {reason(exc)}"] += 1
            notes.append(f"model {model['name']} left out: {reason(exc)}")
            continue
        for rule in profile.ignored:
            tally.unmodelled[f"unit profile: {rule}"] += 1
        if count or most:
            models.append(ModelEntry(model["name"], profile, count, equipment, most,
                                     tuple(f"{model['name']}: {note}" for note in model.get("notes", ())), worn,
                                     {carried: profile, **profiles} if worn else {}, tuple(dict.fromkeys(mine))))
        for option in model["options"]:
            replaces = option["replaces"]  # one piece of wargear, or a bundle of several
            options.append(WargearOption(
                model["name"], tuple(r.lower() for r in ([replaces] if isinstance(replaces, str) else replaces)),
                tuple(c.lower() for c in option["with"]),
                gives={c.lower(): tuple(i.lower() for i in items) for c, items in option.get("gives", {}).items()}))
    if not models:
        raise MathhammerError(f"{record['name']}: no model profile could be read ({'; '.join(notes)})")
    sizes, points = _sizes(record, models, notes, sum(m["min"] for m in record["models"] if m["name"] in aboard))
    read_kinds = {m.name for m in models}
    sheet = Datasheet(
        name=record["name"], faction=record["faction"], source=record.get("source", "BSData"), keywords=keywords,
        faction_keywords=tuple(record["faction_keywords"]), abilities=tuple(record["abilities"]),
        models=tuple(models), weapons=weapons, options=tuple(options), sizes=sizes, points=points,
        wargear_points={name.lower(): cost for name, cost in record.get("wargear_points", {}).items()},
        limits=_size_limits(record, models),
        leasts=tuple(Least(least["what"], least["least"], tuple(least["kinds"]), least["fills"])
                     for least in record.get("leasts", ()) if set(least["kinds"]) <= read_kinds),
        alike=tuple(tuple(name.lower() for name in names) for names in record.get("alike", ())),
        leader_of=tuple(record["leader_of"]),
        attached_as=tuple(AttachedUnit(r["unit"], tuple(r["leaders"]), tuple(r["excluding"]))
                          for _, text, _ in record.get("ability_texts", ()) for r in attached_as(text)),
        joins_beside=tuple(JoinsBeside(tuple(r["units"]), tuple(r["leaders"]), r["not_twice"])
                           for _, text, _ in record.get("ability_texts", ()) for r in joins_beside(text)),
        takes_two=tuple(TwoLeaders(**r) for _, text, _ in record.get("ability_texts", ()) for r in two_leaders(text)),
        notes=tuple(dict.fromkeys(notes)), edition=record["edition"], incomplete=record.get("incomplete", ""),
        per_copy={name.lower(): tuple(entry["per_copy"]) for name, entries in record["weapons"].items()
                  for entry in entries if entry.get("per_copy")},
        charge_rolls=tuple(ChargeRoll(name, found["reroll"], found["add"], found["leading"], found["condition"], piece,
                                      found["instead"], kind)
                           for piece, texts in (("", record.get("ability_texts", ())),
                                                *((piece.lower(), texts) for piece, texts in
                                                  record.get("wargear_abilities", {}).items()))
                           for name, text, kind in texts for found in charge_rolls(text)),
        army_rules=tuple(rule for rule in record.get("army_rules", ()) if rule.strip().lower() not in AS_KEYWORD),
        army_rules_for={faction: tuple(rules) for faction, rules in record.get("army_rules_for", {}).items()},
        read_rules=_contained((*(a for a in read_rules if a.name not in held),
                               *(TextAbility(name, readings=tuple(found.values())) for name, found in held.items())),
                              models),
        defence_notes=tuple(dict.fromkeys(defences)),
        unit_worn={piece: _unit_notes(piece, bearers[piece]["unit"]) for piece in unit_wide},
        stationary_only=tuple(dict.fromkeys(weapon.lower() for _, text, _ in record.get("ability_texts", ())
                                            if (weapon := stationary_weapon(text)) and weapon.lower() in weapons)),
        wargear_abilities={piece.lower(): taken for piece, texts in record.get("wargear_abilities", {}).items()
                           if (taken := read_abilities(record["name"], texts, tally.abilities,
                                                       tally.abilities_unmodelled, (), record["weapons"]))})
    # the most numerous kind first: the order a defender loses models in, among models of equal Wounds
    counts = sheet.counts()
    sheet = attrs.evolve(sheet, models=tuple(sorted(sheet.models, key=lambda m: -counts[m.name])))
    compositions = {}
    costs = {int(k): v for k, v in record["points"].items()}
    for other in record.get("compositions", ()):  # each its own datasheet at its size ('2 Sergeants and 18 ...')
        size = other["size"]
        at = to_datasheet({**record, "models": other["models"], "limits": other["limits"], "leasts": [],
                           "sizes": [size], "notes": [*record.get("notes", ()), *other["notes"]], "compositions": []},
                          Tally())
        if at.sizes == (size,):  # its models fill its size
            compositions[size] = attrs.evolve(at, points={n: p for n, p in costs.items() if n == size})
    if not compositions:
        return sheet
    points = {**sheet.points, **{n: costs[n] for n in compositions if n in costs}}
    return attrs.evolve(sheet, compositions=compositions, sizes=tuple(sorted({*sheet.sizes, *compositions})),
                        points=dict(sorted(points.items())))

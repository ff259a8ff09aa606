"""Which abilities read from the units' text a unit query applies, with a header line for each.

A reading applies when it is the whole unit's, the query settles its condition (the same scope
checks as any named rule: phase, target keywords, situation options) and it needs nothing no
option states; one that needs such a condition applies when its ability is named with --with;
--without leaves an ability out. Every ability that may change the attacks is named in the
answer's header, applied or not, with the reason and the option that would turn it on. An army rule
a datasheet lists by name alone (Waaagh!, Oath of Moment) joins them where rules/ declares it (`listed`),
and is named not applied where it does not (Martial Ka'tah).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from ..editions import TENTH, RulesEdition
from ..errors import MathhammerError
from ..model import DamageReroll, ModelProfile, Target
from .modifiers import Effect, NamedRule, declared_for
from .names import normalise
from .text_rules import Reading, Role, TextAbility, describe, leading

if TYPE_CHECKING:
    from .datasheet import Datasheet, ModelEntry


#: whose attacks a reading is applied to where it is not the whole attacking unit's: a unit's name, and the kind of
#: its models ("" for all of them: a Leader's own attacks, not its unit's)
Attacks = tuple[str, str]


@attrs.frozen
class Side:
    """One unit of a query, with its abilities read from text and its models of each kind."""

    role: Role
    abilities: tuple[TextAbility, ...]
    kinds: Mapping[str, int]  #: models of each kind in the unit, to tell "this model" from the whole unit
    leading: bool = False  #: a leader attached to the unit: its "while leading" readings are the whole unit's,
    #: its other readings its own (for --led-by: a Side of the leader beside the unit's)
    models: tuple[ModelProfile, ...] = ()  #: its models: the target's, for a reading that changes some of them
    #: only; the attacker's, for a condition on friendly models near it that its own models settle
    unit: str = ""  #: its datasheet's name


def listed(sheet: Datasheet, rules: Mapping[str, NamedRule]) -> tuple[TextAbility, ...]:
    """The army rules `sheet` lists by name that rules/ declares (`NamedRule.listed`), one ability per name with a
    reading for each side of an attack; each needs what its declaration assumes, so --with NAME applies it."""
    have = {normalise(a) for a in sheet.abilities}
    found: dict[str, list[Reading]] = {}
    for rule in rules.values():
        if rule.listed and normalise(rule.name) in have:
            found.setdefault(rule.name, []).append(Reading(rule, needs=f"when {rule.assumes}" if rule.assumes else ""))
    return tuple(TextAbility(name, readings=tuple(readings), army=True, variants=_variants(name, sheet, rules))
                 for name, readings in found.items())


def _variants(name: str, sheet: Datasheet, rules: Mapping[str, NamedRule]) -> tuple[NamedRule, ...]:
    """The named rules that stand for the army rule `name` in a case the query cannot see (they need the ability,
    and are not `listed`), that `sheet` may use."""
    return tuple(r for r in rules.values() if not r.listed and normalise(r.ability) == normalise(name)
                 and r.attacker.passes(sheet.unit_keywords))


#: why an army rule rules/ does not declare is not applied
ARMY_RULE = "an army rule not modelled"


def abilities(sheet: Datasheet, rules: Mapping[str, NamedRule],
              carried: Collection[str] = ()) -> tuple[TextAbility, ...]:
    """A unit's abilities read from text (with those of the wargear it `carried` that a loadout gives: an omnispex),
    its army rules `listed` (which stand for a reading of the same name), and its other army rules
    (`Datasheet.army_rules`), not modelled."""
    declared = listed(sheet, rules)
    names = {normalise(a.name) for a in declared}
    taken = [a for item in sorted(carried) for a in sheet.wargear_abilities.get(item, ())]
    read = list({normalise(a.name): a for a in (*sheet.read_rules, *taken)
                 if normalise(a.name) not in names}.values())
    known = names | {normalise(a.name) for a in read}
    others = [(name, _variants(name, sheet, rules)) for name in dict.fromkeys(sheet.army_rules)
              if normalise(name) not in known]  # a choice of named rules stands for one (Dark Pacts), else unmodelled
    return (*read, *declared, *(TextAbility(name, army=True, variants=variants) if variants else
                                TextAbility(name, unmodelled=ARMY_RULE, army=True) for name, variants in others))


def sides(sheet: Datasheet, size: int | None, target: Target, defender: Datasheet | None = None,
          defender_leaders: Sequence[Datasheet] = (), rules: Mapping[str, NamedRule] | None = None,
          equipped: Sequence[tuple[ModelEntry, Sequence[str]]] | None = None,
          defender_carried: Collection[str] = ()) -> list[Side]:
    """The attacking unit (at `size`, its models `equipped` as its loadout makes them, by default as its datasheet
    does: the kinds of model it makes, a Vanguard w/ omnispex, and the wargear it gives) and the target's sides
    (`target_sides`, the wargear its loadout gives `defender_carried`), with their abilities (`abilities`: read
    from text, and the army rules of `rules` they list) and their models of each kind."""
    equipped = sheet.equip((), size) if equipped is None else equipped
    kinds = Counter(entry.name for entry, _ in equipped)
    carried = {item for _, gear in equipped for item in gear}
    return [Side("attacker", abilities(sheet, rules or {}, carried), dict(kinds),
                 models=tuple(entry.profile for entry, _ in equipped), unit=sheet.name),
            *target_sides(target, defender, defender_leaders, rules, defender_carried)]


def target_sides(target: Target, defender: Datasheet | None, leaders: Sequence[Datasheet] = (),
                 rules: Mapping[str, NamedRule] | None = None, carried: Collection[str] = ()) -> list[Side]:
    """The target unit (with the abilities of the wargear its loadout gives, `carried`: a Guardian Drone's; without
    it, of its default wargear) and the Leaders attached to it (with those of their default wargear), where their
    datasheets are known: a Leader's "while leading" abilities are the whole Attached unit's, the Leaders' too,
    as "models in that unit" says; its others are its own models' (`on_its_models`)."""
    kinds: dict[str, int] = {}
    for profile, n in target.groups:
        kinds[profile.name] = kinds.get(profile.name, 0) + n
    models = tuple(profile for profile, _ in target.groups)
    sheets = [*([(defender, False)] if defender is not None else []), *((sheet, True) for sheet in leaders)]
    return [Side("target", abilities(sheet, rules or {},
                                     carried if carried and not leading else default_wargear(sheet)),
                 sheet.counts() if leading else kinds, leading=leading, models=models, unit=sheet.name)
            for sheet, leading in sheets]


def default_wargear(sheet: Datasheet) -> frozenset[str]:
    """The wargear a datasheet's unit carries as its datasheet gives it (at its smallest size)."""
    return frozenset(item for _, gear in sheet.equip(()) for item in gear)


def keep(own: Sequence[NamedRule], without: Collection[str]) -> tuple[list[NamedRule], list[str]]:
    """The unit's own named rules (its datasheet's, its wargear's) that --without does not leave out, and a line
    for each one it does."""
    kept = [r for r in own if normalise(r.name) not in without and normalise(r.key) not in without]
    return kept, [f"not applied: {r.name} (left out with --without)" for r in own if r not in kept]


def _whole_unit(ability: TextAbility, reading: Reading, kinds: Mapping[str, int]) -> bool:
    """Whether a reading applies to every model of the unit: a unit's ability, an ability of "this
    model" written on the datasheet (each model has it) or on the only kind of model present (so too "the
    bearer" written on a kind of model: `_each_model`), or the bearer's when the unit is that one model."""
    present = {kind for kind, n in kinds.items() if n}
    if reading.scope == "unit":
        return True
    if _each_model(ability, reading):
        return not ability.model or present == {ability.model}
    return reading.scope == "bearer" and sum(kinds.values()) == 1


def _each_model(ability: TextAbility, reading: Reading) -> bool:
    """Whether each model of the kind the ability is written on has it: "this model", or "the bearer" where the
    catalogue writes it on the kind of model itself (Wulfen w/Death Totem: every such model bears one)."""
    return reading.scope == "model" or reading.scope == "bearer" and bool(ability.model)


def _owner(ability: TextAbility, reading: Reading) -> str:
    if reading.scope == "bearer":
        return "the bearer's"
    return f"the {ability.model}'s" if ability.model else "one model's"


def names(sides: Sequence[Side]) -> dict[str, str]:
    """Every ability read from text on these units, by its name as players type it."""
    return {normalise(a.name): a.name for side in sides for a in side.abilities}


def claim(wanted: Sequence[str | NamedRule], sides: Sequence[Side],
          rules: Mapping[str, NamedRule]) -> tuple[list[str | NamedRule], dict[str, list[str]]]:
    """Split --with names into those of named rules (kept, in order) and those of abilities read from
    the units' text (normalised), each with the conditions typed after it ('Tenacious Spirit: Below
    Half-strength'; `conditions`). A named rule of that name or key wins: it is the curated reading."""
    curated = {normalise(k) for k, r in rules.items() if not r.listed} | {
        normalise(r.name) for r in rules.values() if not r.listed}
    read = names(sides)
    kept: list[str | NamedRule] = []
    claimed: dict[str, list[str]] = {}
    for item in wanted:
        key, condition = normalise(item) if isinstance(item, str) else "", ""
        if isinstance(item, str) and key not in read and ":" in item:
            name, condition = item.rsplit(":", 1)
            key, condition = normalise(name), condition.strip()
        if key and key in read and key not in curated:
            if key in claimed and (not condition or not claimed[key]  # a bare name beside another: which?
                                   or normalise(condition) in map(normalise, claimed[key])):
                raise MathhammerError(f"{read[key]}{f': {condition}' if condition else ''} is given 2 times; it is "
                                      "used once in a query")
            claimed.setdefault(key, []).extend([condition] if condition else [])
        else:
            kept.append(item)
    return kept, claimed


def left_out(without: Sequence[str], sides: Sequence[Side], own: Sequence[NamedRule]) -> set[str]:
    """The normalised names of --without: each must name an ability read from text or one of the unit's
    own named rules."""
    known = names(sides) | {normalise(r.name): r.name for r in own} | {normalise(r.key): r.name for r in own}
    out = set()
    for name in without:
        key = normalise(name)
        if key not in known:
            listed = ", ".join(sorted(set(known.values()))) or "none"
            raise MathhammerError(f"--without {name!r}: not an ability of these units (their abilities read "
                                  f"from text and rules: {listed})")
        out.add(key)
    return out


def in_force(sides: Sequence[Side], given: Mapping[str, Sequence[str]], without: Collection[str], phase: str,
             problem: Callable[[NamedRule], str | None],
             named: Sequence[NamedRule] = (), asks: str = "", edition: RulesEdition = TENTH,
             damage_option: DamageReroll = DamageReroll.NONE
             ) -> tuple[list[NamedRule], list[str], list[tuple[Attacks, NamedRule]]]:
    """The rules read from text that a query applies to the whole of each unit, a header line for each ability,
    applied or not, and the rules it applies to some of the attacker's attacks only (`apart`: a Leader's own, those of
    the models of the kind an ability is written on), with whose attacks they are.

    A reading applies when it is the whole unit's (or `apart`), the query settles its condition (`problem`, the
    scope check, finds none) and it needs nothing no option states; one that needs such a
    condition applies when its ability is `given` (--with), with the conditions typed after its name where its
    readings need different ones (`conditions`). Abilities in `without` are left out, and so
    is one that a `named` rule given with --with stands for (by its name or its `ability`).
    Readings of another phase are not mentioned: the phase alone rules them out. A question that takes no --with
    names the one that does (`asks`: "`mathhammer unit`"), where a line says which option applies an ability.
    An army rule rules/ declares is said to be the 10th edition's in an answer under another `edition`.
    """
    rules: list[NamedRule] = []
    lines: list[str] = []
    own: list[tuple[Attacks, NamedRule]] = []
    curated = {normalise(r.name) for r in named} | {normalise(r.ability) for r in named if r.ability}
    relevant_to: dict[str, bool] = {}  # for each ability asked for: whether a reading of it was this query's
    assumed_by: set[str] = set()  # ... and which of them applied only because it was asked for
    # what --with assumes by name: a condition that names it holds ('while the Waaagh! is active', with the Waaagh!;
    # 'each time this unit makes a Dark Pact', with a Dark Pact's choice given by its key), with the --with that says so
    assumed_names = {ability.name: ability.name for side in sides for ability in side.abilities
                     if normalise(ability.name) in given}
    assumed_names.update({rule.ability: rule.key for rule in named if rule.ability})
    assumed_by_other: dict[str, bool] = {}  # ... and those that settle another's condition so
    for choice in {a.name: a for side in sides for a in side.abilities if a.variants}.values():
        if len(taken := [rule for rule in named if rule in choice.variants]) > 1:  # (a trial gave a Dark Pact twice;
            # Oath of Moment's codex clause beside its launch printing)
            several = ", ".join(_keys(choice).split(" or "))
            raise MathhammerError(f"{choice.name} is one choice, not {len(taken)}: give {_keys(choice)}" if not
                                  choice.readings else f"{choice.name} is one rule, and these are {len(taken)} "
                                  f"readings of it: give one of {several}")
    for side in sides:
        led = not side.leading and any(s.leading and s.role == side.role for s in sides)  # a Leader with it
        for ability in side.abilities:
            key = normalise(ability.name)
            asked = key in given
            if side.leading and _army_rule_of_the_unit(ability, side, sides):
                continue  # the Attached unit's army rule, named once on its bodyguards' side
            if key in without:
                lines.append(f"not applied: {ability.name} (left out with --without)")
                continue
            if key in curated and all(r.rule.listed for r in ability.readings):
                continue  # the army rule given by its key with --with: its own header line says so
            if key in curated:
                lines.append(f"not applied from its text: {ability.name} (the named rule given with --with stands "
                             "for it)")
                continue
            if ability.unmodelled:
                if (ability.role or "attacker") not in (side.role, "either") and not asked and not ability.army:
                    continue  # a defence of the attacking unit, or the target's own attacks: not these attacks
                if asked:
                    why = ability.unmodelled if ability.army else f"not modelled ({ability.unmodelled})"
                    raise MathhammerError(f"{ability.name} is {why}; it cannot be given with --with")
                why = ability.unmodelled if ability.army else f"not modelled: {ability.unmodelled}"
                if side.role == "target" and ability.army and not any(
                        a.name == ability.name for other in sides if other.role == "attacker" for a in other.abilities):
                    why = f"the target's; {why}"  # not the attacker's too (Martial Ka'tah, Custodes the target)
                lines.append(f"not applied: {ability.name} ({why})")
                continue
            if asked and ability.variants and not ability.readings:  # a choice: which one is the player's to say
                raise MathhammerError(f"{ability.name} is a choice: give {_keys(ability)}")
            assumed = relevant = False
            labels = conditions(ability)
            if asked and given[key] and not labels and any(r.needs for r in ability.readings):
                raise MathhammerError(f"--with '{ability.name}: {given[key][0]}': {ability.name} has one condition, "
                                      f"not several to choose among; write --with '{ability.name}'")
            chosen = _chosen(ability, labels, given[key]) if asked and labels else set(range(len(ability.readings)))
            for number, reading in enumerate(ability.readings):
                rule = reading.rule
                if rule.situation != side.role or rule.phase not in ("either", phase):
                    continue
                relevant = True
                called = f"{ability.name}: {labels[number]}" if labels and reading.needs else ability.name
                whose = apart(ability, reading, side, led)
                mine = on_its_models(ability, reading, side)
                rule = mine or rule
                by = next((assumed_names[name] for name in sorted(assumed_names) if name != ability.name
                           and _is_active(reading.needs, name)), None)
                chooser = None if by is not None else _choice_needed(reading.needs, side, assumed_names)
                if chooser is not None:  # its condition is a choice the query does not make ('makes a Dark Pact')
                    settles = _is_active(reading.needs, chooser.name)  # else more is needed ('once per battle')
                    if asked and number in chosen:
                        raise MathhammerError(f"{ability.name} applies only {reading.needs}, and {chooser.name} is "
                                              f"a choice: give {_keys(chooser)}" + (", which settles it" if settles
                                                                                     else " as well"))
                    lines.append(f"not applied: {ability.name} applies only {reading.needs}; {_keys(chooser)} "
                                 + ("assumes it" if settles else f"with --with '{called or ability.name}' assume it"))
                    continue
                models = [p for s in sides if s.role == side.role for p in s.models]
                near, has = _near_friends(reading.needs, models), _unit_has(reading.needs, models)
                why = f"{ability.name} applies only {reading.needs}; no model of the unit has it" \
                    if has is False else _not_applied(ability, reading, side, asked and number in chosen, problem,
                                                      asks, called, whose is not None or mine is not None,
                                                      settled=by is not None or bool(near) or has is True)
                if why:
                    lines.append(f"not applied: {why}")
                    continue
                if by is not None:  # the --with that settles it is this query's
                    relevant_to[normalise(by)] = assumed_by_other[normalise(by)] = True
                unled = bool(_unled(ability, reading, side))  # --with assumes the Leader it needs
                assumed = assumed or bool(reading.needs) and has is None or unled
                declared = f"its army rule, {declared_for(rule, edition)}" if rule.listed else ""
                source = declared or ("read from its Leader's text" if side.leading else "read from its text")
                said = describe(attrs.evolve(reading, rule=rule), damage_option)
                line = f"{side.role} has {ability.name} ({source}): {said}"
                its = declared or "read from its text"  # the Leader named: its text
                leader = f"{side.unit}, leading the {side.role}, has {ability.name} ({its})"
                if side.leading and reading.scope == "unit":  # 'this unit', 'this model's unit' on its datasheet
                    line = f"{leader}, for the whole Attached unit (one unit for all rules purposes): {said}"
                if mine is not None:
                    line = f"{leader}: {said}"
                if whose is None:
                    rules.append(rule)
                else:
                    own.append((whose, rule))
                    line = f"{leader}, for its own attacks: {said}" if side.leading else \
                        f"{line}, for its {whose[1]} models' attacks only" if whose[1] else \
                        f"{line}, for its own models' attacks (not its Leader's)"
                needs = [reading.needs] if reading.needs and by is None and not near and has is None else []
                needs += [leading(rule.led_by)] if unled else []
                lines.append(line + (f"; assumed (--with): {'; '.join(needs)}" if needs else "")
                             + (f"; {reading.needs}, as --with '{by}' assumes" if by else "")
                             + (f"; {reading.needs}: {near} is one" if near else "")
                             + (f"; {reading.needs}: a model of the unit has it" if has else ""))
            lines += [f"not applied: {v.name}: {v.effect.describe()}; --with '{v.key}' assumes {v.assumes}"
                      for v in ability.variants if side.role == v.situation and v.phase in ("either", phase)]
            if asked:
                relevant_to[key] = relevant_to.get(key, False) or relevant
                assumed_by |= {key} if assumed else set()
    for key, relevant in relevant_to.items():
        if not relevant:
            raise MathhammerError(_changes_nothing(key, sides, phase))
        if key not in assumed_by and key not in assumed_by_other:
            raise MathhammerError(f"{names(sides)[key]} needs no --with here: what its text says is applied as the "
                                  "query settles it (see the answer's header without --with)")
    return rules, list(dict.fromkeys(lines)), own  # an army rule both sides list: named once


#: the readings of a Leader that are its own when it leads: "this model", "the bearer". One for "this unit" or "this
#: model's unit" is the whole Attached unit's, which is one unit for all rules purposes (a Tyranid Prime's Alpha
#: Warrior, Astorath's Mass of Doom)
LEADERS_OWN = ("model", "bearer")


def on_its_models(ability: TextAbility, reading: Reading, side: Side) -> NamedRule | None:
    """A target's Leader's own defence ("this model", not "while leading") as a rule of that Leader's models (by
    their names: not its bodyguards', nor another Leader's), where what it changes is each model's own (its saves,
    Feel No Pain, the Damage it suffers: `Effect.MODEL_FIELDS`), so that the attacks allocated to the Leader meet it
    and those allocated to the others do not; None for any other reading."""
    rule = reading.rule
    if side.role != "target" or not side.leading or reading.scope not in LEADERS_OWN or rule.models:
        return None
    changed = rule.effect.changes(Effect.TARGET_FIELDS)
    if not changed or not set(changed) <= set(Effect.MODEL_FIELDS) or not _whole_unit(ability, reading, side.kinds):
        return None
    return attrs.evolve(rule, models=tuple(side.kinds))


def apart(ability: TextAbility, reading: Reading, side: Side, led: bool = False) -> Attacks | None:
    """Whose attacks alone a reading of the attacking unit is applied to, where it is not the whole unit's: a
    Leader's own (`LEADERS_OWN`: "this model", "the bearer"), its bodyguards' own where a Leader is attached (`led`)
    and it is each of their models' ("this model": Death Company Marines' Black Rage is not their Chaplain's), or
    those of the models of the kind it is written on; None where it is the whole unit's, or cannot be given to some
    attacks only (a change to the target, the bearer of wargear among several models). (unit, "") stands for every
    attack of that unit's."""
    if side.role != "attacker" or reading.scope == "leading" or reading.rule.effect.changes(Effect.TARGET_FIELDS):
        return None
    whole = _whole_unit(ability, reading, side.kinds)
    if side.leading:
        return (side.unit, "") if whole and reading.scope in LEADERS_OWN else None
    if whole and led and reading.scope in LEADERS_OWN:
        return side.unit, ""
    if whole or not _each_model(ability, reading) or not side.kinds.get(ability.model):
        return None
    return side.unit, ability.model


def _changes_nothing(key: str, sides: Sequence[Side], phase: str) -> str:
    """Why the ability `key`, asked for with --with, changes nothing in this query: it works in another phase, or
    when its unit is attacking where here it is attacked (or the other way round)."""
    for side in sides:
        for ability in side.abilities:
            roles = {r.rule.situation for r in ability.readings if r.rule.phase in ("either", phase)}
            if normalise(ability.name) == key and roles and side.role not in roles:
                works = "attacks" if "attacker" in roles else "is attacked"
                return (f"{ability.name} changes nothing here: it works when its unit {works}, and the "
                        f"{side.role} has it")
    return f"{names(sides)[key]} changes nothing in the {phase} phase"


def _army_rule_of_the_unit(ability: TextAbility, leader: Side, sides: Sequence[Side]) -> bool:
    """Whether `ability` of a leader's side is an army rule its bodyguards list too: then it is the whole Attached
    unit's, applied (or named) once with theirs (twice would stack its bonuses)."""
    return ability.army and any(
        other.role == leader.role and not other.leading and any(a.name == ability.name for a in other.abilities)
        for other in sides)


def conditions(ability: TextAbility) -> dict[int, str]:
    """For an ability whose readings need different conditions no option states (Tenacious Spirit: +1 to hit below
    its Starting Strength, +1 to wound Below Half-strength), the condition of each such reading, by its place
    among the readings, as --with 'NAME: CONDITION' names it: the last clause of what it needs. Empty where one
    condition (or none) serves every reading: --with NAME applies them all."""
    needs = {r.needs for r in ability.readings if r.needs}
    if len(needs) < 2:
        return {}
    return {n: re.sub(r"^(?:if|while|when)\s+", "", r.needs.split("; ")[-1], flags=re.I)
            for n, r in enumerate(ability.readings) if r.needs}


def _chosen(ability: TextAbility, labels: Mapping[int, str], typed: Sequence[str]) -> set[int]:
    """The readings that --with 'NAME: CONDITION' (one or more) applies: for each condition typed, the readings whose
    condition holds every word of it, and the readings whose conditions are part of theirs (what a condition
    nested in another needs holds when the outer one does); the readings needing nothing always."""
    choices = " or ".join(f"--with '{ability.name}: {label}'" for label in dict.fromkeys(labels.values()))
    if not typed:
        raise MathhammerError(f"{ability.name} does different things under different conditions: name the one that "
                              f"holds, {choices} (several may be given)")
    chosen = {n for n, r in enumerate(ability.readings) if not r.needs}
    for text in typed:
        words = set(normalise(text).split())
        found = {normalise(label) for n, label in labels.items() if words <= set(normalise(label).split())}
        if len(found) != 1:
            why = "matches none" if not found else "matches more than one"
            raise MathhammerError(f"--with '{ability.name}: {text}': the condition {why} of its conditions; "
                                  f"write {choices}")
        for n, label in labels.items():
            if normalise(label) in found:
                clauses = set(ability.readings[n].needs.split("; "))
                chosen |= {m for m, r in enumerate(ability.readings) if r.needs and set(r.needs.split("; ")) <= clauses}
    return chosen


def _not_applied(ability: TextAbility, reading: Reading, side: Side, asked: bool,
                 problem: Callable[[NamedRule], str | None], asks: str = "", called: str = "",
                 some_attacks: bool = False, settled: bool = False) -> str:
    """Why a reading is not applied in this query, or "" if it is (an error if --with asked for it); `called` is
    the --with that would apply it; `some_attacks`: it is applied to some of the attacks only (`apart`); `settled`:
    its condition holds otherwise (another --with assumes it; a model of the unit or its Leader meets it)."""
    why = ""
    if ability.model and side.kinds and not side.kinds.get(ability.model):  # the kind it is written on: none here
        why = f"{ability.name} is a {ability.model} model's, and the unit has none here"
    elif side.leading and reading.scope not in ("leading", "unit") and not some_attacks:
        why = f"{ability.name} is the leader's own, not the whole unit's"
    elif reading.scope == "leading" and not side.leading:
        why = f"{ability.name} works while this model is leading a unit"
    elif reading.scope != "leading" and not some_attacks and not _whole_unit(ability, reading, side.kinds):
        why = f"{ability.name} is {_owner(ability, reading)} alone, not the whole unit's"
    if why and asked:
        raise MathhammerError(f"{why}; --with cannot give it to the whole unit")
    if not why:
        why = problem(reading.rule) or _absent(ability, reading, side) or ("" if asked else _unled(ability, reading,
                                                                                                   side))
        if why and asked:
            raise MathhammerError(why)
    if not why and reading.needs and not (asked or settled):
        where = f" (of {asks})" if asks else ""
        # of an ability that also does something else, which part (a trial read Shock Assault's two as contradicting)
        part = f": {reading.rule.effect.describe()}," if len(ability.readings) > 1 else ""
        # and whose, where it is the target's (a trial read the target's Waaagh! under a plan's attacking unit)
        whose = "the target's " if side.role == "target" and not side.leading else ""
        why = (f"{whose}{ability.name}{part} applies only {reading.needs}; --with '{called or ability.name}'{where} "
               "assumes it")
    return why


#: a condition on friendly models near the unit ('while this unit is within 12" of one or more friendly AELDARI
#: PSYKER models'): its own models, or the Leader attached to it, may be such models, within range of it
_NEAR = re.compile(r"(?:while|if) this (?:unit|model) is within \d+\" of (?:one or more |a |an )?friendly "
                   r"(?P<keywords>.+?) models?", re.I)


def _near_friends(needs: str, models: Sequence[ModelProfile]) -> str:
    """The name of a model of the unit (or of its Leader) that settles a condition on friendly models near it
    (`_NEAR`), or ""."""
    found = _NEAR.fullmatch(needs.strip())
    if found is None:
        return ""
    return next((p.name or "a model" for p in models if has_keywords(p.keywords, found["keywords"].upper())), "")


#: a condition on the keywords of the unit itself, or of the unit a Leader leads ('if that unit has the HYBRID
#: METAMORPHS keyword'): settled by its models
_HAS = re.compile(r"(?:while|if) (?:this|that) unit has the (?P<keywords>.+?) keywords?", re.I)


def _unit_has(needs: str, models: Sequence[ModelProfile]) -> bool | None:
    """Whether a model of the unit (with its Leader) has the keywords a condition on the unit's keywords names
    (`_HAS`); None for another condition."""
    found = _HAS.fullmatch(needs.strip())
    if found is None:
        return None
    return any(has_keywords(p.keywords, found["keywords"].upper()) for p in models)


def _choice_needed(needs: str, side: Side, assumed: Collection[str]) -> TextAbility | None:
    """The army rule of `side` that `needs` is in effect ('each time this unit makes a Dark Pact') where that rule is a
    choice among named rules (`TextAbility.variants`: Lethal Hits or Sustained Hits 1) none of which is given."""
    return next((a for a in side.abilities if a.army and a.variants and not a.readings and a.name not in assumed
                 and re.fullmatch(rf"(?:once per (?:battle|turn) )?{_made(a.name)}", normalise(needs))), None) \
        if needs else None


def _made(name: str) -> str:
    """The pattern of a condition that the unit makes one of the rule `name` ('each time this unit makes a Dark
    Pact', of Dark Pacts)."""
    return rf"(?:each time|if|when) (?:this|this model's|the bearer's) (?:unit|model) makes an? " \
           rf"{re.escape(normalise(name).removesuffix('s'))}"


def _keys(ability: TextAbility) -> str:
    """The --with options of the named rules that stand for `ability`, one or another."""
    return " or ".join(f"--with '{rule.key}'" for rule in ability.variants)


def _is_active(needs: str, name: str) -> bool:
    """Whether a condition is that the rule `name` is in effect, and no more ('while the Waaagh! is active for your
    army', 'if that target is your Oath of Moment target', 'each time this unit makes a Dark Pact'): what --with NAME
    assumes. Not one that says it is not, has ended, or asks for more as well."""
    rule = re.escape(normalise(name))
    return bool(re.fullmatch(rf"(?:while|if|when) (?:(?:the )?{rule}(?: is active)?(?: for your army)?|"
                             rf"(?:the|that) target is (?:your|the) {rule} target)|{_made(name)}", normalise(needs)))


def has_keywords(keywords: Collection[str], written: str) -> bool:
    """Whether a model of `keywords` has the keywords `written` one after another, as a rule names them ('ADEPTA
    SORORITAS CHARACTER': the faction's keyword and CHARACTER), or those of one of them ('CAPTAIN OR CHAPTER MASTER').

    >>> has_keywords(("CANONESS", "CHARACTER", "ADEPTA SORORITAS"), "ADEPTA SORORITAS CHARACTER")
    True
    >>> has_keywords(("INFANTRY", "ADEPTA SORORITAS"), "ADEPTA SORORITAS CHARACTER")
    False
    >>> has_keywords(("CHARACTER", "CHAPTER MASTER"), "CAPTAIN OR CHAPTER MASTER")
    True
    """
    held = set(keywords)
    for words in (alternative.split() for alternative in written.split(" OR ")):
        reached = [True] + [False] * len(words)  # reached[i]: the first i words are keywords held, one after another
        for start in range(len(words)):
            for end in range(start + 1, len(words) + 1) if reached[start] else ():
                reached[end] = reached[end] or " ".join(words[start:end]) in held
        if reached[-1]:
            return True
    return False


def _unled(ability: TextAbility, reading: Reading, side: Side) -> str:
    """Why a reading of the target that holds while a Leader of a keyword leads it (`NamedRule.led_by`) is not
    applied: no such model is in the target; or "" (--with assumes one)."""
    wanted = reading.rule.led_by
    if not wanted or any(has_keywords(p.keywords, wanted) for p in side.models):
        return ""
    return (f"{ability.name} applies only {leading(wanted)}; attach one with --leader, or "
            f"--with '{ability.name}' assumes it")


def _absent(ability: TextAbility, reading: Reading, side: Side) -> str:
    """Why a reading that changes some of the target's models only changes none here (its `models` are not in the
    target), or ""."""
    wanted = reading.rule.models
    if not wanted or not side.models or any(reading.rule.changes(p) for p in side.models):
        return ""
    fix = "; attach one with --leader" if "CHARACTER" in wanted else ""
    return f"{ability.name} is for the {' or '.join(wanted)} models of the unit, which the target does not have{fix}"

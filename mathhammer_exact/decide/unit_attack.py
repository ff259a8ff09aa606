"""A datasheet unit attacking a target, by name: wargear, firing rules, named rules, consequences.

This is what `mathhammer unit` runs; tool authors can call `unit_attack` the same way. Every named
rule is checked against the two units and the phase before it is applied, and the answer says
which situation each rule stands for; a rule that does not apply, or changes nothing, is refused.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from ..data import text_in_force
from ..data.datasheet import Datasheet, TargetUnit, fielded_leaders, in_edition
from ..data.load import find, library
from ..data.modifiers import FLAG_OPTION, NamedRule, apply_modifiers, improved_bearer
from ..data.names import normalise, starts_words
from ..data.text_in_force import Attacks
from ..editions import Cover
from ..engine.layout import default_order
from ..engine.limits import TooLarge, partial, share
from ..engine.resolve import attack
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Firing, ModelProfile, MortalWounds, Target, Weapon, declared_fields
from ..units.by_name import Leaders, leading_problem, together_problem, written_leaders
from ..units.by_name import datasheet as find_datasheet

#: each situation a named rule may need, in the header's words of its declaration ("attacker charged")
FLAG_WORDS = {field.name: field.declared.say(True) for field in declared_fields() if field.name in FLAG_OPTION}
PHASE_NAMES = {"shooting": "the Shooting phase", "fight": "the Fight phase"}


@attrs.frozen
class Volley:
    """What a datasheet unit attacks with: weapon profiles with how many models use each, and
    for a Hazardous weapon the profile of the models using it."""

    weapons: tuple[tuple[Weapon, int, ModelProfile | None], ...]
    chosen: tuple[str, ...] = ()  #: header lines for what was chosen for the player: a profile, a melee weapon
    owners: tuple[Attacks, ...] = attrs.field(default=())  #: whose attacks each is: the unit's name, and the kind
    #: of model where that kind's were counted apart (`volley`'s `apart`), else ""

    @owners.validator
    def _one_each(self, _: attrs.Attribute[tuple[Attacks, ...]], owners: tuple[Attacks, ...]) -> None:
        if len(owners) != len(self.weapons):
            raise ValueError(f"a volley of {len(self.weapons)} weapons needs as many owners, got {len(owners)}")


def base_name(weapon: Weapon) -> str:
    """The weapon's name without its profile: "plasma gun (supercharge)" -> "plasma gun"."""
    return weapon.name.split(" (")[0].lower()


def volley(sheet: Datasheet, loadout: Sequence[str] = (), size: int | None = None, melee: bool = False,
           pistols: bool = False, advanced: bool = False, profiles: Sequence[str] = (),
           apart: Collection[str] = (), unseen: bool = False, stationary: bool = False,
           granted: Collection[str] = ()) -> Volley:
    """The unit's weapons after its wargear choices and the rules on what may be used together.

    A model shoots its Pistols or its other ranged weapons, not both (MONSTER and VEHICLE
    models shoot all); after Advancing only Assault weapons shoot, and at a target it cannot see (`unseen`,
    --indirect) only Indirect Fire weapons, unless a rule in force gives every ranged weapon that ability
    (`granted`: a Coldstar Commander's ASSAULT): the others are named as not fired; a weapon the unit has only if
    it Remained Stationary (a support turret) fires only when it did (`stationary`); in melee each model fights
    with one melee weapon. Weapons named in `loadout` come first, then the datasheet's order.
    Each name in `profiles` must be a profile of a weapon the unit carries. The weapons of the kinds of
    model in `apart` are counted apart from the others' (an ability of theirs changes their attacks only).
    """
    if pistols and melee:
        raise MathhammerError("--pistols chooses what a unit shoots; it cannot go with --melee (the Fight phase)")
    advanced, unseen = advanced and "ASSAULT" not in granted, unseen and "INDIRECT FIRE" not in granted
    equipped = sheet.equip(loadout, size)
    carried = {name for _, gear in equipped for name in gear}
    profiles = [p.strip().lower() for p in profiles]
    several = {name: list(sheet.kind_of(name, melee)) for name in sheet.weapons if len(sheet.kind_of(name, melee)) > 1}
    for wanted in profiles:
        if not any(wanted in several.get(name, ()) for name in carried):
            bearers = [name for name, p in several.items() if wanted in p]
            if bearers:
                raise MathhammerError(f"--profile {wanted}: no weapon in this loadout has that profile "
                                      f"({' or '.join(bearers)} in --loadout would)")
            if not several:
                raise MathhammerError(f"--profile {wanted}: no weapon of {sheet.name} has more than one profile "
                                      f"{'in melee' if melee else 'to shoot with'} (leave --profile out)")
            find(wanted, {p: p for names in several.values() for p in names}, f"weapon profile of {sheet.name}")
    counts: dict[tuple[Weapon, ModelProfile | None, str], int] = {}
    named = sheet.items_named(loadout)
    lines: dict[str, None] = {}
    for entry, gear in equipped:
        # wargear the loadout named or gave this model first: a model fights with the melee weapon named
        gear = sorted(gear, key=lambda name: (name not in named, name in entry.equipment))
        if not stationary and not melee:
            lines |= {f"not fired: {name} (the unit's only if it Remained Stationary: --stationary)": None
                      for name in gear if name in sheet.stationary_only}
            gear = [name for name in gear if name not in sheet.stationary_only]
        weapons = [w for w in (sheet.profile(name, profiles, melee) for name in gear) if w is not None]
        if melee:  # one melee weapon, and every Extra Attacks weapon beside it
            single = [(name, w) for name, w in zip([n for n in gear if sheet.profile(n, profiles, melee)], weapons)
                      if not w.extra_attacks]
            if len({name for name, _ in single}) > 1 and single[0][0] not in named:
                also = ", ".join(dict.fromkeys(w.name for name, w in single[1:] if name != single[0][0]))
                lines[f"{entry.name} fights with its {single[0][1].name} (it also carries {also}: name one in "
                      "--loadout to fight with it)"] = None
            chosen = [w for w in weapons if not w.extra_attacks][:1] + [w for w in weapons if w.extra_attacks]
            if single and single[0][0] in sheet.per_copy and gear.count(single[0][0]) > 1:  # a Deff Dread's klaws
                (added, rule), copies = sheet.per_copy[single[0][0]], gear.count(single[0][0])
                more = chosen[0].attacks.modifier + added * (copies - 1)
                chosen[0] = attrs.evolve(chosen[0], attacks=attrs.evolve(chosen[0].attacks, modifier=more))
                lines[f"{entry.name} fights with its {single[0][1].name} at Attacks {chosen[0].attacks}: it carries "
                      f"{copies}, and {rule} (read from its text) adds {added} for each beyond the first"] = None
        else:
            ranged = weapons
            if advanced:
                lines |= {f"not fired: {w.name} (no ASSAULT: after Advancing)": None for w in ranged if not w.assault}
            if unseen:
                lines |= {f"not fired: {w.name} (no INDIRECT FIRE: at a target it cannot see)": None
                          for w in ranged if not w.indirect_fire}
            ranged = [w for w in ranged if _may_shoot(w, advanced, unseen)]
            big = {"MONSTER", "VEHICLE"} & set(entry.profile.keywords)
            pistol_only = [w for w in ranged if w.pistol]
            others = [w for w in ranged if not w.pistol]
            chosen = ranged if big else (pistol_only if (pistols and pistol_only) or not others else others)
            lines |= {f"not fired: {w.name} (named in --loadout, a Pistol: {entry.name} shoots its other ranged "
                      "weapons; --pistols shoots the unit's Pistols instead)": None
                      for w in pistol_only if chosen is others and base_name(w) in named}  # (a trial: unsaid)
        for weapon in chosen:
            key = (weapon, entry.profile if weapon.hazardous else None, entry.name if entry.name in apart else "")
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        what = "melee weapons" if melee else ("ASSAULT weapons after Advancing" if advanced else
                                              "INDIRECT FIRE weapons, at a target it cannot see," if unseen
                                              else "ranged weapons")
        fights = not (melee or advanced or unseen) and any(w.melee for name in carried  # (those it carries: a trial
                                                           for w in sheet.weapons.get(name, {}).values())  # found
        # an empty loadout's 'it has melee weapons' sending the player to a Fight phase that had none either)
        unarmed = "" if carried & set(sheet.weapons) else " (its models carry no weapon as the datasheet equips them)"
        raise MathhammerError(f"{sheet.name}: no {what} to attack with"  # (a unit's name may be plural)
                              + (" (it has melee weapons: ask about the Fight phase, --melee)" if fights else unarmed))

    def rank(weapon: Weapon) -> tuple[int, int]:
        base = base_name(weapon)
        names = list(sheet.weapons)
        return (named.index(base) if base in named else len(named), names.index(base) if base in names else 0)

    ranked = sorted(counts.items(), key=lambda item: rank(item[0][0]))
    fired = {base_name(weapon) for weapon, _, _ in counts}  # one that does not fire (beside --pistols): not named
    used = [f"{weapon.name} used (its other profiles: {', '.join(p for p in several[name] if p != label)}; "
            "choose with --profile)" for name in sorted(carried & set(several) & fired)
            if not set(several[name]) & set(profiles)
            for label, weapon in [next(iter(sheet.kind_of(name, melee).items()))]]
    return Volley(tuple((weapon, n, bearer) for (weapon, bearer, _), n in ranked),
                  tuple(dict.fromkeys([*sheet.loadout_lines(loadout, size), *used, *lines])),
                  tuple((sheet.name, kind) for (_, _, kind), _ in ranked))


def _may_shoot(weapon: Weapon, advanced: bool, unseen: bool) -> bool:
    """Whether a ranged weapon may shoot after Advancing (ASSAULT) and at a target it cannot see (INDIRECT FIRE)."""
    return (weapon.assault or not advanced) and (weapon.indirect_fire or not unseen)


@attrs.frozen(eq=False)
class UnitReport:
    """A unit query's answer: the result, what fired, the named rules in force, and the situation
    the answer assumed, in plain words (one line each, for the answer's header)."""

    name: str
    result: AttackResult
    firings: tuple[Firing, ...]
    modifiers: tuple[NamedRule, ...]
    situation: tuple[str, ...] = ()
    context: Context = Context()  #: the situation of the whole query (each firing may differ from it)
    leaders: tuple[Datasheet, ...] = ()  #: the Leaders attached to the attacking unit (--led-by): their points count

    def in_its_edition(self, asked: Context) -> Context:
        """The situation `asked` in the edition this answer used (the unit's, unless one was asked for)."""
        return attrs.evolve(asked, edition=self.context.rules.edition)


def _keyword_list(keywords: Iterable[str]) -> str:
    return ", ".join(sorted(keywords)) or "no keywords"


def scope_problem(rule: NamedRule, sheet: Datasheet, target: Target, phase: str, context: Context) -> str | None:
    """Why `rule` cannot be used when `sheet` attacks `target` in `phase`, or None if it can: a rule the unit cannot
    use at all is said so before the phase it is used in (a trial was sent to add --melee, then told the unit lacks
    the ability)."""
    if rule.ability and rule.ability.lower() not in (a.lower() for a in sheet.abilities):
        return (f"{rule.name} works only for units with that ability; {sheet.name} does not have it "
                f"(its abilities: {', '.join(sheet.abilities) or 'none'})")
    if rule.attacker and not rule.attacker.passes(sheet.unit_keywords):
        role = {"attacker": "is used by", "marked": "helps the attacks of", "suppressed": "can only hamper",
                "target": "needs the attacker to be"}[rule.situation]
        return (f"{rule.name} {role} {rule.attacker.describe()}; the attacking unit ({sheet.name}) has "
                f"{_keyword_list(sheet.unit_keywords)}")
    if rule.target and not rule.target.passes(target.keywords):
        role = "is used by" if rule.situation == "target" else "applies only to attacks against"
        return f"{rule.name} {role} {rule.target.describe()}; the target has {_keyword_list(target.keywords)}"
    if rule.phase not in ("either", phase):
        fix = "add --melee" if rule.phase == "fight" else "leave out --melee"
        return f"{rule.name} is used in {PHASE_NAMES[rule.phase]}; {fix}"
    return _situation_problem(rule, context)


def defended(unit: TargetUnit, firings: Sequence[Firing],
             context: Context | None = None) -> tuple[list[Firing], Target, list[str]]:
    """Weapons alone (no attacking datasheet: a standard attacker, a profile) at a unit named by its datasheet:
    the firings and the target after the abilities read from its text and its Leader's "while leading" ones,
    checked as in `unit_attack` (each firing's phase and situation, else `context`, the query's), and a header
    line for each ability."""
    sides = text_in_force.target_sides(unit.target, unit.sheet, unit.leaders, library().rules, unit.carried)
    out, lines, targets = [], [], []
    for firing in firings:
        phase = "fight" if firing.weapon.melee else "shooting"
        situation = firing.context or context or Context()
        rules, said, _ = text_in_force.in_force(sides, {}, set(), phase,
                                             functools.partial(_situation_problem, context=situation),
                                             asks="`mathhammer unit`, a unit attacking it",
                                             edition=situation.rules.definition)
        lines += [line for line in said if line not in lines]
        [(weapon, own)], target, _ = apply_modifiers(rules, [firing.weapon], unit.target, situation)
        out.append(attrs.evolve(firing, weapon=weapon, context=own) if rules else firing)
        targets += [target] if target not in targets else []
    if len(targets) > 1:  # one attack has one target: its models cannot differ from one weapon to the next
        raise MathhammerError(f"the abilities of {unit.label} change its models for some of these weapons only (one "
                              "phase, or one situation): ask about those weapons apart")
    return out, targets[0] if targets else unit.target, lines


def _given(name: str, rules: Mapping[str, NamedRule], aliases: Mapping[str, str],
           sheets: Sequence[Datasheet | None], attacking: int) -> NamedRule:
    """The named rule --with `name` asks for; an ability a datasheet of the question lists that nothing reads is
    refused as such, not as an unknown name (Voice of the Triarch: the Silent King's, an aura with options); an unknown
    name is answered with the names whose words it starts that --with applies: rules/'s, and the abilities read of
    `sheets` (the attacker's first `attacking` ones, then the target's) for their side's attacks."""
    try:
        return find(name, rules, "ability or stratagem", aliases)
    except MathhammerError as unknown:
        listed = next(((sheet.name, a) for sheet in sheets if sheet is not None for a in sheet.abilities
                       if normalise(a) == normalise(name)), None)
        if listed is None:  # a name its words start ('damaged', 'oath'): the abilities --with applies that hold them
            side = ["attacker"] * attacking + ["target"] * (len(sheets) - attacking)  # its sheets, then the target's
            held = dict.fromkeys([*(f"'{a.name}' (an ability of {sheet.name})" for sheet, role in zip(sheets, side)
                                    if sheet is not None for a in sheet.read_rules
                                    if any(r.rule.situation == role for r in a.readings)
                                    and starts_words(a.name, normalise(name).split())),
                                  *(f"'{key}'" for key, rule in rules.items()
                                    if starts_words(rule.name, normalise(name).split()))])
            if held:
                raise MathhammerError(f"unknown ability or stratagem {name!r}; did you mean {' or '.join(held)}? "
                                      "(--with takes a name whole)") from None
            raise unknown from None
        raise MathhammerError(f"{listed[1]} is an ability of {listed[0]} that this program does not read (its text is "
                              "not understood here): --with cannot apply it") from None


def _uncarried(rule: NamedRule, carried: Collection[str]) -> str | None:
    """Why a rule for the attacks of some weapons only (by name) changes nothing: the attacking models (and their
    Leader) carry none of them in this loadout (a Lokhust Heavy Destroyer's rule for its gauss destructor, where it
    carries an enmitic exterminator); None if they carry one, or the rule names none."""
    named = rule.effect.weapon_names
    if rule.situation != "attacker" or not named or any(rule.effect.names_weapon(item) for item in carried):
        return None
    return f"{rule.name} is for the attacks of the {' or '.join(named)} only, and no model here carries one"


def _situation_problem(rule: NamedRule, context: Context) -> str | None:
    """Why `rule` is not in force in the situation `context` states, or None."""
    for flag in rule.requires:
        if not getattr(context, flag):
            return f"{rule.name} applies only when {FLAG_WORDS[flag]}; add {FLAG_OPTION[flag]}"
    for flag in rule.excludes:
        if getattr(context, flag):
            return f"{rule.name} cannot be used when {FLAG_WORDS[flag]} ({FLAG_OPTION[flag]})"
    return None


def _check_counts(rules: Sequence[NamedRule], own: set[str]) -> None:
    """The same rule twice (unless it says it may be), and more Orders than the unit may have."""
    for key, n in Counter(r.key for r in rules).items():
        rule = next(r for r in rules if r.key == key)
        if n > 1 and not rule.repeatable:
            if key in own:
                raise MathhammerError(f"{rule.name} is already in force: the attacking unit's datasheet or "
                                      "wargear gives it; leave out --with")
            raise MathhammerError(f"{rule.name} is given {n} times; it is used once in a query")
    orders = [r.name for r in rules if r.kind == "order"]
    allowed = max([r.effect.orders for r in rules] + [1])
    if len(orders) > allowed:
        more = "" if allowed > 1 else " (a command rod in --loadout allows two different ones)"
        raise MathhammerError(f"a unit is affected by {allowed} Order{'s' if allowed > 1 else ''} at a time, "
                              f"got {', '.join(orders)}{more}")


def group_label(target: Target, index: int) -> str:
    """A target model group as the answer names it: numbered from 1, with its model name if it has one."""
    name = target.groups[index][0].name
    return f"group {index + 1}" + (f" ({name})" if name else "")


def allocation_order(numbers: Sequence[int] | None, target: Target) -> tuple[int, ...] | None:
    """The group indices (from 0, as `attack` takes them) of an --order given by group numbers (from 1, as
    the answer lists them); every group once."""
    if numbers is None:
        return None
    groups = len(target.groups)
    if sorted(numbers) != list(range(1, groups + 1)):
        raise MathhammerError(f"--order lists each of the target's model groups once, numbered 1 to {groups}, "
                              f"got {','.join(map(str, numbers))}")
    order = tuple(number - 1 for number in numbers)
    early = [g for at, g in enumerate(order) if target.groups[g][0].character
             and any(not target.groups[later][0].character for later in order[at + 1:])]
    if target.attached and early:
        raise MathhammerError(f"--order puts {group_label(target, early[0])} before a bodyguard: an Attached unit's "
                              "CHARACTER models take wounds only once its bodyguards are destroyed (Precision "
                              "aside: --precision-on); list them last")
    return order


def order_line(target: Target, order: Sequence[int] | None) -> list[str]:
    """The header line naming an allocation order chosen by the defender (none for the default)."""
    return [] if order is None else ["allocation order: " + ", then ".join(group_label(target, i) for i in order)]


def _group(text: str, target: Target, what: str) -> int:
    """The index of a target model group given by number (from 1, as the answer lists them) or by model name."""
    names = {p.name.lower(): i for i, (p, _) in enumerate(target.groups) if p.name}
    key = text.strip().lower()
    if key.isascii() and key.isdigit() and 1 <= int(key) <= len(target.groups):
        return int(key) - 1
    if key in names:
        return names[key]
    known = [f"{i + 1}" + (f" ({p.name})" if p.name else "") for i, (p, _) in enumerate(target.groups)]
    raise MathhammerError(f"{what}: no target model group {text!r} (groups: {', '.join(known)})")


@attrs.frozen
class Plan:
    """Everything a unit query resolves: the firings, the target and the situation."""

    firings: tuple[Firing | MortalWounds, ...]
    target: Target
    context: Context


def _plan(rules: Sequence[NamedRule], shots: Volley, target: Target, context: Context,
          half_range_for: set[str], apart: Sequence[tuple[Attacks, NamedRule]] = ()) -> Plan:
    """The named rules' effects on the volley, the target and the situation; the rules `apart` change the attacks
    of their owners only (`Volley.owners`), none of them the target."""
    weapons = [w for w, _, _ in shots.weapons]
    situated, changed, context = apply_modifiers(rules, weapons, target, context)
    firings: list[Firing | MortalWounds] = [
        MortalWounds(r.effect.mortal_wounds.dice, r.effect.mortal_wounds.success, r.name)
        for r in [*rules, *(rule for _, rule in apart)] if r.effect.mortal_wounds]
    for weapon, (situated_weapon, own), (_, n, bearer), whose in zip(weapons, situated, shots.weapons, shots.owners):
        theirs = [*rules, *(rule for owner, rule in apart if owner in (whose, (whose[0], "")))]  # (unit, ""): all
        if len(theirs) > len(rules):  # against the target as the whole unit's rules leave it, as above
            [(situated_weapon, own)], _, _ = apply_modifiers(theirs, [weapon], target, context)
        if base_name(situated_weapon) in half_range_for:
            own = attrs.evolve(own, half_range=True)
        for rule in theirs:
            bearer = improved_bearer(bearer, rule.effect) if bearer is not None else None
        firings.append(Firing(situated_weapon, n, own, bearer))
    return Plan(tuple(firings), changed, context)


def _nothing_changed(rule: NamedRule, weapons: Sequence[Weapon], target: Target) -> str:
    effect = rule.effect
    if not any(effect.affects(w) for w in weapons):
        if any(attrs.evolve(effect, excluding=()).affects(w) for w in weapons):  # each one of those it leaves out
            return f"{rule.name} changes nothing here: every weapon this unit attacks with is one it leaves out " \
                   f"({effect.describe()})"
        kinds = "melee" if weapons[0].melee else "ranged"
        return f"{rule.name} changes nothing here: it affects {effect.weapons} weapons, and this unit attacks " \
               f"with {kinds} weapons"
    if effect.wound_modifier_if_weaker:
        return f"{rule.name} changes nothing here: no weapon's Strength is below the target's Toughness " \
               f"({target.toughness})"
    return f"{rule.name} changes nothing here: {effect.describe()} is already in force or cannot change these attacks"


def rules_in_force(sheet: Datasheet, given: Sequence[NamedRule], own: Sequence[NamedRule], target: Target,
                   phase: str, context: Context,
                   target_lists: Collection[str] = ()) -> tuple[list[NamedRule], list[str]]:
    """The rules that apply, and a line for each of the unit's own rules (datasheet, wargear) that
    its scope leaves out. A rule given by the user that does not apply is refused; an army rule's part for attacks
    against a unit that lists it (given by its key: `waaagh-invulnerable`), where the target's datasheets do not
    (`target_lists`, their abilities)."""
    for rule in given:
        if rule.kind == "wargear":
            raise MathhammerError(f"{rule.name} is wargear: choose it in --loadout, not --with")
        if rule.listed and rule.situation == "target" and normalise(rule.name) not in map(normalise, target_lists):
            raise MathhammerError(f"{rule.name} is an army rule of the units whose datasheets list it, and this part "
                                  f"of it is for attacks against one: the target does not list it")
    _check_counts([*own, *given], {r.key for r in own})
    in_force, lines = [], []
    for rule in own:
        problem = scope_problem(rule, sheet, target, phase, context)
        if problem:
            lines.append(f"not in force: {problem}")
        else:
            in_force.append(rule)
    for rule in given:
        problem = scope_problem(rule, sheet, target, phase, context)
        if problem:
            raise MathhammerError(problem)
        in_force.append(rule)
    return in_force, lines


def _half_range(names: Sequence[str], shots: Volley, context: Context) -> tuple[set[str], list[str]]:
    """The weapons (by name) within half range when the others are not."""
    wanted = {name.strip().lower() for name in names}
    if not wanted:
        return wanted, []
    if context.half_range:
        raise MathhammerError("--half-range puts every weapon within half range; leave it out to name weapons "
                              "with --half-range-for")
    fired = {base_name(w) for w, _, _ in shots.weapons}
    for name in wanted - fired:
        find(name, {f: f for f in fired}, "weapon attacking in this query")
    return wanted, [f"within half range: {', '.join(sorted(wanted))}; other weapons are not"]


def _covered(groups: Sequence[str], target: Target, context: Context, melee: bool) -> tuple[Target, list[str]]:
    """The target with the Benefit of Cover for the model groups named."""
    if not groups:
        return target, []
    if context.cover:
        raise MathhammerError("--cover gives the whole target the Benefit of Cover; leave it out to name "
                              "model groups with --cover-for")
    if melee:
        raise MathhammerError("the Benefit of Cover only helps against ranged attacks; leave out --cover-for "
                              "with --melee")
    covered = sorted({_group(text, target, "--cover-for") for text in groups})
    if context.rules.definition.cover is Cover.SKILL and len(covered) < len(target.groups):
        raise MathhammerError(f"in the {context.rules.definition.ordinal} edition the Benefit of Cover worsens the "
                              "attacker's BS (docs/rules.md), for the whole unit: give --cover, not --cover-for "
                              "some of its groups")
    target = attrs.evolve(target, groups=tuple((attrs.evolve(p, cover=True) if i in covered else p, n)
                                               for i, (p, n) in enumerate(target.groups)))
    return target, ["Benefit of Cover: " + ", ".join(group_label(target, i) for i in covered)]


def _precision(plan: Plan, order: Sequence[int] | None, precision: bool,
               precision_on: str | None) -> tuple[Plan, Sequence[int] | None, list[str]]:
    """Precision taken (said, where it aims at an Attached target's CHARACTER models), declined (the weapons lose it),
    or aimed at one leader (first among the leaders): of the weapons as the rules in force leave them (a rule may
    give Precision)."""
    if precision and not precision_on:
        characters = [g for g, (profile, _) in enumerate(plan.target.groups) if profile.character]
        if not (plan.target.attached and characters
                and any(f.weapon.precision for f in plan.firings if isinstance(f, Firing))):
            return plan, order, []
        if plan.context.rules.definition.precision_one_group:
            ordered = order if order is not None else default_order(plan.target)
            leader = next(g for g in ordered if g in characters)
            goes = f"to {group_label(plan.target, leader)} until it is destroyed"
            if len(characters) > 1:  # the attacker's choice among them: said (a trial found it taken unsaid)
                return plan, order, [f"Precision taken: its wounds go {goes}, the first CHARACTER group in the "
                                     "allocation order (--precision-on GROUP aims it at another; --no-precision "
                                     "declines it)"]
        else:
            goes = f"to {' and '.join(group_label(plan.target, g) for g in characters)} while one lives"
        return plan, order, [f"Precision taken: its wounds go {goes} (--no-precision declines it)"]
    if not any(f.weapon.precision for f in plan.firings if isinstance(f, Firing)):
        raise MathhammerError("no weapon attacking in this query has PRECISION")
    if not precision:
        if precision_on:
            raise MathhammerError("--no-precision declines Precision; it cannot go with --precision-on")
        declined = tuple(attrs.evolve(f, weapon=attrs.evolve(f.weapon, precision=False)) if isinstance(f, Firing)
                         else f for f in plan.firings)
        return attrs.evolve(plan, firings=declined), order, [
            "Precision declined: wounds are allocated as for any other attack"]
    assert precision_on is not None
    target = plan.target
    leader = _group(precision_on, target, "--precision-on")
    if not (target.attached and target.groups[leader][0].character):
        raise MathhammerError("--precision-on names a CHARACTER model group of an Attached target")
    chosen = [g for g in (order if order is not None else default_order(target)) if g != leader]
    first = next((i for i, g in enumerate(chosen) if target.groups[g][0].character), len(chosen))
    chosen.insert(first, leader)
    return plan, chosen, [f"Precision wounds go to {group_label(target, leader)} first"]


def attached_leaders(led_by: Leaders, sheet: Datasheet, rules_dir: str | Path | None = None,
                     loadout: Sequence[str] = (), size: int | None = None) -> tuple[Datasheet, ...]:
    """The Leaders attached to the attacking unit of `size` models (default: its smallest): CHARACTERs whose
    datasheets allow each to lead the unit, and them to lead it together (`together_problem`: a bodyguard's leave
    may ask a size), with the wargear `loadout` chooses for them (`fielded_leaders`)."""
    leaders = tuple(one if isinstance(one, Datasheet) else find_datasheet(one, rules_dir, near=sheet)
                    for one in written_leaders(led_by))
    for leader in leaders:
        if "CHARACTER" not in leader.unit_keywords:
            raise MathhammerError(f"--led-by names a CHARACTER that leads the unit; {leader.name} is not one")
        problem = leading_problem(leader, sheet)
        if problem:
            raise MathhammerError(problem)
    problem = together_problem(leaders, sheet, size)
    if problem:
        raise MathhammerError(problem)
    return fielded_leaders(leaders, loadout)


def led_sizes(sheet: Datasheet, led_by: Leaders, rules_dir: str | Path | None = None) -> tuple[int, ...]:
    """The sizes of the unit `sheet` at which the Leaders `led_by` may lead it (Boyz take a Warboss and a Painboy at
    20 models, not at 10): what `--need` tries; refused as at its smallest size where there is none."""
    allowed, refused = [], None
    for size in sheet.allowed_sizes():
        try:
            attached_leaders(led_by, sheet, rules_dir, size=size)
        except MathhammerError as problem:
            refused = refused or problem
            continue
        allowed.append(size)
    if refused is not None and not allowed:
        raise refused
    return tuple(allowed)


def _led(leader: Datasheet, melee: bool, pistols: bool, context: Context, profiles: Sequence[str],
         granted: Collection[str] = ()) -> tuple[Volley | None, list[str]]:
    """What a Leader attacks with beside its unit, and the header lines that say so."""
    own = [p for p in profiles if any(p.strip().lower() in leader.kind_of(w, melee) for w in leader.weapons)]
    notes = [f"note ({leader.name}): {note}" for note in leader.notes_for()]  # its kinds of model's too
    try:
        shots = volley(leader, (), None, melee, pistols, context.advanced, own, unseen=context.indirect,
                       stationary=context.stationary, granted=granted)
    except MathhammerError as exc:  # nothing it may use here (after Advancing, unseen): its unit still attacks
        return None, [f"led by {leader.name} ({leader.faction}): it attacks with nothing here ({exc})", *notes]
    fired = ", ".join(f"{n} x {w.name}" for w, n, _ in shots.weapons)
    lines = [f"led by {leader.name} ({leader.faction}): {fired} attack with the unit"]
    return shots, lines + notes


def _size_line(sheet: Datasheet, size: int | None) -> list[str]:
    """The header line saying the unit's size was not given and which was taken, where it could be others."""
    taken = sheet.smallest_taken() if size is None else ""
    return [f"attacker: {taken}"] if taken else []


@attrs.frozen
class PlannedAttack:
    """A unit's attack worked out up to the dice: what attacks, against which target, in which situation, with the
    rules in force and the header's lines (`planned_attack`); `unit_attack` resolves it."""

    sheet: Datasheet
    plan: Plan
    order: tuple[int, ...] | None
    rules: tuple[NamedRule, ...]  #: the named rules in force, those for some of the attacks only too
    situation: tuple[str, ...]
    leaders: tuple[Datasheet, ...]


def unit_attack(
    attacker: str | Datasheet,
    target: Target | TargetUnit,
    loadout: Sequence[str] = (),
    size: int | None = None,
    modifiers: Sequence[str | NamedRule] = (),
    context: Context | None = None,
    melee: bool = False,
    pistols: bool = False,
    profiles: Sequence[str] = (),
    exact: bool = False,
    order: Sequence[int] | None = None,
    insane_bravery: bool = False,
    *,
    half_range_for: Sequence[str] = (),
    cover_for: Sequence[str] = (),
    precision: bool = True,
    precision_on: str | None = None,
    without: Sequence[str] = (),
    rules_dir: str | Path | None = None,
    led_by: Leaders = None,
    led_by_loadout: Sequence[str] = (),
) -> UnitReport:
    """A datasheet unit (by name) attacks `target` with its loadout under named rules (`planned_attack` says how
    each argument is read), resolved exactly; `insane_bravery` passes the target's Battle-shock test."""
    planned = planned_attack(attacker, target, loadout, size, modifiers, context, melee, pistols, profiles, order,
                             half_range_for=half_range_for, cover_for=cover_for, precision=precision,
                             precision_on=precision_on, without=without, rules_dir=rules_dir, led_by=led_by,
                             led_by_loadout=led_by_loadout)
    plan = planned.plan
    result = attack(list(plan.firings), plan.target, context=plan.context, exact=exact, order=planned.order)
    if insane_bravery and result.p_battle_shocked is not None:
        result = attrs.evolve(result, p_battle_shocked=0 * result.p_below_half)
    fired = tuple(f for f in plan.firings if isinstance(f, Firing))
    ordered = ("weapons resolved in the order listed (the attacker's choice; `mathhammer plan` ranks orders)",) \
        if len(fired) > 1 else ()  # the attacker chooses the order: say which was taken
    return UnitReport(planned.sheet.name, result, fired, planned.rules, (*planned.situation, *ordered), plan.context,
                      planned.leaders)


MOST_PROFILE_CHOICES = 16  #: combinations of weapon profiles `with_best_profiles` tries (no BSData unit has more)


class TooManyChoices(Exception):
    """More than MOST_PROFILE_CHOICES combinations of profiles to choose among."""


def with_best_profiles(attacker: Datasheet, target: Target | TargetUnit, size: int | None = None,
                       context: Context | None = None, melee: bool = False) -> UnitReport:
    """`unit_attack` with each weapon of several profiles (of those that attack in this phase) firing the profile
    whose combination deals `target` the most expected damage, the first on a tie (the one a unit's answer alone
    takes), and the profiles that fired said in the header (a matchup's or a sweep's answer: a trial found krak
    missiles left unfired at a Land Fortress, blast profiles fired instead). A combination is asked as `--profile`
    asks it (a name two weapons share picks it for both). Beyond MOST_PROFILE_CHOICES combinations, each weapon's
    first profile, and the header says so."""
    def answer(profiles: Sequence[str] = ()) -> UnitReport:
        return unit_attack(attacker, target, size=size, context=context, melee=melee, profiles=profiles)

    first = answer()
    try:
        best, several = best_profiles(first, [attacker], answer, melee)
    except TooManyChoices:
        return attrs.evolve(first, situation=(*first.situation, "each weapon fires its first profile (more than "
                                              f"{MOST_PROFILE_CHOICES} combinations of profiles to choose among)"))
    chosen = ", ".join(dict.fromkeys(f.weapon.name for f in best.firings if base_name(f.weapon) in several))
    if not chosen:
        return best
    said = [line for line in best.situation if " used (its other profiles: " not in line]  # (the first's: chosen)
    return attrs.evolve(best, situation=(*said, f"profiles chosen for the most expected damage against this target: "
                                                f"{chosen}"))


WORTH_SAYING = 1.01  #: how many times the expected damage of the first profiles another choice must deal to be named
ALTERNATIVES_SHARE = 0.5  #: the part of the limits the other choices of profiles may take together, beside the answer


def with_better_profiles_said(report: UnitReport, attacker: Datasheet, answer: Callable[[Sequence[str]], UnitReport],
                              melee: bool = False) -> UnitReport:
    """`report`, the answer with each weapon's first profile, with a line that names the weapons (its Leaders'
    too) whose other profiles deal the target more expected damage (WORTH_SAYING times as much at least), where
    some do (a trial's Devastators fired frag missiles at a tank, the answer saying only that krak was another
    profile). `answer` asks the same question with other profiles. The other choices take ALTERNATIVES_SHARE of
    the limits at most; beyond it, or beyond MOST_PROFILE_CHOICES of them, nothing is said. (Where a question may
    take only part of the limits, `limits.share`, they count with its queries: too large, the question is asked
    where it may take them all, so that it is answered alike everywhere.)"""
    try:
        with contextlib.nullcontext() if partial() else share(ALTERNATIVES_SHARE):
            best, several = best_profiles(report, [attacker, *report.leaders], answer, melee)
    except TooLarge:
        if partial():
            raise  # beyond this place's share of the limits: asked elsewhere
        return report
    except TooManyChoices:
        return report
    if best.result.damage.mean <= report.result.damage.mean * WORTH_SAYING:
        return report
    fired = {f.weapon.name for f in report.firings}
    other = [f.weapon for f in best.firings if base_name(f.weapon) in several and f.weapon.name not in fired]
    chosen = ", ".join(dict.fromkeys(w.name + (" [HAZARDOUS]" if w.hazardous else "") for w in other))
    line = (f"profiles that deal this target more: {chosen} (mean damage {float(best.result.damage.mean):.3f}, "
            f"against {float(report.result.damage.mean):.3f} with the first profiles; choose with --profile)")
    said = report.situation
    at = 1 + max((i for i, other in enumerate(said) if " used (its other profiles: " in other), default=len(said) - 1)
    return attrs.evolve(report, situation=(*said[:at], line, *said[at:]))  # below the lines naming the profiles


def best_profiles(first: UnitReport, sheets: Sequence[Datasheet], answer: Callable[[Sequence[str]], UnitReport],
                  melee: bool = False) -> tuple[UnitReport, dict[str, list[str]]]:
    """The answer (`answer` asks it with the profiles given) in which each weapon of several profiles that fires in
    `first` (the answer with each weapon's first profile; `sheets`: the attacking unit's datasheet and its Leaders')
    fires the profile whose combination deals the target the most expected damage, `first` on a tie, and those
    weapons' profiles by weapon. Beyond MOST_PROFILE_CHOICES combinations, TooManyChoices."""
    several: dict[str, list[str]] = {}
    for weapon in dict.fromkeys(base_name(f.weapon) for f in first.firings):
        for sheet in sheets:
            if len(profiles := list(sheet.kind_of(weapon, melee))) > 1:
                several.setdefault(weapon, profiles)
    choices = list(itertools.islice(itertools.product(*several.values()), MOST_PROFILE_CHOICES + 1))
    if len(choices) > MOST_PROFILE_CHOICES:
        raise TooManyChoices
    best = first  # the first choice: each weapon's first profile
    tried = {tuple(sorted(f.weapon.name for f in first.firings))}
    for choice in choices[1:]:
        try:
            report = answer(list(dict.fromkeys(choice)))
        except TooLarge:
            raise  # beyond this place's share of the limits: asked elsewhere (`sweep.queries.answer`)
        except MathhammerError:  # a choice this loadout cannot fire
            continue
        fired = tuple(sorted(f.weapon.name for f in report.firings))
        if fired in tried:  # the same profiles fired as a choice before
            continue
        tried.add(fired)
        if report.result.damage.mean > best.result.damage.mean * (1 + 1e-12):  # the first on a tie, float noise apart
            best = report
    return best, several


def planned_attack(
    attacker: str | Datasheet,
    target: Target | TargetUnit,
    loadout: Sequence[str] = (),
    size: int | None = None,
    modifiers: Sequence[str | NamedRule] = (),
    context: Context | None = None,
    melee: bool = False,
    pistols: bool = False,
    profiles: Sequence[str] = (),
    order: Sequence[int] | None = None,
    *,
    half_range_for: Sequence[str] = (),
    cover_for: Sequence[str] = (),
    precision: bool = True,
    precision_on: str | None = None,
    without: Sequence[str] = (),
    rules_dir: str | Path | None = None,
    led_by: Leaders = None,
    led_by_loadout: Sequence[str] = (),
) -> PlannedAttack:
    """A datasheet unit (by name) attacking `target` with its loadout under named rules, worked out up to the dice.

    `half_range_for` names weapons within half range when the others are not; `cover_for` names
    target model groups (numbered from 1, as the answer lists them, or by model name) that have the
    Benefit of Cover; `order` is the defender's allocation order as 0-based group indices, as for
    `attack`; `precision=False` declines Precision, `precision_on` sends Precision wounds to that
    CHARACTER group (numbered from 1, or by model name) first;
    `target` is a profile, or a unit named by its datasheet (`units.by_name.target_unit`), whose abilities read
    from text, and its attached Leader's "while leading" ones, apply to the attacks against it;
    `without` leaves out abilities of either unit (read from text) or the attacker's own named rules;
    `rules_dir` layers a user's rules folder over the shipped one (default: $MATHHAMMER_RULES);
    `led_by` attaches Leaders (CHARACTER datasheets that can lead this unit, together where there are two), whose
    weapons attack with the unit's, as `led_by_loadout` chooses them (`fielded_leaders`).
    """
    data = library(rules_dir)
    sheet = attacker if isinstance(attacker, Datasheet) else find_datasheet(attacker, rules_dir)
    leaders = attached_leaders(led_by, sheet, rules_dir, led_by_loadout, size)
    named_target = target if isinstance(target, TargetUnit) else TargetUnit(target, "")
    target = attacked = named_target.target
    context, edition_notes = in_edition(context or Context(), sheet, *leaders, named_target.sheet,
                                        *named_target.leaders)
    edition_lines = list(edition_notes)
    aliases = {r.name: k for k, r in data.rules.items()}
    phase = "fight" if melee else "shooting"
    equipped = sheet.equip(loadout, size)
    sides = text_in_force.sides(sheet, size, target, named_target.sheet, named_target.leaders, data.rules, equipped,
                                named_target.carried)
    sides += [text_in_force.Side("attacker", text_in_force.abilities(leader, data.rules,  # its "while leading"
                                                                     text_in_force.default_wargear(leader)),
                                 leader.counts(),  # abilities are the whole unit's, its others its own attacks'
                                 leading=True, models=tuple(m.profile for m in leader.models), unit=leader.name)
              for leader in leaders]
    named, claimed = text_in_force.claim(modifiers, sides, data.rules)
    question = [sheet, *leaders, named_target.sheet, *named_target.leaders]
    given = [m if isinstance(m, NamedRule) else _given(m, data.rules, aliases, question, 1 + len(leaders))
             for m in named]
    carried = {item for _, gear in equipped for item in gear}
    own = [data.rules[key] for key in sheet.always]
    own += [data.rules[key] for item in sorted(carried) for key in sheet.wargear.get(item, ())]
    stealth_lines = []
    if any(normalise(w) == normalise("Stealth") for w in without) and all("STEALTH" in p.keywords
                                                                        for p, _ in target.groups):
        # the target's models' keyword, which the engine applies (a trial found it applied where --without said it
        # was left out): the keyword goes, whether or not a rule of that name is listed
        target = attacked = attrs.evolve(target, groups=tuple(
            (attrs.evolve(p, keywords=tuple(k for k in p.keywords if k != "STEALTH")), n) for p, n in target.groups))
        without = [w for w in without if normalise(w) != normalise("Stealth")]
        stealth_lines = ["not applied: Stealth (left out with --without)"]
    dropped = text_in_force.left_out(without, sides, own)
    own, dropped_lines = text_in_force.keep(own, dropped)
    dropped_lines += stealth_lines
    listing = [a for s in (named_target.sheet, *named_target.leaders) if s is not None for a in s.abilities]
    in_force, left_out = rules_in_force(sheet, given, own, target, phase, context, listing)
    weapons_carried = carried | {item for leader in leaders for _, gear in leader.equip(()) for item in gear}
    read, read_lines, apart = text_in_force.in_force(
        sides, claimed, dropped, phase, lambda rule: _uncarried(rule, weapons_carried) or scope_problem(
            rule, sheet, attacked, phase, context), given, edition=context.rules.definition,
        damage_option=context.reroll_damage)
    kinds_apart = {kind for (unit, kind), _ in apart if unit == sheet.name}
    granted = {ability for rule in (*in_force, *read) if rule.situation == "attacker" and not rule.models
               and not rule.effect.weapon_names and not rule.effect.excluding
               and rule.effect.weapons in ("all", "ranged")
               for ability in rule.effect.abilities}  # every model's every ranged weapon's
    def has(unit: Datasheet, wanted: str) -> bool:
        return any(wanted.strip().lower() in unit.kind_of(name, melee) for name in unit.weapons)
    # a profile of a Leader's weapon alone is the Leader's to choose (a trial found Typhus's sweep refused)
    unit_profiles = [p for p in profiles if has(sheet, p) or not any(has(leader, p) for leader in leaders)]
    try:
        shots = volley(sheet, loadout, size, melee, pistols, context.advanced, unit_profiles, kinds_apart,
                       unseen=context.indirect, stationary=context.stationary, granted=granted)
    except MathhammerError as exc:  # say what the datasheet left out, if that is why nothing attacks
        if not sheet.notes_for(loadout, size):
            raise
        raise MathhammerError(f"{exc} ({'; '.join(sheet.notes_for(loadout, size))})") from None
    led_lines = []
    for leader in leaders:
        beside, lines = _led(leader, melee, pistols, context, profiles, granted)
        led_lines += lines
        if beside is not None:
            shots = Volley(shots.weapons + beside.weapons, shots.chosen + beside.chosen, shots.owners + beside.owners)
    near, near_lines = _half_range(half_range_for, shots, context)
    target, cover_lines = _covered(cover_for, target, context, melee)
    order_lines = order_line(target, order)

    applied = in_force + read
    plan = _plan(applied, shots, target, context, near, apart)
    for rule in given:  # a rule that changes nothing is refused, not silently accepted
        others = list(applied)
        others.remove(rule)
        if _plan(others, shots, target, context, near, apart) == plan:
            raise MathhammerError(_nothing_changed(rule, [w for w, _, _ in shots.weapons], target))
    plan, order, precision_lines = _precision(plan, order, precision, precision_on)
    situation = led_lines + [rule.header(context.rules.definition) for rule in in_force] + read_lines + dropped_lines \
        + left_out
    situation += near_lines + cover_lines + order_lines
    taken = [f"attacker: {sheet.kinds_taken(size)}"] if sheet.kinds_taken(size) and not loadout else []
    situation += precision_lines + _size_line(sheet, size) + taken + list(shots.chosen)
    situation += [f"note: {note}" for note in sheet.notes_for(loadout, size)]  # inferred or left out reading it
    situation += edition_lines
    situation += named_target.notes

    return PlannedAttack(sheet, plan, None if order is None else tuple(order), (*applied, *(rule for _, rule in apart)),
                         tuple(situation), leaders)

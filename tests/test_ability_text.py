"""Datasheet abilities read from their text (catalogue.ability_text) and applied by a unit query
(data.text_in_force), on sentences written for these tests in the style of datasheets (no publisher
text). Every expected value is derived by hand in the comment beside it."""

from __future__ import annotations

import gc
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from mathhammer_exact import Context, MathhammerError, Target, Weapon
from mathhammer_exact.catalogue import build, index
from mathhammer_exact.catalogue.abilities import invulnerable, with_conversion_range
from mathhammer_exact.catalogue.ability_clauses import CRITICAL_ONLY
from mathhammer_exact.catalogue.ability_text import (
    DAMAGED,
    OWN_MORTALS,
    TARGETED_ONLY,
    conditional_defence,
    read_abilities,
    read_ability,
)
from mathhammer_exact.catalogue.convert import _contained
from mathhammer_exact.cli import cli
from mathhammer_exact.data.datasheet import Datasheet, ModelEntry, TargetUnit
from mathhammer_exact.data.modifiers import Effect, NamedRule
from mathhammer_exact.data.text_in_force import Side, in_force
from mathhammer_exact.decide.firings import unit_weapons, written
from mathhammer_exact.decide.unit_attack import unit_attack, with_best_profiles
from mathhammer_exact.model import ModelProfile, Reroll
from mathhammer_exact.present.questions import plan_question, turn_question
from mathhammer_exact.units import by_name

CHECKOUT = Path(__file__).parent / "fixtures" / "bsdata_abilities"


# --------------------------------------------------------------------- the reader
def changed(effect: Effect) -> dict[str, object]:
    """The fields an effect sets (weapons only when it is not every attack)."""
    default = Effect()
    return {f.name: getattr(effect, f.name) for f in attrs.fields(Effect)
            if getattr(effect, f.name) != getattr(default, f.name)}


def readings(text: str, model: str = "") -> list[tuple]:
    """(role, scope, phase, fields, target keywords (all, any, none), options, needs) of each reading."""
    verdict = read_ability("Test Unit", "Test Ability", text, model)
    assert verdict.kind == "effects", verdict
    assert verdict.ability is not None
    out = []
    for r in verdict.ability.readings:
        rule = r.rule
        target = (rule.target.all_of, rule.target.any_of, rule.target.none_of)
        out.append((rule.situation, r.scope, rule.phase, changed(rule.effect), target, rule.requires, r.needs))
    return out


NONE: tuple = ((), (), ())
READ = [
    # weapons of a kind but those of a weapon ability ('(excluding Extra Attacks weapons)': an Enhancement an outside
    # review found unread), and an ability for weapons with a change to attacks in one sentence, read as two (it was
    # read as the Critical Hits alone: the [LETHAL HITS] before it was lost)
    ("Melee weapons equipped by the bearer (excluding Extra Attacks weapons) have the [DEVASTATING WOUNDS] ability.",
     [("attacker", "bearer", "fight", {"weapons": "melee", "excluding": ("EXTRA ATTACKS",),
                                       "abilities": ("DEVASTATING WOUNDS",)}, NONE, (), "")]),
    ("Add 1 to the Damage characteristic of melee weapons (excluding Extra Attacks weapons) equipped by models in this "
     "unit.",
     [("attacker", "unit", "fight", {"weapons": "melee", "excluding": ("EXTRA ATTACKS",), "damage_bonus": 1}, NONE,
       (), "")]),
    ("The bearer's ranged weapons (excluding Psychic weapons) have the [LETHAL HITS] ability, and each time the bearer "
     "makes a ranged attack, an unmodified Hit roll of 5+ scores a Critical Hit.",
     [("attacker", "bearer", "shooting", {"weapons": "ranged", "excluding": ("PSYCHIC",),
                                          "abilities": ("LETHAL HITS",)}, NONE, (), ""),
      ("attacker", "bearer", "shooting", {"weapons": "ranged", "critical_hit": 5}, NONE, (), "")]),
    # a Leader's: the weapons of one name of the unit it leads (Castellan Crowe's Champion of the Order of Purifiers,
    # a trial found not read)
    ("While this model is leading a unit, add 1 to the Attacks characteristic of shard weapons equipped by that unit.",
     [("attacker", "leading", "either", {"weapon_names": ("shard",), "attacks_bonus": 1}, NONE, (), "")]),
    # the weapons of the unit's own models by their keyword (Paladin Squad's Attuned Onslaught, a trial found not read):
    # each of its models' ("this model"), so a Leader joining them has it not; and 'ranged and melee weapons', all
    ("Each time this unit makes a Charge move, until the end of the turn, add 1 to the Damage characteristic of melee "
     "weapons equipped by ^^**Breaker Squad**^^ models in this unit.",
     [("attacker", "model", "fight", {"weapons": "melee", "damage_bonus": 1}, NONE, ("charged",), "")]),
    ("While a CHARACTER model is leading this unit, improve the Ballistic Skill and Weapon Skill characteristics of "
     "ranged and melee weapons equipped by BREAKER models in this unit by 1.",
     [("attacker", "model", "either", {"skill_bonus": 1}, NONE, (), "while a CHARACTER model is leading this unit")]),
    # a characteristic of this model's weapon of one name (Ragnar Blackmane's Battle-lust, a trial found not read),
    # after a charge
    ("Each time this model ends a Charge move, until the end of the turn, add 2 to the Attacks characteristics of this "
     "model’s Frostfang.",
     [("attacker", "model", "either", {"weapon_names": ("frostfang",), "attacks_bonus": 2}, NONE, ("charged",), "")]),
    # a characteristic of the weapons of one name (Target Elimination's phrasing), chosen when the unit shoots: for
    # --with, in the Shooting phase only (the sentence that says when it is used binds it to that phase); "only one
    # enemy unit as the target" is what a query of one target always is
    ("Each time this unit is selected to shoot, it can use this ability. If it does, until the end of the phase, add 2 "
     "to the Attacks characteristic of pebble rifles equipped by models in this unit and you can only select one "
     "enemy unit as the target of all of this unit's attacks.",
     [("attacker", "unit", "shooting", {"weapon_names": ("pebble rifle",), "attacks_bonus": 2}, NONE, (),
       "if it is used ('Each time this unit is selected to shoot, it can use this ability')")]),
    ("Each time this unit is selected to fight, it can use this ability. If it does, each time a model in this unit "
     "makes an attack, add 1 to the Hit roll.",
     [("attacker", "unit", "fight", {"hit_modifier": 1}, NONE, (),
       "if it is used ('Each time this unit is selected to fight, it can use this ability')")]),
    ("Each time a model in this unit makes a ranged attack that targets a Monster or Vehicle unit, you can re-roll the "
     "Hit roll and you can re-roll the Damage roll.",
     [("attacker", "unit", "shooting", {"weapons": "ranged", "reroll_hits": Reroll.FAILED,
                                        "reroll_damage": "below-average"},
       ((), ("MONSTER", "VEHICLE"), ()), (), "")]),
    ("Each time this model makes a melee attack, re-roll a Wound roll of 1.",
     [("attacker", "model", "fight", {"weapons": "melee", "reroll_wounds": Reroll.ONES}, NONE, (), "")]),
    ("Each time the bearer makes an attack that targets a ^^**Character**^^ unit, add 1 to the Wound roll.",
     [("attacker", "bearer", "either", {"wound_modifier": 1}, ((), ("CHARACTER",), ()), (), "")]),
    # a save 'and each time ...' goes on as a sentence of its own (a Wraithknight's scattershield lost its Damage -1)
    ("The bearer has a 4+ invulnerable save and each time an attack is allocated to the bearer, subtract 1 from the "
     "Damage characteristic of that attack.",
     [("target", "bearer", "either", {"reduce_damage": True}, NONE, (), "")]),
    # "that unit" is this one where the sentence before named this unit and no other (a Leader's Pain ability)
    ("In your Shooting or the Fight phase, when you select this model's unit to shoot or fight, you can spend 1 Pain "
     "token to Empower that unit. While that unit is Empowered, each time a model in that unit makes an attack, you "
     "can re-roll the Hit roll.",
     [("attacker", "unit", "either", {"reroll_hits": Reroll.FAILED}, NONE, (), "while this unit is Empowered")]),
    # the attack's Strength against the target's Toughness: the roll changes for those attacks alone
    ("Each time an attack targets this unit, if the Strength characteristic of that attack is greater than the "
     "Toughness characteristic of this unit, subtract 1 from the Wound roll.",
     [("target", "unit", "either", {"wound_modifier_against": -1, "strength_vs_toughness": "above"}, NONE, (), "")]),
    ("Each time an attack targets this unit, if the Strength characteristic of that attack is greater than this unit's "
     "Toughness characteristic, subtract 1 from the Wound roll.",  # as an army list writes the Oathband's
     [("target", "unit", "either", {"wound_modifier_against": -1, "strength_vs_toughness": "above"}, NONE, (), "")]),
    ("Each time a model in this unit makes an attack, if the Strength characteristic of that attack is less than the "
     "Toughness characteristic of the target, add 1 to the Wound roll.",
     [("attacker", "unit", "either", {"wound_modifier": 1, "strength_vs_toughness": "below"}, NONE, (), "")]),
    ("Each time a model in the bearer's unit makes an attack that targets a unit that contains one or more models with "
     "the Stealth ability, add 1 to the Hit roll.",  # the target's keywords settle it (a searchlight)
     [("attacker", "unit", "either", {"hit_modifier": 1}, ((), ("STEALTH",), ()), (), "")]),
    ("Each time a ranged attack made by a model in this unit targets a Titanic model, you can re-roll the Wound roll.",
     [("attacker", "unit", "shooting", {"weapons": "ranged", "reroll_wounds": Reroll.FAILED},
       ((), ("TITANIC",), ()), (), "")]),
    ("While this model is leading a unit, weapons equipped by models in that unit have the [SUSTAINED HITS 1] ability.",
     [("attacker", "leading", "either", {"abilities": ("SUSTAINED HITS 1",)}, NONE, (), "")]),
    ("While this model is leading a unit, add 1 to the Attacks characteristic of melee weapons equipped by models in "
     "that unit.",
     [("attacker", "leading", "fight", {"weapons": "melee", "attacks_bonus": 1}, NONE, (), "")]),
    ("Each time a model in this unit makes a melee attack, if this unit made a Charge move this turn, improve the "
     "Strength and Armour Penetration characteristics of that attack by 1.",
     [("attacker", "unit", "fight", {"weapons": "melee", "strength_bonus": 1, "ap_bonus": 1}, NONE, ("charged",), "")]),
    ("Ranged weapons equipped by models in this unit have the [LETHAL HITS] ability while targeting an enemy unit "
     "within half range.",
     [("attacker", "unit", "shooting", {"weapons": "ranged", "abilities": ("LETHAL HITS",)}, NONE, ("half_range",),
       "")]),
    ("Each time a model in this unit makes a ranged attack, an unmodified Hit roll of 5+ scores a Critical Hit.",
     [("attacker", "unit", "shooting", {"weapons": "ranged", "critical_hit": 5}, NONE, (), "")]),
    ("Each time this model makes a ranged attack that targets a ^^**Psyker Character**^^ unit, a successful "
     "unmodifed Hit roll of 4+ scores a Critical Hit.",  # markup, a misprint, and a unit with both keywords
     [("attacker", "model", "shooting", {"weapons": "ranged", "critical_hit": 4}, (("PSYKER", "CHARACTER"), (), ()),
       (), "")]),
    ("Each time a model in this unit makes a ranged attack that targets an enemy unit (excluding units that can Fly), "
     "improve the Armour Penetration characteristic of that attack by 1.",
     [("attacker", "unit", "shooting", {"weapons": "ranged", "ap_bonus": 1}, ((), (), ("FLY",)), (), "")]),
    ("Each time this model makes a ranged attack that targets a unit that can FLY, add 1 to the Hit roll and add 1 "
     "to the Wound roll.",
     [("attacker", "model", "shooting", {"weapons": "ranged", "hit_modifier": 1, "wound_modifier": 1},
       ((), ("FLY",), ()), (), "")]),
    ("Each time an attack targets this unit, subtract 1 from the Hit roll.",
     [("target", "unit", "either", {"hit_modifier": -1}, NONE, (), "")]),
    ("Each time a ranged attack targets this unit, subtract 1 from the Wound roll.",
     [("target", "unit", "shooting", {"wound_modifier_against": -1}, NONE, (), "")]),
    ("Each time an attack is allocated to a model in this unit, subtract 1 from the Damage characteristic of that "
     "attack.", [("target", "unit", "either", {"reduce_damage": True}, NONE, (), "")]),
    ("Each time an attack is allocated to this model, halve the Damage characteristic of that attack.",
     [("target", "model", "either", {"halve_damage": True}, NONE, (), "")]),
    ("Each time a melee attack targets this model, worsen the Armour Penetration characteristic of that attack by 1.",
     [("target", "model", "fight", {"worsen_ap": 1}, NONE, (), "")]),
    ("While this model is leading a unit, models in that unit have the Feel No Pain 5+ ability.",
     [("target", "leading", "either", {"feel_no_pain": 5}, NONE, (), "")]),
    ("Each time this unit Remains Stationary, until the start of your next Movement phase, ranged weapons equipped by "
     "models in this unit have the [HEAVY] ability.",
     [("attacker", "unit", "shooting", {"weapons": "ranged", "abilities": ("HEAVY",)}, NONE, ("stationary",), "")]),
    # catalogue.abilities does not read this wording into the profile, so it is applied as an effect
    ("This unit has a 5+ Feel No Pain.", [("target", "unit", "either", {"feel_no_pain": 5}, NONE, (), "")]),
    ("Each time this model ends a Charge move, until the end of the turn, its melee weapons have the [LANCE] ability.",
     [("attacker", "model", "fight", {"weapons": "melee", "abilities": ("LANCE",)}, NONE, ("charged",), "")]),
    # a second sentence goes on about the same attacks: its better re-roll holds only where it says
    ("Each time a model in this unit makes an attack, re-roll a Hit roll of 1. If the target of that attack is within "
     "range of an objective marker, you can re-roll the Hit roll instead.",
     [("attacker", "unit", "either", {"reroll_hits": Reroll.ONES}, NONE, (), ""),
      ("attacker", "unit", "either", {"reroll_hits": Reroll.FAILED}, NONE, (),
       "if the target of that attack is within range of an objective marker")]),
    ("Each time a model in this unit makes an attack, re-roll a Wound roll of 1. If the target of that attack does not "
     "have the Imperium keyword, you can re-roll the Wound roll instead.",
     [("attacker", "unit", "either", {"reroll_wounds": Reroll.ONES}, NONE, (), ""),
      ("attacker", "unit", "either", {"reroll_wounds": Reroll.FAILED}, ((), (), ("IMPERIUM",)), (), "")]),
    # a misprint of the data ('a Wound roll 1', Vanguard Predator) read as what it means
    ("Each time a model in this unit makes an attack, re-roll a Hit roll of 1. If the target is within range of one "
     "or more objective markers, re-roll a Wound roll 1 as well.",
     [("attacker", "unit", "either", {"reroll_hits": Reroll.ONES}, NONE, (), ""),
      ("attacker", "unit", "either", {"reroll_wounds": Reroll.ONES}, NONE, (),
       "if the target is within range of one or more objective markers")]),
    ("Each time this model makes an attack that targets a Vehicle unit, re-roll a Damage roll of 1 (if that attack "
     "targets a Titanic Vehicle unit, you can re-roll the Damage roll instead).",
     [("attacker", "model", "either", {"reroll_damage": "ones"}, ((), ("VEHICLE",), ()), (), ""),
      ("attacker", "model", "either", {"reroll_damage": "below-average"}, (("TITANIC", "VEHICLE"), (), ()), (), "")]),
    ("Each time a model in this unit makes an attack, add 1 to the Hit roll if this unit is below its Starting "
     "Strength, and add 1 to the Wound roll as well if this unit is Below Half-strength.",
     [("attacker", "unit", "either", {"hit_modifier": 1}, NONE, (), "if this unit is below its Starting Strength"),
      ("attacker", "unit", "either", {"wound_modifier": 1}, NONE, (), "if this unit is Below Half-strength")]),
    ("While this model has 1-3 wounds remaining, subtract 2 from its Objective Control characteristic and each time "
     "this model makes an attack, subtract 1 from the Hit roll.",
     [("attacker", "model", "either", {"hit_modifier": -1}, NONE, (), "while this model has 1-3 wounds remaining")]),
    ("Once per battle, at the start of the Fight phase, this model can use this ability. If it does, until the end of "
     "the phase, melee weapons equipped by this model have the [DEVASTATING WOUNDS] ability.",
     [("attacker", "model", "fight", {"weapons": "melee", "abilities": ("DEVASTATING WOUNDS",)}, NONE, (),
       "if it is used ('Once per battle, at the start of the Fight phase, this model can use this ability')")]),
    ("Each time a model in this unit makes a ranged attack that targets the closest eligible target, that attack has "
     "the [IGNORES COVER] ability.",
     [("attacker", "unit", "shooting", {"weapons": "ranged", "abilities": ("IGNORES COVER",)}, NONE, (),
       "if the target is the closest eligible target")]),
    # the attacks of one weapon (by name) only, with a condition after it, a target, or "against" a target
    ("Each time a model in this unit makes a melee attack with its Rock Hammer weapon, if it made a Charge move this "
     "turn, add 1 to the Damage characteristic of that attack.",
     [("attacker", "unit", "fight", {"weapons": "melee", "weapon_names": ("rock hammer weapon",), "damage_bonus": 1},
       NONE, ("charged",), "")]),
    ("Each time this model makes a ranged attack with its twin shard-cannon that targets a Monster or Vehicle unit, "
     "you can re-roll the Hit roll.",
     [("attacker", "model", "shooting", {"weapons": "ranged", "weapon_names": ("twin shard cannon",),
                                         "reroll_hits": Reroll.FAILED}, ((), ("MONSTER", "VEHICLE"), ()), (), "")]),
    ("Each time a model in this unit makes an attack with a slag fusil against a ^^**Vehicle**^^ unit, that attack "
     "has the [IGNORES COVER] ability.",
     [("attacker", "unit", "either", {"weapon_names": ("slag fusil",), "abilities": ("IGNORES COVER",)},
       ((), ("VEHICLE",), ()), (), "")]),
    # the unit's own place near friendly models: a condition of its own attacks (for --with), not an aura for others';
    # the Leadership it is given on the way is no attack's
    ("While this unit is within 9\" of one or more friendly Gravel Host Seer models, models in this unit have a "
     "Leadership characteristic of 5+ and each time a model in this unit makes an attack, add 1 to the Hit roll.",
     [("attacker", "unit", "either", {"hit_modifier": 1}, NONE, (),
       "while this unit is within 9\" of one or more friendly Gravel Host Seer models")]),
    # Ballistic and Weapon Skill improved: the skill bonus, of the kind of attack that rolls with the skill named
    ("While this model is within 6\" of a friendly Seer model, improve the Ballistic Skill and Weapon Skill "
     "characteristics of weapons equipped by this model by 1 and it has a Leadership characteristic of 5+.",
     [("attacker", "model", "either", {"skill_bonus": 1}, NONE, (),
       "while this model is within 6\" of a friendly Seer model")]),
    ("Each time a model in this unit makes an attack that targets a Vehicle unit, improve the Ballistic Skill "
     "characteristic of that attack by 1.",
     [("attacker", "unit", "either", {"weapons": "ranged", "skill_bonus": 1}, ((), ("VEHICLE",), ()), (), "")]),
    # the attack at it written with its attacker ("a model makes an attack that targets this unit"): a trial found a
    # Daemonette-like -1 to be hit not read
    ("Each time a model makes an attack that targets this unit, subtract 1 from the Hit roll.",
     [("target", "unit", "either", {"hit_modifier": -1}, NONE, (), "")]),
]


@pytest.mark.parametrize("text, expected", READ)
def test_the_reader_on_datasheet_phrasings(text, expected):
    assert readings(text) == expected


@pytest.mark.parametrize("text, kind, reason", [
    ("Models in this unit have a 5+ invulnerable save.", "profile", None),  # catalogue.abilities puts it in the profile
    ("Brakk Thane has a 4+ invulnerable save.", "profile", None),
    ("Models in this unit have the Feel No Pain 6+ ability.", "profile", None),
    # "that unit" after an enemy unit is that one, not this (an aura once read as this unit's own -1 to hit)
    ("While an enemy unit is within 3\" of this unit, each time a model in that unit makes an attack, subtract 1 "
     "from the Hit roll.", "others", None),
    ("In your Shooting phase, after this unit has shot, select one enemy unit hit by those attacks. Until the end of "
     "the phase, each time a friendly model makes an attack that targets that enemy unit, add 1 to the Hit roll.",
     "others", None),
    ("This model can move through rubble as if it were not there.", "other", None),
    ("You can re-roll Charge rolls made for this unit.", "other", None),
    ("Each time a model in this unit makes an attack with one of its rock drills, add 1 to the Hit roll.",
     "unmodelled", "attacks with one of its weapons only"),
    ("Each time this unit is selected to shoot, you can re-roll one Hit roll.", "unmodelled",
     "it names no attack this reader knows"),
    ("Select one of the following abilities:\n■ [LETHAL HITS]\n■ [PRECISION]", "unmodelled", "a choice of effects"),
    # the choices named bare, the weapons they are for in the words before them (a trial found Zephyrim's silent)
    ("Each time this unit is selected to fight, select one of the following abilities to apply to melee weapons "
     "equipped by models in this unit until the end of the phase:\n- Sustained Hits 1\n- Lethal Hits", "unmodelled",
     "a choice of effects"),
    ("Each time a ranged attack targets this model, if the Strength characteristic of that attack is 5 or less, "
     "subtract 1 from the Wound roll.", "unmodelled", "a condition on the attack's Strength"),  # S against T is read
    # the attacks that score a Critical Hit, alone among a weapon's attacks: no engine stage gives them Precision
    ("While this model is leading a unit, each time a model in that unit makes an attack, if a Critical Hit is "
     "scored, that attack has the [PRECISION] ability.", "unmodelled", CRITICAL_ONLY),
    ("Each time a model in this unit makes a ranged attack, you can ignore any or all modifiers to the Hit roll.",
     "unmodelled", "the words 'you can ignore any or all modifiers to the Hit roll' are not understood"),
    ("This model has the Feel No Pain 4+ ability against mortal wounds.", "profile", None),  # the converter reads it
    # a characteristic of some of the unit's weapons, written otherwise: named as not modelled, never dropped as
    # another unit's
    ("If a friendly Vehicle model is destroyed within 12\" of this model, until the end of the battle, this model's "
     "rock maul has an Attacks characteristic of 6.", "unmodelled",
     "a change to its weapons' characteristics this reader does not read (\"this model's rock maul has an Attacks "
     "characteristic of\")"),
    ("Each time a model affected by this ability makes an attack that targets this model's prey, you can re-roll the "
     "Wound roll.", "others", None),  # the attacks of the units it affects, at the unit this model marked
    # the attacks of any model of the army at a unit this one marked: not taken for an attack at this unit
    ("After this unit has shot, select one unit it hit. Until the end of the phase, each time a model from your army "
     "makes an attack that targets that unit, add 1 to the Hit roll.", "unmodelled",
     "it names no attack this reader knows"),
    # mortal wounds besides the attacks, as the unit charges (Bloodcrushers' Brass Stampede, a trial found unnamed)
    ("Each time this unit ends a Charge move, select one enemy unit within Engagement Range of this unit and roll one "
     "D6 for each model in this unit: for each 4+, that enemy unit suffers D3 mortal wounds.", "unmodelled",
     OWN_MORTALS),
    # ... and at the end of a phase (a Bloodthirster's Relentless Carnage, a trial found silent)
    ("At the end of the Fight phase, you can select one enemy unit within Engagement Range of this model and roll "
     "eight D6: for each 4+, that enemy unit suffers 1 mortal wound.", "unmodelled", OWN_MORTALS),
    # ... not those the unit itself suffers, choosing an enemy unit (a review found Paroxysm so named)
    ("At the start of the Fight phase, you can select one enemy unit within 12\" of and visible to this model and "
     "roll one D6: on a 1, this Psyker suffers D3 mortal wounds; on a 2+, until the end of the phase, subtract 1 from "
     "the Attacks characteristic of weapons equipped by models in that unit.", "others", None),
    # a bonus for each of several things counted (a Raider's Visions of Butchery): one bonus would be wrong
    ("While one or more Wrack units are embarked within this model, for each Wrack model embarked within this model, "
     "add 1 to the Attacks characteristic of this model's bladevanes.", "unmodelled",
     "an effect that grows with a count ('for each ...') is not read"),

    ("Each time this model makes a melee attack, improve the Ballistic Skill characteristic of that attack by 1.",
     "unmodelled", "the words 'improve the Ballistic Skill characteristic of that attack by 1' are not understood"),
    ("Each time an attack targets this unit, worsen the Weapon Skill characteristic of that attack by 1.",
     "unmodelled", "the words 'worsen the Weapon Skill characteristic of that attack by 1' are not understood"),
])
def test_what_the_reader_leaves_to_others_or_refuses(text, kind, reason):
    verdict = read_ability("Test Unit", "Test Ability", text)
    assert verdict.kind == kind
    if reason is None:
        assert verdict.ability is None
    else:
        assert verdict.ability is not None and verdict.ability.unmodelled == reason


@pytest.mark.parametrize("text", [
    "Each time a ranged attack targets this model, if the Strength characteristic of that attack is 5 or less, "
    "subtract 1 from the Wound roll.",
    "If a friendly Vehicle model is destroyed within 12\" of this model, until the end of the battle, this model's "
    "rock maul has an Attacks characteristic of 6.",
    "Each time a model in this unit makes an attack with one of its rock drills, add 1 to the Hit roll.",
])
def test_a_reason_not_to_read_an_ability_leaves_no_cycle(text):
    # an exception kept in the frame that raised it made a cycle holding every frame above it (when indexing, the
    # parsed checkout): freed only by the collector's walk of all a million objects of it
    gc.collect()
    gc.disable()
    try:
        assert read_ability("Test Unit", "Test Ability", text).kind == "unmodelled"
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_an_ability_on_the_weapons_of_one_name_waits_for_with():
    aim = ("Aimed Volley", "Each time this unit is selected to shoot, it can use this ability. If it does, until the "
                           "end of the phase, add 2 to the Attacks characteristic of guns equipped by models in this "
                           "unit.")
    # 6 attacks as printed: 6 x 1/2 x 1/2 x 5/6 = 5/4, and the header says what --with assumes
    report = unit_attack(sheet(GUN, aim), VEHICLE, exact=True)
    assert mean(report) == Fraction(5, 4)
    assert ("not applied: Aimed Volley applies only if it is used ('Each time this unit is selected to shoot, it can "
            "use this ability'); --with 'Aimed Volley' assumes it") in report.situation
    # with it: 8 attacks of the gun (10 wounds: none wasted), 8 x 5/24 = 5/3
    aimed = unit_attack(sheet(GUN, aim), VEHICLE, modifiers=["Aimed Volley"], exact=True)
    assert mean(aimed) == Fraction(5, 3)
    assert any(line.startswith("attacker has Aimed Volley (read from its text): +2 Attacks (gun only); assumed")
               for line in aimed.situation)
    # the weapons of that name alone: a pistol or a rifle of another name keeps its Attacks
    effect = Effect(attacks_bonus=2, weapon_names=("bolt rifles",))
    assert effect.weapon_names == ("bolt rifle",)
    assert [effect.affects(Weapon.parse('24" A2 BS3+ S4 AP-1 D1', name=n)) for n in
            ("Bolt Rifle", "bolt rifle (standard)", "Bolt pistol", "Heavy bolt rifle")] == [True, True, False, False]


def test_an_ability_for_weapons_but_those_of_a_weapon_ability_leaves_those_out():
    effect = Effect(weapons="melee", abilities=("DEVASTATING WOUNDS",), excluding=("EXTRA ATTACKS",))
    weapons = ("Melee A4 WS2+ S6 AP-1 D2", "Melee A1 WS2+ S6 AP-1 D2 [EXTRA ATTACKS]", '12" A1 BS2+ S6 AP-1 D2')
    assert [effect.affects(Weapon.parse(w)) for w in weapons] == [True, False, False]
    assert effect.describe() == "weapons gain DEVASTATING WOUNDS (melee weapons) (not Extra Attacks weapons)"
    # given with --with where every weapon is one it leaves out: refused as changing nothing, saying why
    rule = NamedRule(key="choppa", name="Killchoppa", kind="enhancement", source="test", summary="", phase="fight",
                     situation="attacker", effect=effect)
    klaw = sheet("Melee A2 WS2+ S6 AP-1 D2 [EXTRA ATTACKS]")
    with pytest.raises(MathhammerError) as refused:
        unit_attack(klaw, Target.parse("T4 Sv6+ W10"), modifiers=[rule], melee=True)
    assert str(refused.value) == ("Killchoppa changes nothing here: every weapon this unit attacks with is one it "
                                  "leaves out (weapons gain DEVASTATING WOUNDS (melee weapons) (not Extra Attacks "
                                  "weapons))")
    with pytest.raises(MathhammerError, match="^TITANIC: not a weapon ability a weapon has or has not"):
        Effect(excluding=("TITANIC",))
    # an aside naming no weapon ability is not taken out: the sentence stays unread, as before
    verdict = read_ability("Test Unit", "Test Ability", "Ranged weapons equipped by the bearer (excluding Titanic "
                                                        "weapons) have the [LETHAL HITS] ability.")
    assert verdict.kind == "unmodelled"
    # one that goes on about the attacks of the sentence before, but not all of them: not read, and said so
    verdict = read_ability("Test Unit", "Test Ability", "Each time this model makes a melee attack, add 1 to the Hit "
                           "roll. If it does so (excluding Extra Attacks weapons), re-roll the Wound roll.")
    assert verdict.ability is not None and "excluding" in verdict.ability.unmodelled


def test_an_ability_for_one_weapon_names_a_weapon_the_unit_has():
    # "a Torrent weapon" names a weapon ability, not one of the unit's weapons: applied, it would change nothing
    torrent = ("Pyre", "Each time a model in this unit makes a ranged attack with a Torrent weapon, re-roll a Wound "
                       "roll of 1.", "")
    kinds, unmodelled = Counter(), Counter()
    read = read_abilities("Test Unit", [torrent], kinds, unmodelled, weapons=["Slag torch", "Close combat weapon"])
    assert [(a.name, a.role, a.unmodelled) for a in read] == [
        ("Pyre", "attacker", "it names a weapon this unit does not have ('torrent weapon')")]
    assert (kinds, unmodelled) == ({"unmodelled": 1}, {"Pyre": 1})
    # a weapon of that name (plural or singular, as `loose` writes names): read
    torches = ("Pyre", torrent[1].replace("a Torrent weapon", "its slag torches"), "")
    read = read_abilities("Test Unit", [torches], Counter(), Counter(), weapons=["Slag torch"])
    assert [r.rule.effect.weapon_names for a in read for r in a.readings] == [("slag torch",)]


def test_mortal_wounds_inflicted_as_the_unit_is_destroyed_are_named_where_it_is_attacked():
    verdict = read_ability("Test Unit", "Death Vision", "Each time this model is destroyed, roll one D6: on a 4+, "
                           "select one enemy unit within 6\" of this model; that enemy unit suffers D3 mortal wounds.")
    assert verdict.ability is not None
    assert (verdict.ability.unmodelled, verdict.ability.role) == (OWN_MORTALS, "target")


def test_an_ability_for_the_attacks_of_one_kind_of_the_units_models_is_that_kinds():
    # a trial found Repentia's Overseer of Redemption not read: "each time a Sisters Repentia model in this unit makes
    # a melee attack" is the Sister Repentia models' (the Superior's whips re-roll nothing), as if written on them
    overseer = ("Overseer of Redemption", "While this unit contains a Repentia Superior model, each time a Sisters "
                "Repentia model in this unit makes a melee attack, you can re-roll the Hit roll.", "")
    [read] = read_abilities("Repentia Squad", [overseer], Counter(), Counter(),
                            models=["Sister Repentia", "Repentia Superior"])
    assert read.model == "Sister Repentia" and not read.unmodelled
    [reading] = read.readings
    assert (reading.scope, reading.needs) == ("model", "while this unit contains a Repentia Superior model")
    assert reading.rule.effect.reroll_hits is not None
    # a kind the unit does not have: not read as one, as before
    [unread] = read_abilities("Repentia Squad", [overseer], Counter(), Counter(), models=["Penitent"])
    assert unread.unmodelled == "what it does to this unit's attacks is not read"
    # its condition holds where every unit of the datasheet has a Repentia Superior: settled, not assumed
    squad = [ModelEntry(kind, ModelProfile.parse("T3 Sv7+ W1", name=kind), n, ()) for kind, n in
             (("Sister Repentia", 4), ("Repentia Superior", 1))]
    assert [r.needs for a in _contained((read,), squad) for r in a.readings] == [""]
    assert [r.needs for a in _contained((read,), squad[:1]) for r in a.readings] == [reading.needs]


def test_an_aura_for_friendly_units_is_its_own_units_where_it_has_their_keywords():
    # a trial found a Hive Tyrant's Onslaught ('While a friendly TYRANIDS unit is within 6" of this model, ranged
    # weapons equipped by models in that unit have the [ASSAULT] and [LETHAL HITS] abilities') silently left out: a
    # model is always within its own aura. Read as its own unit's; settled by its models' keywords
    aura = ("Onslaught (Aura)", 'While a friendly TYRANIDS unit is within 6" of this model, ranged weapons equipped '
                                "by models in that unit have the [ASSAULT] and [LETHAL HITS] abilities.")
    verdict = read_ability("Hive Tyrant", *aura)
    assert verdict.kind == "effects" and verdict.ability is not None
    [reading] = verdict.ability.readings
    assert (reading.needs, reading.rule.effect.describe()) == (
        "while this unit is a TYRANIDS unit", "weapons gain ASSAULT and LETHAL HITS (ranged weapons)")

    def unit(*keywords: str) -> list[ModelEntry]:
        return [ModelEntry(f"Kind {n}", ModelProfile.parse(f"T9 Sv2+ W10 [{k}]", name=f"Kind {n}"), 1, ())
                for n, k in enumerate(keywords)]
    assert [r.needs for a in _contained((verdict.ability,), unit("TYRANIDS, MONSTER")) for r in a.readings] == [""]
    assert _contained((verdict.ability,), unit("NECRONS")) == ()  # the aura is for other units alone
    assert [r.needs for a in _contained((verdict.ability,), unit("TYRANIDS", "NECRONS")) for r in a.readings] == [
        reading.needs]  # some of them: kept for --with


@pytest.mark.parametrize(("text", "effect"), [
    ("While a friendly Gravel Host unit is within 6\" of this model, each time a model in that unit makes an attack, "
     "add 1 to the Hit roll.", "+1 to hit"),
    ("While a friendly Gravel Host unit is within 6\" of this model, add 1 to the Attacks characteristic of melee "
     "weapons equipped by models in that unit.", "+1 Attacks (melee weapons)"),
    # 'of this unit' (a trial found Eightbound's Beacons of Rage not read; Venomthropes' Foul Spores neither)
    ("While a friendly Gravel Host unit is within 6\" of this unit, each time a model in that unit makes a melee "
     "attack, add 1 to the Hit roll.", "+1 to hit (melee weapons)")])
def test_an_aura_is_read_for_its_own_unit_of_those_keywords(text, effect):
    # (these were read as other units' attacks alone)
    verdict = read_ability("Test Unit", "Test Ability", text)
    assert verdict.ability is not None
    assert [(r.needs, r.rule.effect.describe()) for r in verdict.ability.readings] == [
        ("while this unit is a Gravel Host unit", effect)]


def test_the_bearers_own_unit_in_its_aura_answers_the_hand_derived_odds():
    # 3 shots, hit 4+ (1/2); a Critical Hit (1/6) wounds automatically with Lethal Hits, a normal hit (1/3) wounds S4 v
    # T4 on 4+ (1/2); Sv6+ fails 5/6: 3 x (1/6 + 1/3 x 1/2) x 5/6 = 5/6, against 3 x 1/2 x 1/2 x 5/6 = 5/8 without
    aura = ("Onslaught (Aura)", 'While a friendly ORKS unit is within 6" of this model, ranged weapons equipped by '
                                "models in that unit have the [LETHAL HITS] ability.")
    orks = sheet('24" A3 BS4+ S4 AP0 D1', aura, keywords="ORKS")
    orks = attrs.evolve(orks, read_rules=_contained(orks.read_rules, list(orks.models)))
    assert mean(unit_attack(orks, Target.parse("T4 Sv6+ W10"), exact=True)) == Fraction(5, 6)


@pytest.mark.parametrize(("name", "text", "role", "reason"), [
    # who may target the unit (Lone Operative's phrasing, here a Leader's): the odds of an attack made, not whether
    ("Hidden Path", "While this model is leading a unit, that unit can only be selected as the target of a ranged "
     "attack if the attacking model is within 18\".", "target", TARGETED_ONLY),
    # a characteristic of the unit's models against attacks: named (whatever the reason), never dropped as not about
    # attacks
    ("Crewed Gun", "Each time an attack targets this model's unit, if that unit contains one or more other models, "
     "this model has a Toughness characteristic of 3.", "target", None),
    # a Damaged profile is the unit's own, even where its words name "this unit's" model or no attack at all
    ("Damaged: 1-6 Wounds Remaining", "While this unit's Rock King model has 1-6 wounds remaining, halve the Attacks "
     "characteristic of that model's weapons.", "attacker", DAMAGED),
    ("Damaged: 1-8 Wounds Remaining", "While this model has 1-8 wounds remaining, you can only select one of its "
     "shard weapons in your Shooting phase.", "attacker", DAMAGED),
    # what it does to an attack at the unit is not read: named where the unit is attacked, not where it attacks (a
    # trial found Stealth Drones and Ablative Plating named only when their unit attacked)
    ("Shrouding Drones", "Twice per battle, after an attack has been allocated to this model, you can change the "
     "Damage characteristic of that attack to 0.", "target", "what it does to an attack at this unit is not read"),
    # weapons chosen for the phase beside the others (the Tesseract Vault's C'tan Powers): one profile is fired
    ("Powers of the Rock", "In your Shooting phase, first select up to 2 different Rock Powers weapons. Until the end "
     "of the phase, this model is equipped with those weapons in addition to its other weapons.", "attacker",
     "it adds up to 2 Rock Powers weapons for the phase; the answer fires one profile of each weapon the unit "
     "carries, --profile chooses which"),
    # this unit's attacks or attacks at it, in words whose subject is not read, and what a Leader gives the unit it
    # leads: named, never taken for other units' attacks because they speak of 'that unit' (new-player trials found
    # a Painboy's, a Doom Scythe's, a Weirdboy's and a Locus's abilities left out without a word)
    ("Bone Needle", "Each time an attack made by this model with its bone needle scores a Critical Wound against a "
     "unit, that unit suffers D3 mortal wounds.", "attacker", "what it does to this unit's attacks is not read"),
    ("Choose or Cower", "Each time this model targets an enemy unit with its great lance, your opponent picks one for "
     "that unit: a Hit roll of 5+ scores a Critical Hit against it, or it subtracts 1 from its own Hit rolls.",
     "attacker", "what it does to this unit's attacks is not read"),
    ("Crowd Power", "While this model is leading a unit, add 1 to the Strength characteristics of this model's warp "
     "staff for every 5 models in that unit.", "attacker", "what it does to this unit's attacks is not read"),
    ("Shield the Chiefs", "While this model is leading a unit, other CHARACTER models attached to that unit have the "
     "Feel No Pain 4+ ability.", "target", "what it does to an attack at this unit is not read"),
    ("Warp Ward", "Each time an enemy unit within 12\" of this model targets this model, subtract 1 from the Hit "
     "roll.", "target", "what it does to an attack at this unit is not read"),
    # a Damaged profile whose words name this unit's own model and attack: still the Damaged reason
    ("Damaged: 1-4 Wounds Remaining", "While this unit's Rock King model has 1-4 wounds remaining, each time this "
     "unit makes an attack, subtract 1 from the Hit roll, and that enemy unit is shaken.", "attacker", DAMAGED),
    # a Stratagem used on the unit is its own attacks' ("you target this unit with Fire Overwatch")
    ("Watchful", "Each time you target this unit with the Fire Overwatch Stratagem, hits are scored on unmodified "
     "Hit rolls of 5+ when resolving that Stratagem.", None, "it names no attack this reader knows"),
])
def test_what_changes_the_attacks_unread_is_named_not_modelled(name, text, role, reason):
    verdict = read_ability("Test Unit", name, text)
    assert verdict.kind == "unmodelled" and verdict.ability is not None
    assert verdict.ability.role == role
    if reason is not None:
        assert verdict.ability.unmodelled == reason


def test_a_core_rule_listed_by_name_alone_is_named_where_it_is_not_modelled():
    kinds, unmodelled = Counter(), Counter()
    read = read_abilities("Test Unit", [("Slab Armour", "This unit can move over rubble.", "")], kinds, unmodelled,
                          ["Slab Armour", "Lone Operative 12\"", "Deep Strike"])
    assert [(a.name, a.role, a.unmodelled) for a in read] == [("Lone Operative 12\"", "target", TARGETED_ONLY)]
    assert (kinds, unmodelled) == ({"other": 1, "unmodelled": 1}, {"Lone Operative 12\"": 1})  # Deep Strike: not read


def test_a_refused_ability_keeps_whose_attacks_it_was_about():
    verdict = read_ability("U", "Shield", "Each time a ranged attack targets this model, if the Strength "
                                          "characteristic of that attack is 5 or less, subtract 1 from the Wound "
                                          "roll.")
    assert verdict.ability is not None and verdict.ability.role == "target"


# --------------------------------------------------------------------- a query applying what was read
GUN = '24" A6 BS4+ S4 AP0 D1'


def sheet(weapon: str, *abilities: tuple[str, str] | tuple[str, str, str],
          models: tuple[tuple[str, int], ...] = (("Breaker", 1),), keywords: str = "INFANTRY",
          army_rules: tuple[str, ...] = ()) -> Datasheet:
    """A datasheet of one weapon, its abilities (name, text[, the model kind it is written on]) read from text, and
    the army rules it lists by name; a CHARACTER's has the Leader ability (the units it leads not named)."""
    read = []
    for name, text, *model in abilities:
        verdict = read_ability("Test Breakers", name, text, *model)
        assert verdict.ability is not None
        read.append(verdict.ability)
    entries = tuple(ModelEntry(m, ModelProfile.parse(f"T4 Sv3+ W2 [{keywords}]", name=m), n, ("gun",))
                    for m, n in models)
    return Datasheet(name="Test Breakers", faction="Test", source="test", keywords=(keywords,), faction_keywords=(),
                     abilities=(*(a[0] for a in abilities), *army_rules, *["Leader"] * ("CHARACTER" in keywords)),
                     army_rules=army_rules, models=entries,
                     weapons={"gun": {"default": Weapon.parse(weapon, name="gun")}}, read_rules=tuple(read))


def mean(report) -> Fraction:
    return report.result.damage.mean


REROLL_VS_VEHICLE = ("Crack the Shell", "Each time a model in this unit makes a ranged attack that targets a Vehicle "
                                        "unit, you can re-roll the Hit roll.")
VEHICLE = Target.parse("T4 Sv6+ W10 [VEHICLE]")  # one model of 10 wounds: 6 attacks of D1 never waste damage


def test_an_ability_whose_condition_the_query_settles_is_applied_and_named():
    # 6 attacks, hit 4+ re-rolling fails: 1/2 + 1/2 * 1/2 = 3/4; wound S4 v T4 on 4+: 1/2; Sv6+ fails 5/6.
    report = unit_attack(sheet(GUN, REROLL_VS_VEHICLE), VEHICLE, exact=True)
    assert mean(report) == 6 * Fraction(3, 4) * Fraction(1, 2) * Fraction(5, 6) == Fraction(15, 8)
    assert ("attacker has Crack the Shell (read from its text): re-roll failed hit rolls (ranged weapons), against a "
            "VEHICLE unit; 'you can re-roll' taken as re-rolling failed hit rolls") in report.situation
    # against a unit the keyword test rules out: no re-roll (6 x 1/2 x 1/2 x 5/6), and the header says why
    infantry = unit_attack(sheet(GUN, REROLL_VS_VEHICLE), Target.parse("T4 Sv6+ W10 [INFANTRY]"), exact=True)
    assert mean(infantry) == Fraction(5, 4)
    assert ("not applied: Crack the Shell applies only to attacks against a VEHICLE unit; the target has INFANTRY"
            in infantry.situation)
    # the Fight phase alone rules out a ranged ability: not a word about it
    melee = sheet("A2 WS3+ S4 AP0 D1", REROLL_VS_VEHICLE)
    assert not [line for line in unit_attack(melee, VEHICLE, melee=True).situation if "Crack" in line]


def test_without_leaves_an_ability_out_and_says_so():
    report = unit_attack(sheet(GUN, REROLL_VS_VEHICLE), VEHICLE, exact=True, without=["crack the shell"])
    assert mean(report) == Fraction(5, 4)  # 6 x 1/2 x 1/2 x 5/6, as without the ability
    assert "not applied: Crack the Shell (left out with --without)" in report.situation
    with pytest.raises(MathhammerError, match=r"--without 'Shell Crack': not an ability of these units .*Crack the "):
        unit_attack(sheet(GUN, REROLL_VS_VEHICLE), VEHICLE, without=["Shell Crack"])


def test_a_condition_an_option_states_waits_for_that_option():
    charge = ("Rock Rush", "Each time a model in this unit makes a melee attack, if this unit made a Charge move this "
                           "turn, add 1 to the Wound roll.")
    fists = sheet("A4 WS3+ S4 AP0 D1", charge)
    target = Target.parse("T4 Sv6+ W10")
    # 4 attacks, hit 3+: 2/3; wound 4+: 1/2 (3+ after charging: 2/3); Sv6+ fails 5/6
    plain = unit_attack(fists, target, melee=True, exact=True)
    assert mean(plain) == 4 * Fraction(2, 3) * Fraction(1, 2) * Fraction(5, 6) == Fraction(10, 9)
    assert "not applied: Rock Rush applies only when attacker charged; add --charged" in plain.situation
    charged = unit_attack(fists, target, melee=True, exact=True, context=Context(charged=True))
    assert mean(charged) == 4 * Fraction(2, 3) * Fraction(2, 3) * Fraction(5, 6) == Fraction(40, 27)
    assert ("attacker has Rock Rush (read from its text): +1 to wound (melee weapons), with --charged"
            in charged.situation)


def _hammers() -> Datasheet:
    """Two models, one melee weapon each; an ability for the rock hammer's attacks after a charge."""
    charge = ("Hammer Rush", "Each time a model in this unit makes a melee attack with its rock hammer, if it made a "
                             "Charge move this turn, add 1 to the Damage characteristic of that attack.")
    verdict = read_ability("Test Breakers", *charge)
    assert verdict.ability is not None
    blow = 'A2 WS3+ S4 AP0 D1'
    models = tuple(ModelEntry(m, ModelProfile.parse("T4 Sv3+ W2 [INFANTRY]", name=m), 1, (w,))
                   for m, w in (("Breaker", "rock hammer"), ("Brawler", "fists")))  # one melee weapon each
    return Datasheet(name="Test Breakers", faction="Test", source="test", keywords=("INFANTRY",),
                     faction_keywords=(), abilities=(charge[0],), models=models,
                     weapons={"rock hammer": {"default": Weapon.parse(blow, name="rock hammer")},
                              "fists": {"default": Weapon.parse(blow, name="fists")}},
                     read_rules=(verdict.ability,))


def test_an_ability_for_one_weapon_changes_that_weapons_attacks_alone():
    hammers = _hammers()
    target = Target.parse("T4 Sv6+ W10")  # one model of 10 wounds: at most 4 attacks of D2, no damage wasted
    # each model: 2 attacks, hit 3+: 2/3, wound 4+: 1/2, Sv6+ fails 5/6: 5/9 unsaved, each of D1 -> 5/9 + 5/9
    plain = unit_attack(hammers, target, melee=True, exact=True)
    assert mean(plain) == 2 * (2 * Fraction(2, 3) * Fraction(1, 2) * Fraction(5, 6)) == Fraction(10, 9)
    assert "not applied: Hammer Rush applies only when attacker charged; add --charged" in plain.situation
    # charged: the hammer's 5/9 unsaved attacks deal 2 each, the fists' still 1 each: 10/9 + 5/9 = 5/3
    charged = unit_attack(hammers, target, melee=True, exact=True, context=Context(charged=True))
    assert mean(charged) == Fraction(10, 9) + Fraction(5, 9) == Fraction(5, 3)
    assert ("attacker has Hammer Rush (read from its text): +1 Damage (melee weapons) (rock hammer only), with "
            "--charged") in charged.situation
    with pytest.raises(MathhammerError, match="Hammer Rush needs no --with here"):
        unit_attack(hammers, target, melee=True, modifiers=["Hammer Rush"], context=Context(charged=True))


def test_a_unit_named_in_a_whole_turn_attacks_as_unit_makes_it_attack():
    # a trial found turn leaving out the unit's abilities: Hammer Rush (+1 Damage for the rock hammer after a charge)
    # applies in the fight of a turn as it does in `unit --melee --charged`; a 2" charge always succeeds
    hammers = _hammers()
    target = TargetUnit(Target.parse("T4 Sv6+ W10"), "a wall")
    blows = unit_weapons(hammers, melee=True)
    turn = turn_question(target, [], blows, 2, False, 0, None, None, Context(), True, None)
    charged = unit_attack(hammers, target, melee=True, exact=True, context=Context(charged=True))
    assert turn.distributions["damage"].mean == mean(charged) == Fraction(5, 3)  # 10/9 + 5/9, as derived above
    assert ("  Test Breakers: attacker has Hammer Rush (read from its text): +1 Damage (melee weapons) (rock hammer "
            "only), with --charged") in turn.preface
    # a weapon written out beside the unit meets the target alone: 1 attack, 2/3 x 1/2 x 5/6 unsaved, D1
    alone = written("1x Melee A1 WS3+ S4 AP0 D1")
    both = turn_question(target, [], [*blows, alone], 2, False, 0, None, None, Context(), True, None)
    assert both.distributions["damage"].mean == Fraction(5, 3) + Fraction(5, 18)


def _pebblers(boss: bool = False) -> Datasheet:
    """Two models with pebble rifles (A2 BS4+ S4 AP0 D1) and +1 to hit for the unit's ranged attacks; with `boss`, a
    third model of another kind with the same rifle, whose ability it is alone."""
    who = "this model makes" if boss else "a model in this unit makes"
    aim = ("Steady Aim", f"Each time {who} a ranged attack, add 1 to the Hit roll.")
    verdict = read_ability("Test Pebblers", *aim, "Pebble Boss" if boss else "")
    assert verdict.ability is not None
    kinds = [("Pebbler", 2), *([("Pebble Boss", 1)] if boss else [])]
    models = tuple(ModelEntry(m, ModelProfile.parse("T3 Sv5+ W1 [INFANTRY]", name=m), n, ("pebble rifle",))
                   for m, n in kinds)
    return Datasheet(name="Test Pebblers", faction="Test", source="test", keywords=("INFANTRY",), faction_keywords=(),
                     abilities=(aim[0],), models=models, read_rules=(verdict.ability,),
                     weapons={"pebble rifle": {"default": Weapon.parse('24" A2 BS4+ S4 AP0 D1', name="pebble rifle")}})


def test_plan_makes_a_unit_named_attack_as_unit_makes_it_or_says_it_cannot():
    target = [TargetUnit(Target.parse("T3 Sv6+ W1 x10"), "pebbles")]
    # 4 shots, hit 4+ improved to 3+ (2/3), S4 v T3 wounds on 3+ (2/3), Sv6+ fails 5/6: 4 x 10/27 kills, none lost to
    # overkill (W1 models)
    aimed = plan_question(unit_weapons(_pebblers()), target, "kills", 5, Context(), True)
    assert aimed.distributions["models_destroyed_1"].mean == 4 * Fraction(2, 3) * Fraction(2, 3) * Fraction(5, 6)
    assert "  Test Pebblers: attacker has Steady Aim (read from its text): +1 to hit (ranged weapons)" in aimed.preface
    # the boss's own ability counts its rifle apart from the others': not one attack per weapon written, so plan fires
    # the weapons alone (6 shots at 4+: 6 x 1/2 x 2/3 x 5/6) and says so; turn applies it
    bossed = plan_question(unit_weapons(_pebblers(boss=True)), target, "kills", 5, Context(), True)
    assert bossed.distributions["models_destroyed_1"].mean == 6 * Fraction(1, 2) * Fraction(2, 3) * Fraction(5, 6)
    assert ("  Test Pebblers (Test) the weapons of its loadout (its datasheet's default, or as its army list has it); "
            "its abilities are not applied here: its attacks are not one per weapon (mortal wounds an ability "
            "inflicts, or models of a kind counted apart); `turn` and `unit` apply them") in bossed.preface
    assert not any("attacking as `mathhammer unit`" in line or "Steady Aim" in line for line in bossed.preface)


def test_an_ability_for_a_weapon_no_model_carries_is_said_not_applied():
    # two kinds of model, one gun each, either kind making up the unit (as Lokhust Heavy Destroyers): the ability is
    # the slag gun's, and the unit the datasheet lists first carries pebble rifles
    rites = ("Hunting Rites", "Each time a model in this unit makes a ranged attack with a slag gun that targets a "
                              "Monster or Vehicle unit, you can re-roll the Wound roll.")
    verdict = read_ability("Test Hunters", *rites)
    assert verdict.ability is not None
    models = tuple(ModelEntry(m, ModelProfile.parse("T6 Sv3+ W4 [MOUNTED]", name=m), 0, (w,), max=3)
                   for m, w in (("Hunter w/ pebble rifle", "pebble rifle"), ("Hunter w/ slag gun", "slag gun")))
    hunters = Datasheet(name="Test Hunters", faction="Test", source="test", keywords=("MOUNTED",),
                        faction_keywords=(), abilities=(rites[0],), models=models, sizes=(1, 2, 3),
                        weapons={name: {"default": Weapon.parse(text, name=name)} for name, text in (
                            ("pebble rifle", '24" A2 BS3+ S5 AP0 D1'), ("slag gun", '24" A1 BS3+ S8 AP-2 D=3'))},
                        read_rules=(verdict.ability,))
    target = Target.parse("T8 Sv3+ W10 [VEHICLE]")
    # 2 shots, hit 2/3, S5 v T8 wounds on 5+ (1/3), Sv3+ fails 1/3: 2 x 2/27
    rifles = unit_attack(hunters, target, exact=True)
    assert mean(rifles) == 2 * Fraction(2, 3) * Fraction(1, 3) * Fraction(1, 3) == Fraction(4, 27)
    assert "not applied: Hunting Rites is for the attacks of the slag gun only, and no model here carries one" \
        in rifles.situation
    assert not any(line.startswith("attacker has Hunting Rites") for line in rifles.situation)
    assert ("attacker: 1 Hunter w/ pebble rifle: the models its size adds are of the kind its datasheet lists first, "
            "where it may have others (Hunter w/ slag gun; --loadout names their wargear)") in rifles.situation
    # the slag gun: 1 shot, hit 2/3, wound 4+ re-rolled (3/4), Sv3+ at AP-2 fails 2/3, 3 damage: 1
    guns = unit_attack(hunters, target, loadout=["slag gun"], exact=True)
    assert mean(guns) == Fraction(2, 3) * Fraction(3, 4) * Fraction(2, 3) * 3 == 1
    assert any(line.startswith("attacker has Hunting Rites (read from its text): re-roll failed wound rolls")
               for line in guns.situation)
    assert not any("the kind its datasheet lists first" in line for line in guns.situation)
    three = unit_attack(hunters, target, size=3).situation  # the kind's count, not the models added beyond its least
    assert any(line.startswith("attacker: 3 Hunter w/ pebble rifle: the models its size adds") for line in three)
    assert attrs.evolve(hunters, models=models[:1]).kinds_taken() == ""  # one kind: the size decides it


def test_precision_for_critical_hits_alone_is_named_not_modelled_and_with_refuses_it():
    master = ("Grand Marshal", "Each time a model in this unit makes an attack, if a Critical Hit is scored, that "
                               "attack has the [PRECISION] ability.")
    report = unit_attack(sheet(GUN, master), VEHICLE, exact=True)
    assert mean(report) == Fraction(5, 4)  # 6 x 1/2 x 1/2 x 5/6, as without the ability
    assert f"not applied: Grand Marshal (not modelled: {CRITICAL_ONLY})" in report.situation
    with pytest.raises(MathhammerError, match="Grand Marshal is not modelled .* cannot be given with --with"):
        unit_attack(sheet(GUN, master), VEHICLE, modifiers=["Grand Marshal"])


def test_a_condition_no_option_states_is_applied_only_with_with():
    closest = ("Point Blank", "Each time a model in this unit makes a ranged attack that targets the closest eligible "
                              "target, improve the Armour Penetration characteristic of that attack by 1.")
    target = Target.parse("T4 Sv5+ W10")
    # 6 x 1/2 x 1/2, Sv5+ fails 2/3; with AP-1 it is Sv6+ and fails 5/6
    plain = unit_attack(sheet(GUN, closest), target, exact=True)
    assert mean(plain) == 6 * Fraction(1, 4) * Fraction(2, 3) == 1
    assert ("not applied: Point Blank applies only if the target is the closest eligible target; --with 'Point Blank' "
            "assumes it") in plain.situation
    given = unit_attack(sheet(GUN, closest), target, modifiers=["point blank"], exact=True)
    assert mean(given) == 6 * Fraction(1, 4) * Fraction(5, 6) == Fraction(5, 4)
    assert ("attacker has Point Blank (read from its text): AP improved by 1 (ranged weapons); assumed (--with): if "
            "the target is the closest eligible target") in given.situation
    with pytest.raises(MathhammerError, match="Crack the Shell needs no --with here"):
        unit_attack(sheet(GUN, REROLL_VS_VEHICLE), VEHICLE, modifiers=["Crack the Shell"])
    with pytest.raises(MathhammerError, match="^Point Blank is given 2 times; it is used once in a query$"):
        unit_attack(sheet(GUN, closest), target, modifiers=["point blank", "Point Blank"])


def test_a_wound_roll_changed_only_for_attacks_stronger_than_the_target():
    # 6 shots of S8 and 6 of S4 at T5 W20 Sv6+ (AP-6: no save): S8 wounds on 3+, S4 on 5+; the target's ability
    # takes 1 from the Wound roll of attacks whose Strength is above its Toughness: the S8 shots wound on 4+
    guard = ("Oath Shield", "Each time an attack targets this unit, if the Strength characteristic of that attack is "
                            "greater than the Toughness characteristic of this unit, subtract 1 from the Wound roll.")
    target = Target.parse("T5 Sv6+ W20")
    defender = sheet('24" A1 BS4+ S4 AP0 D1', guard)
    strong, weak = sheet('24" A6 BS2+ S8 AP-6 D1'), sheet('24" A6 BS2+ S4 AP-6 D1')
    hit = Fraction(5, 6)
    assert mean(unit_attack(strong, TargetUnit(target, "", defender), exact=True)) == 6 * hit * Fraction(1, 2)
    assert mean(unit_attack(weak, TargetUnit(target, "", defender), exact=True)) == 6 * hit * Fraction(1, 3)  # as is
    assert mean(unit_attack(strong, target, exact=True)) == 6 * hit * Fraction(2, 3)  # without the ability


def test_a_targets_ability_not_applied_is_said_to_be_the_targets():
    # a trial read a plan's 'Defiler: not applied: Waaagh!: 5+ invulnerable save ...' as the attacking Defiler's
    guard = ("Hunker", "While this unit is within range of an objective marker, each time an attack targets this "
                       "unit, subtract 1 from the Wound roll.")
    defender = sheet('24" A1 BS4+ S4 AP0 D1', guard)
    said = unit_attack(sheet('24" A6 BS2+ S8 AP-6 D1'), TargetUnit(Target.parse("T5 Sv6+ W20"), "", defender)).situation
    assert any(line.startswith("not applied: the target's Hunker applies only while this unit is within range of an "
                               "objective marker") for line in said), said


def test_without_stealth_leaves_out_the_targets_stealth_keyword_too():
    # a trial found '--without Stealth' saying it was left out while its -1 to hit still applied (the STEALTH keyword
    # of the target's models): 6 shots on 2+ (5/6) at a stealthy target hit on 3+ (2/3), without it on 2+ (5/6)
    hidden = attrs.evolve(sheet('24" A1 BS4+ S4 AP0 D1', keywords="INFANTRY, STEALTH"), army_rules=("Stealth",))
    target = TargetUnit(hidden.as_target(), "hidden", hidden)
    gun = sheet('24" A6 BS2+ S8 AP-6 D1')
    assert unit_attack(gun, target, exact=True).result.hits.mean == 6 * Fraction(2, 3)
    left_out = unit_attack(gun, target, exact=True, without=["Stealth"])
    assert left_out.result.hits.mean == 6 * Fraction(5, 6)
    assert "not applied: Stealth (left out with --without)" in left_out.situation
    # the keyword alone, as a list program or the index gives it with no rule listed: the same (a review found
    # 'not an ability of these units' there)
    keyworded = unit_attack(gun, Target.parse("T4 Sv3+ W2 [INFANTRY, STEALTH]"), exact=True, without=["Stealth"])
    assert keyworded.result.hits.mean == 6 * Fraction(5, 6)


def test_a_defence_that_holds_while_a_character_leads_is_settled_by_the_leader():
    # 'While a CHARACTER model is leading this unit, ... subtract 1 from the Wound roll': settled by --leader (it used
    # to wait for --with); 6 shots hitting on 2+ (5/6), S8 v T4 wounding on 2+ (5/6), or 3+ (2/3) with the -1; at
    # AP-6 no save, and 6 wounds of D1 lose nothing to overkill: the damage is the wounds
    guard = ("Ward of the Chief", "While a CHARACTER model is leading this unit, each time an attack targets this "
                                  "unit, subtract 1 from the Wound roll.")
    defender = sheet('24" A1 BS4+ S4 AP0 D1', guard, models=(("Breaker", 5),))
    chief = attrs.evolve(sheet('12" A2 BS4+ S4 AP0 D1', models=(("Chief", 1),), keywords="CHARACTER"),
                         name="Test Chief")
    alone = TargetUnit(defender.as_target(), "alone", defender)
    led = TargetUnit(Target((*defender.as_target().groups, *chief.as_target().groups), attached=True), "led",
                     defender, (), (chief,))
    gun = sheet('24" A6 BS2+ S8 AP-6 D1')
    hits = 6 * Fraction(5, 6)
    unled = unit_attack(gun, alone, exact=True)
    assert mean(unled) == hits * Fraction(5, 6)
    assert ("not applied: Ward of the Chief applies only while a CHARACTER model is leading the unit; attach one with "
            "--leader, or --with 'Ward of the Chief' assumes it") in unled.situation
    assert mean(unit_attack(gun, led, exact=True)) == hits * Fraction(2, 3)
    assert defender.read_rules[0].describe() == "attacks against it: -1 to wound it, while a CHARACTER model is " \
        "leading the unit"  # `show` says when it holds: a trial read it as holding always
    assumed = unit_attack(gun, alone, exact=True, modifiers=["ward of the chief"])
    assert mean(assumed) == hits * Fraction(2, 3)
    assert any(line.endswith("assumed (--with): while a CHARACTER model is leading the unit")
               for line in assumed.situation)


def test_a_defence_that_holds_while_a_leader_of_several_keywords_leads_needs_them_all_on_one_model():
    # a trial found Sworn Protectors ('While an Adepta Sororitas Character is leading this unit, ...') never applied:
    # the keywords are the faction's and CHARACTER, both on the Leader; the unit's own models have only the first.
    # 6 shots as above: wounding on 2+ (5/6), or 3+ (2/3) with the -1
    guard = ("Sworn Protectors", "While an Adepta Sororitas Character is leading this unit, each time an attack "
                                 "targets this unit, subtract 1 from the Wound roll.")
    defender = sheet('24" A1 BS4+ S4 AP0 D1', guard, models=(("Breaker", 5),), keywords="INFANTRY, ADEPTA SORORITAS")
    gun, hits = sheet('24" A6 BS2+ S8 AP-6 D1'), 6 * Fraction(5, 6)
    for keywords, wound in (("CHARACTER, ADEPTA SORORITAS", Fraction(2, 3)), ("CHARACTER, IMPERIUM", Fraction(5, 6))):
        chief = attrs.evolve(sheet('12" A2 BS4+ S4 AP0 D1', models=(("Chief", 1),), keywords=keywords), name="Chief")
        led = TargetUnit(Target((*defender.as_target().groups, *chief.as_target().groups), attached=True), "led",
                         defender, (), (chief,))
        answer = unit_attack(gun, led, exact=True)
        assert mean(answer) == hits * wound
    assert ("not applied: Sworn Protectors applies only while an ADEPTA SORORITAS CHARACTER model is leading the "
            "unit; attach one with --leader, or --with 'Sworn Protectors' assumes it") in answer.situation


def test_a_misprinted_feel_no_pain_of_the_led_unit_is_read_as_meant():
    # 'Feel Not Pain 6+' (a Kroot Flesh Shaper's in both editions' data): read, and given to the unit it leads
    verdict = read_ability("Test Chief", "Rites", "While this model is leading a unit, models in that unit have the "
                                                  "Feel Not Pain 6+ ability.")
    assert verdict.kind == "effects" and verdict.ability is not None
    [reading] = verdict.ability.readings
    assert (reading.scope, reading.rule.effect.feel_no_pain, reading.needs) == ("leading", 6, "")


def test_a_defence_of_that_character_is_its_leaders_whatever_the_noun_after():
    # 'that Character has the Feel No Pain 5+ ability' (Tyrant Guard): the CHARACTER leading the unit, settled by
    # --leader, as 'that CHARACTER model' was; it waited for --with
    reading = conditional_defence("Test Guard", "Guardian", "While a CHARACTER model is leading this unit, that "
                                  "Character has the Feel No Pain 5+ ability.", {"feel_no_pain": 5}, False)
    assert (reading.rule.models, reading.needs) == (("CHARACTER",), "")


def test_a_defence_of_the_units_characters_is_theirs_alone():
    # 'CHARACTER models in this unit have the Feel No Pain 4+ ability' (a Traitor Enforcer's Mutated Bodyguard, a
    # Wolf Guard Battle Leader's Huskarl to the Jarl): --with had given it to every model of the Attached unit
    reading = conditional_defence("Test Guard", "Guarded", "While this unit contains a Traitor Ogryn model, CHARACTER "
                                  "models in this unit have the Feel No Pain 4+ ability.", {"feel_no_pain": 4}, False)
    assert (reading.rule.models, reading.needs) == (("CHARACTER",), "under the condition its text states")


def test_a_damage_roll_below_its_average_is_re_rolled():
    heavy = ("Smash", "Each time a model in this unit makes a ranged attack, you can re-roll the Damage roll.")
    gun = '24" A1 BS2+ S8 AP-6 DD6'
    target = Target.parse("T4 Sv6+ W20")  # no save against AP-6; 20 wounds, so no damage is lost
    # hit 2+: 5/6, wound 2+: 5/6; D6 re-rolled on 1-3 (below 3.5): 1/2 x 5 + 1/2 x 7/2 = 17/4 (else 7/2)
    report = unit_attack(sheet(gun, heavy), target, exact=True)
    assert mean(report) == Fraction(25, 36) * Fraction(17, 4)
    assert mean(unit_attack(sheet(gun, heavy), target, exact=True, without=["smash"])) == Fraction(25, 36) * Fraction(
        7, 2)
    assert any("'you can re-roll' taken as re-rolling a Damage roll below its average" in line
               for line in report.situation)


def test_the_targets_abilities_change_the_attacks_against_it():
    gun = '24" A6 BS3+ S4 AP0 D2'
    defender = sheet(gun, ("Blur", "Each time an attack targets this unit, subtract 1 from the Hit roll."),
                     ("Slab", "Each time an attack is allocated to a model in this unit, subtract 1 from the Damage "
                              "characteristic of that attack."), keywords="VEHICLE")
    target = Target.parse("T4 Sv6+ W20 [VEHICLE]")  # 20 wounds: 6 attacks of D2 never waste damage
    # 6 x 2/3 x 1/2 x 5/6 x D2 = 10/3; with -1 to hit (4+: 1/2) and Damage 2 - 1 = 1: 6 x 1/2 x 1/2 x 5/6 = 5/4
    assert mean(unit_attack(sheet(gun), target, exact=True)) == Fraction(10, 3)
    report = unit_attack(sheet(gun), TargetUnit(target, "", defender), exact=True)
    assert mean(report) == Fraction(5, 4)
    assert "target has Blur (read from its text): -1 to hit" in report.situation
    assert "target has Slab (read from its text): Damage of attacks allocated to it -1 (not below 1)" in \
        report.situation
    unblurred = unit_attack(sheet(gun), TargetUnit(target, "", defender), exact=True, without=["blur"])
    assert mean(unblurred) == Fraction(5, 3)


ONE_MODEL = ("Steady Aim", "Each time this model makes a ranged attack, add 1 to the Hit roll.")


def test_an_ability_of_one_model_or_the_bearer_is_not_given_to_the_whole_unit():
    squad = (("Breaker", 4), ("Breaker Boss", 1))
    target = Target.parse("T4 Sv6+ W40")  # 40 wounds: 30 attacks of D1 never waste damage
    written_on_boss = sheet(GUN, (*ONE_MODEL, "Breaker Boss"), models=squad)
    report = unit_attack(written_on_boss, target, exact=True)
    # the Boss's 6 shots hit on 2+ (5/6 with its +1), the 4 Breakers' 24 on 4+: (24 x 1/2 + 6 x 2/3) x 1/2 x 5/6
    assert mean(report) == (24 * Fraction(1, 2) + 6 * Fraction(2, 3)) * Fraction(1, 2) * Fraction(5, 6) == \
        Fraction(20, 3)
    assert [f.models for f in report.firings] == [4, 1]
    assert ("attacker has Steady Aim (read from its text): +1 to hit (ranged weapons), for its Breaker Boss models' "
            "attacks only") in \
        report.situation
    # the Boss's attacks are the Boss's whatever is asked: --with names nothing it does not apply already
    with pytest.raises(MathhammerError, match="Steady Aim needs no --with here"):
        unit_attack(written_on_boss, target, modifiers=["steady aim"])
    # a unit without a Boss: nobody has it
    assert mean(unit_attack(sheet(GUN, (*ONE_MODEL, "Breaker Boss"), models=(("Breaker", 5),)), target,
                            exact=True)) == 30 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6)
    bearer = ("Scope", "Each time the bearer makes a ranged attack, add 1 to the Hit roll.")
    assert "not applied: Scope is the bearer's alone, not the whole unit's" in unit_attack(
        sheet(GUN, bearer, models=squad), target).situation
    # one model: 'this model' and 'the bearer' are the unit; 6 x 2/3 (hit 3+) x 1/2 x 5/6 = 5/3
    assert mean(unit_attack(sheet(GUN, bearer), target, exact=True)) == Fraction(5, 3)
    # written on the datasheet, 'this model' is each model's: 30 x 2/3 x 1/2 x 5/6 = 25/3
    assert mean(unit_attack(sheet(GUN, ONE_MODEL, models=squad), target, exact=True)) == Fraction(25, 3)
    # 'the bearer' written on a kind of model is each model of it's (Wulfen w/Death Totem, a trial found refused):
    # the Boss's 6 shots at 3+ (2/3) and the Breakers' 24 at 4+, as 'this model' on the Boss above
    on_kind = unit_attack(sheet(GUN, (*bearer, "Breaker Boss"), models=squad), target, exact=True)
    assert mean(on_kind) == (24 * Fraction(1, 2) + 6 * Fraction(2, 3)) * Fraction(1, 2) * Fraction(5, 6)
    assert mean(unit_attack(sheet(GUN, (*bearer, "Breaker Boss"), models=(("Breaker Boss", 5),)), target,
                            exact=True)) == Fraction(25, 3)  # every model bears it: 30 x 2/3 x 1/2 x 5/6


def test_weapons_alone_at_a_target_whose_models_change_in_one_phase_only():
    from mathhammer_exact.decide.unit_attack import defended
    from mathhammer_exact.model import Firing

    guard = sheet(GUN, ("Parry", "Each time a melee attack is allocated to a model in this unit, subtract 1 from the "
                                 "Damage characteristic of that attack."))
    unit = TargetUnit(Target.parse("T4 Sv6+ W10"), "Test Breakers", guard)
    shot, blow = Firing(Weapon.parse('24" A1 BS3+ S4 AP0 D2')), Firing(Weapon.parse("A1 WS3+ S4 AP0 D2"))
    assert defended(unit, [shot])[1] == unit.target  # a ranged attack: Parry changes nothing
    fought = defended(unit, [blow])
    assert all(p.reduce_damage for p, _ in fought[1].groups)
    assert fought[2] == ["target has Parry (read from its text): Damage of attacks allocated to it -1 (not below 1), "
                         "against melee attacks"]  # said: a trial read 'show' as if it held against any attack
    with pytest.raises(MathhammerError, match="change its models for some of these weapons only"):
        defended(unit, [shot, blow])


def test_a_leaders_ability_and_one_not_modelled_are_named_not_applied():
    lead = ("Lead from the Front", "While this model is leading a unit, each time a model in that unit makes an "
                                   "attack, add 1 to the Hit roll.")
    odd = ("Odd Luck", "Each time this unit is selected to shoot, you can re-roll one Hit roll.")
    report = unit_attack(sheet(GUN, lead, odd), Target.parse("T4 Sv6+ W10"), exact=True)
    assert mean(report) == 6 * Fraction(1, 4) * Fraction(5, 6)
    assert "not applied: Lead from the Front works while this model is leading a unit" in report.situation
    assert "not applied: Odd Luck (not modelled: it names no attack this reader knows)" in report.situation
    with pytest.raises(MathhammerError, match="Odd Luck is not modelled"):
        unit_attack(sheet(GUN, odd), Target.parse("T4 Sv6+ W10"), modifiers=["odd luck"])
    with pytest.raises(MathhammerError, match="Lead from the Front works while this model is leading a unit; --with"):
        unit_attack(sheet(GUN, lead), Target.parse("T4 Sv6+ W10"), modifiers=["lead from the front"])


#: the header line of Oath of Moment's Codex clause, for a unit that may use it
CODEX = ("not applied: Oath of Moment (Codex: Space Marines Detachment): +1 to wound, re-roll failed hit rolls; --with "
         "'oath-of-moment-codex' assumes the target is the Oath of Moment target, and the army uses a Codex: Space "
         "Marines Detachment and has no Blood Angels, Dark Angels, Deathwatch or Space Wolves unit")
#: ... and of its printing at the edition's launch, which older army lists copy (a trial's list printed it)
LAUNCH = ("not applied: Oath of Moment (as printed at the edition's launch): re-roll failed hit rolls, re-roll failed "
          "wound rolls; --with 'oath-of-moment-2023' assumes the target is the Oath of Moment target, and the rule is "
          "played as the edition's launch printed it (older army lists copy that text)")


def test_a_named_rule_given_with_with_stands_for_the_ability_of_its_name():
    # the shipped army rule "Oath of Moment" (re-roll failed hit rolls) and a datasheet ability of that name that
    # would add 1 to the Hit roll: only the declared rule applies, by its name or its key, 6 x 3/4 x 1/2 x 5/6 = 15/8
    oath = ("Oath of Moment", "Each time a model in this unit makes an attack, add 1 to the Hit roll.")
    for name in ("oath of moment", "oath-of-moment"):
        report = unit_attack(sheet(GUN, oath, keywords="ADEPTUS ASTARTES"), Target.parse("T4 Sv6+ W10"),
                             modifiers=[name], exact=True)
        assert mean(report) == Fraction(15, 8)
        assert [line for line in report.situation if "Oath of Moment" in line] == [
            "attacker has Oath of Moment (its army rule, as rules/ declares it): re-roll failed hit rolls; 'you can "
            "re-roll' taken as re-rolling failed hit rolls; assumed (--with): when the target is the Oath of Moment "
            "target", CODEX, LAUNCH]


def test_an_army_rule_asked_for_is_the_attackers_whatever_the_target_lists():
    # Oath of Moment listed by the target as well: --with gives the attacker its re-roll, 6 x 3/4 x 1/2 x 5/6;
    # listed by the target alone, it changes nothing, and the refusal says whose it is, not that a phase is wrong
    marines = sheet(GUN, keywords="ADEPTUS ASTARTES", army_rules=("Oath of Moment",))
    target = TargetUnit(Target.parse("T4 Sv6+ W10"), "Test Breakers", marines)
    report = unit_attack(marines, target, modifiers=["oath of moment"], exact=True)
    assert mean(report) == 6 * Fraction(3, 4) * Fraction(1, 2) * Fraction(5, 6) == Fraction(15, 8)
    with pytest.raises(MathhammerError, match="^Oath of Moment changes nothing here: it works when its unit attacks, "
                                              "and the target has it$"):
        unit_attack(sheet(GUN), target, modifiers=["oath of moment"])


def test_oath_of_moment_in_a_codex_detachment_is_named_and_adds_one_to_wound():
    # the Codex clause is a rule of its own key, named in the header where the unit may use it: re-roll failed hits
    # 3/4, wound 4+ with +1: 2/3, Sv6+ fails 5/6: 6 x 3/4 x 2/3 x 5/6 = 5/2. A Blood Angels unit may not use it.
    marines = sheet(GUN, keywords="ADEPTUS ASTARTES", army_rules=("Oath of Moment",))
    assert CODEX in unit_attack(marines, Target.parse("T4 Sv6+ W10"), exact=True).situation
    codex = unit_attack(marines, Target.parse("T4 Sv6+ W10"), modifiers=["oath-of-moment-codex"], exact=True)
    assert mean(codex) == 6 * Fraction(3, 4) * Fraction(2, 3) * Fraction(5, 6) == Fraction(5, 2)
    assert [line for line in codex.situation if "Oath" in line] == [
        "attacker has Oath of Moment (Codex: Space Marines Detachment): +1 to wound, re-roll failed hit rolls; assumes "
        "the target is the Oath of Moment target, and the army uses a Codex: Space Marines Detachment and has no "
        "Blood Angels, Dark Angels, Deathwatch or Space Wolves unit"]
    angels = attrs.evolve(marines, faction_keywords=("BLOOD ANGELS",))
    assert not [line for line in unit_attack(angels, Target.parse("T4 Sv6+ W10")).situation if "Codex" in line]
    with pytest.raises(MathhammerError, match="is used by a unit \\(not BLOOD ANGELS, DARK ANGELS, DEATHWATCH or "):
        unit_attack(angels, Target.parse("T4 Sv6+ W10"), modifiers=["oath-of-moment-codex"])


GRIT = ("Grit", "Each time a model in this unit makes an attack, add 1 to the Hit roll if this unit is below its "
                "Starting Strength, and add 1 to the Wound roll as well if this unit is Below Half-strength.")
HUNT = ("Hunt", "Each time a model in this unit makes an attack that targets a unit that is below its Starting "
                "Strength, you can re-roll the Hit roll. If that target is Below Half-Strength, you can re-roll the "
                "Wound roll as well.")


def test_an_ability_of_several_conditions_applies_the_ones_named():
    # 6 attacks at T4 Sv6+ W10: hit 4+ (1/2), wound 4+ (1/2), Sv6+ fails 5/6: 5/4; +1 to hit makes 2/3, +1 to wound 2/3
    target = Target.parse("T4 Sv6+ W10")
    grit = sheet(GUN, GRIT)
    with pytest.raises(MathhammerError, match="^Grit does different things under different conditions: name the one "
                                              "that holds, --with 'Grit: this unit is below its Starting Strength' or "
                                              "--with 'Grit: this unit is Below Half-strength' .several may be "
                                              "given.$"):
        unit_attack(grit, target, modifiers=["grit"])
    half = unit_attack(grit, target, modifiers=["grit: half"], exact=True)
    assert mean(half) == 6 * Fraction(1, 2) * Fraction(2, 3) * Fraction(5, 6) == Fraction(5, 3)
    assert [line for line in half.situation if "Grit" in line] == [
        "not applied: Grit: +1 to hit, applies only if this unit is below its Starting Strength; --with 'Grit: this "
        "unit is below its Starting Strength' assumes it",  # which part, where it also does something else
        "attacker has Grit (read from its text): +1 to wound; assumed (--with): if this unit is Below Half-strength"]
    both = unit_attack(grit, target, modifiers=["Grit: below its starting strength", "grit: half-strength"], exact=True)
    assert mean(both) == 6 * Fraction(2, 3) * Fraction(2, 3) * Fraction(5, 6) == Fraction(20, 9)
    for typed, why in (("strength", "matches more than one"), ("in cover", "matches none")):
        with pytest.raises(MathhammerError, match=f"^--with 'Grit: {typed}': the condition {why} of its conditions"):
            unit_attack(grit, target, modifiers=[f"grit: {typed}"])
    # a condition nested in another holds when the outer one does: Below Half-strength re-rolls hits and wounds
    hunt = sheet(GUN, HUNT)
    nested = unit_attack(hunt, target, modifiers=["hunt: below half-strength"], exact=True)
    assert mean(nested) == 6 * Fraction(3, 4) * Fraction(3, 4) * Fraction(5, 6) == Fraction(45, 16)
    outer = unit_attack(hunt, target, modifiers=["hunt: below its starting strength"], exact=True)
    assert mean(outer) == 6 * Fraction(3, 4) * Fraction(1, 2) * Fraction(5, 6) == Fraction(15, 8)
    # an ability of one condition takes none after its name
    odd = ("Odd", "While this unit is within 6\" of an objective marker, each time a model in this unit makes an "
                  "attack, add 1 to the Hit roll.")
    with pytest.raises(MathhammerError, match="^--with 'Odd: half': Odd has one condition, not several to choose "
                                              "among; write --with 'Odd'$"):
        unit_attack(sheet(GUN, odd), target, modifiers=["odd: half"])


def test_two_readings_of_one_army_rule_are_refused_together():
    # a review: Oath of Moment's codex clause and its launch printing, given together, were both applied
    marines = sheet(GUN, keywords="ADEPTUS ASTARTES", army_rules=("Oath of Moment",))
    with pytest.raises(MathhammerError) as refused:
        unit_attack(marines, Target.parse("T4 Sv6+ W10"), modifiers=["oath-of-moment-codex", "oath-of-moment-2023"])
    assert str(refused.value) == ("Oath of Moment is one rule, and these are 2 readings of it: give one of --with "
                                  "'oath-of-moment-codex', --with 'oath-of-moment-2023'")


def test_an_army_rule_rules_does_not_declare_is_named_not_applied():
    # Oath of Moment is declared (its own line, for --with); Iron Rites is not: named, never applied nor silent
    listing = sheet(GUN, keywords="ADEPTUS ASTARTES", army_rules=("Oath of Moment", "Iron Rites"))
    report = unit_attack(listing, Target.parse("T4 Sv6+ W10"), exact=True)
    assert mean(report) == 6 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6) == Fraction(5, 4)
    assert [line for line in report.situation if "Oath" in line or "Rites" in line] == [
        "not applied: Oath of Moment applies only when the target is the Oath of Moment target; --with 'Oath of "
        "Moment' assumes it", CODEX, LAUNCH, "not applied: Iron Rites (an army rule not modelled)"]
    with pytest.raises(MathhammerError, match="^Iron Rites is an army rule not modelled; it cannot be given with "):
        unit_attack(listing, Target.parse("T4 Sv6+ W10"), modifiers=["iron rites"])


def test_a_leaders_while_leading_readings_are_the_whole_units_when_it_leads():
    lead = read_ability("Test Chief", "Lead from the Front", "While this model is leading a unit, each time a model in "
                                                             "that unit makes an attack, add 1 to the Hit roll.")
    own = read_ability("Test Chief", "Steady Aim", ONE_MODEL[1])
    assert lead.ability is not None and own.ability is not None
    leader = Side("attacker", (lead.ability, own.ability), {"Chief": 1}, leading=True, unit="Test Chief")
    rules, lines, apart = in_force([leader], set(), set(), "shooting", lambda rule: None)
    assert [r.name for r in rules] == ["Lead from the Front"]
    assert [(whose, r.name) for whose, r in apart] == [(("Test Chief", ""), "Steady Aim")]  # its own attacks'
    assert lines == ["attacker has Lead from the Front (read from its Leader's text): +1 to hit",
                     "Test Chief, leading the attacker, has Steady Aim (read from its text), for its own attacks: +1 "
                     "to hit (ranged weapons)"]


def test_a_leaders_own_ability_changes_its_own_attacks_when_it_leads():
    """A Leader's ability of "this model" (not "while leading") is its own: its attacks keep it in the Attached unit,
    and its bodyguards' do not gain it (a trial found the Succubus's re-rolls lost once she led Wyches)."""
    squad = sheet(GUN, models=(("Breaker", 4),))
    chief = attrs.evolve(sheet('12" A2 BS4+ S4 AP0 D1', ONE_MODEL, models=(("Chief", 1),), keywords="CHARACTER"),
                         name="Test Chief")
    target = Target.parse("T4 Sv6+ W40")  # 40 wounds: 26 attacks of D1 never waste damage
    report = unit_attack(squad, target, led_by=chief, exact=True)
    # the Breakers' 24 shots hit on 4+ (1/2), the Chief's 2 on 3+ with its +1 (2/3); wound 4+, Sv6+ fails 5/6
    assert mean(report) == (24 * Fraction(1, 2) + 2 * Fraction(2, 3)) * Fraction(1, 2) * Fraction(5, 6) == \
        Fraction(50, 9)
    assert ("Test Chief, leading the attacker, has Steady Aim (read from its text), for its own attacks: +1 to hit "
            "(ranged weapons)") in report.situation
    assert not any("leader's own" in line for line in report.situation)
    # the same as the two firing apart, each with its own rules: the Chief alone has its +1
    alone = unit_attack(chief, target, exact=True)
    assert mean(alone) == 2 * Fraction(2, 3) * Fraction(1, 2) * Fraction(5, 6)
    assert mean(unit_attack(squad, target, led_by=chief, exact=True, without=["steady aim"])) == \
        26 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6)


def test_a_leaders_ability_for_a_unit_of_one_keyword_is_read_for_that_unit_alone():
    # Ragnar Blackmane's War Howl (a trial found it silently dropped): while leading BLOOD CLAWS, their melee attacks
    # re-roll the Wound roll; the second sentence, about Wolf Guard Headtakers, changes no attack
    text = ("While this model is leading a BLOOD CLAWS unit, each time a model in that unit makes a melee attack, you "
            "can re-roll the Wound roll. While this model is leading a WOLF GUARD HEADTAKERS UNIT, that unit is "
            "eligible to declare a charge in a turn in which it Advanced.")
    verdict = read_ability("Test Chief", "War Howl", text)
    assert verdict.kind == "effects" and verdict.ability is not None
    [reading] = verdict.ability.readings
    assert (reading.scope, reading.rule.attacker.all_of, changed(reading.rule.effect)) == (
        "leading", ("BLOOD CLAWS",), {"weapons": "melee", "reroll_wounds": Reroll.FAILED})
    # leading a unit of that keyword, every attack of the unit has it; leading another, none does, and it is said
    howl = ("War Howl", "While this model is leading a BREAKERS unit, each time a model in that unit makes a ranged "
                        "attack, add 1 to the Hit roll.")
    chief = attrs.evolve(sheet('12" A2 BS4+ S4 AP0 D1', howl, models=(("Chief", 1),), keywords="CHARACTER"),
                         name="Test Chief")
    target = Target.parse("T4 Sv6+ W40")  # 26 attacks of D1 never waste damage
    breakers = unit_attack(sheet(GUN, models=(("Breaker", 4),), keywords="BREAKERS"), target, led_by=chief,
                           exact=True)
    assert mean(breakers) == 26 * Fraction(2, 3) * Fraction(1, 2) * Fraction(5, 6)  # all at 3+
    others = unit_attack(sheet(GUN, models=(("Breaker", 4),)), target, led_by=chief, exact=True)
    assert mean(others) == 26 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6)  # all at 4+
    assert any(line.startswith("not applied: War Howl is used by a BREAKERS unit") for line in others.situation)


@pytest.mark.parametrize(("names", "weapon", "named"), [
    (("hellforged",), "Hellforged weapons (strike)", True),  # 'this model's hellforged weapons'
    (("slaughter", "carnage"), "Slaughter and Carnage", True),  # 'this model's Slaughter and Carnage'
    (("slaughter", "carnage"), "Carnage", True),
    (("bolt rifle",), "Bolt Rifles", True),
    (("bolt rifle",), "plasma gun", False),
    (("hellforged",), "hellforged sword", False),
])
def test_a_weapon_an_effect_names(names, weapon, named):
    assert Effect(weapon_names=names).names_weapon(weapon) is named


def test_with_an_ability_of_the_unit_that_nothing_reads_says_so():
    def refused(unit: Datasheet, name: str) -> str:
        with pytest.raises(MathhammerError) as refusal:
            unit_attack(unit, Target.parse("T4 Sv6+ W10"), modifiers=[name])
        return str(refusal.value)

    # a trial found --with 'Voice of the Triarch' refused as an unknown name, listing thirty stratagems
    squad = attrs.evolve(sheet(GUN), abilities=("Mystic Aura",))
    assert refused(squad, "mystic aura") == ("Mystic Aura is an ability of Test Breakers that this program does not "
                                             "read (its text is not understood here): --with cannot apply it")
    assert refused(squad, "mystic fog").startswith("unknown ability or stratagem 'mystic fog'")
    # a name some words of which are typed: the abilities --with applies, of the question's units and rules/, that hold
    # them (a trial found --with damaged and --with oath answered with rules/'s thirty names alone); not one nothing
    # reads, which --with refuses (a review found Mystic Aura offered)
    cracking = attrs.evolve(sheet(GUN, REROLL_VS_VEHICLE), abilities=("Mystic Aura", "Crack the Shell"))
    assert refused(cracking, "crack") == ("unknown ability or stratagem 'crack'; did you mean 'Crack the Shell' (an "
                                          "ability of Test Breakers)? (--with takes a name whole)")
    assert refused(cracking, "mystic").startswith("unknown ability or stratagem 'mystic'; known: ")
    assert refused(squad, "oath") == ("unknown ability or stratagem 'oath'; did you mean 'oath-of-moment' or "
                                      "'oath-of-moment-codex' or 'oath-of-moment-2023'? (--with takes a name whole)")


def test_a_bodyguards_ability_of_each_model_is_not_its_leaders():
    """A bodyguard unit's "this model" ability is each of its models', not the Leader's that joins them (a trial
    found Death Company Marines' Black Rage re-rolls given to their Chaplain's crozius)."""
    squad = sheet(GUN, ONE_MODEL, models=(("Breaker", 4),))
    chief = attrs.evolve(sheet('12" A2 BS4+ S4 AP0 D1', models=(("Chief", 1),), keywords="CHARACTER"),
                         name="Test Chief")
    target = Target.parse("T4 Sv6+ W40")  # 40 wounds: 26 attacks of D1 never waste damage
    report = unit_attack(squad, target, led_by=chief, exact=True)
    # the Breakers' 24 shots hit on 3+ with their +1 (2/3), the Chief's 2 on 4+ (1/2); wound 4+, Sv6+ fails 5/6
    assert mean(report) == (24 * Fraction(2, 3) + 2 * Fraction(1, 2)) * Fraction(1, 2) * Fraction(5, 6)
    assert ("attacker has Steady Aim (read from its text): +1 to hit (ranged weapons), for its own models' attacks "
            "(not its Leader's)") in report.situation
    alone = unit_attack(squad, target, exact=True)  # no Leader: the whole unit's, as before
    assert mean(alone) == 24 * Fraction(2, 3) * Fraction(1, 2) * Fraction(5, 6)
    assert "attacker has Steady Aim (read from its text): +1 to hit (ranged weapons)" in alone.situation


def test_a_profile_of_a_leaders_weapon_alone_is_chosen_for_the_leader():
    # a trial found --profile sweep refused for Typhus's Lakrimae ('no weapon of Blightlord Terminators has more than
    # one profile'), though the header had told the player to use it
    squad = sheet("A2 WS3+ S4 AP0 D1", models=(("Breaker", 4),))
    chief = attrs.evolve(sheet("A2 WS3+ S4 AP0 D1", models=(("Chief", 1),), keywords="CHARACTER"), name="Test Chief",
                         weapons={"gun": {"strike": Weapon.parse("A2 WS2+ S8 AP-2 D2", name="gun"),
                                          "sweep": Weapon.parse("A6 WS2+ S4 AP0 D1", name="gun")}})
    target = Target.parse("T4 Sv6+ W40")
    swept = unit_attack(squad, target, led_by=chief, melee=True, profiles=["sweep"], exact=True)
    # the squad's 8 attacks hitting on 3+ (2/3), the Chief's 6 on 2+ (5/6)
    assert swept.result.hits.mean == 8 * Fraction(2, 3) + 6 * Fraction(5, 6)


def test_a_leaders_ability_for_its_unit_is_the_whole_attached_units():
    """"Models in this model's unit" on a Leader's datasheet is the whole Attached unit, which is one unit for all
    rules purposes (a trial found a Tyranid Prime's Alpha Warrior on its own attacks only, --with needed for its
    Warriors'; an earlier one found a Bigboss's Breakin' Heads on nobody)."""
    text = ("Press On", "Weapons equipped by models in this model's unit have the [SUSTAINED HITS 1] ability.")
    squad = sheet(GUN, models=(("Breaker", 4),))
    chief = attrs.evolve(sheet('12" A2 BS4+ S4 AP0 D1', text, models=(("Chief", 1),), keywords="CHARACTER"),
                         name="Test Chief")
    target = Target.parse("T4 Sv6+ W40")
    led = unit_attack(squad, target, led_by=chief, exact=True)
    assert led.result.hits.mean == 26 * (Fraction(1, 2) + Fraction(1, 6))  # a 6 scores one more hit, every attack
    assert ("Test Chief, leading the attacker, has Press On (read from its text), for the whole Attached unit (one "
            "unit for all rules purposes): weapons gain SUSTAINED HITS 1") in led.situation
    with pytest.raises(MathhammerError, match="Press On needs no --with here"):
        unit_attack(squad, target, led_by=chief, exact=True, modifiers=["press on"])
    alone = unit_attack(chief, target, exact=True)  # the Chief's own unit
    assert alone.result.hits.mean == 2 * (Fraction(1, 2) + Fraction(1, 6))


def test_precision_a_rule_gives_can_be_aimed_or_declined():
    # a review found --precision-on refused ("no weapon ... has PRECISION") where a Leader's rule gives it
    aim = ("Marked Prey", "While this model is leading a unit, weapons equipped by models in that unit have the "
                          "[PRECISION] ability.")
    squad = sheet(GUN, models=(("Breaker", 4),))
    chief = attrs.evolve(sheet('12" A2 BS4+ S4 AP0 D1', aim, models=(("Chief", 1),), keywords="CHARACTER"),
                         name="Test Chief")
    led = TargetUnit(Target((*squad.as_target().groups, *chief.as_target().groups), attached=True), "led", squad,
                     (), (chief,))
    aimed = unit_attack(squad, led, led_by=chief, precision_on="Chief")
    assert "Precision wounds go to group 2 (Chief) first" in aimed.situation
    assert all(f.weapon.precision for f in aimed.firings)
    declined = unit_attack(squad, led, led_by=chief, precision=False)
    assert "Precision declined: wounds are allocated as for any other attack" in declined.situation
    assert not any(f.weapon.precision for f in declined.firings)  # not given back by the rule


def _breakers_led_by_chief(ability: tuple[str, str]) -> TargetUnit:
    """The target: 4 Breakers led by a Test Chief whose datasheet has `ability` (name, text)."""
    guard = sheet('24" A1 BS4+ S4 AP0 D1', models=(("Breaker", 4),))
    chief = attrs.evolve(sheet('12" A2 BS4+ S4 AP0 D1', ability, models=(("Chief", 1),), keywords="CHARACTER"),
                         name="Test Chief")
    return TargetUnit(Target((*guard.as_target().groups, *chief.as_target().groups), attached=True), "led", guard,
                      (), (chief,))


def test_a_feel_no_pain_against_some_attacks_only_is_read():
    # a trial found a Librarian's Psychic Hood ('models in that unit have the Feel No Pain 4+ ability against Psychic
    # Attacks' while it leads) and Azrael's Lion Helm (its 4+ invulnerable save too) named as not modelled
    hood = ("Stone Hood", "While this model is leading a unit, models in that unit have the Feel No Pain 4+ ability "
                          "against Psychic Attacks.")
    [reading] = read_ability("Test Chief", *hood).ability.readings
    assert (reading.rule.summary, reading.scope) == ("Feel No Pain 4+ against psychic attacks", "leading")
    led = _breakers_led_by_chief(hood)
    # one attack hitting on 2+ and wounding S8 v T4 on 2+ (25/36), no save at AP-6, D1: half of it ignored (4+) where
    # the attack is psychic, none otherwise
    assert mean(unit_attack(sheet('24" A1 BS2+ S8 AP-6 D1 [PSYCHIC]'), led, exact=True)) == Fraction(25, 72)
    assert mean(unit_attack(sheet('24" A1 BS2+ S8 AP-6 D1'), led, exact=True)) == Fraction(25, 36)
    helm = read_ability("Test Chief", "Stone Helm", "Models in the bearer’s unit have a 4+ invulnerable save. In "
                        "addition, once per battle, the bearer can use this ability. When it does, until the end of "
                        "the phase, models in the bearer’s unit have the Feel No Pain 4+ ability against mortal "
                        "wounds.")
    assert [(r.rule.summary, r.scope, bool(r.needs)) for r in helm.ability.readings] == [
        ("4+ invulnerable save", "unit", False), ("Feel No Pain 4+ against mortal wounds", "unit", True)]


def test_an_invulnerable_save_against_melee_attacks_only():
    # a trial found Wyches' 'This unit has a 4+ Invulnerable save against melee attacks' (beside their 6+) dropped:
    # 8.28 Wyches destroyed by Assault Intercessors where their 4+ leaves 5.18
    dodge = ("Invulnerable Save", "This unit has a 6+ Invulnerable save.\nThis unit has a 4+ Invulnerable save against "
                                  "melee attacks.")
    [reading] = read_ability("Test Wyches", *dodge).ability.readings
    assert (reading.rule.summary, reading.rule.phase) == ("4+ invulnerable save", "fight")
    assert invulnerable(*dodge)["value"] == 6  # the profile's: against every attack
    joined = read_ability("Test Wyches", "Invulnerable Save", "This unit has a 6+ Invulnerable save against ranged "
                          "attacks, and 4+ Invulnerable save against melee attacks.")
    assert [(r.rule.summary, r.rule.phase) for r in joined.ability.readings] == [("4+ invulnerable save", "fight")]
    defender = sheet('24" A1 BS4+ S4 AP0 D1', dodge)
    target = TargetUnit(Target.parse("T4 Sv3+ inv6+ W2 x5"), "", defender)  # the profile's 6+, as the catalogue's
    # one attack hitting on 2+ and wounding S8 v T4 on 2+ (25/36), no armour save at AP-6: half saved (4+) in melee,
    # a sixth (6+) when shot
    assert mean(unit_attack(sheet('A1 WS2+ S8 AP-6 D1'), target, melee=True, exact=True)) == Fraction(25, 72)
    assert mean(unit_attack(sheet('24" A1 BS2+ S8 AP-6 D1'), target, exact=True)) == Fraction(25, 36) * Fraction(5, 6)
    # the other forms (a review found a no-break space, a Judiciar's value line and Howling Banshees' 'improved to'
    # missed): the save against every attack, where there is one, stays the profile's
    for name, text, every in (
            ("Invulnerable Save*", "4+\n* This model has a 4+ invulnerable save against\u00a0melee attacks.", None),
            ("Invulnerable Save", "This unit has a 5+ Invulnerable Save. This invulnerable save is improved to 4+ "
                                  "against\u00a0melee attacks.", 5)):
        assert [(r.rule.summary, r.rule.phase) for r in read_ability("Test", name, text).ability.readings] == [
            ("4+ invulnerable save", "fight")]
        assert (invulnerable(name, text) or {}).get("value") == every


def test_a_feel_no_pain_against_other_attacks_is_not_modelled():
    # a review found 'Feel No Pain 5+ against ranged attacks' read as an effect of nothing
    for against in ("ranged attacks", "mortal wounds inflicted by Psychic Attacks"):
        verdict = read_ability("Test Chief", "Odd Ward", "While this model is leading a unit, models in that unit "
                               f"have the Feel No Pain 5+ ability against {against}.")
        assert (verdict.kind, verdict.ability.unmodelled) == ("unmodelled", f"Feel No Pain against {against} only")


def test_a_target_leaders_own_defence_protects_its_own_models():
    """A Leader's ability of "this model" that changes what an attack allocated to it meets (Damage -1: a trial found
    the Overlord's Implacable Resilience dropped once he led Necron Warriors) protects the Leader alone."""
    hide = ("Iron Hide", "Each time an attack is allocated to this model, subtract 1 from the Damage characteristic "
                         "of that attack.")
    led = _breakers_led_by_chief(hide)
    # one attack hitting on 2+ and wounding S8 v T4 on 2+ (25/36) at AP-6 (no save), Damage 2
    sniper = unit_attack(sheet('24" A1 BS2+ S8 AP-6 D2 [PRECISION]'), led, exact=True)  # allocated to the Chief
    assert mean(sniper) == Fraction(25, 36) * (2 - 1)
    assert sniper.result.models_destroyed.mean == 0  # W2, 1 damage at most
    assert ("Test Chief, leading the target, has Iron Hide (read from its text): Damage of attacks allocated to it -1 "
            "(not below 1), for its Chief models only") in sniper.situation
    assert mean(unit_attack(sheet('24" A1 BS2+ S8 AP-6 D2'), led, exact=True)) == Fraction(25, 36) * 2  # a Breaker's
    assert mean(unit_attack(sheet('24" A1 BS2+ S8 AP-6 D2 [PRECISION]'), led, exact=True, without=["iron hide"])) == \
        Fraction(25, 36) * 2
    # a second Leader beside it does not have it (a review found the Overlord's given to a Technomancer)
    aide = attrs.evolve(sheet('12" A2 BS4+ S4 AP0 D1', models=(("Aide", 1),), keywords="CHARACTER"), name="Test Aide")
    both = attrs.evolve(led, target=Target((*led.target.groups, *aide.as_target().groups), attached=True),
                        leaders=(*led.leaders, aide))
    precise = sheet('24" A1 BS2+ S8 AP-6 D2 [PRECISION]')
    assert mean(unit_attack(precise, both, exact=True, precision_on="Aide")) == Fraction(25, 36) * 2
    assert mean(unit_attack(precise, both, exact=True, precision_on="Chief")) == Fraction(25, 36)


def test_a_target_leaders_defence_for_its_unit_protects_the_whole_attached_unit():
    """A target Leader's "models in this unit" defence is the whole Attached unit's (one unit for all rules
    purposes): a Breaker has it as the Chief does."""
    hide = ("Iron Ward", "Each time an attack is allocated to a model in this unit, subtract 1 from the Damage "
                         "characteristic of that attack.")
    led = _breakers_led_by_chief(hide)
    # one attack hitting on 2+, wounding S8 v T4 on 2+ (25/36) at AP-6 (no save), D2: 1 on the Chief (Precision)
    sniper = unit_attack(sheet('24" A1 BS2+ S8 AP-6 D2 [PRECISION]'), led, exact=True)
    assert mean(sniper) == Fraction(25, 36)
    assert ("Test Chief, leading the target, has Iron Ward (read from its text), for the whole Attached unit (one unit "
            "for all rules purposes): Damage of attacks allocated to it -1 (not below 1)") in sniper.situation
    shot = sheet('24" A1 BS2+ S8 AP-6 D2')  # allocated to a Breaker: 1 as well
    assert mean(unit_attack(shot, led, exact=True)) == Fraction(25, 36)
    assert mean(unit_attack(shot, led, exact=True, without=["iron ward"])) == Fraction(25, 36) * 2


# --------------------------------------------------------------------- from a catalogue, through the CLI
@pytest.fixture
def indexed(tmp_path, monkeypatch):
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    return build.add_checkout(CHECKOUT)


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_data_add_counts_the_abilities_it_read(indexed):
    assert indexed.tally.abilities == {"effects": 5, "profile": 1, "unmodelled": 2, "others": 1, "other": 2}
    assert indexed.tally.abilities_unmodelled == {"Grim Resolve": 1, "Lone Operative": 1}
    assert ("abilities: 11 read, 5 applied as effects (when a query settles their condition), 1 in the model profile "
            "(invulnerable saves, Feel No Pain), 2 not modelled (named in the answers), 1 for other units' attacks, 2 "
            "not about attacks") in indexed.lines()
    assert "abilities not modelled, by units: Grim Resolve (1), Lone Operative (1)" in indexed.lines()


def test_the_default_wargear_of_a_unit_of_one_model_gives_its_ability(indexed):
    # the Crag Walker's Crag scanner: 2 shots hitting on 4+ with hit rolls of 1 re-rolled: 2 x (1/2 + 1/6 x 1/2)
    # (a trial found a Hekaton Land Fortress's pan spectral scanner never read, nor named)
    answer = run("unit", "Crag Walker", "-t", "T4 Sv6+ W10", "--exact", "--json")
    assert Fraction(json.loads(answer.output)["hits"]["mean"]) == 2 * (Fraction(1, 2) + Fraction(1, 12)) == \
        Fraction(7, 6)
    assert "attacker has Crag scanner (read from its text): re-roll hit rolls of 1 (ranged weapons)" in \
        run("unit", "Crag Walker", "-t", "T4 Sv6+ W10").output


def test_a_conversion_weapon_takes_its_distance_from_its_rule(indexed):
    # the Crag beamer prints 'Conversion' bare; its rule's text gives 18". 2 shots, hits on 4+ re-rolling 1s,
    # S8 v T4 wounds on 2+, Lethal Hits, no save at AP-1 against 6+, D2 on a W10 model (no wound lost to overkill).
    # Beyond 18" every hit is a Critical Hit (4+): 1/2 + 1/6 x 1/2 = 7/12 and wounds; 2 x 7/12 x 2 = 7/3.
    # Within it only a 6 is: crits 1/6 + 1/36 = 7/36, other hits 1/3 + 1/18 = 7/18 wound 5/6: 2 x 14/27 x 2 = 56/27
    beamer = ("unit", "Crag Walker", "-t", "T4 Sv6+ W10", "--loadout", "crag beamer")
    far = run(*beamer, "--far", "--exact", "--json")
    assert Fraction(json.loads(far.output)["damage"]["mean"]) == Fraction(7, 3)
    assert Fraction(json.loads(run(*beamer, "--exact", "--json").output)["damage"]["mean"]) == Fraction(56, 27)
    assert 'Conversion (beyond 18")' in run(*beamer, "--far").output
    # with no rule that states one distance the keyword stays bare: not modelled, and named so
    assert with_conversion_range({"Keywords": "Conversion, Lethal Hits"}, [("Lethal Hits", "...")]) == \
        {"Keywords": "Conversion, Lethal Hits"}
    assert with_conversion_range({"Keywords": "Conversion"}, [("Conversion", 'beyond 12" or beyond 24"')]) == \
        {"Keywords": "Conversion"}


def test_a_catalogue_unit_attacks_with_its_ability_and_the_targets(indexed):
    # 3 x A1 BS3+ S9 AP-4 D6 against T10 Sv3+ inv5+ W16 VEHICLE, Damage -1 (Slab Armour):
    # hit 3+ re-rolled: 8/9; wound 5+ re-rolled: 1/3 + 2/3 x 1/3 = 5/9; inv 5+ fails 2/3;
    # D6 re-rolled on 1-3: 1-3 each 1/12, 4-6 each 1/4; less 1 (not below 1): 1/12 x (1+1+2) + 1/4 x (3+4+5) = 10/3
    result = run("unit", "Slag Breakers", "-t", "Crag Walker", "--exact", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert Fraction(answer["damage"]["mean"]) == 3 * Fraction(8, 9) * Fraction(5, 9) * Fraction(2, 3) * \
        Fraction(10, 3) == Fraction(800, 243)
    text = run("unit", "Slag Breakers", "-t", "Crag Walker").output
    assert ("attacker has Crack the Shell (read from its text): re-roll failed hit rolls, re-roll failed wound rolls, "
            "re-roll Damage rolls below average (ranged weapons), against a MONSTER or VEHICLE unit; 'you can "
            "re-roll' taken as re-rolling failed hit and wound rolls and a Damage roll below its average") in text
    assert "target has Slab Armour (read from its text): Damage of attacks allocated to it -1 (not below 1)" in text
    assert "not applied: Grim Resolve (not modelled: it names no attack this reader knows)" in text
    assert "Damaged" not in text  # the target's own attacks: not these
    # without the re-rolls: 3 x 2/3 x 1/3 x 2/3 x (1 + 1 + 2 + 3 + 4 + 5)/6 = 32/27
    plain = run("unit", "Slag Breakers", "-t", "Crag Walker", "--without", "crack the shell", "--exact", "--json")
    assert Fraction(json.loads(plain.output)["damage"]["mean"]) == Fraction(32, 27)
    # the walker attacking: its Damaged ability waits for --with, which assumes it
    walker = run("unit", "Crag Walker", "-t", "Slag Breakers")
    assert ("not applied: Damaged: 1-5 Wounds Remaining applies only while this model has 1-5 wounds remaining; "
            "--with 'Damaged: 1-5 Wounds Remaining' assumes it") in walker.output
    damaged = run("unit", "Crag Walker", "-t", "Slag Breakers", "--with", "damaged: 1-5 wounds remaining")
    assert "assumed (--with): while this model has 1-5 wounds remaining" in damaged.output
    bad = run("unit", "Slag Breakers", "-t", "Crag Walker", "--without", "Trudge")
    assert bad.exit_code == 2 and bad.output.startswith("error: --without 'Trudge': not an ability of these units")


def test_a_catalogues_army_rule_is_named_on_either_side_once(indexed):
    # Slag Fury: a shared rule of the catalogue that both Slag units link, declared by no rules/ file
    attacking = run("unit", "Slag Breakers", "-t", "Crag Walker", "--exact", "--json")
    assert Fraction(json.loads(attacking.output)["damage"]["mean"]) == Fraction(800, 243)  # as without it (above)
    text = run("unit", "Slag Breakers", "-t", "Crag Walker").output
    assert "not applied: Slag Fury (an army rule not modelled)" in text
    # the target's, its Leader listing it too: the Attached unit's army rule, named once, and said to be the
    # target's (the attacker does not list it)
    led = run("unit", "Crag Walker", "-t", "Slag Breakers", "--leader", "Slag Chieftain").output
    assert led.count("Slag Fury") == 1 and "not applied: Slag Fury (the target's; an army rule not modelled)" in led
    refused = run("unit", "Slag Breakers", "-t", "Crag Walker", "--with", "Slag Fury")
    assert refused.exit_code == 2
    assert refused.output == "error: Slag Fury is an army rule not modelled; it cannot be given with --with\n"


def test_a_leaders_feel_no_pain_is_its_led_units(indexed):
    # the Crag cannon (A2 BS4+ S8 AP-1 D2) at 3 Slag Breakers (T6 Sv3+ W3) led by their Chieftain (W5): hit 4+ (1/2),
    # wound S8 v T6 on 3+ (2/3), save 3+ at AP-1 on 4+ fails 1/2: each attack 1/6 unsaved, for D2 on a W3 model.
    # Feel No Pain 5+ ("models in that unit", while the Chieftain leads) keeps each wound with 1/3: 2/3 lost each.
    # Damage lost to one unsaved attack X: 0 (1/9), 1 (4/9), 2 (4/9), mean 4/3. One of the 2 attacks unsaved (10/36):
    # 4/3. Both (1/36): on one W3 model, E[min(X1 + X2, 3)] = 24/9 - P(X1 = X2 = 2) = 24/9 - 16/81 = 200/81.
    # Mean damage = 10/36 x 4/3 + 1/36 x 200/81 = 270/729 + 50/729 = 320/729
    # (without the Chieftain's ward, X = 2: 10/36 x 2 + 1/36 x min(4, 3) = 23/36); the walker's Crag scanner left out
    plain = ("--without", "crag scanner", "--exact", "--json")
    led = run("unit", "Crag Walker", "-t", "Slag Breakers", "--leader", "Slag Chieftain", *plain)
    assert led.exit_code == 0, led.output
    assert Fraction(json.loads(led.output)["damage"]["mean"]) == Fraction(320, 729)
    alone = run("unit", "Crag Walker", "-t", "Slag Breakers", *plain)
    assert Fraction(json.loads(alone.output)["damage"]["mean"]) == Fraction(23, 36)
    text = run("unit", "Crag Walker", "-t", "Slag Breakers", "--leader", "Slag Chieftain").output
    assert "target has Chieftain's Ward (read from its Leader's text): Feel No Pain 5+" in text
    assert "not applied" not in text.split("Chieftain's Ward")[1].split("\n")[0]
    found = by_name.target_unit("Slag Breakers", leader="Slag Chieftain")
    every = unit_attack("Crag Walker", found, exact=True, without=["crag scanner"])
    assert every.result.damage.mean == Fraction(320, 729)
    # with the scanner, hits on 4+ re-rolling 1s (7/12 for 1/2): each attack unsaved 7/36; one of two 2 x 7/36 x 29/36,
    # both (7/36)^2: 406/1296 x 4/3 + 49/1296 x 200/81 = 3353/6561
    assert unit_attack("Crag Walker", found, exact=True).result.damage.mean == Fraction(406, 1296) * Fraction(4, 3) \
        + Fraction(49, 1296) * Fraction(200, 81) == Fraction(3353, 6561)
    # the Chieftain alone is not leading: its ward is named, not applied; its Lone Operative (a core rule linked by
    # name) is named as not modelled, in every question that targets it
    own = run("unit", "Crag Walker", "-t", "Slag Chieftain").output
    assert "not applied: Chieftain's Ward works while this model is leading a unit" in own
    lone = f"not applied: Lone Operative (not modelled: {TARGETED_ONLY})"
    assert lone in own and lone not in run("unit", "Slag Chieftain", "-t", "Crag Walker").output  # not its attacks
    for args in (["attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "Slag Chieftain"], ["survive", "Slag Chieftain"],
                 ["plan", "-w", "A1 BS3+ S4 AP0 D1", "-t", "Slag Chieftain"]):
        assert lone in run(*args).output, args


def test_weapons_alone_meet_the_targets_abilities_too(indexed):
    from mathhammer_exact.decide.survive import panel, survive
    from mathhammer_exact.engine.resolve import attack

    # two lascannons (A1 BS3+ S12 AP-3 D6+1) at the Crag Walker (T10 Sv3+ inv5+ W16, Slab Armour: Damage -1): hit 2/3,
    # wound 3+ 2/3, the 5+ invulnerable save fails 2/3: 8/27 unsaved each, for D6+1-1 = D6 (mean 7/2) of 16 wounds
    # (nothing wasted): 2 x 8/27 x 7/2 = 56/27 (without Slab Armour, 2 x 8/27 x 9/2 = 8/3)
    walker = survive(by_name.target_unit("Crag Walker"), [panel()["lascannons"]], exact=True)
    assert walker.rows[0].damage == Fraction(56, 27)
    assert walker.header == ("target has Slab Armour (read from its text): Damage of attacks allocated to it -1 "
                             "(not below 1)",)
    shots = run("attack", "-w", '2x 48" A1 BS3+ S12 AP-3 DD6+1', "-t", "Crag Walker", "--exact", "--json")
    assert Fraction(json.loads(shots.output)["damage"]["mean"]) == Fraction(56, 27)
    # ten bolt rifles at the Slag Breakers led by their Chieftain: as at the same models with Feel No Pain 5+ each
    led = run("survive", "Slag Breakers", "--leader", "Slag Chieftain", "-a", "bolt rifles", "--exact", "--json")
    assert led.exit_code == 0, led.output
    answer = json.loads(led.output)
    found = by_name.target_unit("Slag Breakers", leader="Slag Chieftain")
    warded = attrs.evolve(found.target, groups=tuple((attrs.evolve(p, feel_no_pain=5), n) for p, n in
                                                     found.target.groups))
    assert [p.feel_no_pain for p, _ in found.target.groups] == [None, None]
    expected = attack(list(panel()["bolt rifles"].firings), warded, exact=True)
    assert Fraction(answer["rows"][0]["damage"]) == expected.damage.mean
    assert "target has Chieftain's Ward (read from its Leader's text): Feel No Pain 5+" in answer["header"]


def test_a_whole_turn_meets_the_targets_abilities_in_both_phases(indexed):
    from mathhammer_exact.decide.turn import whole_turn
    from mathhammer_exact.model import Firing

    # the Crag Walker's Slab Armour (Damage -1) in the shooting and in the fight: as at the same model with its
    # damage reduced, the turn's own machinery otherwise
    args = ["turn", "-t", "Crag Walker", "-s", '2x 48" A1 BS3+ S12 AP-3 DD6+1', "-f", "3x Melee A3 WS3+ S8 AP-2 D=3",
            "-d", "7", "--exact", "--json"]
    out = run(*args)
    assert out.exit_code == 0, out.output
    walker = by_name.target_unit("Crag Walker").target
    slab = attrs.evolve(walker, groups=tuple((attrs.evolve(p, reduce_damage=True), n) for p, n in walker.groups))
    expected = whole_turn(slab, [Firing(Weapon.parse('48" A1 BS3+ S12 AP-3 DD6+1'), 2)],
                          [Firing(Weapon.parse("Melee A3 WS3+ S8 AP-2 D=3"), 3)], 7, exact=True)
    answer = json.loads(out.output)
    assert Fraction(answer["p_destroyed"]) == expected.p_destroyed
    assert expected.p_destroyed != whole_turn(walker, [Firing(Weapon.parse('48" A1 BS3+ S12 AP-3 DD6+1'), 2)],
                                              [Firing(Weapon.parse("Melee A3 WS3+ S8 AP-2 D=3"), 3)], 7,
                                              exact=True).p_destroyed
    assert "target has Slab Armour (read from its text): Damage of attacks allocated to it -1 (not below 1)" in \
        answer["header"]


def test_a_matchup_cell_is_the_unit_answer_with_the_targets_abilities(indexed):
    from mathhammer_exact.sweep.matchup import grid, read_army
    from mathhammer_exact.sweep.queries import rows

    # Slag Breakers at the Crag Walker: its Slab Armour (Damage -1) and its 5+ invulnerable save apply in the
    # table as in `unit` (800/243, derived in test_a_catalogue_unit_attacks_with_its_ability_and_the_targets)
    queries = grid(read_army("Slag Breakers"), read_army("Crag Walker"))
    cell = rows(queries, 0, queries.size)[0]
    single = unit_attack("Slag Breakers", by_name.target_unit("Crag Walker"), exact=True)
    assert single.result.damage.mean == Fraction(800, 243)
    assert cell["mean_damage"] == pytest.approx(float(Fraction(800, 243)), abs=1e-12)


def test_the_target_sheet_is_found_by_name_only(indexed):
    assert by_name.target_unit("Crag Walker").sheet.name == "Crag Walker"
    assert by_name.target_unit("MEQ").sheet is None and by_name.target_unit("T4 Sv3+ W2").sheet is None


def test_a_plan_meets_each_targets_abilities(indexed):
    # one weapon, A1 S20 AP-6 D16 [TORRENT], at the Crag Walker (T10 Sv3+ inv5+ W16; Slab Armour: Damage -1) or at a
    # profile T10 Sv3+ inv4+ W15: it hits, wounds on 2+ (5/6); the invulnerable save fails 2/3 (5+), 1/2 (4+).
    # At the walker Slab Armour leaves 15 of its 16 wounds: never destroyed (0); without it, 5/6 x 2/3 = 5/9.
    # At the profile 16 >= 15 wounds: 5/6 x 1/2 = 5/12. Each target is one model: the expected kills are these
    # chances. So the profile is the better target, only with Slab Armour.
    out = run("plan", "-w", '24" A1 S20 AP-6 D16 [TORRENT]', "-t", "Crag Walker", "-t", "T10 Sv3+ inv4+ W15",
              "--goal", "kills", "--exact", "--json")
    assert out.exit_code == 0, out.output
    answer = json.loads(out.output)
    assert [(r["target_1"], r["target_2"], Fraction(r["value"])) for r in answer["rows"]] == \
        [("", "1", Fraction(5, 12)), ("1", "", Fraction(0))]
    # "against target 1": a trial read "target 1: <the attacking unit>" as the attacker being target 1
    assert ("against target 1: target has Slab Armour (read from its text): Damage of attacks allocated to it -1 "
            "(not below 1)") in answer["header"]
    # the same plan without Slab Armour (the walker's profile alone) picks the walker
    walker = by_name.target_unit("Crag Walker").target
    bare = run("plan", "-w", '24" A1 S20 AP-6 D16 [TORRENT]', "-t", "T10 Sv3+ inv5+ W16", "-t", "T10 Sv3+ inv4+ W15",
               "--goal", "kills", "--exact", "--json")
    assert walker.groups[0][0].invulnerable == 5 and walker.groups[0][0].wounds == 16
    assert [(r["target_1"], Fraction(r["value"])) for r in json.loads(bare.output)["rows"]] == \
        [("1", Fraction(5, 9)), ("", Fraction(5, 12))]


def test_the_fewest_models_meet_the_targets_abilities(indexed):
    # ?x A1 S20 AP-6 D16 [TORRENT] at the Crag Walker: each attack unsaved with 5/6 x 2/3 = 5/9 (derived in
    # test_a_plan_meets_each_targets_abilities). Slab Armour leaves 15 damage each: two unsaved attacks destroy it.
    # P(at least 2 of n) at p = 5/9: n = 2, 25/81 (< 1/2); n = 3, 1 - (4/9)^3 - 3 x 5/9 x (4/9)^2 = 425/729 (>= 1/2).
    # (Without Slab Armour one would do: 1 model, 5/9.)
    out = run("attack", "-w", '?x 24" A1 S20 AP-6 D16 [TORRENT]', "-t", "Crag Walker", "--need", "1/2", "--exact",
              "--json")
    assert out.exit_code == 0, out.output
    answer = json.loads(out.output)
    assert (answer["need"]["models"], Fraction(answer["need"]["p"]), Fraction(answer["need"]["p_below"])) == \
        (3, Fraction(425, 729), Fraction(25, 81))
    assert "target has Slab Armour (read from its text): Damage of attacks allocated to it -1 (not below 1)" in \
        answer["header"]


def test_a_condition_that_names_a_rule_given_with_with_holds_with_it():
    # a trial asked for the Waaagh! and read a Warboss's Da Biggest and da Best ('while the Waaagh! is active for your
    # army') as not applied. Melee A3 WS4+ S3 AP0 D1 at T4 Sv6+ W10: with the Waaagh! +1 Attacks and +1 Strength,
    # and the ability's +1 Attacks, 5 attacks, hit 1/2, S4 v T4 wounds 1/2, Sv6+ fails 5/6: 25/24
    biggest = ("Biggest", "While the Waaagh! is active for your army, add 1 to the Attacks characteristic of melee "
                          "weapons equipped by models in this unit.")
    orks = sheet("Melee A3 WS4+ S3 AP0 D1", biggest, keywords="ORKS", army_rules=("Waaagh!",))
    report = unit_attack(orks, Target.parse("T4 Sv6+ W10"), modifiers=["waaagh!"], melee=True, exact=True)
    assert mean(report) == 5 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6) == Fraction(25, 24)
    assert "attacker has Biggest (read from its text): +1 Attacks (melee weapons); while the Waaagh! is active for " \
           "your army, as --with 'Waaagh!' assumes" in report.situation
    alone = unit_attack(orks, Target.parse("T4 Sv6+ W10"), melee=True, exact=True)
    assert mean(alone) == 3 * Fraction(1, 2) * Fraction(1, 3) * Fraction(5, 6)  # S3 v T4 wounds on 5+
    assert any(line.startswith("not applied: Biggest applies only while the Waaagh! is active") for line in
               alone.situation)


def test_a_damage_roll_you_can_re_roll_is_re_rolled_as_the_players_option_says():
    # a trial: Fire Dragons' 'you can re-roll the Damage roll' is read as re-rolling a roll below its average, and
    # --reroll-damage ones was refused as setting it twice. One Torrent D6 attack, S8 v T4 wounds on 2+ (5/6), AP-4
    # leaves Sv6+ nothing: re-rolling 1-3, E[D6] = 1/2 x 7/2 + (4 + 5 + 6)/6 = 17/4; re-rolling a 1 alone, 1/6 x 7/2
    # + (2 + ... + 6)/6 = 47/12
    sure = ("Sure Strike", "Each time a model in this unit makes an attack, you can re-roll the Damage roll.")
    unit = sheet("A1 BS2+ S8 AP-4 DD6 [TORRENT]", sure)
    target = Target.parse("T4 Sv6+ W20")
    read = unit_attack(unit, target, exact=True)
    assert mean(read) == Fraction(5, 6) * Fraction(17, 4)
    chosen = unit_attack(unit, target, context=Context(reroll_damage="ones"), exact=True)
    assert mean(chosen) == Fraction(5, 6) * Fraction(47, 12)
    said = "attacker has Sure Strike (read from its text): re-roll Damage rolls of 1; the Damage roll it lets you " \
           "re-roll as the query's damage re-roll says"  # not also 'below average' (a review)
    assert said in chosen.situation


def test_the_part_of_an_ability_not_applied_is_named_beside_the_part_applied():
    # a trial read 'attacker has Shock Assault: re-roll wound rolls of 1' and 'not applied: Shock Assault applies only
    # if that enemy unit is within range of an objective marker' as contradicting: the second is its other part
    shock = ("Shock Assault", "Each time a model in this unit makes a melee attack, re-roll a Wound roll of 1. If that "
                              "attack targets an enemy unit within range of an objective marker, you can re-roll the "
                              "Wound roll instead.")
    lines = [line for line in unit_attack(sheet("Melee A3 WS3+ S4 AP0 D1", shock), Target.parse("T4 Sv6+ W10"),
                                          melee=True).situation if "Shock Assault" in line]
    assert lines[0] == "attacker has Shock Assault (read from its text): re-roll wound rolls of 1 (melee weapons)"
    assert lines[1].startswith("not applied: Shock Assault: re-roll failed wound rolls (melee weapons), applies only ")


def test_a_dark_pact_is_chosen_and_settles_the_abilities_that_act_when_one_is_made():
    # a trial: --with 'Dark Pacts' was refused as not modelled, yet --with Despoilers ('each time this unit makes a
    # Dark Pact') was applied, assuming a Dark Pact without its Lethal Hits or Sustained Hits 1. Melee A3 WS4+ S4 AP0
    # D1 at T4 Sv6+ W10 (S4 v T4 wounds on 4+, Sv6+ fails 5/6). Sustained Hits 1 with Despoilers' re-roll of failed
    # hits: a die hits 1/2 + 1/2 x 1/2 = 3/4, of which a 6 (1/6 + 1/2 x 1/6 = 1/4) makes two hits: 3 x (3/4 + 1/4) =
    # 3 hits, 3 x 1/2 x 5/6 = 5/4. Lethal Hits with the re-roll: a 6 wounds outright (1/4), a 4-5 (1/2) rolls to wound:
    # 3 x (1/4 + 1/2 x 1/2) x 5/6 = 5/4 too; Lethal Hits without Despoilers: 3 x (1/6 + 1/3 x 1/2) x 5/6 = 5/6.
    despoilers = ("Despoilers", "Each time this unit makes a Dark Pact, until the end of the phase, each time a model "
                                "in this unit makes an attack, you can re-roll the Hit roll.")
    chaos = sheet("Melee A3 WS4+ S4 AP0 D1", despoilers, keywords="INFANTRY", army_rules=("Dark Pacts",))
    target = Target.parse("T4 Sv6+ W10")
    answers = {pact: unit_attack(chaos, target, modifiers=[f"dark-pacts-{pact}"], melee=True, exact=True)
               for pact in ("sustained", "lethal")}
    assert mean(answers["sustained"]) == mean(answers["lethal"]) == Fraction(5, 4)
    assert "attacker has Despoilers (read from its text): re-roll failed hit rolls; 'you can re-roll' taken as " \
           "re-rolling failed hit rolls; each time this unit makes a Dark Pact, as --with 'dark-pacts-lethal' " \
           "assumes" in answers["lethal"].situation
    alone = unit_attack(chaos, target, melee=True, exact=True)  # no Dark Pact: neither applied, each option said
    assert mean(alone) == 3 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6)
    assert "not applied: Despoilers applies only each time this unit makes a Dark Pact; --with 'dark-pacts-lethal' " \
           "or --with 'dark-pacts-sustained' assumes it" in alone.situation
    assert not any("not modelled" in line for line in alone.situation)
    for asked, refusal in ((["despoilers"], "Despoilers applies only each time this unit makes a Dark Pact, and Dark "
                                            "Pacts is a choice: give --with 'dark-pacts-lethal' or --with "
                                            "'dark-pacts-sustained', which settles it"),
                           (["dark-pacts-lethal", "dark-pacts-sustained"],  # both at once (a trial)
                            "Dark Pacts is one choice, not 2: give --with 'dark-pacts-lethal' or --with "
                            "'dark-pacts-sustained'"),
                           (["dark pacts"], "Dark Pacts is a choice: give --with 'dark-pacts-lethal' or --with "
                                            "'dark-pacts-sustained'")):
        with pytest.raises(MathhammerError) as refused:
            unit_attack(chaos, target, modifiers=asked, melee=True, exact=True)
        assert str(refused.value) == refusal
    # in a turn, --with gives the rules together in the phase that can use them, so the Dark Pact settles Despoilers:
    # a 2" charge always succeeds, and the fight is the one above, 5/4
    from mathhammer_exact.data.datasheet import TargetUnit
    from mathhammer_exact.decide.firings import unit_weapons
    from mathhammer_exact.present.questions import turn_question

    turn = turn_question(TargetUnit(target, "T4 Sv6+ W10"), [], unit_weapons(chaos, melee=True), 2, False, 0, None,
                         None, Context(), True, None, ["despoilers", "dark-pacts-lethal"])
    assert turn.distributions["damage"].mean == Fraction(5, 4)
    assert "  --with 'despoilers': applied in the fight only" in turn.preface
    # beside a rule of the shooting alone (Fire Overwatch), which fails them all together in the fight: each alone
    # there, then Despoilers beside the Dark Pact taken (a review found it dropped from the fight)
    shooters = sheet(GUN, despoilers, keywords="INFANTRY", army_rules=("Dark Pacts",))
    beside = turn_question(TargetUnit(target, "T4 Sv6+ W10"), unit_weapons(shooters), unit_weapons(chaos, melee=True),
                           2, False, 0, None, None, Context(), True, None,
                           ["despoilers", "dark-pacts-lethal", "fire-overwatch"])
    assert "  --with 'despoilers': applied in the shooting and the fight" in beside.preface
    assert "  --with 'fire-overwatch': applied in the shooting only" in beside.preface
    lethal = sheet("Melee A3 WS4+ S4 AP0 D1", keywords="INFANTRY", army_rules=("Dark Pacts",))
    assert mean(unit_attack(lethal, target, modifiers=["dark-pacts-lethal"], melee=True, exact=True)) == \
        3 * (Fraction(1, 6) + Fraction(1, 3) * Fraction(1, 2)) * Fraction(5, 6)
    # once per battle, when it makes one: a Dark Pact does not settle 'once per battle' (a review found a Possessed's
    # Unholy Bloodshed given on every pact), its own --with does, beside the pact's choice
    bloodshed = ("Bloodshed", "Once per battle, when this unit makes a Dark Pact, until the end of the phase, weapons "
                              "equipped by models in this unit have the [LETHAL HITS] ability.")
    once = sheet("Melee A3 WS4+ S4 AP0 D1", bloodshed, keywords="INFANTRY", army_rules=("Dark Pacts",))
    pact = unit_attack(once, target, modifiers=["dark-pacts-sustained"], melee=True, exact=True)
    assert mean(pact) == 3 * (Fraction(1, 2) + Fraction(1, 6)) * Fraction(1, 2) * Fraction(5, 6)  # Sustained alone
    assert any(line.startswith("not applied: Bloodshed applies only once per battle") for line in pact.situation)
    both = unit_attack(once, target, modifiers=["dark-pacts-sustained", "bloodshed"], melee=True, exact=True)
    # a 6 to hit wounds outright and makes one more hit (1/6 x (1 + 1/2)); a 4-5 (1/3) wounds on 4+ (1/2)
    assert mean(both) == 3 * (Fraction(1, 6) * Fraction(3, 2) + Fraction(1, 3) * Fraction(1, 2)) * Fraction(5, 6)
    with pytest.raises(MathhammerError, match="^Bloodshed applies only once per battle; when this unit makes a Dark "
                                              "Pact, and Dark Pacts is a choice: give .* as well$"):
        unit_attack(once, target, modifiers=["bloodshed"], melee=True)


@pytest.mark.parametrize("condition", ["While the Waaagh! is not active for your army",
                                       "While the Waaagh! is active for your army and this unit is within range of "
                                       "an objective marker", "If the Waaagh! has ended for your army"])
def test_a_condition_that_names_a_rule_but_asks_more_or_else_is_not_settled_by_it(condition):
    # an outside review: --with 'Waaagh!' settled any condition naming it. 3 attacks + 1 from the Waaagh!, hit 1/2,
    # S4 (3 + 1) v T4 wounds 1/2, Sv6+ fails 5/6: 5/6, the ability's +1 Attacks left out
    biggest = ("Biggest", f"{condition}, add 1 to the Attacks characteristic of melee weapons equipped by models in "
                          "this unit.")
    orks = sheet("Melee A3 WS4+ S3 AP0 D1", biggest, keywords="ORKS", army_rules=("Waaagh!",))
    report = unit_attack(orks, Target.parse("T4 Sv6+ W10"), modifiers=["waaagh!"], melee=True, exact=True)
    assert mean(report) == 4 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6) == Fraction(5, 6)


def test_a_rule_given_with_with_that_settles_only_another_abilitys_condition_is_not_refused():
    # an outside review: shooting, the Waaagh! itself changes nothing (its bonus is for melee weapons), but it settles
    # 'while the Waaagh! is active' of a +1 to hit for ranged attacks: 3 shots hit on 4+ (1/2), S4 v T4 1/2, 5/6
    dakka = ("Dakka", "While the Waaagh! is active for your army, each time a model in this unit makes a ranged "
                      "attack, add 1 to the Hit roll.")
    orks = sheet('24" A3 BS5+ S4 AP0 D1', dakka, keywords="ORKS", army_rules=("Waaagh!",))
    report = unit_attack(orks, Target.parse("T4 Sv6+ W10"), modifiers=["waaagh!"], exact=True)
    assert mean(report) == 3 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6) == Fraction(5, 8)


def test_a_condition_on_friendly_models_near_the_unit_is_settled_by_its_leader():
    # a trial found a Spiritseer leading Wraithguard and their Psychic Guidance ('while this unit is within 12" of one
    # or more friendly AELDARI PSYKER models') not applied: the Leader is such a model, in the unit. 6 shots hit on
    # 3+ with the +1 (2/3), S4 v T4 1/2, Sv6+ fails 5/6: 5/3; unled, 4+ (1/2): 5/4. (The Leader fights only.)
    guidance = ("Guidance", 'While this unit is within 12" of one or more friendly PSYKER models, each time a model '
                            "in this unit makes an attack, add 1 to the Hit roll.")
    unit = sheet(GUN, guidance)
    seer = attrs.evolve(sheet("Melee A1 WS4+ S4 AP0 D1", models=(("Seer", 1),), keywords="CHARACTER, PSYKER"),
                        name="Test Seer")
    led = unit_attack(unit, Target.parse("T4 Sv6+ W10"), led_by=seer, exact=True)
    assert mean(led) == 6 * Fraction(2, 3) * Fraction(1, 2) * Fraction(5, 6) == Fraction(5, 3)
    assert any(line.endswith("PSYKER models: Seer is one") for line in led.situation)
    assert mean(unit_attack(unit, Target.parse("T4 Sv6+ W10"), exact=True)) == Fraction(5, 4)


@pytest.mark.parametrize(("name", "text"), [
    # two effects joined by 'and': read for its own unit, the second's condition would be the first's words
    ("Icon (Aura)", 'While a friendly GRAVEL HOST unit is within 6" of this model, models in that unit have the '
                    "Stealth ability and each time a ranged attack targets that unit, that unit has the Benefit of "
                    "Cover against that attack."),
    # one of a set, in force where chosen (a Triumph of Saint Katherine's relics)
    ("Relic of the Host - Banner (Aura)", 'While a friendly GRAVEL HOST unit is within 6" of this model, each time a '
                                          "model in that unit makes an attack, add 1 to the Hit roll."),
    # words the reader does not understand: other units' business, as before, not named on every unit
    ("Gloom (Aura)", 'While a friendly GRAVEL HOST unit is within 6" of this model, add 1 to the Toughness '
                     "characteristic of models in that unit."),
])
def test_an_aura_not_read_for_its_own_unit(name, text):
    # an outside review found these read for its own unit: garbled, always in force, or named as not modelled
    assert read_ability("Test Unit", name, text).kind == "others"


def test_oath_of_moment_given_settles_a_condition_on_its_target():
    # an outside review: 'if the target is your Oath of Moment target' (Sternguard Focus) was settled by --with 'Oath
    # of Moment' before the plain form was required. 6 shots hit 4+ re-rolling fails (3/4, the Oath), wound 4+
    # re-rolling fails (3/4, the ability), Sv6+ fails 5/6: 6 x 3/4 x 3/4 x 5/6 = 45/16
    focus = ("Focus", "Each time a model in this unit makes an attack, if the target is your Oath of Moment target, "
                      "you can re-roll the Wound roll.")
    marines = sheet(GUN, focus, keywords="ADEPTUS ASTARTES", army_rules=("Oath of Moment",))
    report = unit_attack(marines, Target.parse("T4 Sv6+ W10"), modifiers=["oath of moment"], exact=True)
    assert mean(report) == 6 * Fraction(3, 4) * Fraction(3, 4) * Fraction(5, 6) == Fraction(45, 16)


def test_an_enemy_model_does_not_settle_a_condition_on_friendly_models_near_the_unit():
    guidance = ("Guidance", 'While this unit is within 12" of one or more friendly PSYKER models, each time a model '
                            "in this unit makes an attack, add 1 to the Hit roll.")
    report = unit_attack(sheet(GUN, guidance), Target.parse("T4 Sv6+ W10 [PSYKER]"), exact=True)
    assert mean(report) == 6 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6)  # no +1 to hit


def test_a_leaders_better_defence_for_units_of_a_keyword_instead():
    # a trial found Nexus of Devotion's second sentence ("if that unit has the X keyword, ... Feel No Pain 4+ ability
    # instead") dropped as another unit's: Hybrid Metamorphs got 5+. 'That unit' goes on about the unit it leads, and
    # the keyword is settled by the unit's models
    nexus = ("Stone Banner", "While this model is leading a unit, models in that unit have the Feel No Pain 5+ "
                             "ability. If that unit has the GRANITE GUARD keyword, models in that unit have the Feel "
                             "No Pain 4+ ability instead.")
    chief = attrs.evolve(sheet('12" A1 BS4+ S4 AP0 D1', nexus, models=(("Banner", 1),), keywords="CHARACTER"),
                         name="Test Banner")
    gun = sheet('24" A6 BS2+ S8 AP-6 D1')  # 5/6 x 5/6 unsaved wounds on W2 models: 25/6 on average; FNP takes its share

    def led(keyword: str) -> TargetUnit:
        guard = sheet('24" A1 BS4+ S4 AP0 D1', models=(("Breaker", 5),), keywords=keyword)
        groups = (*guard.as_target().groups, *chief.as_target().groups)
        return TargetUnit(Target(groups, attached=True), "led", guard, (), (chief,))

    hits = 6 * Fraction(5, 6) * Fraction(5, 6)
    granite = unit_attack(gun, led("GRANITE GUARD"), exact=True)
    assert mean(granite) == hits * Fraction(1, 2)  # 4+ Feel No Pain: half the damage stays
    assert ("target has Stone Banner (read from its Leader's text): Feel No Pain 4+; if that unit has the GRANITE "
            "GUARD keyword: a model of the unit has it") in granite.situation
    other = unit_attack(gun, led("INFANTRY"), exact=True)
    assert mean(other) == hits * Fraction(2, 3)  # 5+
    assert ("not applied: Stone Banner applies only if that unit has the GRANITE GUARD keyword; no model of the unit "
            "has it") in other.situation
    # 'instead' of a better one is not read as the better of the two
    worse = read_ability("Test Breakers", "Worse", nexus[1].replace("4+ ability instead", "6+ ability instead"))
    assert worse.kind == "unmodelled" and "not worse" in worse.ability.unmodelled


def test_a_critical_hit_scored_on_a_lower_roll_instead_of_a_six():
    text = ("While this model is leading a unit, weapons equipped by models in that unit have the [LETHAL HITS] "
            "ability. In addition, each time a model in that unit makes an attack, a Critical Hit is scored on an "
            "unmodified Hit roll of 5+, instead of only on a 6.")
    verdict = read_ability("Test Breakers", "Sharp Eyes", text)
    assert [(r.rule.summary, r.scope) for r in verdict.ability.readings] == [
        ("weapons gain LETHAL HITS", "leading"), ("Critical Hits on 5+", "leading")]


def test_an_ability_that_takes_away_its_own_save_is_named_where_it_is_the_target():
    # a trial found an Archon's Shadowfield (its 2+ invulnerable save lost once failed) named by `show` alone, not in
    # the answer that assumes the save holds throughout
    field = ("Veil of Dust", "You cannot re-roll invulnerable saving throws made for the bearer. The first time an "
                             "invulnerable saving throw made for the bearer is failed, until the end of the battle, "
                             "the bearer has no invulnerable save.")
    defender = sheet('24" A1 BS4+ S4 AP0 D1', field)
    answer = unit_attack(sheet(GUN), TargetUnit(defender.as_target(), "", defender), exact=True)
    assert "not applied: Veil of Dust (not modelled: what it does to its own saves is not read)" in answer.situation


def test_a_weapon_ability_written_in_plain_words_and_a_second_volley():
    # a trial found Disintegration Beams ('... have the Devastating Wounds ability', no brackets, not in capitals) and
    # Sentinel Storm ('it can shoot again') left silent
    beams = read_ability("Test Breakers", "Bright Beams", "Once per battle, at the start of your Shooting phase, this "
                         "unit can use this ability. If it does, until the end of the phase, ranged weapons equipped "
                         "by models in this unit have the Devastating Wounds ability.")
    assert [r.rule.summary for r in beams.ability.readings] == ["weapons gain DEVASTATING WOUNDS (ranged weapons)"]
    storm = read_ability("Test Breakers", "Second Storm", "Once per battle, in your Shooting phase, after the unit has "
                                                          "shot, it can shoot again.")
    assert (storm.kind, storm.ability.role) == ("unmodelled", "attacker")
    answer = unit_attack(sheet(GUN, ("Second Storm", "Once per battle, after the unit has shot, it can shoot again.")),
                         Target.parse("T4 Sv3+ W1 x5"))
    assert ("not applied: Second Storm (not modelled: it lets the unit shoot again; the answer is one volley (ask "
            "again for the second))") in answer.situation


def test_a_choice_among_abilities_and_models_destroyed_with_another_are_named():
    # a trial found the Silent King's Voice of the Triarch ('select one Triarch ability ... this unit has that
    # ability') and Triarchal Menhirs ('... remaining Triarchal Menhir models are also destroyed') left silent
    voice_text = ("At the start of the battle round, select one\xa0Stone ability. Until the start of the next battle "
                  "round,\xa0this unit has that ability.")
    voice = read_ability("Test Breakers", "Voice of Stone", voice_text)
    # named whichever side it is on (a trial found Magnus's Unearthly Power silent where he was the target)
    assert (voice.kind, voice.ability.role, voice.ability.unmodelled) == (
        "unmodelled", "either", "a choice among abilities, made for a while: the chosen one is not read")
    defender = sheet('24" A1 BS4+ S4 AP0 D1', ("Voice of Stone", voice_text))
    assert ("not applied: Voice of Stone (not modelled: a choice among abilities, made for a while: the chosen one is "
            "not read)") in unit_attack(sheet(GUN), TargetUnit(defender.as_target(), "", defender)).situation
    fallen = ("Bound Stones", "If this unit’s Chief model is destroyed, all of this unit’s remaining Stone models are "
                              "also destroyed.")
    verdict = read_ability("Test Breakers", *fallen)
    assert (verdict.kind, verdict.ability.role) == ("unmodelled", "target")
    defender = sheet('24" A1 BS4+ S4 AP0 D1', fallen)
    answer = unit_attack(sheet(GUN), TargetUnit(defender.as_target(), "", defender))
    assert ("not applied: Bound Stones (not modelled: its Stone models are destroyed with its Chief model; the answer "
            "counts them destroyed only by the attacks allocated to them)") in answer.situation
    # the other forms the data writes it in (a review found Grimnyr's 'ever destroyed' missed; Guardian Defenders'
    # platform and a Thunderfire Cannon's crew were silent too)
    for text, said in (
            ("If this unit’s Chief model is ever destroyed, all of this unit’s remaining CORV models are also "
             "destroyed.", "its CORV models are destroyed with its Chief model"),
            ("When the last Breaker model in this unit is destroyed, any remaining Heavy Stone models in this unit are "
             "also destroyed.", "its Heavy Stone models are destroyed with the last Breaker model"),
            ("If one model in this unit is destroyed, the remaining model in this unit is also destroyed",
             "its other models are destroyed with another")):
        assert read_ability("Test Breakers", "Crewed", text).ability.unmodelled.startswith(said)
    # a choice of effects listed in the text itself is one, as before (a review found it named as a choice among
    # abilities written elsewhere)
    listed = read_ability("Test Breakers", "Bolt of Stone", "In your Shooting phase, select one of the following "
                          "abilities: [IGNORES COVER]; [LETHAL HITS]. Until the end of the phase, this model's stone "
                          "bolt has that ability.")
    assert (listed.kind, listed.ability.unmodelled) == ("unmodelled", "it names no attack this reader knows")


@pytest.mark.parametrize(("text", "scope"), [
    ("While this model is leading a unit, that unit is eligible to shoot and declare a charge in a turn in which it "
     "Advanced or Fell Back.", "leading"),
    ("This model is eligible to shoot and declare a charge in a turn in which it Advanced.", "model"),
    ("This unit is eligible to shoot in a turn in which it Fell Back or Advanced, and you can re-roll Desperate Escape "
     "tests taken for models in this unit.", "unit")])
def test_a_unit_eligible_to_shoot_after_advancing_has_assault(text, scope):
    # a trial found a Watch Master's Strategic Knowledge ignored: Deathwatch Veterans he led refused after Advancing
    [reading] = read_ability("Test Unit", "Fast Aim", text).ability.readings
    assert (reading.rule.summary, reading.scope, reading.needs) == ("weapons gain ASSAULT (ranged weapons)", scope, "")


def test_a_leader_that_gives_its_unit_assault_lets_it_shoot_after_advancing():
    # a trial found a Coldstar Commander's 'models in that unit have a Move characteristic of 12" and ranged weapons
    # ... have the [ASSAULT] ability' read as a condition, and Crisis Battlesuits refused after Advancing
    rush = ("Swift Lead", 'While this model is leading a unit, models in that unit have a Move characteristic of 12" '
                          "and ranged weapons equipped by models in that unit have the [ASSAULT] ability.")
    verdict = read_ability("Test Chief", *rush)
    assert [(r.rule.summary, r.scope, r.needs) for r in verdict.ability.readings] == [
        ("weapons gain ASSAULT (ranged weapons)", "leading", "")]
    squad = sheet('24" A2 BS4+ S4 AP0 D1', models=(("Breaker", 5),))
    chief = attrs.evolve(sheet('12" A1 BS4+ S4 AP0 D1', rush, models=(("Chief", 1),), keywords="CHARACTER"),
                         name="Test Chief", leader_of=("Test Breakers",))
    moved = Context(advanced=True)
    with pytest.raises(MathhammerError, match="no ASSAULT weapons after Advancing"):
        unit_attack(squad, Target.parse("T4 Sv6+ W1 x20"), context=moved)
    led = unit_attack(squad, Target.parse("T4 Sv6+ W1 x20"), context=moved, led_by=chief, exact=True)
    # 11 attacks hitting on 4+ (1/2), wounding S4 v T4 on 4+ (1/2), Sv6+ failing 5/6: no overkill on W1 models
    assert mean(led) == 11 * Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 6)


def test_an_ability_given_to_one_weapon_of_its_by_name():
    # a trial found a Doomsday Ark's 'its doomsday cannon has the [DEVASTATING WOUNDS] ability' (if it Remains
    # Stationary) named as not modelled: the weapon named gains it, with --stationary, and no other weapon
    text = ("In your Movement phase, if this model Remains Stationary, until the end of the turn, its gun has the "
            "[LETHAL HITS] ability.")
    [reading] = read_ability("Test Breakers", "Obliteration", text).ability.readings
    assert (reading.rule.summary, reading.rule.requires, reading.needs) == (
        "weapons gain LETHAL HITS (gun only)", ("stationary",), "")
    # 6 attacks hitting on 4+, wounding on 4+, Sv6+ failed 5/6: 6 x 1/2 x 1/2 x 5/6 = 5/4; with Lethal Hits a 6 to
    # hit (1/6) wounds, a 4-5 (1/3) wounds on 4+: 1/3, so 6 x 1/3 x 5/6 = 5/3
    assert mean(unit_attack(sheet(GUN, ("Obliteration", text)), VEHICLE, exact=True)) == Fraction(5, 4)
    still = Context(stationary=True)
    assert mean(unit_attack(sheet(GUN, ("Obliteration", text)), VEHICLE, context=still, exact=True)) == Fraction(5, 3)
    other = ("Obliteration", text.replace("its gun", "its cannon"))  # a weapon this unit does not carry
    assert mean(unit_attack(sheet(GUN, other), VEHICLE, context=still, exact=True)) == Fraction(5, 4)
    # "this model's <weapon> has ..." reads alike, with the condition after it (Rotating Death)
    rotating = "This model\u2019s gun has the [LETHAL HITS] ability when targeting VEHICLE units."
    assert mean(unit_attack(sheet(GUN, ("Rotating", rotating)), VEHICLE, exact=True)) == Fraction(5, 3)
    assert mean(unit_attack(sheet(GUN, ("Rotating", rotating)), Target.parse("T4 Sv6+ W10"), exact=True)) == \
        Fraction(5, 4)


@pytest.mark.parametrize(("text", "expected"), [
    # 'All weapons ...' (a trial found Root-carved Weapons withheld: 'applies only all')
    ("All weapons equipped by the bearer have the [LETHAL HITS] ability.", Fraction(5, 3)),
    # a weapon named with 'weapon' after its name (Gaze of Ynnead's 'Eldritch Storm weapon': a trial found it
    # refused as a weapon the unit does not have)
    ("Breaker model only. The bearer's gun weapon has the [LETHAL HITS] ability.", Fraction(5, 3)),
    # a change to the weapons and an ability for them in one sentence (Aspect of Murder), the ability's brackets
    # left out and misspelt (Furnace of Plagues): 7 attacks, each 1/3 x 5/6 with Lethal Hits
    ("Add 1 to the Attacks characteristics of ranged weapons equipped by the bearer, and those weapons have the "
     "[LETHAL HITS] ability.", Fraction(35, 18)),
    ("Add 1 to the Attacks characteristics of the bearer's ranged weapons, and the bearer's ranged weapons have the "
     "Lethal Hits abilty.", Fraction(35, 18)),
])
def test_an_enhancements_weapon_abilities_in_the_forms_lists_write(text, expected):
    # 6 attacks hitting on 4+, wounding on 4+, Sv6+ failed 5/6: 5/4 without; with Lethal Hits a hit roll's 6
    # wounds: 1/6 + 1/3 x 1/2 = 1/3 a wound, 6 x 1/3 x 5/6 = 5/3
    assert mean(unit_attack(sheet(GUN, ("Gift", text)), VEHICLE, exact=True)) == expected


def test_best_profiles_name_what_fought():
    # a review found a Knight Gallant's header naming 'thunderstrike gauntlet (strike)' beside its reaper chainsword,
    # though a model fights with one melee weapon: the header names the profiles that fought. Here a Breaker with a
    # blade and a fist, each of a strike (A2 WS2+ S8 AP-2 D2) and a sweep (A6 WS2+ S4 AP0 D1) profile; against T4 Sv6+
    # W40 the strike deals 2 x 5/6 x 5/6 x 2 = 25/9, the sweep 6 x 5/6 x 1/2 x 5/6 = 25/12
    strike, sweep = "A2 WS2+ S8 AP-2 D2", "A6 WS2+ S4 AP0 D1"
    base = sheet(strike)
    armed = attrs.evolve(base, models=(attrs.evolve(base.models[0], equipment=("blade", "fist")),), weapons={
        name: {label: Weapon.parse(text, name=f"{name} ({label})") for label, text in (("strike", strike),
                                                                                       ("sweep", sweep))}
        for name in ("blade", "fist")})
    best = with_best_profiles(armed, Target.parse("T4 Sv6+ W40"), melee=True)
    assert best.result.damage.mean == pytest.approx(25 / 9, abs=1e-12)
    assert best.situation[-1] == "profiles chosen for the most expected damage against this target: blade (strike)"

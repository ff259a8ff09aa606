"""The profile parsers on their own: every token against hand-written fields, every error class
with a one-line message naming the token, and no input that raises anything but MathhammerError."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer_exact import Dice, MathhammerError, ModelProfile, Target, Weapon
from mathhammer_exact.data import load
from mathhammer_exact.model import RANGED_ONLY, TENTH_EDITION, ability_fields
from mathhammer_exact.present import profiles
from mathhammer_exact.units import by_name

# The plain profile every weapon case changes one thing of: hand-written, not parsed.
PLAIN = Weapon(attacks=Dice(0, 6, 1), skill=3, strength=4, ap=0, damage=Dice(0, 6, 1))
D3, D6 = Dice(1, 3, 0), Dice(1, 6, 0)


def plain(**changes: object) -> Weapon:
    return attrs.evolve(PLAIN, **changes)


WEAPON_TOKENS = [
    # range: inches in any of the usual marks, a bare number, or Melee (WS alone also means melee)
    ('24" A1 BS3+ S4 AP0 D1', plain(range=24)),
    ("24in A1 BS3+ S4 AP0 D1", plain(range=24)),
    ("24” A1 BS3+ S4 AP0 D1", plain(range=24)),
    ("24″ A1 BS3+ S4 AP0 D1", plain(range=24)),
    ("24 A1 BS3+ S4 AP0 D1", plain(range=24)),
    ("Melee A1 WS3+ S4 AP0 D1", plain(melee=True)),
    ("MELEE A1 WS3+ S4 AP0 D1", plain(melee=True)),
    ("A1 WS3+ S4 AP0 D1", plain(melee=True)),
    # attacks
    ("A2 BS3+ S4 AP0 D1", plain(attacks=Dice(0, 6, 2))),
    ("AD6 BS3+ S4 AP0 D1", plain(attacks=D6)),
    ("AD3 BS3+ S4 AP0 D1", plain(attacks=D3)),
    ("A2D6 BS3+ S4 AP0 D1", plain(attacks=Dice(2, 6, 0))),
    ("AD3+1 BS3+ S4 AP0 D1", plain(attacks=Dice(1, 3, 1))),
    ("A=2D6 BS3+ S4 AP0 D1", plain(attacks=Dice(2, 6, 0))),
    ("A:D3 BS3+ S4 AP0 D1", plain(attacks=D3)),
    ("ad6 BS3+ S4 AP0 D1", plain(attacks=D6)),
    # skill
    ("A1 BS2+ S4 AP0 D1", plain(skill=2)),
    ("A1 BS6+ S4 AP0 D1", plain(skill=6)),
    ("A1 BS3 S4 AP0 D1", plain()),
    ("A1 bs=3+ S4 AP0 D1", plain()),
    ("A1 WS4+ S4 AP0 D1", plain(skill=4, melee=True)),
    ("A1 BSN/A S4 AP0 D1 [TORRENT]", plain(skill=None, torrent=True)),
    ("A1 N/A S4 AP0 D1 [TORRENT]", plain(skill=None, torrent=True)),
    ("A1 S4 AP0 D1 [TORRENT]", plain(skill=None, torrent=True)),
    ("A1 BS3+ S4 AP0 D1 [TORRENT]", plain(torrent=True)),  # as some datasheets print it; Torrent always hits
    # strength
    ("A1 BS3+ S1 AP0 D1", plain(strength=1)),
    ("A1 BS3+ S12 AP0 D1", plain(strength=12)),
    ("A1 BS3+ S=5 AP0 D1", plain(strength=5)),
    # AP, with '-' meaning 0 as datasheets print it
    ("A1 BS3+ S4 AP-1 D1", plain(ap=-1)),
    ("A1 BS3+ S4 AP-6 D1", plain(ap=-6)),
    ("A1 BS3+ S4 AP- D1", plain(ap=0)),
    ("A1 BS3+ S4 AP=-2 D1", plain(ap=-2)),
    ("A1 BS3+ S4 AP:-3 D1", plain(ap=-3)),
    # damage: a roll is written DD3 or D=D3; a flat 3 or 6 is written D=3
    ("A1 BS3+ S4 AP0 D2", plain(damage=Dice(0, 6, 2))),
    ("A1 BS3+ S4 AP0 D12", plain(damage=Dice(0, 6, 12))),
    ("A1 BS3+ S4 AP0 D=3", plain(damage=Dice(0, 6, 3))),
    ("A1 BS3+ S4 AP0 D:6", plain(damage=Dice(0, 6, 6))),
    ("A1 BS3+ S4 AP0 DD3", plain(damage=D3)),
    ("A1 BS3+ S4 AP0 D=D3", plain(damage=D3)),
    ("A1 BS3+ S4 AP0 D:D3", plain(damage=D3)),
    ("A1 BS3+ S4 AP0 DD6+1", plain(damage=Dice(1, 6, 1))),
    ("A1 BS3+ S4 AP0 D2D6", plain(damage=Dice(2, 6, 0))),
    # order does not matter, and the stats may be split around the brackets
    ("D1 AP0 S4 BS3+ A1", plain()),
]


@pytest.mark.parametrize(("text", "expected"), WEAPON_TOKENS, ids=[t for t, _ in WEAPON_TOKENS])
def test_each_weapon_stat_token_sets_its_field(text, expected):
    assert Weapon.parse(text) == expected


ABILITIES = [
    ("LETHAL HITS", {"lethal_hits": True}),
    ("Lethal Hits", {"lethal_hits": True}),
    ("DEVASTATING WOUNDS", {"devastating_wounds": True}),
    ("TWIN-LINKED", {"twin_linked": True}),
    ("Twin-linked", {"twin_linked": True}),
    ("Twin Linked", {"twin_linked": True}),
    ("twin  linked", {"twin_linked": True}),
    ("TORRENT", {"torrent": True, "skill": None}),
    ("BLAST", {"blast": True}),
    ("LANCE", {"lance": True}),
    ("HEAVY", {"heavy": True}),
    ("IGNORES COVER", {"ignores_cover": True}),
    ("INDIRECT FIRE", {"indirect_fire": True}),
    ("HAZARDOUS", {"hazardous": True}),
    ("PRECISION", {"precision": True}),
    ("PISTOL", {"pistol": True}),
    ("ASSAULT", {"assault": True}),
    ("PSYCHIC", {"psychic": True}),
    ("Psychic", {"psychic": True}),
    ("EXTRA ATTACKS", {"extra_attacks": True}),
    ("Extra Attacks", {"extra_attacks": True}),
    ("ONE SHOT", {"one_shot": True}),
    ("One Shot", {"one_shot": True}),
    ("RAPID FIRE 1", {"rapid_fire": Dice(0, 6, 1)}),
    ("Rapid Fire D3", {"rapid_fire": D3}),
    ("RAPID FIRE D6+3", {"rapid_fire": Dice(1, 6, 3)}),
    ("MELTA 2", {"melta": 2}),
    ("Melta 4", {"melta": 4}),
    ("SUSTAINED HITS 1", {"sustained_hits": Dice(0, 6, 1)}),
    ("SUSTAINED HITS D3", {"sustained_hits": D3}),
    ("ANTI-INFANTRY 4+", {"anti": (("INFANTRY", 4),)}),
    ("Anti-FLY 2", {"anti": (("FLY", 2),)}),
    ("Anti Vehicle 3+", {"anti": (("VEHICLE", 3),)}),
    ("anti-monster 5+", {"anti": (("MONSTER", 5),)}),
    ('CONVERSION 12"', {"conversion": 12}),
    ("Conversion 24", {"conversion": 24}),
]


@pytest.mark.parametrize(("ability", "fields"), ABILITIES, ids=[a for a, _ in ABILITIES])
def test_each_ability_and_spelling_sets_its_field(ability, fields):
    assert Weapon.parse(f"A1 BS3+ S4 AP0 D1 [{ability}]".replace("BS3+ ", "" if "skill" in fields else "BS3+ ")) \
        == plain(**fields)


def test_several_abilities_and_two_antis_together():
    weapon = Weapon.parse('24" A2 BS3+ S4 AP-1 DD3 [SUSTAINED HITS 1, ANTI-FLY 2+, Anti-Vehicle 4+, LETHAL HITS]')
    assert weapon == plain(range=24, attacks=Dice(0, 6, 2), ap=-1, damage=D3, sustained_hits=Dice(0, 6, 1),
                           anti=(("FLY", 2), ("VEHICLE", 4)), lethal_hits=True)


def test_lenient_keeps_unmodelled_rules_by_name():
    weapon = Weapon.parse("A1 BS3+ S4 AP0 D1 [Bubblechukka, LANCE, Snagga  Gubbinz,]", lenient=True)
    assert weapon == plain(lance=True, ignored=("Bubblechukka", "Snagga Gubbinz"))
    # a catalogue prints Conversion without its distance (that is in the rule's text): reported, not guessed
    assert Weapon.parse("A1 BS3+ S4 AP0 D1 [Conversion]", lenient=True) == plain(ignored=("Conversion",))
    assert profiles.weapon_summary(weapon).endswith("| Lance | ignored: Bubblechukka, Snagga Gubbinz")


def test_strict_refuses_an_unknown_ability_with_did_you_mean():
    with pytest.raises(MathhammerError, match=r"unknown weapon ability 'Bubblechukka'; known: ASSAULT"):
        Weapon.parse("A1 BS3+ S4 AP0 D1 [Bubblechukka]")


def test_ability_fields_is_what_named_rules_use():
    assert ability_fields("Sustained Hits D3") == {"sustained_hits": D3}
    assert ability_fields("ANTI-VEHICLE 4+") == {"anti": (("VEHICLE", 4),)}


WEAPON_ERRORS = [
    # repeats and contradictions, naming both tokens
    ("A2 A3 BS3+ S4 AP0 D1", "'A2' and 'A3' both give Attacks"),
    ("A1 BS3+ BS4+ S4 AP0 D1", "'BS3+' and 'BS4+' both give BS/WS"),
    ("A1 WS3+ BS3+ S4 AP0 D1", "'WS3+' and 'BS3+' together: a weapon has BS (ranged) or WS (melee), not both"),
    ("A1 BS3+ S4 S5 AP0 D1", "'S4' and 'S5' both give Strength"),
    ("A1 BS3+ S4 AP0 AP-1 D1", "'AP0' and 'AP-1' both give AP"),
    ("A1 BS3+ S4 AP0 D1 D2", "'D1' and 'D2' both give Damage"),
    ('24" 12" A1 BS3+ S4 AP0 D1', "'24\"' and '12\"' both give the range"),
    ('Melee 12" A1 WS3+ S4 AP0 D1', "'Melee' and '12\"' both give the range"),
    ("Melee A1 BS3+ S4 AP0 D1", "'Melee' with 'BS3+': a melee weapon has WS"),
    ('24" A1 WS3+ S4 AP0 D1', "'24\"' with 'WS3+': a ranged weapon has BS"),
    ("Melee A1 WS3+ S4 AP0 D1 [TORRENT]", "TORRENT on a melee weapon: only ranged weapons have it"),
    ("Melee A1 S4 AP0 D1 [TORRENT]", "TORRENT on a melee weapon: only ranged weapons have it"),
    ("A1 WS3+ S4 AP0 D1 [MELTA 2]", "MELTA on a melee weapon"),
    ("A1 WS3+ S4 AP0 D1 [RAPID FIRE 1, HEAVY]", "HEAVY, RAPID FIRE on a melee weapon: only ranged weapons have them"),
    ('Melee A1 WS3+ S4 AP0 D1 [CONVERSION 12"]', "CONVERSION on a melee weapon"),
    ("A1 BS3+ S4 AP0 D1 [MELTA 2, MELTA 4]", "'MELTA 2' and 'MELTA 4' both give the ability MELTA"),
    ("A1 BS3+ S4 AP0 D1 [LANCE, LANCE]", "'LANCE' and 'LANCE' both give the ability LANCE"),
    ("A1 BS3+ S4 AP0 D1 [TWIN-LINKED, Twin Linked]", "'TWIN-LINKED' and 'Twin Linked' both give"),
    ("A1 BS3+ S4 AP0 D1 [SUSTAINED HITS 1, SUSTAINED HITS 2]", "'SUSTAINED HITS 1' and 'SUSTAINED HITS 2'"),
    ("A1 BS3+ S4 AP0 D1 [RAPID FIRE 1, Rapid Fire 2]", "'RAPID FIRE 1' and 'Rapid Fire 2' both give"),
    ("A1 BS3+ S4 AP0 D1 [ANTI-FLY 2+, Anti Fly 4+]", "'ANTI-FLY 2+' and 'Anti Fly 4+' both give"),
    # zeros that mean nothing
    ("A0 BS3+ S4 AP0 D1", "'A0' means nothing: Attacks must be at least 1"),
    ("A1 BS3+ S4 AP0 D1 [SUSTAINED HITS 0]", "'SUSTAINED HITS 0' means nothing"),
    ("A1 BS3+ S4 AP0 D1 [RAPID FIRE 0]", "'RAPID FIRE 0' means nothing"),
    ("A1 BS3+ S4 AP0 D1 [MELTA 0]", "'MELTA 0' means nothing"),
    ('0" A1 BS3+ S4 AP0 D1', "range '0\"' means nothing"),
    ("A1 BS3+ S4 AP0 D0", "D must be at least 1, got 0"),
    ("A1 BS3+ S0 AP0 D1", "S must be at least 1, got 0"),
    ('A1 BS3+ S4 AP0 D1 [CONVERSION 0"]', "the CONVERSION distance must be at least 1, got 0"),
    # only ASCII digits are numbers
    ("A² BS3+ S4 AP0 D1", "'A²': only the digits 0-9 are numbers, not '²'"),
    ("A1 BS3+ S４ AP0 D1", "'S４': only the digits 0-9 are numbers, not '４'"),
    ("A١ BS3+ S4 AP0 D1", "'A١': only the digits 0-9 are numbers, not '١'"),
    ("A1 BS３+ S4 AP0 D1", "'BS３+': only the digits 0-9 are numbers"),
    ("A1 BS3+ S4 AP-１ D1", "'AP-１': only the digits 0-9 are numbers"),
    ("A1 BS3+ S4 AP0 D²", "'D²': only the digits 0-9 are numbers"),
    ("A1 BS3+ S4 AP0 D½", "'D½': only the digits 0-9 are numbers, not '½'"),
    ("A1 BS3+ S4 AP0 D1 [MELTA ２]", "'MELTA ２': only the digits 0-9 are numbers"),
    ("A1 BS3+ S4 AP0 D1 [SUSTAINED HITS ²]", "'SUSTAINED HITS ²': only the digits 0-9 are numbers"),
    ("A1 BS3+ S4 AP0 D1 [ANTI-FLY ４+]", "'ANTI-FLY ４+': only the digits 0-9 are numbers"),
    ('２４" A1 BS3+ S4 AP0 D1', "only the digits 0-9 are numbers, not '２'"),
    # damage written so that it could be read two ways
    ("A1 BS3+ S12 AP-3 D3", "'D3' is ambiguous: write D=3 for Damage 3, or DD3 (also D=D3) for a D3 roll"),
    ("A1 BS3+ S12 AP-3 d6", "'d6' is ambiguous: write D=6 for Damage 6, or DD6"),
    ("A1 BS3+ S12 AP-3 D6+1", "'D6+1': the D of Damage comes first: for a D6+1 roll write DD6+1"),
    ("A1 BS3+ S12 AP-3 D3-1", "'D3-1': the D of Damage comes first"),
    # Strength the calculator cannot use
    ("A1 BS3+ S* AP0 D1", "'S*': this Strength is given elsewhere on the datasheet; write the number"),
    ("A1 BS3+ S2D6 AP0 D1", "'S2D6': a Strength rolled for each attack is not modelled"),
    # other malformed input
    ("A1 BS3+ S4 AP0 D1 [LETHAL HIT]", "unknown weapon ability 'LETHAL HIT' (did you mean 'LETHAL HITS'?); known:"),
    ("A1 BS3+ S4 AP0 D1 [RAPID FIR 1]", "(did you mean 'RAPID FIRE'?)"),
    ("A1 BS3+ S4 AP0 D1 [Sustaned Hits 1]", "(did you mean 'SUSTAINED HITS'?)"),
    ("A1 BS3+ S4 AP0 D1 [MELTA D3]", "MELTA takes a whole number of extra damage, e.g. MELTA 2, not 'MELTA D3'"),
    ("A1 BS3+ S4 AP0 D1 [CONVERSION]", "'CONVERSION' needs the distance its datasheet gives (12\", 18\" or 24\")"),
    # a minus sign is no hyphen (a trial found 'CLEAVE -1' read as CLEAVE 1), and an X left out is said so
    ("A1 BS3+ S4 AP0 D1 [SUSTAINED HITS -1]", "'SUSTAINED HITS -1': SUSTAINED HITS X (extra hits) must be at least 1, "
                                              "not negative"),
    ("A1 BS3+ S4 AP0 D1 [RAPID FIRE -D3]", "'RAPID FIRE -D3': RAPID FIRE X (extra attacks) must be at least 1"),
    ("A1 BS3+ S4 AP0 D1 [SUSTAINED HITS-1]", "'SUSTAINED HITS-1': SUSTAINED HITS X (extra hits) must be at least 1"),
    ("A1 BS3+ S4 AP0 D1 [MELTA -2]", "'MELTA -2': MELTA X (extra damage) must be at least 1, not negative"),
    ("A1 BS3+ S4 AP0 D1 [SUSTAINED HITS]", "'SUSTAINED HITS' needs its X, extra hits (SUSTAINED HITS X), e.g. "
                                           "SUSTAINED HITS 1"),
    ("A1 BS3+ S4 AP0 D1 [Melta]", "'Melta' needs its X, extra damage (MELTA X), e.g. MELTA 1"),
    ("A1 BS3+ S4 AP0 D1 [ANTI-FLY 7+]", "ANTI-FLY must be 2+ to 6+, got 7+"),
    ("A1 BS3+ S4 AP0 D1 LANCE", "'LANCE' is an ability: put abilities in one [..., ...] group"),
    ("A1 BS3+ S4 AP+1 D1", "AP must be 0 or negative (e.g. AP-1), got 'AP+1'"),
    ("A1 BS7+ S4 AP0 D1", "BS/WS must be 2+ to 6+, got 7+"),
    ("A1 BS3+ S4 AP0 DD7", "Damage in 'DD7': bad dice expression 'D7': only D3 and D6 dice exist"),
    ("A1 BS3+ S4 AP0", "weapon 'A1 BS3+ S4 AP0' is missing D (write e.g."),
    ("A1 BSN/A S4 AP0 D1", "a weapon needs BS/WS 2+ to 6+ unless it has TORRENT"),
    ("A1 BS3+ S4 AP0 D1 [LANCE] [HEAVY]", "unbalanced brackets"),
    ("A1 BS3+ S4 AP0 D1 Q", "unknown weapon token 'Q' (write e.g."),
]


@pytest.mark.parametrize(("text", "message"), WEAPON_ERRORS, ids=[t for t, _ in WEAPON_ERRORS])
def test_weapon_errors_are_one_line_naming_the_problem(text, message):
    with pytest.raises(MathhammerError) as err:
        Weapon.parse(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_the_same_errors_hold_in_lenient_mode():
    """Lenient mode only keeps unknown abilities; a profile that contradicts itself is still refused."""
    for text in ("A2 A3 BS3+ S4 AP0 D1", "A1 BS3+ S12 AP-3 D3", "A1 BS3+ S4 AP0 D1 [MELTA 0]"):
        with pytest.raises(MathhammerError):
            Weapon.parse(text, lenient=True)


# ----------------------------------------------------------------------------------------- targets
def model(**changes: object) -> ModelProfile:
    return attrs.evolve(ModelProfile(toughness=4, save=3, wounds=2), **changes)


MODEL_TOKENS = [
    ("T4 Sv3+ W2", model()),
    ("t=5 sv:2+ W=3", model(toughness=5, save=2, wounds=3)),
    ("T4 Sv3 W2", model()),
    ("T4 Sv7+ W2", model(save=7)),
    ("T4 Sv3+ W2 inv4+", model(invulnerable=4)),
    ("T4 Sv3+ W2 invulnerable5+", model(invulnerable=5)),
    ("T4 Sv3+ W2 inv-ranged4+", model(invulnerable_ranged=4)),
    ("T4 Sv3+ W2 inv5+ inv-ranged4+", model(invulnerable=5, invulnerable_ranged=4)),
    ("T4 Sv3+ W2 fnp5+", model(feel_no_pain=5)),
    ("T4 Sv3+ W2 fnp-mortal5+", model(feel_no_pain_mortal=5)),
    ("T4 Sv3+ W2 fnp-psychic4+", model(feel_no_pain_psychic=4)),
    ("T4 Sv3+ W2 Ld6+", model(leadership=6)),
    ("T4 Sv3+ W2 OC2", model(objective_control=2)),
    ("T4 Sv3+ W2 OC0", model(objective_control=0)),
    ('M6" T4 Sv3+ W2', model(movement=6)),
    ("M6 T4 Sv3+ W2", model(movement=6)),
    ('M20+" T4 Sv3+ W2', model(movement=20)),
    ('M20"+ T4 Sv3+ W2', model(movement=20)),
    ("M- T4 Sv3+ W2", model()),
    ("T4 Sv3+ W2 dr1", model(reduce_damage=True)),
    ("T4 Sv3+ W2 halve", model(halve_damage=True)),
    ("T4 Sv3+ W2 stealth", model(keywords=("STEALTH",))),
    ("T4 Sv3+ W2 [STEALTH]", model(keywords=("STEALTH",))),
    ("T4 Sv3+ W2 [Infantry, Imperium]", model(keywords=("IMPERIUM", "INFANTRY"))),
    ('M6" T3 Sv4+ W3 Ld7+ OC1 [CHARACTER]', model(toughness=3, save=4, wounds=3, movement=6, leadership=7,
                                                 objective_control=1, keywords=("CHARACTER",))),
]


@pytest.mark.parametrize(("text", "expected"), MODEL_TOKENS, ids=[t for t, _ in MODEL_TOKENS])
def test_each_model_token_sets_its_field(text, expected):
    assert ModelProfile.parse(text) == expected
    assert Target.parse(text) == Target.of(expected)


def test_dr1_reduces_and_halve_halves():
    """The two damage rules parsed into the right fields (a planted swap of the two must fail here)."""
    reduced, halved = ModelProfile.parse("T4 Sv3+ W2 dr1"), ModelProfile.parse("T4 Sv3+ W2 halve")
    assert (reduced.reduce_damage, reduced.halve_damage) == (True, False)
    assert (halved.reduce_damage, halved.halve_damage) == (False, True)


def test_model_count_leader_and_groups():
    target = Target.parse("T4 Sv3+ W2 x10; T4 Sv3+ inv4+ W4 leader")
    assert target == Target(((model(), 10), (model(wounds=4, invulnerable=4, keywords=("CHARACTER",),
                                                   name="leader"), 1)), attached=True)
    assert Target.parse("T4 Sv3+ W2 x=5") == Target.of(model(), 5)


@pytest.mark.parametrize("text", ['M5" T4 Sv3+ W2 x5', 'm5" t4 sv3+ w2 x5', 'Sv3+ T4 W2 x5 M5"', 'M- T4 Sv3+ W2 x5'])
def test_a_target_written_with_its_move_is_a_profile(text):
    # docs/cli.md: Move is read and kept; a target string may begin with it (a pasted stat line), or with any stat
    moved = 5 if "M5" in text.upper() else None
    assert by_name.find_target(text) == Target.of(model(movement=moved), 5)
    assert by_name.find_target("T4 Sv3+ W2", leader=text.replace(" x5", "")).groups[1][0].movement == moved
    assert by_name.target_unit(text).label == " ".join(text.split())


def test_lenient_model_keeps_unknown_tokens():
    assert ModelProfile.parse("T4 Sv3+ W2 Bubble", lenient=True) == model(ignored=("Bubble",))
    assert Target.parse("T4 Sv3+ W2 x2 Bubble", lenient=True) == Target.of(model(ignored=("Bubble",)), 2)


MODEL_ERRORS = [
    ("T4 T5 Sv3+ W2", "'T4' and 'T5' both give Toughness (T): write it once"),
    ("T4 Sv3+ Sv4+ W2", "'Sv3+' and 'Sv4+' both give the save"),
    ("T4 Sv3+ W2 W3", "'W2' and 'W3' both give Wounds"),
    ("T4 Sv3+ W2 inv4+ invulnerable5+", "'inv4+' and 'invulnerable5+' both give an invulnerable save"),
    ("T4 Sv3+ W2 fnp5+ fnp6+", "'fnp5+' and 'fnp6+' both give Feel No Pain"),
    ("T4 Sv3+ W2 Ld6+ Ld7+", "'Ld6+' and 'Ld7+' both give Leadership"),
    ('M6" M7" T4 Sv3+ W2', "both give Move (M)"),
    ("T4 Sv3+ W2 OC1 OC2", "both give Objective Control"),
    ("T4 Sv3+ W2 dr1 DR1", "'dr1' and 'DR1' both give damage reduction"),
    ("T4 Sv3+ W2 halve halve", "both give halved damage"),
    ("T4 Sv3+ W2 x5 x3", "'x5' and 'x3' both give the model count"),
    ("T4 Sv3+ W2 [INFANTRY, infantry]", "the keyword 'infantry' is given twice"),
    ("T4 Sv3+ W2 stealth [STEALTH]", "'stealth' and the keyword STEALTH both give Stealth"),
    ("T4 Sv3+ W2 fnp-mortl5+", "unknown target token 'fnp-mortl5+' (did you mean 'FNP-MORTAL'?)"),
    ("T4 Sv3+ W2 leadr", "(did you mean 'LEADER'?)"),
    ("T４ Sv3+ W2", "'T４': only the digits 0-9 are numbers, not '４'"),
    ("T4 Sv3+ W²", "'W²': only the digits 0-9 are numbers"),
    ("T4 Sv3+ W2 x٥", "'x٥': only the digits 0-9 are numbers"),
    ("T4 Sv3+ W2 x0", "model count must be at least 1, got x0"),
    ("T4 Sv3+ W2 x6/5", "x6/5: more models left (6) than the unit started with (5, its Starting Strength)"),
    ("T4 Sv3+ W2 x3; T4 Sv3+ W4 x1/2 leader", "x1/2 on a leader: write the leaders it has left (x1)"),
    ("T4 Sv3+ W1 x3; T4 Sv3+ W4 x1/3 [CHARACTER]; T4 Sv3+ W5 leader",  # (a review: counted twice)
     "a CHARACTER of an Attached unit is one of its leaders: write the leaders it has left (x1)"),
    ("T4 Sv3+ W2 x3/5 x3", "'x3/5' and 'x3' both give the model count"),
    ("T4 Sv3+ W0", "W must be at least 1, got 0"),
    ("T4 Sv8+ W2", "Sv must be 2+ to 7+, got 8+"),
    ("T4 Sv3+ W2 inv1+", "invulnerable save must be 2+ to 6+, got 1+"),
    ("Sv3+ W2", "target 'Sv3+ W2' is missing T"),
    ("T4 Sv3+ W2 Q5", "unknown target token 'Q5' (write e.g."),
    ("", "a target needs at least one model"),
]


@pytest.mark.parametrize(("text", "message"), MODEL_ERRORS, ids=[t or "empty" for t, _ in MODEL_ERRORS])
def test_target_errors_are_one_line_naming_the_problem(text, message):
    with pytest.raises(MathhammerError) as err:
        Target.parse(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_one_model_profile_takes_no_count():
    with pytest.raises(MathhammerError, match="describes one model"):
        ModelProfile.parse("T4 Sv3+ W2 x5")
    with pytest.raises(MathhammerError, match="describes one model"):
        ModelProfile.parse("T4 Sv3+ W2 x1/5")


@pytest.mark.parametrize(("text", "models", "starting"), [
    ("T4 Sv3+ W2 x3/5", 3, 5), ("T4 Sv3+ W2 X=3/5", 3, 5), ("T4 Sv3+ W2 x5/5", 5, 5), ("T4 Sv3+ W2 x3", 3, 3),
    ("T4 Sv3+ W2 x2/3; T4 Sv3+ W3 Ld6+", 3, 4),  # the groups' models lost add up: 1 of the first kind
    ("T4 Sv3+ W2 x2/4; T4 Sv3+ W4 leader", 3, 4),  # an Attached unit's leaders are not counted in it
])
def test_a_unit_that_lost_models_is_written_with_its_starting_strength(text, models, starting):
    target = Target.parse(text)
    assert (target.model_count, target.starting) == (models, starting)
    assert ("Starting Strength" in profiles.target_summary(target)) == (starting != target.models_besides_leaders)


def test_a_unit_below_half_strength_before_the_attack_says_so():
    # a trial read P(Below Half-strength) of a unit already below it as what the attack did: 2 of 5 left is below half
    # already, 3 of 5 not; with a leader, 3 of the 5 together are not
    said = {text: profiles.target_summary(Target.parse(text)) for text in (
        "T4 Sv3+ W2 x2/5", "T4 Sv3+ W2 x3/5", "T4 Sv3+ W2 x2/4; T4 Sv3+ W4 leader")}
    already = [text.endswith("lost before: Below Half-strength already)") for text in said.values()]
    assert already == [True, False, False]


# ----------------------------------------------------------------------------- as understood
def test_damage_says_roll_or_flat():
    assert profiles.weapon_summary(Weapon.parse("A1 BS3+ S12 AP-3 DD3")) == \
        "Attacks 1 | BS 3+ | Strength 12 | AP -3 | Damage D3 (roll)"
    assert profiles.weapon_summary(Weapon.parse("A1 BS3+ S12 AP-3 D=3")) == \
        "Attacks 1 | BS 3+ | Strength 12 | AP -3 | Damage 3"


def test_weapon_summary_says_every_field_in_words():
    weapon = Weapon.parse('18 A2D6 BS4+ S5 AP-1 D2 [RAPID FIRE D3, MELTA 2, Anti-Fly 2, CONVERSION 12", '
                          "SUSTAINED HITS 1, HEAVY, PSYCHIC, ONE SHOT, Twin Linked]")
    assert profiles.weapon_summary(weapon) == (
        'Range 18" | Attacks 2D6 (roll) | BS 4+ | Strength 5 | AP -1 | Damage 2 | Rapid Fire D3 (roll), '
        'Sustained Hits 1, Melta 2, Anti-FLY 2+, Conversion (beyond 12"), Heavy, Twin-linked, Psychic, One Shot')
    melee = Weapon.parse("Melee A4 WS2+ S6 AP-2 D1 [EXTRA ATTACKS, LANCE]")
    assert profiles.weapon_summary(melee) == \
        "Melee | Attacks 4 | WS 2+ | Strength 6 | AP -2 | Damage 1 | Lance, Extra Attacks"
    assert profiles.weapon_summary(Weapon.parse("AD6 S4 AP0 D1 [TORRENT]")) == \
        "Attacks D6 (roll) | BS N/A | Strength 4 | AP 0 | Damage 1 | Torrent"


def test_target_summary_says_every_field_in_words():
    text = 'M6" T4 Sv3+ inv5+ inv-ranged4+ W2 Ld6+ OC1 fnp6+ fnp-mortal5+ fnp-psychic4+ dr1 halve x5 [INFANTRY]'
    assert profiles.target_summary(Target.parse(text)) == (
        '5 models: Move 6" | Toughness 4 | Save 3+ | Invulnerable save 5+ | Invulnerable save 4+ against ranged '
        "attacks | Wounds 2 | Leadership 6+ | OC 1 | Feel No Pain 6+ | Feel No Pain 5+ against mortal wounds | "
        "Feel No Pain 4+ against psychic attacks | damage reduced by 1 | damage halved | keywords INFANTRY")
    led = Target.parse("T4 Sv3+ W2 x2; T4 Sv3+ W4 leader")
    assert profiles.target_summary(led) == ("2 models: Toughness 4 | Save 3+ | Wounds 2; 1 model (attached leader): "
                                   "Toughness 4 | Save 3+ | Wounds 4 | keywords CHARACTER")
    assert profiles.model_summary(ModelProfile.parse("T4 Sv3+ W2 Q5", lenient=True)).endswith("| ignored: Q5")


def test_every_flag_has_words():
    fields = {a.name for a in attrs.fields(Weapon)}
    assert all(ability.words and ability.field in fields for ability in TENTH_EDITION)
    assert set(RANGED_ONLY) <= fields


def test_an_unknown_ability_is_refused_with_every_ability_the_edition_has():
    with pytest.raises(MathhammerError) as err:
        ability_fields("LETAL HITS")
    message = str(err.value)
    assert message.startswith("unknown weapon ability 'LETAL HITS' (did you mean 'LETHAL HITS'?); known: ASSAULT, ")
    assert message.endswith(', RAPID FIRE X, SUSTAINED HITS X, MELTA X, ANTI-KEYWORD X+, CONVERSION X"')
    assert all((a.spelling if a.kind == "flag" else a.form) in message for a in TENTH_EDITION)


# one printed example of each kind of value, as a datasheet writes it
KIND_EXAMPLES = {"flag": "", "number": " 2", "dice": " D3", "distance": ' 12"', "keyword": "-VEHICLE 4+"}


@pytest.mark.parametrize("ability", TENTH_EDITION, ids=lambda a: a.name)
def test_every_ability_reads_prints_and_reads_back(ability):
    """Each declared ability is read from its printed form, shown on the card in its words, and
    written back in a form that reads as the same weapon."""
    printed = ability.name + KIND_EXAMPLES[ability.kind]
    weapon = Weapon.parse(f'24" A1 BS3+ S4 AP0 D1 [{printed}]')
    assert getattr(weapon, ability.field) not in (False, None, 0, ())
    assert ability.words in profiles.weapon_summary(weapon)
    assert Weapon.parse(profiles.weapon_string(weapon)) == weapon


def test_every_datasheet_weapon_and_model_reads_back_from_its_string():
    for sheet in load.datasheets().values():
        for named in sheet.weapons.values():
            for weapon in named.values():
                assert Weapon.parse(profiles.weapon_string(weapon), name=weapon.name) == weapon
        target = sheet.as_target()
        assert Target.parse(profiles.target_string(target)) == attrs.evolve(target, groups=tuple(
            (attrs.evolve(p, name=""), n) for p, n in target.groups))


# ----------------------------------------------------------------------------- any input at all
TOKENS = ['24"', "Melee", "12", "A1", "A2", "AD6", "A0", "A²", "BS3+", "WS4+", "BSN/A", "N/A", "S4", "S*", "S2D6",
          "AP-1", "AP-", "AP+1", "D1", "D3", "DD3", "D=3", "D=D6", "D0", "T4", "Sv3+", "W2", "x5", "x0", "inv4+",
          "inv-ranged4+", "fnp5+", "fnp-mortal5+", "fnp-psychic4+", "Ld6+", "OC1", 'M6"', "dr1", "halve", "leader",
          "stealth", "[", "]", ",", ";", "=", "LANCE", "TORRENT", "TWIN LINKED", "RAPID FIRE D3", "MELTA 2",
          "SUSTAINED HITS 0", "ANTI-FLY 2", "CONVERSION", "INFANTRY", "４", "١", "²", "-", "+", "D", "9" * 5000,
          "A" + "9" * 50]
mixed = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=3)), max_size=12).map(" ".join)
PARSERS = [Weapon.parse, lambda t: Weapon.parse(t, lenient=True), Target.parse,
           lambda t: Target.parse(t, lenient=True), ModelProfile.parse,
           lambda t: ModelProfile.parse(t, lenient=True), Dice.parse, ability_fields]


@given(st.one_of(st.text(), mixed))
@settings(max_examples=400, deadline=None)
def test_parsers_raise_only_mathhammer_error(text):
    for parse in PARSERS:
        try:
            parse(text)
        except MathhammerError as err:
            assert "\n" not in str(err)


weapon_texts = st.lists(st.sampled_from(TOKENS[:30]), min_size=4, max_size=8).map(" ".join)
ability_lists = st.lists(st.sampled_from(["LANCE", "TORRENT", "Twin Linked", "RAPID FIRE D3", "MELTA 2",
                                          "SUSTAINED HITS 1", "ANTI-FLY 2", 'CONVERSION 12"', "PSYCHIC",
                                          "EXTRA ATTACKS", "ONE SHOT", "HEAVY", "Bubblechukka"]),
                         max_size=4).map(lambda a: f" [{', '.join(a)}]" if a else "")


@given(weapon_texts, ability_lists)
@settings(max_examples=300, deadline=None)
def test_a_parsed_weapon_reads_back_from_its_string(stats, abilities):
    try:
        weapon = Weapon.parse(stats + abilities, lenient=True)
    except MathhammerError:
        return
    assert Weapon.parse(profiles.weapon_string(weapon), lenient=True) == weapon


# ----------------------------------------------------------------------------- the model's own checks
def test_weapon_built_in_python_is_checked_like_a_parsed_one():
    with pytest.raises(MathhammerError, match="TORRENT on a melee weapon"):
        plain(melee=True, torrent=True)
    with pytest.raises(MathhammerError, match='a melee weapon has no range, got 12"'):
        plain(melee=True, range=12)
    assert plain(rapid_fire=0, sustained_hits=0) == PLAIN  # 0 means the weapon lacks the ability
    assert plain(rapid_fire="D3").rapid_fire == D3


def test_rolled_rapid_fire_adds_its_roll_within_half_range():
    """A1 with Rapid Fire D3: 1 attack, or within half range 1 + D3 = 2, 3 or 4 with 1/3 each."""
    from fractions import Fraction

    from mathhammer_exact import Context, attack
    weapon, target = Weapon.parse('24" A1 BS3+ S4 AP0 D1 [RAPID FIRE D3]'), Target.parse("T4 Sv3+ W1 x10")
    near = attack(weapon, target, context=Context(half_range=True), exact=True).attacks
    assert [near.p(k) for k in range(1, 5)] == [0, Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)]
    assert attack(weapon, target, exact=True).attacks.p(1) == 1
    with pytest.raises(MathhammerError, match="rolled Rapid Fire is not modelled"):
        attack(weapon, target, context=Context(half_range=True, command_reroll="attacks"), exact=True)


model_texts = st.tuples(
    st.sampled_from(["T4", "T12"]), st.sampled_from(["Sv3+", "Sv7+"]), st.sampled_from(["W1", "W4"]),
    st.lists(st.sampled_from(["x5", "x2/6", "inv4+", "inv-ranged5+", "fnp5+", "fnp-mortal4+", "fnp-psychic6+", "Ld6+",
                              "OC0", 'M6"', "M-", "dr1", "halve", "stealth", "leader"]), unique=True, max_size=6),
).map(lambda t: " ".join([*t[:3], *t[3]]))
keyword_lists = st.lists(st.sampled_from(["INFANTRY", "Vehicle", "CHARACTER", "STEALTH"]), max_size=3).map(
    lambda k: f" [{', '.join(k)}]" if k else "")


@given(model_texts, keyword_lists, st.booleans())
@settings(max_examples=300, deadline=None)
def test_a_parsed_target_reads_back_from_its_string(stats, keywords, bodyguards):
    text = ("T4 Sv3+ W1 x3; " if bodyguards else "") + stats + keywords
    try:
        target = Target.parse(text)
    except MathhammerError:  # e.g. a leader with no bodyguards, or stealth twice
        return
    assert Target.parse(profiles.target_string(target)) == target


# ------------------------------------------------------- fields the parser reads, as the engine applies them
# Hand-derived: BS2+/WS2+ hits 5/6; S8 wounds T4 on 2+ (5/6); the armour save is gone at AP-4/AP-6, so only the
# invulnerable save (4+: fails 1/2) or the Feel No Pain (4+: the wound is lost 1/2) stands between hit and kill.
def test_ranged_only_invulnerable_save_holds_against_shooting_only():
    from fractions import Fraction

    from mathhammer_exact import attack
    target = Target.parse("T4 Sv3+ W1 inv-ranged4+")
    shot = attack(Weapon.parse("A1 BS2+ S8 AP-4 D1"), target, exact=True).models_destroyed.mean
    blow = attack(Weapon.parse("A1 WS2+ S8 AP-4 D1"), target, exact=True).models_destroyed.mean
    assert (shot, blow) == (Fraction(25, 72), Fraction(25, 36))


def test_psychic_feel_no_pain_holds_against_psychic_attacks_only():
    from fractions import Fraction

    from mathhammer_exact import attack
    target = Target.parse("T4 Sv3+ W1 fnp-psychic4+")
    psychic = attack(Weapon.parse("A1 BS2+ S8 AP-6 D1 [PSYCHIC]"), target, exact=True).models_destroyed.mean
    plain_shot = attack(Weapon.parse("A1 BS2+ S8 AP-6 D1"), target, exact=True).models_destroyed.mean
    assert (psychic, plain_shot) == (Fraction(25, 72), Fraction(25, 36))


def test_an_ability_declared_alone_is_read_checked_printed_and_tabled():
    """A throwaway ability, declared on a field and nowhere else, is read by the parser, refused on
    a melee weapon, printed on the card and listed in the docs table (and an unknown one's help)."""
    from mathhammer_exact.abilities import Ability
    from mathhammer_exact.model import abilities_of, ability_field
    from mathhammer_exact.present.abilities import ability_table

    @attrs.frozen
    class Sharpened(Weapon):
        sharp: int = ability_field(Ability("SHARP", "number", "Sharp", "wound", "X more to wound, as a test",
                                           ranged_only=True, needs=("charged",), x="sharpness"))

    weapon = Sharpened.parse('12" A1 BS3+ S4 AP0 D1 [Sharp 2, LANCE]')
    assert (weapon.sharp, weapon.lance) == (2, True)
    assert profiles.weapon_summary(weapon).endswith("| Lance, Sharp 2")
    assert Sharpened.parse(profiles.weapon_string(weapon)) == weapon
    with pytest.raises(MathhammerError, match="SHARP on a melee weapon"):
        Sharpened.parse("Melee A1 WS3+ S4 AP0 D1 [SHARP 1]")
    with pytest.raises(MathhammerError, match="SHARP takes a whole number of sharpness"):
        Sharpened.parse('12" A1 BS3+ S4 AP0 D1 [SHARP D3]')
    with pytest.raises(MathhammerError, match=r"SHARP X$"):
        Sharpened.parse('12" A1 BS3+ S4 AP0 D1 [BLUNT 1]')
    assert "| `SHARP X` | ranged | `--charged` | wound roll | X more to wound, as a test |" in \
        ability_table(abilities_of(Sharpened))
    assert "SHARP" not in ability_table()

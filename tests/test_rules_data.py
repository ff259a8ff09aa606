"""rules/ as data: every named modifier's effect pinned by hand, validation errors, datasheets."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer_exact import Context, Firing, MathhammerError, MortalWounds, Target, Weapon, attack
from mathhammer_exact.data import load as data
from mathhammer_exact.data.load import READER, SheetFile, build_sheet
from mathhammer_exact.data.modifiers import SUBJECT, NamedRule, apply_modifiers
from mathhammer_exact.decide.unit_attack import unit_attack
from mathhammer_exact.units import by_name

F = Fraction
SHOT = "A1 BS4+ S4 AP0 D1"
BLOW = "A1 WS4+ S4 AP0 D1"
MEQ1 = "T4 Sv4+ W1 x5"
TCS = "Militarum Tempestus Command Squad"


def run(keys, weapon=SHOT, target=MEQ1, context=None):
    """One attack after the named modifiers: every stage's distribution (exact)."""
    context = context or Context()
    mods = [data.modifier(k) for k in keys]
    [(changed_weapon, own)], changed, context = apply_modifiers(mods, [Weapon.parse(weapon)], Target.parse(target),
                                                                context)
    if any(m.effect.mortal_wounds or m.effect.command_reroll for m in mods):
        tests = [MortalWounds(m.effect.mortal_wounds.dice, m.effect.mortal_wounds.success)
                 for m in mods if m.effect.mortal_wounds]
        return attack([*tests, Firing(changed_weapon, 1, own)], changed, context=context, exact=True)
    return attack(changed_weapon, changed, 1, own, exact=True)


def killed(keys, **kwargs):
    """E[models destroyed] = P(one D1 attack kills a W1 model) for one attack."""
    return run(keys, **kwargs).models_destroyed.mean


# Each row: modifier key, its effect measured, expected exact value, how it was derived.
CASES = [
    ("oath-of-moment", lambda: run(["oath-of-moment"]).hits.mean, F(3, 4), "BS4+ re-rolling fails: 1/2 + 1/2*1/2"),
    ("oath-of-moment-codex", lambda: run(["oath-of-moment-codex"]).wounds.mean, F(3, 4) * F(2, 3),
     "hit 4+ re-rolling fails: 3/4; S4 vs T4 wounds on 4+, with +1 on 3+: 2/3"),
    ("oath-of-moment-2023", lambda: run(["oath-of-moment-2023"]).wounds.mean, F(3, 4) * F(3, 4),
     "hit 4+ re-rolling fails: 3/4; wound 4+ re-rolling fails: 3/4 (a trial's old army list prints it so)"),
    ("multi-spectrum-array", lambda: run(["multi-spectrum-array"]).hits.mean, F(2, 3), "+1 to hit: 3+"),
    ("waaagh-melee", lambda: run(["waaagh-melee"], weapon=BLOW).wounds.mean, 2 * F(1, 2) * F(2, 3),
     "A1+1 = 2 attacks, WS4+ hits 1/2, S4+1 = 5 vs T4 wounds on 3+"),
    ("waaagh-invulnerable", lambda: killed(["waaagh-invulnerable"], weapon="A1 BS4+ S4 AP-3 D1"),
     F(1, 2) * F(1, 2) * F(2, 3), "hit 4+, wound 4+, Sv4+ at AP-3 is 7+: the 5+ invulnerable save fails 2/3"),
    ("dark-pacts-lethal", lambda: run(["dark-pacts-lethal"]).wounds.mean, F(1, 6) + F(1, 3) * F(1, 2),
     "a 6 to hit wounds outright (1/6); a 4-5 (1/3) wounds on 4+ (1/2)"),
    ("dark-pacts-sustained", lambda: run(["dark-pacts-sustained"]).hits.mean, F(1, 2) + F(1, 6),
     "hits on 4+ (1/2), and a 6 (1/6) one more hit"),
    ("stealth", lambda: run(["stealth"]).hits.mean, F(1, 3), "-1 to hit: 5+"),
    ("smokescreen", lambda: killed(["smokescreen"]), F(1, 3) * F(1, 2) * F(1, 3),
     "hit 5+ (stealth), wound 4+, save 4+ with cover = 3+"),
    ("go-to-ground", lambda: killed(["go-to-ground"], weapon="A1 BS4+ S4 AP-4 D1"), F(1, 2) * F(1, 2) * F(5, 6),
     "AP-4 leaves no armour save even in cover; the 6+ invulnerable save fails 5/6"),
    ("fire-overwatch", lambda: run(["fire-overwatch"]).hits.mean, F(1, 6), "only 6s hit"),
    ("controlled-ferocity", lambda: run(["controlled-ferocity"], weapon=BLOW).hits.mean, F(1, 3), "-1 to hit: 5+"),
    ("harness-the-flaw", lambda: run(["harness-the-flaw"], weapon="A1 WS2+ S4 AP0 D1").wounds.mean,
     F(5, 6) * (F(1, 2) + F(1, 6) * F(1, 2)), "WS2+ hits 5/6, S4 v T4: re-roll 1s to wound"),
    ("suppression-fire", lambda: run(["suppression-fire"]).hits.mean, F(1, 3), "the suppressed unit: -1 to hit"),
    ("fields-of-fire", lambda: killed(["fields-of-fire"]), F(1, 2) * F(1, 2) * F(2, 3), "AP0 -> AP-1: save 5+"),
    ("against-the-odds", lambda: run(["against-the-odds"], weapon=BLOW).wounds.mean, 2 * F(1, 2) * F(2, 3),
     "A1 -> A2, WS4+ hits 1/2, S4 -> S5 wounds T4 on 3+"),
    ("elimination-force", lambda: run(["elimination-force"], target="T5 Sv4+ W1 x5").wounds.mean,
     F(1, 2) * F(1, 2), "S4 < T5: 5+ becomes 4+"),
    ("drill-commander", lambda: run(["drill-commander"], weapon="A1 BS4+ S4 AP0 D1 [LETHAL HITS]",
                                    target="T8 Sv4+ W1 x5", context=Context(stationary=True)).wounds.mean,
     F(2, 6) + F(1, 6) * F(1, 6), "Critical Hits on 5+ auto-wound; a 4 hits and wounds T8 on 6"),
    ("take-aim", lambda: run(["take-aim"]).hits.mean, F(2, 3), "BS4+ -> BS3+"),
    ("fix-bayonets", lambda: run(["fix-bayonets"], weapon=BLOW).hits.mean, F(2, 3), "WS4+ -> WS3+"),
    ("first-rank-fire", lambda: run(["first-rank-fire"], weapon="A1 BS4+ S4 AP0 D1 [RAPID FIRE 1]").attacks.mean,
     F(2), "A1 -> A2 on a Rapid Fire weapon"),
    ("take-cover", lambda: killed(["take-cover"]), F(1, 2) * F(1, 2) * F(1, 3), "Sv4+ -> Sv3+"),
    ("tempestor-prime", lambda: run(["tempestor-prime"]).hits.mean, F(1, 2) + F(1, 6), "Sustained Hits 1"),
    ("medi-pack", lambda: unit_attack(TCS, Target.parse("T3 Sv5+ W1 x10"), ["plasma gun", "medi-pack"],
                                      profiles=["supercharge"], exact=True).result.hazardous_models_lost.mean,
     F(1, 6) * (1 - F(1, 6) ** 3),
     "the bearer's unit has FNP 6+: a failed Hazardous test (1/6) kills the W1 Scion unless all 3 mortal wounds are "
     "ignored (1/6 each): 215/1296, where the unit without a medi-pack loses 1/6"),
    ("command-rod", lambda: unit_attack(TCS, Target.parse("T3 Sv5+ W1 x10"), ["command rod"],
                                        modifiers=["take-aim", "first-rank-fire"], exact=True).result.hits.mean,
     F(8), "two Orders at once: 4 lasguns with A1+1, BS3+ -> 2+, Sustained Hits 1: 8 attacks x (5/6 + 1/6) hits"),
    ("born-soldiers", lambda: run(["born-soldiers"], target="T8 Sv4+ W1 x5").wounds.mean,
     F(1, 6) + F(2, 6) * F(1, 6), "a 6 to hit auto-wounds T8; 4-5 wound on a 6"),
    ("born-soldiers-squadron", lambda: run(["born-soldiers-squadron"], target="T8 Sv4+ W1 x5").wounds.mean,
     F(1, 6) + F(2, 6) * F(1, 6), "a 6 to hit auto-wounds T8; 4-5 wound on a 6"),
    ("purge-sweep-protocols", lambda: run(["purge-sweep-protocols"], target="T8 Sv4+ W1 x5").wounds.mean,
     F(1, 6) + F(2, 6) * F(1, 6), "Lethal Hits"),
    ("command-reroll-attacks", lambda: run(["command-reroll-attacks"], weapon="AD6 S8 AP-6 D1 [TORRENT]",
                                           target="T4 Sv2+ W1 x10").models_destroyed.mean,
     F(5, 6) * (F(1, 2) * 5 + F(1, 2) * F(7, 2)), "a D6 attacks roll of 1-3 is re-rolled: E[attacks] = 4.25"),
    ("command-reroll-hit", lambda: run(["command-reroll-hit"], weapon="A2 BS4+ S8 AP-6 D1", target="T4 Sv2+ W1 x5")
     .models_destroyed.p(0), F(1, 8) + F(3, 8) * F(1, 6) + F(1, 2) * F(1, 36),
     "2 attacks, the first failed hit re-rolled: 0/1/2 hits with 1/8, 3/8, 1/2; each wounds on 2+, no save"),
    ("command-reroll-wound", lambda: run(["command-reroll-wound"], weapon="A1 S4 AP-6 D1 [TORRENT]")
     .models_destroyed.mean, F(3, 4), "one torrent hit wounding on 4+ with one re-roll: 1/2 + 1/2 * 1/2"),
    ("command-reroll-damage", lambda: run(["command-reroll-damage"], weapon="A1 S8 AP-6 DD6 [TORRENT]",
                                          target="T4 Sv2+ W4 x2").models_destroyed.mean,
     F(5, 6) * (F(1, 2) + F(1, 2) * F(1, 2)), "wound 2+; a D6 of 1-3 (below 3.5, short of W4) is re-rolled"),
    ("command-reroll-save", lambda: run(["command-reroll-save"], weapon="A1 S8 AP0 D1 [TORRENT]",
                                        target="T4 Sv4+ W1 x5").models_destroyed.mean,
     F(5, 6) * F(1, 2) * F(1, 2), "wound 2+, a failed 4+ save re-rolled once"),
    ("grenade", lambda: run(["grenade"], target="T3 Sv5+ W1 x10", weapon="A1 BS6+ S1 AP0 D1 [TORRENT]")
     .models_destroyed.mean, 3 + F(1, 6) * F(2, 3),
     "six D6 at 4+: 3 mortal wounds on average; plus a Torrent S1 shot (6+ to wound T3, 5+ save fails 2/3)"),
]


@pytest.mark.parametrize(("key", "measure", "expected", "why"), CASES, ids=[c[0] for c in CASES])
def test_each_named_modifier_changes_a_probability_as_derived(key, measure, expected, why):
    assert measure() == expected, why


def test_every_named_modifier_is_tested():
    assert {c[0] for c in CASES} == set(data.modifiers())


def test_conditions_limit_modifiers():
    assert run(["take-aim"], weapon=BLOW).hits.mean == F(1, 2)  # ranged only
    assert run(["fix-bayonets"]).hits.mean == F(1, 2)  # melee only
    assert run(["first-rank-fire"]).attacks.mean == 1  # Rapid Fire only
    assert run(["drill-commander"], weapon=BLOW).hits.mean == F(1, 2)  # ranged only (no crit change here)
    assert run(["elimination-force"]).wounds.mean == F(1, 2) * F(1, 2)  # S4 = T4: no bonus
    assert killed(["take-cover"], target="T4 Sv3+ W1 x5") == F(1, 2) * F(1, 2) * F(1, 3)  # not better than 3+
    assert run(["harness-the-flaw"], target="T4 Sv4+ W1 x5 [VEHICLE]",
               weapon="A1 WS2+ S4 AP0 D1").wounds.mean == F(5, 6) * F(3, 4)  # any failed wound roll vs VEHICLE
    against = run(["against-the-odds"], weapon=BLOW)
    assert against.attacks.mean == 2 and against.hits.mean == 1


def test_modifiers_stack_and_roll_modifiers_are_capped():
    # +1 (Multi-spectrum Array) and Take Aim! (characteristic): BS4+ -> 3+ then +1 -> needs 2+
    assert run(["take-aim", "multi-spectrum-array"]).hits.mean == F(5, 6)
    # +1 and -1 cancel; a characteristic change is not a roll modifier
    assert run(["multi-spectrum-array", "stealth"]).hits.mean == F(1, 2)
    with pytest.raises(MathhammerError, match="one Command Re-roll per query"):
        run(["command-reroll-hit", "command-reroll-save"])


def test_every_rule_says_its_scope_and_describes_its_effect():
    for rule in data.modifiers().values():
        assert rule.phase in ("shooting", "fight", "either") and rule.situation in SUBJECT
        assert rule.effect.describe() != "no effect", rule.key
        assert rule.header().startswith(SUBJECT[rule.situation] + " " + rule.name + ": ")
    assert data.modifier("fields-of-fire").header().startswith("target marked by Fields of Fire: AP improved by 1")
    assert data.modifier("harness-the-flaw").attacker.describe() == "an ADEPTUS ASTARTES INFANTRY unit"
    assert data.modifier("take-aim").attacker.describe() == "an ASTRA MILITARUM REGIMENT or SQUADRON unit"
    assert data.modifier("suppression-fire").attacker.describe() == "a unit (not MONSTER or VEHICLE)"


# ---------------------------------------------------------------- data files
def _write(tmp: Path, modifiers: str | None = None, sheet: str | None = None, targets: str | None = None) -> Path:
    """A user's rules folder with the files given (the others are left out: the shipped ones apply)."""
    (tmp / "datasheets").mkdir()
    for name, text in (("modifiers.toml", modifiers), ("targets.toml", targets)):
        if text is not None:
            (tmp / name).write_text(text)
    if sheet is not None:
        (tmp / "datasheets" / "broken.toml").write_text(sheet)
    return tmp


GOOD_MOD = '[x]\nname = "X"\nkind = "order"\nsource = "test"\nsummary = "s"\nphase = "either"\nsituation = "attacker"\n'


@pytest.mark.parametrize(("text", "fragment"), [
    (GOOD_MOD + "skil_bonus = 1\n", "modifiers.toml [x]: unknown field skil_bonus (allowed: key, name, kind"),
    (GOOD_MOD + "effect = { skil_bonus = 1 }\n", "modifiers.toml [x] effect: unknown field skil_bonus"),
    ('[x]\nname = "X"\n', "modifiers.toml [x] kind: missing (this field is required)"),
    (GOOD_MOD.replace('"attacker"', '"nobody"'),
     "modifiers.toml [x] situation: 'nobody' is not allowed (allowed: attacker, target, marked, suppressed)"),
    (GOOD_MOD.replace('"either"', '"shoting"'), "modifiers.toml [x] phase: 'shoting' is not allowed"),
    (GOOD_MOD + 'effect = { abilities = ["FLYING HITS"] }\n',
     "modifiers.toml [x] effect: unknown weapon ability 'FLYING HITS'"),
    (GOOD_MOD + 'effect = { reroll_hits = "sometimes" }\n', "modifiers.toml [x] effect.reroll_hits: unknown re-roll"),
    # wrong types: a string, or a decimal, where a whole number belongs; a string where a list belongs
    (GOOD_MOD + 'effect = { hit_modifier = "1" }\n',
     "modifiers.toml [x] effect.hit_modifier: expected a whole number such as 5, got '1' (text)"),
    (GOOD_MOD + 'effect = { ap_bonus = 1.5 }\n',
     "modifiers.toml [x] effect.ap_bonus: expected a whole number such as 5, got 1.5"),
    (GOOD_MOD + 'attacker = { all_of = "INFANTRY" }\n',
     "modifiers.toml [x] attacker.all_of: expected a list such as [\"A\", \"B\"], got 'INFANTRY' (text)"),
    (GOOD_MOD + 'repeatable = "yes"\n', "modifiers.toml [x] repeatable: expected true or false, got 'yes'"),
    (GOOD_MOD + 'requires = ["stationery"]\n', "modifiers.toml [x] requires[0]: 'stationery' is not allowed"),
    (GOOD_MOD + "effect = { feel_no_pain = 6 }\n",
     "modifiers.toml [x]: effect.feel_no_pain changes the target's models, so situation must be \"target\""),
    (GOOD_MOD.replace('"attacker"', '"target"') + "effect = { bearer_feel_no_pain = 6 }\n",
     "modifiers.toml [x]: effect.bearer_feel_no_pain changes the attacking unit's own models"),
    (GOOD_MOD.replace('"attacker"', '"target"') + "effect = { invulnerable = 1 }\n",
     "modifiers.toml [x] effect: invulnerable must be 2 to 6, got 1"),
    (GOOD_MOD + 'key = "y"\n', "modifiers.toml [x] key: the entry's name in brackets is its key"),
    ("[x\n", "modifiers.toml: not valid TOML"),
    ('x = 3\n', "modifiers.toml [x]: expected a table of fields, got 3"),
])
def test_invalid_modifier_files_name_the_file_entry_and_field(tmp_path, text, fragment):
    with pytest.raises(MathhammerError) as err:
        data.library(_write(tmp_path, text))
    assert fragment in str(err.value)
    assert str(tmp_path) in str(err.value)  # the user's file, by its full path


SHEET = '''name = "Broken"
faction = "Test"
source = "test"
keywords = ["INFANTRY"]
[[models]]
name = "Trooper"
count = 5
stats = 'M6" T3 Sv5+ W1 Ld7+ OC2'
equipment = ["rifle"]
[weapons.rifle]
default = '24" A1 BS4+ S3 AP0 D1'
'''


@pytest.mark.parametrize(("sheet", "fragment"), [
    (SHEET.replace("BS4+", "BS9+"), "broken.toml weapons.'rifle'.default: BS/WS must be 2+ to 6+, got 9+"),
    (SHEET.replace('equipment = ["rifle"]', 'equipment = ["lasgun"]'),
     "broken.toml models[0].equipment: no weapon or wargear named 'lasgun' on this datasheet"),
    (SHEET.replace("T3 ", "T0 "), "broken.toml models[0].stats: T must be at least 1"),
    (SHEET.replace('faction = "Test"\n', ""), "broken.toml faction: missing (this field is required)"),
    (SHEET.replace('source = "test"\n', 'source = "test"\ncolour = "red"\n'), "broken.toml: unknown field colour"),
    # wrong type: "5" and 2.5 as a model count, a number where text belongs
    (SHEET.replace("count = 5", 'count = "5"'),
     "broken.toml models[0].count: expected a whole number such as 5, got '5' (text)"),
    (SHEET.replace("count = 5", "count = 2.5"),
     "broken.toml models[0].count: expected a whole number such as 5, got 2.5 (a decimal number)"),
    (SHEET.replace("count = 5", "count = 0"), "broken.toml models[0]: count must be at least 1, got 0"),
    (SHEET.replace('name = "Trooper"', "name = 7"), "broken.toml models[0].name: expected text in quotes, got 7"),
    # a string where a list belongs is not split into letters
    (SHEET.replace('keywords = ["INFANTRY"]', 'keywords = "INFANTRY"'),
     "broken.toml keywords: expected a list such as [\"A\", \"B\"], got 'INFANTRY' (text)"),
    (SHEET.replace('equipment = ["rifle"]', 'equipment = "rifle"'), "broken.toml models[0].equipment: expected a list"),
    (SHEET.replace('source = "test"\n', 'source = "test"\nalways = ["no-such-rule"]\n'),
     "broken.toml always: no named rule 'no-such-rule'"),
    (SHEET.replace('source = "test"\n', 'source = "test"\npoints = { five = 70 }\n'),
     "broken.toml points: unit sizes are whole numbers of models, got 'five'"),
    # points and sizes the models cannot make (5 Troopers, none of them optional)
    (SHEET.replace('source = "test"\n', 'source = "test"\npoints = { 5 = -70 }\n'),
     "broken.toml points.5: a unit costs 1 point or more, got -70"),
    (SHEET.replace('source = "test"\n', 'source = "test"\nsizes = [7]\n'),
     "broken.toml sizes: its models make units of 5 models, not 7"),
    (SHEET.replace("count = 5", "count = 5\nmax = 10").replace('source = "test"\n', 'source = "test"\nsizes = [12]\n'),
     "broken.toml sizes: its models make units of 5, 6, 7, 8, 9 or 10 models, not 12"),
    (SHEET.replace("count = 5", "count = 5\nmax = 4"),
     "broken.toml models[0].max: the most models of this kind is at least its count (5), got 4"),
    (SHEET.replace('source = "test"\n', 'source = "test"\npoints = { 7 = 70 }\n'),
     "broken.toml points.7: the unit comes in units of 5 models, not 7"),
    (SHEET + '[[options]]\nmodel = "Sergeant"\nreplaces = "rifle"\nwith = ["rifle"]\n',
     "broken.toml options[0].model: no model named 'Sergeant' on this datasheet"),
    ("name = [\n", "broken.toml: not valid TOML"),
])
def test_invalid_datasheets_name_the_file_and_field(tmp_path, sheet, fragment):
    with pytest.raises(MathhammerError) as err:
        data.library(_write(tmp_path, sheet=sheet))
    assert fragment in str(err.value)


def test_two_datasheets_of_one_name_in_a_folder_are_refused(tmp_path):
    # the names differ only in case and punctuation, which a lookup by name ignores
    folder = _write(tmp_path, sheet=SHEET)
    (folder / "datasheets" / "copy.toml").write_text(SHEET.replace('"Broken"', '"broken!"'))
    with pytest.raises(MathhammerError) as err:
        data.library(folder)
    assert str(err.value).endswith(f"copy.toml name: 'broken!' is already the name of the datasheet in "
                                   f"{folder / 'datasheets' / 'broken.toml'}; give each datasheet its own name")


def test_a_file_that_is_not_utf8_is_named(tmp_path):
    folder = _write(tmp_path, sheet="")
    (folder / "datasheets" / "broken.toml").write_bytes(SHEET.replace("Broken", "Br\xf6ken").encode("latin-1"))
    with pytest.raises(MathhammerError, match=r"broken\.toml: not UTF-8 text \(byte 0xf6 at position 10\)"):
        data.library(folder)


def test_a_folder_where_a_file_belongs_is_named(tmp_path):
    (tmp_path / "modifiers.toml").mkdir()
    with pytest.raises(MathhammerError, match=r"modifiers\.toml: is a folder; a TOML file belongs here"):
        data.library(tmp_path)
    other = tmp_path / "other"
    (other / "datasheets" / "sheet.toml").mkdir(parents=True)
    with pytest.raises(MathhammerError, match=r"sheet\.toml: is a folder; a TOML file belongs here"):
        data.library(other)
    (tmp_path / "third").mkdir()
    (tmp_path / "third" / "datasheets").write_text("")
    with pytest.raises(MathhammerError, match=r"datasheets: is a file; a folder of datasheet files belongs here"):
        data.library(tmp_path / "third")
    with pytest.raises(MathhammerError, match=r"rules folder .*missing does not exist"):
        data.library(tmp_path / "missing")


def test_invalid_standard_targets_name_the_entry_and_field(tmp_path):
    with pytest.raises(MathhammerError, match=r"targets\.toml \[horde\] profile: W must be at least 1"):
        data.library(_write(tmp_path, targets='[horde]\ndescription = "d"\nprofile = "T3 Sv6+ W0 x20"\n'))


def test_nothing_half_loads(tmp_path):
    # a good datasheet and a bad one in the same folder: the load fails as a whole
    folder = _write(tmp_path, sheet=SHEET.replace("count = 5", 'count = "5"'))
    (folder / "datasheets" / "good.toml").write_text(SHEET.replace("Broken", "Good"))
    with pytest.raises(MathhammerError, match="broken.toml"):
        data.library(folder)
    assert "Good" not in data.datasheets()


def test_a_users_folder_is_layered_over_the_shipped_rules(tmp_path, monkeypatch):
    changed = SHEET.replace("Broken", "Incursor Squad")  # replaces the shipped datasheet of that name
    folder = _write(tmp_path, GOOD_MOD + 'effect = { hit_modifier = 1 }\n', changed,
                    '[GEQ]\ndescription = "my guardsmen"\nprofile = "T3 Sv5+ W1 x20"\n')
    (folder / "datasheets" / "mine.toml").write_text(SHEET.replace("Broken", "Mine"))
    lib = data.library(folder)
    assert lib.sheets["Incursor Squad"].models[0].name == "Trooper"  # replaced by name
    assert "Militarum Tempestus Command Squad" in lib.sheets and "Mine" in lib.sheets  # kept and added
    assert "x" in lib.rules and "take-aim" in lib.rules
    assert lib.targets["GEQ"].target.model_count == 20 and "MEQ" in lib.targets
    assert data.library() is not lib and data.library().sheets["Incursor Squad"].models[0].name == "Incursor"
    monkeypatch.setenv("MATHHAMMER_RULES", str(folder))
    assert data.library() is lib  # the environment variable names the same folder


def test_unknown_names_suggest_the_closest():
    with pytest.raises(MathhammerError, match="did you mean 'Incursor Squad'"):
        by_name.datasheet("incursor squadd")
    with pytest.raises(MathhammerError, match="did you mean 'take-aim'"):
        data.modifier("take aimm")
    assert by_name.datasheet("TEMPESTUS COMMAND SQUAD").name == "Militarum Tempestus Command Squad"
    assert data.modifier("Take Aim!").key == "take-aim"


def test_seed_datasheets_encode_the_seed_numbers():
    inc = by_name.datasheet("Incursor Squad")
    assert inc.as_target(10).model_count == 10 and inc.as_target().model_count == 5
    marine = inc.models[0].profile
    assert (marine.toughness, marine.save, marine.wounds, marine.leadership) == (4, 3, 2, 6)
    assert str(inc.weapons["occulus bolt carbine"]["default"].attacks) == "2"
    tcs = by_name.datasheet("Militarum Tempestus Command Squad")
    assert tcs.points == {5: 70}
    prime, scion = (m.profile for m in tcs.models)
    assert (prime.wounds, scion.wounds, prime.toughness, prime.save) == (3, 1, 3, 4)
    assert prime.character and not scion.character
    melta = tcs.weapons["meltagun"]["default"]
    assert (melta.strength, melta.ap, str(melta.damage), melta.melta) == (9, -4, "D6", 2)
    assert tcs.weapons["plasma gun"]["supercharge"].hazardous
    assert set(data.standard_targets()) >= {"GEQ", "MEQ", "TEQ", "light vehicle", "battle tank", "monster", "knight"}


# ---------------------------------------------------------------- any table at all
LEAVES = (st.booleans() | st.integers(-3, 9) | st.floats(allow_nan=False) | st.text(max_size=8)
          | st.sampled_from(["either", "target", "ranged", "ones", "hit", "INFANTRY", "T3 Sv5+ W1"]))
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
RULE_KEYS = ["name", "kind", "source", "summary", "phase", "situation", "effect", "attacker", "target", "ability",
             "requires", "excludes", "assumes", "repeatable", "weapons", "hit_modifier", "all_of", "reroll_hits"]
SHEET_KEYS = ["name", "faction", "source", "keywords", "models", "weapons", "options", "points", "wargear", "count",
              "stats", "equipment", "with", "gives", "sizes"]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(RULE_KEYS), VALUES, max_size=8),
       st.dictionaries(st.sampled_from(SHEET_KEYS), VALUES, max_size=8))
def test_any_table_is_read_or_refused_with_one_clear_error(rule, sheet):
    """Whatever a file holds, reading it gives the object or one line naming the place: never another error."""
    builds = (lambda: READER.structure("f [x]", {**rule, "key": "x"}, NamedRule),
              lambda: build_sheet("f", READER.structure("f", sheet, SheetFile), data.modifiers()))
    for build in builds:
        try:
            build()
        except MathhammerError as exc:
            assert str(exc).startswith("f") and "\n" not in str(exc)


def test_a_size_fills_the_kinds_that_vary_in_order():
    # 1 sergeant, 4 to 9 troopers and 0 to 2 gunners: a unit of 12 has 9 troopers (their max) and the
    # other 2 as gunners; a unit of 7 has 6 troopers and no gunner.
    from mathhammer_exact import ModelProfile
    from mathhammer_exact.data.datasheet import Datasheet, ModelEntry

    profile = ModelProfile.parse("T3 Sv5+ W1")
    sheet = Datasheet("Squad", "Test", "test", (), (), (), (
        ModelEntry("sergeant", profile, 1, ()), ModelEntry("trooper", profile, 4, (), 9),
        ModelEntry("gunner", profile, 0, (), 2)), {})
    assert sheet.counts(12) == {"sergeant": 1, "trooper": 9, "gunner": 2}
    assert sheet.counts(7) == {"sergeant": 1, "trooper": 6, "gunner": 0}


def test_a_kind_without_a_limit_fills_sizes_up_to_the_largest_target():
    # A catalogue may give a model kind a maximum of "no limit": the sizes stop at the engine's largest
    # target unit (1,000 models) instead of building a range of a hundred million.
    from mathhammer_exact import ModelProfile
    from mathhammer_exact.data.datasheet import Datasheet, ModelEntry
    from mathhammer_exact.sizes import MAX_TARGET_MODELS

    profile = ModelProfile.parse("T3 Sv5+ W1")
    sheet = Datasheet("Horde", "Test", "test", (), (), (), (ModelEntry("one", profile, 10, (), 100_000_000),), {})
    assert sheet.fillable_sizes() == tuple(range(10, MAX_TARGET_MODELS + 1))

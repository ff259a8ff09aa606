"""A Leader attached to the attacking unit (--led-by), and a target's own wargear (--target-loadout)."""

import json
from fractions import Fraction
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from mathhammer_exact import Target
from mathhammer_exact.catalogue.abilities import attached_as, joins_beside, scope, two_leaders
from mathhammer_exact.catalogue.ability_text import read_ability
from mathhammer_exact.catalogue.build import add_checkout
from mathhammer_exact.cli import cli
from mathhammer_exact.data.datasheet import UNIT_WIDE, AttachedUnit, Datasheet, ModelEntry, TwoLeaders
from mathhammer_exact.decide.points import attached_points
from mathhammer_exact.decide.unit_attack import led_sizes, unit_attack
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.model import ModelProfile
from mathhammer_exact.units import by_name
from mathhammer_exact.units.by_name import leading_problem, together_problem

TCS = "Militarum Tempestus Command Squad"


@pytest.fixture
def gravel(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHHAMMER_DATA", str(tmp_path))
    add_checkout(Path("tests/fixtures/bsdata"))
    return tmp_path


def test_a_leader_fires_with_its_unit(gravel):
    report = unit_attack("Gravel Wardens", Target.parse("T4 Sv6+ W1 x40"), led_by="Warden Captain", exact=True)
    assert [(f.weapon.name, f.models) for f in report.firings] == [("Pebble rifle", 5), ("Shard pistol", 1)]
    # by hand, W1 models (no overkill, 11 attacks at most): a rifle attack hits on 3+ (2/3), wounds S4 v T4 on 4+
    # (1/2), and Sv6+ at AP-1 never saves: 1/3 each of 10; the pistol hits on 2+ (5/6), wounds S5 v T4 on 3+ (2/3)
    assert report.result.damage.mean == 10 * Fraction(1, 3) + Fraction(5, 6) * Fraction(2, 3) == Fraction(35, 9)
    assert report.situation[0].startswith("led by Warden Captain (Gravel Host): 1 x Shard pistol attack with")


def test_a_leader_that_cannot_lead_the_unit_is_refused(gravel):
    with pytest.raises(MathhammerError, match="Warden Captain cannot lead Scree Walker .it can lead: Gravel Wardens"):
        unit_attack("Scree Walker", Target.parse("T4 Sv3+ W2 x5"), led_by="Warden Captain")
    with pytest.raises(MathhammerError, match="--led-by names a CHARACTER .* Gravel Wardens is not one"):
        unit_attack("Scree Walker", Target.parse("T4 Sv3+ W2 x5"), led_by="Gravel Wardens")


def test_a_leader_names_a_unit_as_catalogues_spell_it(gravel):
    # a trial found no Leader could join Acolyte Hybrids: their lists name 'ACOLYTE HYBRIDS' (a keyword that begins
    # both units' names) or 'ACOLYTE HYBRIDS WITH HANDFLAMERS' (the name written without a space)
    captain, wardens = by_name.datasheet("Warden Captain"), by_name.datasheet("Gravel Wardens")
    hybrids = attrs.evolve(wardens, name="Acolyte Hybrids with Hand Flamers", keywords=("INFANTRY", "ACOLYTE HYBRIDS"))
    for listed in (("ACOLYTE HYBRIDS",), ("ACOLYTE HYBRIDS WITH HANDFLAMERS",), ("Acolyte Hybrids with Hand Flamers",)):
        assert leading_problem(attrs.evolve(captain, leader_of=listed), hybrids) is None, listed
    tagged = attrs.evolve(wardens, name="Gravel Wardens [Legends]")  # a tag the list leaves out
    assert leading_problem(captain, tagged) is None
    # a keyword of a CHARACTER's name is not its unit's ('WOLF GUARD' is not a Wolf Guard Battle Leader)
    leader = attrs.evolve(hybrids, keywords=("INFANTRY", "CHARACTER", "ACOLYTE HYBRIDS"))
    assert leading_problem(attrs.evolve(captain, leader_of=("ACOLYTE HYBRIDS",)), leader) is not None
    other = attrs.evolve(wardens, name="Acolyte Iconward", keywords=("INFANTRY", "ACOLYTE HYBRIDS"))
    assert leading_problem(attrs.evolve(captain, leader_of=("ACOLYTE HYBRIDS WITH AUTOPISTOLS",)), other) is not None
    # nor a keyword that merely begins another unit's name (a review found NURGLE taken for a Nurgle Soul Grinder,
    # WOLF GUARD for Wolf Guard Terminators)
    grinder = attrs.evolve(wardens, name="Nurgle Soul Grinder", keywords=("VEHICLE", "NURGLE"))
    assert leading_problem(attrs.evolve(captain, leader_of=("Nurgle",)), grinder) is not None
    terminators = attrs.evolve(wardens, name="Wolf Guard Terminators", keywords=("INFANTRY", "WOLF GUARD"))
    assert leading_problem(attrs.evolve(captain, leader_of=("Wolf Guard",)), terminators) is not None
    # a list may name units by their keywords (an Inquisitor's 'IMPERIUM BATTLELINE INFANTRY': a trial found
    # Intercessors and Cadians refused), two or more of them, the longest keyword at each word
    line = attrs.evolve(wardens, keywords=("INFANTRY", "BATTLELINE"), faction_keywords=("GRAVEL HOST",))
    for listed in ("GRAVEL HOST BATTLELINE INFANTRY", "Battleline Infantry"):
        assert leading_problem(attrs.evolve(captain, leader_of=(listed,)), line) is None, listed
    for listed in ("GRAVEL HOST BATTLELINE VEHICLE", "BATTLELINE", "BATTLELIINE INFANTRY"):
        assert leading_problem(attrs.evolve(captain, leader_of=(listed,)), line) is not None, listed
    # but a unit's name is that unit (a review found 'DEATHWATCH KILL TEAM' admitting every Deathwatch unit)
    named = attrs.evolve(wardens, keywords=("SCREE", "WALKER"))
    assert leading_problem(attrs.evolve(captain, leader_of=("SCREE WALKER",)), named) is not None


def test_the_cli_names_the_leader(gravel):
    player = CliRunner(env={"MATHHAMMER_DATA": str(gravel)})
    out = player.invoke(cli, ["unit", "Gravel Wardens", "--led-by", "warden captain", "-t", "MEQ"])
    assert out.exit_code == 0, out.output
    assert "  led by Warden Captain (Gravel Host): 1 x Shard pistol attack with the unit" in out.stdout


def test_a_targets_wargear_protects_it():
    plain = by_name.find_target(TCS)
    kitted = by_name.find_target(TCS, loadout=["medi-pack"])
    # the medi-pack: the bearer's unit has Feel No Pain 6+: the Tempestor Prime and the four Scions alike
    assert [p.feel_no_pain for p, _ in plain.groups] == [None, None]
    assert [(p.feel_no_pain, n) for p, n in kitted.groups] == [(6, 1), (6, 4)]
    assert [p.toughness for p, _ in kitted.groups] == [p.toughness for p, _ in plain.groups]
    notes = by_name.target_unit(TCS, loadout=["medi-pack"]).notes
    assert "target wargear rule: Medi-pack: The bearer's unit has Feel No Pain 6+." in notes
    with pytest.raises(MathhammerError, match="--target-loadout chooses the wargear of a target named by its"):
        by_name.find_target("MEQ", loadout=["medi-pack"])


def test_a_target_model_that_joins_with_its_own_save(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHHAMMER_DATA", str(tmp_path))
    add_checkout(Path("tests/fixtures/bsdata-wargear"))
    target = by_name.find_target("Quarry Squad", 10, loadout=["2 blast charge"])
    assert [(p.name, n, p.invulnerable) for p, n in target.groups] == [
        ("Quarryman", 7, None), ("Quarry Foreman", 1, None), ("Quarryman w/ Blast Charge", 2, 5)]
    # a choice without a number is one model's, and the header says how many could take it, as for the attacker
    notes = by_name.target_unit("Quarry Squad", 10, loadout=["blast charge"]).notes
    assert ("--target-loadout 'blast charge': blast charge for 1 model (no number given; 1 to 2 can take it: write "
            "e.g. '2 blast charge')") in notes


def test_turn_with_a_leader(gravel):
    player = CliRunner(env={"MATHHAMMER_DATA": str(gravel)})
    out = player.invoke(cli, ["turn", "-t", "MEQ", "-s", "Gravel Wardens", "-f", "Gravel Wardens", "--led-by",
                              "Warden Captain", "-d", "6"])
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[0] == ("5 x [Gravel Wardens: Pebble rifle] + 1 x [Warden Captain: Shard pistol], "
                                          "then charge 6\", then 5 x [Gravel Wardens: Rock fist] + 1 x [Warden "
                                          "Captain: Boulder maul]  ->  MEQ")
    refused = player.invoke(cli, ["turn", "-t", "MEQ", "-f", "Scree Walker", "--led-by", "Warden Captain", "-d", "6"])
    assert (refused.exit_code, refused.output) == (2, "error: Warden Captain cannot lead Scree Walker (it can lead: "
                                                      "Gravel Wardens)\n")
    # a trial: a Leader joins the unit it leads, in the phase that unit attacks in (the Wardens charge after the
    # Scree Walker shoots; it was refused as leading the first unit named)
    out = player.invoke(cli, ["turn", "-t", "MEQ", "-s", "Scree Walker", "-f", "Gravel Wardens", "--led-by",
                              "Warden Captain", "-d", "6"])
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[0].endswith(
        "then charge 6\", then 5 x [Gravel Wardens: Rock fist] + 1 x [Warden Captain: Boulder maul]  ->  MEQ")


def test_a_turn_fields_the_first_units_wargear_in_each_phase(gravel):
    # a trial could not ask 'Plague Marines with a meltagun: shoot, then charge' (turn had no loadout). The Warden
    # Leader's slingshot in place of its rifle, with the Captain leading: the shooting's weapons change, and the
    # header says which wargear was chosen
    player = CliRunner(env={"MATHHAMMER_DATA": str(gravel)})
    asked = ["turn", "-t", "T4 Sv6+ W1 x40", "-s", "Gravel Wardens", "-f", "Gravel Wardens", "--loadout", "slingshot",
             "--led-by", "Warden Captain", "-d", "6"]
    out = player.invoke(cli, asked)
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[0] == (
        "1 x [Gravel Wardens: Slingshot (pellet)] + 4 x [Gravel Wardens: Pebble rifle] + 1 x [Warden Captain: Shard "
        "pistol], then charge 6\", then 5 x [Gravel Wardens: Rock fist] + 1 x [Warden Captain: Boulder maul]  ->  "
        "T4 Sv6+ W1 x40")
    assert "  Gravel Wardens (Gravel Host) the weapons of the wargear chosen (slingshot), attacking as `mathhammer " \
           "unit` makes them attack" in out.stdout
    refused = player.invoke(cli, ["turn", "-t", "MEQ", "-f", "5x Melee A2 WS3+ S4 AP0 D1", "--loadout", "slingshot",
                                  "-d", "6"])
    assert (refused.exit_code, refused.output) == (2, "error: --loadout is for a unit named by its datasheet; name the "
                                                      "unit\n")


def test_plan_takes_a_leader_as_unit_and_turn_do(gravel):
    # docs/questions.md said plan applied a --led-by Leader; plan had no such option (a trial). At W1 models the
    # order changes nothing: the rifles' 10/3 and the pistol's 5/9 (as in `test_a_leader_fires_with_its_unit`)
    out = CliRunner(env={"MATHHAMMER_DATA": str(gravel)}).invoke(cli, [
        "plan", "-w", "Gravel Wardens", "-t", "T4 Sv6+ W1 x40", "--led-by", "Warden Captain", "--goal", "kills",
        "--exact", "--json"])
    assert out.exit_code == 0, out.output
    answer = json.loads(out.stdout)
    assert answer["header"][:2] == ["weapon 1: 5 x [Gravel Wardens: Pebble rifle]",
                                    "weapon 2: 1 x [Warden Captain: Shard pistol]"]
    assert Fraction(answer["rows"][0]["value"]) == Fraction(35, 9)


def test_a_leader_with_nothing_to_shoot_with_leaves_its_unit_shooting(gravel):
    # a trial's Tyranid Prime with a lash whip (melee weapons only) refused the turn of the Termagants it leads: its
    # unit shoots alone, and fights with it
    from mathhammer_exact.decide.firings import led_turn, unit_weapons

    captain = by_name.datasheet("Warden Captain")
    brawler = attrs.evolve(captain, models=tuple(attrs.evolve(m, equipment=("boulder maul",)) for m in captain.models))
    wardens = by_name.datasheet("Gravel Wardens")
    shots, blows = led_turn(unit_weapons(wardens), unit_weapons(wardens, melee=True), [brawler])
    assert [w.text for w in shots] == ["Gravel Wardens: Pebble rifle"]
    assert [w.text for w in blows] == ["Gravel Wardens: Rock fist", "Warden Captain: Boulder maul"]
    assert [w.leaders for w in shots] == [(brawler,)]  # led all the same: its abilities hold in both phases


@pytest.fixture
def cairn(tmp_path, monkeypatch):
    """tests/fixtures/bsdata-leaders: Oathsworn, whose Attached Unit ability admits a CHAPLAIN of Cairn Squad."""
    monkeypatch.setenv("MATHHAMMER_DATA", str(tmp_path))
    add_checkout(Path("tests/fixtures/bsdata-leaders"))


def test_an_attached_unit_ability_lets_the_leaders_it_names_lead_the_unit(cairn):
    # the Chaplain's Leader ability names Cairn Squad alone; Oathsworn's Attached Unit ability admits it: its maul
    # (A2) fights with the Oathsworn's: 4 attacks, each hits on 3+ (2/3), wounds S4 v T4 on 4+ (1/2) and gets
    # through Sv3+ (1/3): 4/9 wounds on W2 models
    report = unit_attack("Oathsworn", Target.parse("T4 Sv3+ W2 x5"), melee=True, led_by="Cairn Chaplain", exact=True)
    assert report.result.damage.mean == 4 * Fraction(2, 3) * Fraction(1, 2) * Fraction(1, 3) == Fraction(4, 9)
    # the Captain leads Cairn Squad too, but is no CHAPLAIN: refused, with whom the ability admits
    with pytest.raises(MathhammerError, match=r"^Cairn Captain cannot lead Oathsworn \(it can lead: Cairn Squad; it "
                                              r"may be led by a CHAPLAIN Leader of Cairn Squad\)$"):
        unit_attack("Oathsworn", Target.parse("T4 Sv3+ W2 x5"), melee=True, led_by="Cairn Captain")
    # as the target's leader too, and the card says it
    assert by_name.target_unit("Oathsworn", leader="Cairn Chaplain").leaders[0].name == "Cairn Chaplain"
    card = CliRunner().invoke(cli, ["show", "Oathsworn"]).stdout
    assert "Led by (Attached Unit): a CHAPLAIN Leader of Cairn Squad" in card.splitlines()
    # the unit named as the data spells it elsewhere (a plural, 'Squad' left out) is the same unit
    chaplain = by_name.datasheet("Cairn Chaplain")
    assert [AttachedUnit(unit, ("CHAPLAIN",)).admits(chaplain) for unit in ("Cairn Squads", "Cairn", "Cairn Host")] \
        == [True, True, False]
    assert not AttachedUnit("Cairn Squad", ("CAPTAIN",)).admits(chaplain)
    assert not AttachedUnit("Cairn Squad", (), ("CHAPLAIN",)).admits(chaplain)


@pytest.mark.parametrize("text, read", [
    ("If a CHARACTER UNIT unit from your army with the Leader ability (excluding EPIC HEROES) can be attached to a "
     "QUARRY MEN unit, it can be attached to this unit instead.", [("Quarry Men", ["CHARACTER"], ["EPIC HEROES"])]),
    ("If a CHARACTER unit from your army with the Leader ability can be attached to an ASH GUARD SQUAD or DUST GUARD "
     "SQUAD, it can instead be attached to this unit.",
     [("Ash Guard Squad", ["CHARACTER"], []), ("Dust Guard Squad", ["CHARACTER"], [])]),
    ("If a Warden or Cairn Lord unit from your army can be attached to a Stone Heroes unit, it can\nbe attached to "
     "this unit instead.", [("Stone Heroes", ["WARDEN", "CAIRN LORD"], [])]),
    ("If a model from your army with the Leader ability can be attached to a PEBBLE SQUAD, it can be attached to this "
     "unit instead.", [("Pebble Squad", [], [])]),
    ("If a Warden model from your army can be attached to either an Ash Squad or a Dust Squad, it can be attached "
     "to this unit instead.", [("Ash Squad", ["WARDEN"], []), ("Dust Squad", ["WARDEN"], [])]),
    ("This model can be attached to the following unit: Cairn Squad", []),
])
def test_the_attached_unit_ability_is_read_in_each_form_the_data_writes(text, read):
    assert [(r["unit"], r["leaders"], r["excluding"]) for r in attached_as(text)] == read


def test_a_compared_units_points_count_its_leader(gravel):
    # Gravel Wardens 90 points at 5 models, the Warden Captain 65: led, 155; a target led by it, 155 too (the Scree
    # Walker: 120)
    player = CliRunner(env={"MATHHAMMER_DATA": str(gravel)})
    out = player.invoke(cli, ["compare", "-s", "unit 'Gravel Wardens' --led-by 'Warden Captain' -t MEQ",
                              "-s", "unit 'Scree Walker' -t 'Gravel Wardens' --leader 'Warden Captain'",
                              "-s", "unit 'Gravel Wardens' -t 'Gravel Wardens'", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)["rows"]
    assert [(row["points"], row["target_points"]) for row in rows] == [(155, None), (120, 155), (90, 90)]
    # each Leader's points count, and none where one leaves its points out (a part of the cost is not the cost)
    wardens, captain = by_name.datasheet("Gravel Wardens"), by_name.datasheet("Warden Captain")
    assert attached_points(wardens, 5, (captain, captain)) == 90 + 65 + 65
    assert attached_points(wardens, 5, (captain, attrs.evolve(captain, points={}))) is None


def test_a_unit_with_melee_weapons_alone_is_sent_to_the_fight_phase(cairn):
    with pytest.raises(MathhammerError, match=r"^Oathsworn: no ranged weapons to attack with \(it has melee "
                                              r"weapons: ask about the Fight phase, --melee\)$"):
        unit_attack("Oathsworn", Target.parse("T4 Sv3+ W2 x5"))
    with pytest.raises(MathhammerError, match=r"^'2 cairn maul': a unit of 1 model can give it to 1 model \(the "):
        by_name.datasheet("Cairn Chaplain").equip(["2 cairn maul"])
    # a unit whose models carry nothing as its datasheet equips them (a Crusade variant whose weapons are all
    # choices) is not sent to a Fight phase where it has nothing either (a trial found the two reasons contradicting)
    bare = attrs.evolve(by_name.datasheet("Oathsworn"), models=tuple(
        attrs.evolve(m, equipment=()) for m in by_name.datasheet("Oathsworn").models), options=())
    for melee, what in ((False, "ranged"), (True, "melee")):
        with pytest.raises(MathhammerError, match=rf"^Oathsworn: no {what} weapons to attack with \(its models "
                                                  r"carry no weapon as the datasheet equips them\)$"):
            unit_attack(bare, Target.parse("T4 Sv3+ W2 x5"), melee=melee)


def test_two_leaders_where_one_may_join_beside_the_other(cairn):
    # the Lieutenant's Leader ability lets it join a Cairn Squad a CAPTAIN already leads; its Sure Strikes gives the
    # unit's weapons Lethal Hits while it leads. Fighting T4 Sv3+ W1 models: the squad's and the Captain's mauls
    # (A2 WS3+ S4 AP0) wound on a 6 to hit (1/6) or a 3-5 then a 4+ (1/2 x 1/2): 5/12, unsaved 1/3; the
    # Lieutenant's blade (A3 WS2+ AP-1): 1/6 + 4/6 x 1/2 = 1/2, unsaved 1/2 (Sv3+ at AP-1)
    target = Target.parse("T4 Sv3+ W1 x20")
    for led_by in (["Cairn Captain", "Cairn Lieutenant"], ["cairn lieutenant", "cairn captain"]):  # in either order
        report = unit_attack("Cairn Squad", target, melee=True, led_by=led_by, exact=True)
        assert report.result.damage.mean == 4 * Fraction(5, 12) * Fraction(1, 3) + 3 * Fraction(1, 2) * Fraction(1, 2)
        assert [leader.name.lower() for leader in report.leaders] == [name.lower() for name in led_by]
    # a unit has one Leader otherwise: the Lieutenant joins a CAPTAIN only, and two Leaders at most
    with pytest.raises(MathhammerError, match=r"^Cairn Chaplain and Cairn Lieutenant cannot both lead Cairn Squad: a "
                                              r"unit has one Leader unless .* \(Cairn Lieutenant may join beside a "
                                              r"CAPTAIN Leader\)$"):
        unit_attack("Cairn Squad", target, melee=True, led_by=["Cairn Chaplain", "Cairn Lieutenant"])
    with pytest.raises(MathhammerError, match="none does"):
        unit_attack("Cairn Squad", target, melee=True, led_by=["Cairn Chaplain", "Cairn Captain"])
    with pytest.raises(MathhammerError, match="cannot all lead Cairn Squad: 2 Leaders at most join one unit$"):
        unit_attack("Cairn Squad", target, melee=True, led_by=["Cairn Captain", "Cairn Lieutenant", "Cairn Chaplain"])


def test_a_target_led_by_two_leaders(cairn):
    led = by_name.target_unit("Cairn Squad", leader=("Cairn Captain", "Cairn Lieutenant"))
    assert led.label == ("Cairn Squad (Cairn Host) led by Cairn Captain (Cairn Host) and Cairn Lieutenant (Cairn "
                         "Host)")
    assert [(p.wounds, n, p.character) for p, n in led.target.groups] == [(2, 1, False), (5, 1, True), (4, 1, True)]
    assert led.target.attached and [sheet.name for sheet in led.leaders] == ["Cairn Captain", "Cairn Lieutenant"]
    with pytest.raises(MathhammerError, match="Cairn Captain and Cairn Chaplain cannot both lead Cairn Squad.*; write "
                                              "a leader as a profile to attach it anyway$"):
        by_name.target_unit("Cairn Squad", leader=("Cairn Captain", "Cairn Chaplain"))
    # a leader written as a profile is the question's own: not checked
    both = by_name.target_unit("Cairn Squad", leader=("Cairn Chaplain", "T4 Sv3+ W4"))
    assert [p.wounds for p, _ in both.target.groups] == [2, 4, 4]
    # but counted, and Leaders of a standard target are checked against each other (a review found four Leaders, two
    # of them Captains, attached where two were profiles, and two Captains leading MEQ)
    with pytest.raises(MathhammerError, match="^3 Leaders: 2 Leaders at most join one unit$"):
        by_name.target_unit("Cairn Squad", leader=("Cairn Captain", "Cairn Lieutenant", "T4 Sv3+ W4"))
    with pytest.raises(MathhammerError, match="^Cairn Captain and Cairn Captain cannot both lead one unit"):
        by_name.target_unit("MEQ", leader=("Cairn Captain", "Cairn Captain"))
    assert by_name.target_unit("MEQ", leader=("Cairn Captain", "Cairn Lieutenant")).target.attached
    assert by_name.target_unit("Cairn Squad", leader="") == by_name.target_unit("Cairn Squad")  # none, as before
    # the command line takes --leader and --led-by twice
    player = CliRunner()
    out = player.invoke(cli, ["unit", "Cairn Squad", "--melee", "--led-by", "Cairn Captain", "--led-by",
                              "Cairn Lieutenant", "-t", "Cairn Squad", "--leader", "Cairn Captain", "--leader",
                              "Cairn Lieutenant", "--exact"])
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[0] == ("Cairn Squad (Cairn Host)  ->  Cairn Squad (Cairn Host) led by Cairn Captain "
                                          "(Cairn Host) and Cairn Lieutenant (Cairn Host)")
    assert "  led by Cairn Lieutenant (Cairn Host): 1 x Cairn blade attack with the unit" in out.stdout


@pytest.mark.parametrize("text, read", [
    ("This model can be attached to the following unit:\n■ Cairn Squad\n\n*You can attach this model to the above "
     "unit even if\u00a0one **^^Captain^^** model has already\u00a0been attached to it.*", ([], ["CAPTAIN"], False)),
    ("You can attach this model to one of the above units even if one Warden, Cairn Lord or Thane model has already "
     "been attached to it.", ([], ["WARDEN", "CAIRN LORD", "THANE"], False)),
    ("You can attach this model to a PEBBLE SQUAD or DUST GUARD unit, even if a WARDEN model has already been attached "
     "to it.", (["Pebble Squad", "Dust Guard"], ["WARDEN"], False)),
    ("This model can be attached to a Pebble Squad, even if one Warden or Old Stone unit has already been attached "
     "to it.", (["Pebble Squad"], ["WARDEN", "OLD STONE"], False)),
    ("You can attach this model to one of the above units even if one other CHARACTER model has already been attached "
     "to it (a unit cannot have two CAIRN SEERS attached to it).", ([], [], True)),
    ("You must attach this model to the above unit, and can do so even if one or more Character units have already "
     "been attached to that unit.", ([], [], False)),
    ("You can attach this model to a Stone Robots unit, even if one or more other Stone Smith models havealready been "
     "attached to it.", (["Stone Robots"], ["STONE SMITH"], False)),
    ("You can attach this model a unit it can lead even if Old Granite has already been attached to it.",
     ([], ["OLD GRANITE"], False)),
    ("You can target this unit with a Stratagem even if you have already targeted another unit with it.", None),
    ("This model can be attached to the following unit:\n■ Cairn Squad", None),
])
def test_a_second_leaders_leave_is_read_in_each_form_the_data_writes(text, read):
    assert [(r["units"], r["leaders"], r["not_twice"]) for r in joins_beside(text)] == ([read] if read else [])


@pytest.mark.parametrize("text, read", [
    ("*This unit can have up to two Leader units attached to it, provided no more than one of those units is a "
     "**^^Command Squad^^** unit. If it does, and this Bodyguard unit is destroyed, ...*", (None, "", "COMMAND SQUAD",
                                                                                          False)),
    ("If this unit has a Starting Strength of 20, you can attach up to two Leader units to it instead of one (but only "
     "if one of those is a WARBOSS model).", (20, "WARBOSS", "", False)),
    ("If this unit has a Starting Strength of 20, you can attach up to two Leader units to it instead of one, provided "
     "those Leaders are not duplicates (e.g. you cannot attach two WAR SHAPERS to this unit).", (20, "", "", True)),
    ("You can attach this model to one of the above units even if one Captain model has already been attached to it.",
     None),
])
def test_a_bodyguards_leave_for_two_leaders_is_read_in_each_form_the_data_writes(text, read):
    assert [(r["size"], r["one_of"], r["at_most_one"], r["not_twice"]) for r in two_leaders(text)] == (
        [read] if read else [])


def test_a_bodyguard_that_takes_two_leaders(cairn):
    # a trial found Boyz of 20 refused a Warboss and a Painboy (and Cadian Shock Troops any second Leader): the leave
    # is on the bodyguard's datasheet, not on a Leader's
    squad, captain, chaplain = (by_name.datasheet(name) for name in ("Cairn Squad", "Cairn Captain", "Cairn Chaplain"))
    assert together_problem((captain, chaplain), squad, 10) is not None  # without the leave
    big = attrs.evolve(squad, takes_two=(TwoLeaders(size=10, one_of="CAPTAIN"),))
    assert together_problem((chaplain, captain), big, 10) is None
    assert together_problem((chaplain, captain), big, 5) == (
        "Cairn Chaplain and Cairn Captain cannot both lead Cairn Squad of 5 models: a unit has one Leader unless a "
        "Leader's datasheet lets it join beside the other, or the unit's lets it take two (Cairn Squad takes two "
        "Leaders at 10 models, one of them a CAPTAIN)")
    assert together_problem((chaplain, chaplain), big, 10) is not None  # neither a CAPTAIN
    # --need tries the sizes at which they may lead it together (a review found Boyz led by a Warboss and a Painboy
    # refused at 10 models, 20 never tried)
    sized = attrs.evolve(big, sizes=(5, 10), points={})
    assert led_sizes(sized, ("Cairn Chaplain", "Cairn Captain")) == (10,)
    assert led_sizes(sized, "Cairn Captain") == (5, 10)
    with pytest.raises(MathhammerError, match="cannot both lead Cairn Squad of 5 models"):
        led_sizes(attrs.evolve(sized, takes_two=(TwoLeaders(size=20),)), ("Cairn Chaplain", "Cairn Captain"))
    once = attrs.evolve(squad, takes_two=(TwoLeaders(at_most_one="CAPTAIN", not_twice=True),))
    assert together_problem((chaplain, captain), once, 5) is None
    assert together_problem((captain, captain), once, 5) is not None  # two CAPTAINs, and two of one datasheet
    assert together_problem((chaplain, chaplain), once, 5) is not None  # two of one datasheet


def test_a_leader_and_a_support_lead_one_unit_in_the_11th_edition(cairn):
    # 'a unit may have at most one Leader and one Support' (the 11th): a trial found a Warboss and a Painboy (SUPPORT)
    # refused Boyz of 10 under the 10th's one Leader
    squad, captain, chaplain = (by_name.datasheet(name) for name in ("Cairn Squad", "Cairn Captain", "Cairn Chaplain"))
    squad, captain = (attrs.evolve(sheet, edition="11e") for sheet in (squad, captain))
    support = attrs.evolve(chaplain, edition="11e", keywords=(*chaplain.keywords, "SUPPORT"))
    assert together_problem((captain, support), squad, 5) is None
    assert together_problem((support, captain), squad, 5) is None
    assert together_problem((captain, attrs.evolve(chaplain, edition="11e")), squad, 5) == (
        "Cairn Captain and Cairn Chaplain cannot both lead Cairn Squad: a unit has one Leader and one Support unless "
        "a Leader's datasheet lets it join beside the other, or the unit's lets it take two (none does)")
    assert together_problem((support, support), squad, 5) is not None  # two Supports
    assert together_problem((attrs.evolve(captain, edition="10e"), attrs.evolve(support, edition="10e")), squad,
                            5) is not None  # the 10th has no Support


def test_a_leaders_own_wargear_is_chosen(cairn):
    # a trial found every Leader fighting with its default weapon: the Lieutenant's cairn hammer (A2 WS3+ S8 AP-2 D3)
    # in place of its blade. At T4 Sv3+ W10 models (no overkill: 6 attacks, 10 wounds at most): the mauls as in
    # the test above (5/36 each, D1); the hammer with the Lieutenant's Lethal Hits wounds on a 6 to hit (1/6) or a
    # 3-5 then 2+ (1/2 x 5/6), 7/12, and Sv3+ at AP-2 fails 2/3: 7/18, D3
    target = Target.parse("T4 Sv3+ W10 x10")
    report = unit_attack("Cairn Squad", target, melee=True, led_by=["Cairn Captain", "Cairn Lieutenant"],
                         led_by_loadout=["cairn hammer"], exact=True)
    assert report.result.damage.mean == 4 * Fraction(5, 36) + 2 * Fraction(7, 18) * 3
    assert "note (Cairn Lieutenant): wargear: cairn hammer" in report.situation
    # each choice goes to the Leader that can take it, or the one named before a colon; else refused
    named = unit_attack("Cairn Squad", target, melee=True, led_by=["Cairn Captain", "Cairn Lieutenant"],
                        led_by_loadout=["lieutenant: cairn hammer"], exact=True)
    assert named.result.damage.mean == report.result.damage.mean
    with pytest.raises(MathhammerError, match=r"^'cairn axe': which Leader's wargear \(Cairn Captain and Cairn "
                                              r"Lieutenant: neither can take that\)"):
        unit_attack("Cairn Squad", target, melee=True, led_by=["Cairn Captain", "Cairn Lieutenant"],
                    led_by_loadout=["cairn axe"])
    with pytest.raises(MathhammerError, match=r"^'cairn: cairn hammer': which Leader's wargear \(Cairn Captain and "
                                              r"Cairn Lieutenant: both are called that\)"):
        unit_attack("Cairn Squad", target, melee=True, led_by=["Cairn Captain", "Cairn Lieutenant"],
                    led_by_loadout=["cairn: cairn hammer"])
    with pytest.raises(MathhammerError, match="a Leader's wargear goes with a Leader named by its datasheet"):
        unit_attack("Cairn Squad", target, melee=True, led_by_loadout=["cairn hammer"])
    # the target's Leaders too, and the command line's options
    led = by_name.target_unit("Cairn Squad", leader="Cairn Lieutenant", leader_loadout=["cairn hammer"])
    assert led.leaders[0].models[0].equipment == ("cairn hammer",)
    assert "target note (Cairn Lieutenant): wargear: cairn hammer" in led.notes
    # a bundle named with 'and' for its '&' (a trial typed the docs' 'sentinel blade and praesidium shield')
    lieutenant = by_name.datasheet("Cairn Lieutenant")
    option = attrs.evolve(lieutenant.options[0], choices=("cairn hammer & shield",))
    bundle = attrs.evolve(lieutenant, options=(option,))
    assert bundle.items_named(["cairn hammer and shield"]) == ["cairn hammer & shield"]
    out = CliRunner().invoke(cli, ["unit", "Cairn Squad", "--melee", "--led-by", "Cairn Lieutenant",
                                   "--led-by-loadout", "cairn hammer", "-t", "Cairn Squad", "--leader",
                                   "Cairn Lieutenant", "--leader-loadout", "cairn hammer"])
    assert out.exit_code == 0, out.output
    assert "  led by Cairn Lieutenant (Cairn Host): 1 x Cairn hammer attack with the unit" in out.stdout


def test_wargear_a_leader_carries_for_its_unit_protects_the_whole_attached_unit():
    # a Canoness's null rod ('models in the bearer's unit have Feel No Pain 4+ against mortal wounds ...'): where she
    # leads, the bearer's unit is the Attached unit; it was given to her alone
    plain = ModelProfile.parse("T3 Sv3+ W4", name="Chief")
    rod = attrs.evolve(plain, feel_no_pain_mortal=4)
    entry = ModelEntry("Chief", plain, 1, ("rod",), worn=(UNIT_WIDE + "rod",),
                       profiles={frozenset({UNIT_WIDE + "rod"}): rod})
    chief = Datasheet(name="Chief", faction="Test", source="test", keywords=("CHARACTER",), faction_keywords=(),
                      abilities=(), models=(entry,), weapons={}, unit_worn={"rod": ()})
    assert chief.for_its_unit() == {"feel_no_pain_mortal": 4}
    assert attrs.evolve(chief, models=(attrs.evolve(entry, equipment=()),)).for_its_unit() == {}  # not carried
    guard = ModelProfile.parse("T3 Sv3+ W1 fnp-mortal5+", name="Guard")
    assert guard.defended(chief.for_its_unit()).feel_no_pain_mortal == 4
    assert attrs.evolve(guard, feel_no_pain_mortal=3).defended({"feel_no_pain_mortal": 4}).feel_no_pain_mortal == 3
    # a leave "while the bearer is leading a unit" is the Attached unit's, as "while this model is leading a unit"
    field = read_ability("Test Chief", "Force Field", "While the bearer is leading a unit, models in that unit have "
                                                      "a 4+ invulnerable save against ranged attacks.")
    assert [(r.rule.summary, r.scope) for r in field.ability.readings] == [("4+ invulnerable save", "leading")]
    assert scope("While the bearer is leading a unit, models in that unit have a 4+ invulnerable save.", 40) == \
        "leading"


def test_what_leaders_give_their_unit_is_every_models_the_best_of_each(cairn, monkeypatch):
    # a review found a null rod's Feel No Pain given to the bodyguards and its bearer but not to a second Leader,
    # and the last Leader's value taken where two give one
    gives = {"Cairn Captain": {"feel_no_pain_mortal": 4, "invulnerable": 5}, "Cairn Lieutenant": {"invulnerable": 4}}
    monkeypatch.setattr(Datasheet, "for_its_unit", lambda sheet: gives.get(sheet.name, {}))
    led = by_name.target_unit("Cairn Squad", leader=("Cairn Captain", "Cairn Lieutenant"))
    assert [(p.feel_no_pain_mortal, p.invulnerable) for p, _ in led.target.groups] == [(4, 4)] * 3


def test_what_was_guessed_of_a_leaders_wargear_is_said_where_it_leads_the_attackers(cairn):
    # a trial found a Canoness's guessed melee weapon (its catalogue's default id points nowhere) noted where she is
    # in the target, and not where she leads the attacking unit: a note of her kind of model, said either way
    lieutenant = by_name.datasheet("Cairn Lieutenant")
    guessed = "'Melee Weapon': the catalogue names no default choice; read as cairn blade"
    noted = attrs.evolve(lieutenant, models=(attrs.evolve(lieutenant.models[0], notes=(guessed,)),
                                             *lieutenant.models[1:]))
    report = unit_attack("Cairn Squad", Target.parse("T4 Sv3+ W10 x10"), melee=True, led_by=noted)
    assert f"note (Cairn Lieutenant): {guessed}" in report.situation

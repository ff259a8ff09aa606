"""The 11th edition's data beside the 10th's, on invented data in each edition's form: the 10th's XML
checkout (tests/fixtures/bsdata) and the 11th's JSON one (tests/fixtures/bsdata11: the InSv column, Blast 2,
Cleave 1, Close-quarters, Psychic, Lone Operative 12", a catalogue and an entry it lacks), both called
Gravel Host and both with a unit called Gravel Wardens; and an 11th-edition army list (tests/fixtures/army11.json)."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from mathhammer_exact import MathhammerError, Weapon, attack
from mathhammer_exact.catalogue import build, index, library
from mathhammer_exact.catalogue.battlescribe import ELEVENTH_EDITION, TENTH_EDITION, check_edition
from mathhammer_exact.catalogue.convert import column_invulnerable, to_datasheet
from mathhammer_exact.catalogue.newrecruit import json_element
from mathhammer_exact.catalogue.roster import read_roster
from mathhammer_exact.cli import cli
from mathhammer_exact.units import by_name

FIXTURES = Path(__file__).parent / "fixtures"
TENTH, ELEVENTH = FIXTURES / "bsdata", FIXTURES / "bsdata11"
ARMY11 = FIXTURES / "army11.json"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv(index.ENVIRONMENT, str(folder))
    return folder


@pytest.fixture
def both(data_dir):
    build.add_checkout(TENTH)
    build.add_checkout(ELEVENTH)
    return data_dir


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


# --------------------------------------------------------------------- which edition a file is
@pytest.mark.parametrize(("system_id", "name", "edition"), [
    (ELEVENTH_EDITION, "", "11e"),  # BSData's id of the 11th edition
    ("sys-test-11e", "Test System for Warhammer 40,000 11th Edition", "11e"),  # the name says so
    (TENTH_EDITION, "Warhammer 40,000 11th Edition", "10e"),  # the id first: a renamed copy keeps it
    ("sys-test", "Test System for Warhammer 40,000 10th Edition", "10e"),
])
def test_the_edition_of_a_game_system(system_id, name, edition):
    assert check_edition(system_id, name, "x") == edition


# --------------------------------------------------------------------- the JSON form
def test_the_json_form_becomes_the_elements_of_the_xml_form():
    data = json.dumps({"gameSystem": {"id": "g", "battleScribeVersion": 2.03, "sharedRules": [
        {"id": "r", "name": "Blast", "hidden": False, "alias": ["BLAST"], "description": "Text."}]}}).encode()
    root = json_element(data, "x", ("gameSystem",))
    assert root.tag == "{http://www.battlescribe.net/schema/gameSystemSchema}gameSystem"
    [box] = list(root)
    [rule] = list(box)
    assert (box.tag, rule.tag, rule.attrib) == ("sharedRules", "rule", {"id": "r", "name": "Blast", "hidden": "false"})
    assert [(child.tag, child.text) for child in rule] == [("alias", "BLAST"), ("description", "Text.")]
    assert root.get("battleScribeVersion") == "2.03"


@pytest.mark.parametrize(("document", "kinds", "message"), [
    ({"catalogue": {"id": "c"}}, ("roster",), "x: not a New Recruit army list: it is a BattleScribe catalogue in JSON"),
    ({"roster": {"id": "r"}}, ("gameSystem", "catalogue"),
     "x: not a BattleScribe game system or catalogue in JSON: it is a BattleScribe roster in JSON"),
    ({"list": {}}, ("gameSystem", "catalogue"),
     'x: not a BattleScribe game system or catalogue in JSON (no "gameSystem" or "catalogue" object at the top of '
     'the JSON)'),
])
def test_a_json_file_of_another_kind_is_refused(document, kinds, message):
    with pytest.raises(MathhammerError) as refused:
        json_element(json.dumps(document).encode(), "x", kinds)
    assert str(refused.value) == message


def test_a_json_checkout_without_one_game_system(tmp_path, data_dir):
    (tmp_path / "Test - Gravel Host.json").write_bytes((ELEVENTH / "Test - Gravel Host.json").read_bytes())
    with pytest.raises(MathhammerError, match=r"0 game system files here \(none among the \.json files\); a "
                                              "checkout has one"):
        build.add_checkout(tmp_path)


# --------------------------------------------------------------------- indexing both editions
def test_the_eleventh_edition_is_indexed_beside_the_tenth(data_dir):
    tenth = build.add_checkout(TENTH)
    eleventh = build.add_checkout(ELEVENTH)
    assert (tenth.path, eleventh.path) == (data_dir / "bsdata.sqlite", data_dir / "bsdata-11e.sqlite")
    assert library.editions() == ["10e", "11e"]
    lines = eleventh.lines()
    assert lines[0].startswith("indexed 3 units of the 11th edition from 2 files in ")
    assert lines[1:3] == ["weapon profiles: 5 found, 5 parsed, 0 not readable yet",
                          "model profiles: 4 found, 0 not readable yet"]
    assert "catalogues linked but not in the checkout (their units are not indexed): Test - Quarry Library " \
           "(linked by 1)" in lines
    assert "units with links to entries in no file read: 1 (each one's notes name them)" in lines
    # the 11th edition's own abilities (BLAST X, CLOSE-QUARTERS, CLEAVE X) are read; Lone Operative is not modelled
    assert "rules not modelled (reported when used), by profiles: Lone Operative 12\" (1)" in lines
    assert {json.loads(r)["edition"] for (r,) in library.current_index("11e").db.execute(  # type: ignore[union-attr]
        "select record from units")} == {"11e"}


def test_data_list_and_remove_with_both_editions(both):
    listed = run("data", "list").output.splitlines()
    assert listed[0].startswith(f"10th edition: 4 units from {TENTH.resolve()}")
    assert listed[1] == f"index: {both / 'bsdata.sqlite'}"
    assert listed[2].startswith(f"11th edition: 3 units from {ELEVENTH.resolve()}")
    assert listed[3:] == [f"index: {both / 'bsdata-11e.sqlite'}",
                          "catalogues linked but not in the checkout: Test - Quarry Library"]
    out = run("data", "remove")
    assert (out.exit_code, out.output) == (2, "error: indexes of 10e and 11e are here: say which to remove with "
                                              "--edition\n")
    assert run("data", "remove", "--edition", "11e").output == f"removed {both / 'bsdata-11e.sqlite'}\n"
    assert library.editions() == ["10e"]
    assert run("data", "remove").output == f"removed {both / 'bsdata.sqlite'}\n"  # the only one left


# --------------------------------------------------------------------- names within an edition
def test_names_resolve_within_the_edition_asked(both):
    tenth, eleventh = by_name.datasheet("Gravel Wardens"), by_name.datasheet("Gravel Wardens", edition="11e")
    assert (tenth.edition, eleventh.edition) == ("10e", "11e")  # both indexed: the 10th by default
    assert tenth.source.endswith(".cat") and eleventh.source.endswith(".json")
    assert {m.profile.invulnerable for m in eleventh.models} == {4}  # the 11th's InSv column
    assert by_name.datasheet("Gravel Wardens @ Gravel Host", edition="11e") == eleventh
    assert by_name.datasheet("shale stalker @ gravel", edition="11e").name == "Shale Stalker"
    with pytest.raises(MathhammerError, match="unknown unit 'Shale Stalker'"):
        by_name.datasheet("Shale Stalker")  # a unit of the 11th edition only
    with pytest.raises(MathhammerError, match="unknown unit 'Scree Walker'"):
        by_name.datasheet("Scree Walker", edition="11e")  # a unit of the 10th edition only
    assert by_name.datasheet("Incursor Squad").edition == "10e"  # rules/ holds 10th-edition datasheets
    with pytest.raises(MathhammerError, match="unknown unit 'Incursor Squad'"):
        by_name.datasheet("Incursor Squad", edition="11e")
    with pytest.raises(MathhammerError, match=r"unknown edition '12e' \(editions: 10e, 11e\)"):
        by_name.datasheet("Gravel Wardens", edition="12e")


def test_only_an_eleventh_index_is_the_default(data_dir):
    build.add_checkout(ELEVENTH)
    assert library.default_edition() == "11e"
    assert by_name.datasheet("Shale Stalker").edition == "11e"
    assert library.search("warden") == [("Gravel Wardens", "Gravel Host", {5: 90})]  # (name, faction, points)
    assert run("datasheets", "--search", "incursor").output == "no unit's name has every word of 'incursor'\n"


# --------------------------------------------------------------------- the 11th edition's columns and keywords
@pytest.mark.parametrize(("text", "reading"), [
    ("4+", (4, False, False)), ("5+ (Ranged)", (5, True, False)), ("5+*", (5, False, True)),
    ("-", None), ("", None),
])
def test_the_invulnerable_save_column(text, reading):
    found = column_invulnerable({"Sv": "3+", "InSv": text})
    assert (found and (found["value"], found["ranged_only"], found["conditional"])) == reading


def test_an_unreadable_invulnerable_column_is_named(both):
    record = library.indexed("Rubble Drone", "11e")[0]
    record["models"][0]["stats"]["InSv"] = "4++"
    sheet = to_datasheet(record)
    assert sheet.models[0].profile.invulnerable is None
    assert "invulnerable save column 'InSv 4++' of Rubble Drone not read (a value such as 4+, 5+ (Ranged) or -)" in \
           sheet.defences_for()


def test_a_compared_target_is_priced_at_the_size_it_started_with(both):
    # a review: 'x10' was priced at the smallest size's points, and a unit that has lost models shared its points
    # among the models left. Gravel Wardens: 90 points for 5, 180 for 10, 18 a model either way; the attacker's 90
    rows = json.loads(run("compare", "--json", "--exact", "-s", "unit 'Gravel Wardens' -t 'Gravel Wardens x10'",
                          "-s", "unit 'Gravel Wardens' -t 'Gravel Wardens x3/5'").output)["rows"]
    assert [row["target_points"] for row in rows] == [180, 90]
    for row in rows:  # points destroyed per 100 points: kills x 18 x 100/90
        assert Fraction(row["points_destroyed_per_100_points"]) == Fraction(row["kills"]) * 20


def test_an_empty_invulnerable_column_beside_a_filled_one_is_said(both):
    # a trial found an 11th-edition Wolf Guard Pack Leader's InSv cell empty beside his squad's 4+: read as none, as
    # the data has it, and said; '-' (none, as printed) is not
    record = library.indexed("Gravel Wardens", "11e")[0]
    record["models"][0]["stats"]["InSv"] = ""
    sheet = to_datasheet(record)
    assert {m.name: m.profile.invulnerable for m in sheet.models} == {"Warden Leader": None, "Warden": 4}
    assert "Warden Leader: its invulnerable save column is empty in the data, where Warden's gives 4+: read as none " \
           "(the data may have left it out)" in sheet.defences_for()
    record["models"][0]["stats"]["InSv"] = " "  # blank is empty too; the other's value as written (a review)
    record["models"][1]["stats"]["InSv"] = "5+ (Ranged)"
    assert "Warden Leader: its invulnerable save column is empty in the data, where Warden's gives 5+ (Ranged): read " \
           "as none (the data may have left it out)" in to_datasheet(record).defences_for()
    record["models"][0]["stats"]["InSv"] = "-"
    assert not any("empty" in note for note in to_datasheet(record).defences_for())


def test_the_eleventh_edition_profiles_parse(both):
    wardens = by_name.datasheet("Gravel Wardens", edition="11e")
    rifle, fist = wardens.weapons["pebble rifle"]["default"], wardens.weapons["rock fist"]["default"]
    # read with the 11th edition's abilities (model.ELEVENTH_ADDS): BLAST 2, CLOSE-QUARTERS as Pistol, CLEAVE 1
    assert (rifle.blast_x, rifle.blast, rifle.pistol, rifle.ignored) == (2, False, True, ())
    assert (fist.melee, fist.cleave, fist.ignored) == (True, 1, ())
    assert wardens.notes == ("links to entries in none of the files read (the checkout lacks Test - Quarry Library), "
                             "so not in this datasheet: Quarry pick",)
    stalker = by_name.datasheet("Shale Stalker", edition="11e")
    [model] = stalker.models
    assert (model.profile.invulnerable, model.profile.invulnerable_ranged) == (None, 5)  # 5+*: its ability says
    lance = stalker.weapons["shale lance"]["default"]
    assert (lance.psychic, lance.ignored) == (True, ('Lone Operative 12"',))
    drone = by_name.datasheet("Rubble Drone", edition="11e")
    assert drone.models[0].profile.invulnerable is None  # '-'
    assert drone.weapons["rubble spitter"]["default"].blast  # plain Blast, as the 10th edition's


def test_wargear_that_costs_points_is_counted(both):
    # the 11th edition prices some wargear: the Rubble Drone is 60 points with its Rubble spitter, 70 with the Grit
    # cannon (10 more); a trial found every 11th-edition loadout priced as the bare unit (Fireknifes, Riptides)
    drone = by_name.datasheet("Rubble Drone", edition="11e")
    assert (drone.points, drone.wargear_points) == ({1: 60}, {"grit cannon": 10})
    assert (drone.points_at(), drone.points_at(1, ["grit cannon"])) == (60, 70)
    compared = run("compare", "-s", "unit 'Rubble Drone' -t MEQ --edition 11e",
                   "-s", "unit 'Rubble Drone' -t MEQ --edition 11e --loadout 'grit cannon'", "--json")
    assert [row["points"] for row in json.loads(compared.output)["rows"]] == [60, 70]
    card = run("show", "Rubble Drone", "--edition", "11e").output
    assert "Wargear points: grit cannon 10 each; with the default wargear: 1 model: 60" in card
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mathhammer_exact.web.app import create_app

    unit = {"attacker": "Rubble Drone", "target": "MEQ", "situation": {"edition": "11e"}}
    body = {"scenarios": [{"unit": unit}, {"unit": {**unit, "loadout": ["grit cannon"]}}]}
    with TestClient(create_app(workers=1)) as client:
        answer = client.post("/api/compare", json=body)
    assert [row["points"] for row in answer.json()["rows"]] == [60, 70], answer.json()


def test_the_invulnerable_column_saves(both):
    # 6 attacks BS3+ S4 AP-3 D1 at the 11th edition's Gravel Wardens (T4 Sv3+ InSv 4+ W2): hit 2/3, wound 4+ 1/2,
    # the invulnerable 4+ beats the armour save (3+ at AP-3: 6+) and fails 1/2: 6 x 2/3 x 1/2 x 1/2 = 1 wound
    # lost on average (D1, no Feel No Pain); without the column it would be 6 x 2/3 x 1/2 x 5/6 = 5/3
    target = by_name.datasheet("Gravel Wardens", edition="11e").as_target()
    result = attack(Weapon.parse('24" A6 BS3+ S4 AP-3 D1'), target, exact=True)
    assert Fraction(result.damage.mean) == 1


# --------------------------------------------------------------------- an 11th-edition army list
def test_an_eleventh_edition_army_list_is_read_as_the_eleventh(data_dir):
    army = read_roster(ARMY11)
    assert army.edition == "11e"
    assert {unit["edition"] for unit in army.units} == {"11e"}
    wardens, stalker = by_name.datasheet(f"{ARMY11}#1"), by_name.datasheet(f"{ARMY11}#Shale Stalker")
    assert (wardens.edition, stalker.edition) == ("11e", "11e")
    assert [(m.name, m.count, m.profile.invulnerable) for m in wardens.models] == [("Warden", 4, 4),
                                                                                  ("Warden Leader", 1, 4)]
    assert (stalker.models[0].profile.invulnerable, stalker.models[0].profile.invulnerable_ranged) == (None, 5)
    listed = run("roster", str(ARMY11)).output.splitlines()
    assert listed[0] == f"Gravel Host 11th edition list ({ARMY11}): 2 units, 11th edition"


def test_an_eleventh_edition_unit_says_which_rules_answer_it(data_dir):
    build.add_checkout(ELEVENTH)  # only the 11th indexed: names resolve there
    out = run("unit", "Gravel Wardens", "-t", "Gravel Wardens", "--exact")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    # by default the edition of the units named: the 11th's rules, said in the header, no assumed datasheet
    assert any(line.startswith("  rules: 11th edition, current printing, Lethal Hits: best") for line in lines)
    assert not any("datasheet, answered under" in line for line in lines)
    # under the 10th edition's rules its BLAST 2 rifle is refused (the 10th has no BLAST X), so are its CLEAVE fists
    shot = run("unit", "Gravel Wardens", "-t", "Gravel Wardens", "--exact", "--edition", "10e")
    assert shot.exit_code == 2 and shot.output.strip() == (
        "error: BLAST X is not an ability of the 10th edition (it is the 11th's): give --edition 11e")
    fought = run("unit", "Gravel Wardens", "-t", "Gravel Wardens", "--exact", "--edition", "10e", "--melee")
    assert fought.exit_code == 2 and "CLEAVE X is not an ability of the 10th edition" in fought.output
    asked = run("unit", "Shale Stalker", "-t", "Gravel Wardens", "--exact", "--edition", "10e", "--melee")
    assert asked.exit_code == 0, asked.output
    lines = asked.output.splitlines()
    for name in ("Shale Stalker", "Gravel Wardens"):  # the attacker's and the target's
        assert f"  assumed: {name} is a datasheet of the 11th edition, answered under the 10th edition's rules" in lines
    assert "  rules: 10th edition, current printing" in lines  # the rules it was answered under


def test_the_edition_asked_is_where_names_are_looked_up(both):
    # both editions indexed: --edition 11e looks the unit up in the 11th's data (Shale Stalker is of the 11th
    # alone; Gravel Wardens of both, the 11th's with its InSv 4+ column), as $MATHHAMMER_EDITION does
    stalker = run("unit", "Shale Stalker", "-t", "MEQ", "--melee", "--edition", "11e")
    assert stalker.exit_code == 0 and "rules: 11th edition" in stalker.output, stalker.output
    missed = run("unit", "Shale Stalker", "-t", "MEQ", "--melee")  # the 10th's data has no such unit: which has
    assert (missed.exit_code, missed.output) == (
        2, "error: unknown unit 'Shale Stalker' in the 10th edition's index; Shale Stalker is a unit of the 11th "
           "edition: add --edition 11e\n")
    # show and survive look names up in the edition asked too
    assert run("show", "Shale Stalker").output == missed.output
    with pytest.MonkeyPatch.context() as patch:  # a checkout that lacks a catalogue: the unit may be in it, said too
        patch.setattr(by_name, "missing", lambda edition: ["Library - Stones"] if edition == "10e" else [])
        lacking = run("unit", "Shale Stalker", "-t", "MEQ", "--melee")
    assert lacking.output == missed.output.rstrip("\n") + (
        "; your 10e checkout lacks catalogues that others link (Library - Stones): a unit of theirs is not indexed\n")
    card = run("show", "Shale Stalker", "--edition", "11e")
    assert card.exit_code == 0 and card.output.startswith("Shale Stalker ("), card.output
    assert run("survive", "Shale Stalker").exit_code == 2
    survived = run("survive", "Shale Stalker", "--edition", "11e")
    assert survived.exit_code == 0 and "rules: 11th edition" in survived.output, survived.output
    target = run("attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "Gravel Wardens", "--edition", "11e")
    assert target.exit_code == 0 and "Invulnerable save 4+" in target.output, target.output
    assert "Invulnerable save 5+" in run("attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "Gravel Wardens").output
    assert by_name.datasheet("Gravel Wardens").edition == "10e"  # the block over, the 10th again


def test_the_api_looks_names_up_in_the_edition_its_situation_asks(both):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mathhammer_exact.web.app import create_app

    body = {"attacker": "Shale Stalker", "target": "MEQ", "melee": True}
    with TestClient(create_app(workers=1)) as client:
        asked = client.post("/api/unit", json={**body, "situation": {"edition": "11e"}})
        assert asked.status_code == 200 and asked.json()["title"].startswith("Shale Stalker"), asked.json()
        assert client.post("/api/unit", json=body).status_code == 422  # the 10th's data has no such unit
        # the page's suggestions and controls look it up there too (a trial found an 11th-edition unit never
        # suggested, and its size and wargear controls refused, under the 11th)
        found = client.get("/api/units", params={"q": "shale", "edition": "11e"}).json()["units"]
        assert [unit["name"] for unit in found] == ["Shale Stalker"]
        assert client.get("/api/units", params={"q": "shale"}).json() == {"units": [], "more": False,
                                                                          "elsewhere": ["11e"]}  # said where
        sheet = client.post("/api/datasheet", json={"name": "Shale Stalker", "situation": {"edition": "11e"}})
        assert sheet.status_code == 200 and sheet.json()["name"] == "Shale Stalker"
        assert client.post("/api/datasheet", json={"name": "Shale Stalker"}).status_code == 422
        assert client.post("/api/datasheet", json={"name": "Shale Stalker", "situation": {"cover": True}}).json() == {
            "error": '"situation.cover": a datasheet takes its edition alone (it is looked up, not answered)'}


def test_each_compared_scenario_looks_its_names_up_in_its_own_edition(both, monkeypatch):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mathhammer_exact.web.app import create_app

    # one attack, A1 S8 AP-4 D1 [TORRENT], at Gravel Wardens: it hits, wounds T4 on 2+ (5/6), and Sv3+ at AP-4 fails.
    # The 10th's wardens: inv 5+ fails 2/3, Feel No Pain 6+ keeps 5/6: 5/6 x 2/3 x 5/6 = 25/54 damage.
    # The 11th's: inv 4+ fails 1/2, no Feel No Pain: 5/6 x 1/2 = 5/12.
    weapon = '12" A1 S8 AP-4 D1 [TORRENT]'
    expected = [Fraction(25, 54), Fraction(5, 12)]
    out = run("compare", "-s", f"attack -w '{weapon}' -t 'Gravel Wardens'",
              "-s", f"attack -w '{weapon}' -t 'Gravel Wardens' --edition 11e", "--exact", "--json")
    assert out.exit_code == 0, out.output
    assert [Fraction(row["damage"]) for row in json.loads(out.output)["rows"]] == expected
    # the player's default the 11th: a scenario asking for the 10th still finds the 10th's wardens
    monkeypatch.setenv("MATHHAMMER_EDITION", "11e")
    out = run("compare", "-s", f"attack -w '{weapon}' -t 'Gravel Wardens' --edition 10e",
              "-s", f"attack -w '{weapon}' -t 'Gravel Wardens'", "--exact", "--json")
    assert [Fraction(row["damage"]) for row in json.loads(out.output)["rows"]] == expected
    monkeypatch.delenv("MATHHAMMER_EDITION")
    body = {"scenarios": [{"attack": {"weapons": [{"weapon": weapon}], "target": "Gravel Wardens"}},
                          {"attack": {"weapons": [{"weapon": weapon}], "target": "Gravel Wardens",
                                      "situation": {"edition": "11e"}}}], "exact": True}
    with TestClient(create_app(workers=1)) as client:
        answer = client.post("/api/compare", json=body)
    assert answer.status_code == 200, answer.json()
    assert [Fraction(row["damage"]) for row in answer.json()["rows"]] == expected


def test_a_unit_the_checkout_has_but_could_not_read_is_said_so(data_dir, tmp_path):
    # a trial asked for the 11th edition's Imagifier (its Sv printed blank) and was told it is a unit of the 10th
    # edition: the unit is in the checkout, and the answer says why it could not be read
    folder = tmp_path / "checkout"
    shutil.copytree(TENTH, folder)
    host = folder / "Test - Sand Host.cat"
    text = host.read_text(encoding="utf-8")
    blank = '<characteristic name="SV" typeId="ch-sv"></characteristic>'
    start, end = text.index("    <selectionEntry "), text.index("  </sharedSelectionEntries>")
    legends = text[start:end].replace('"Dune Walker"', '"Dune Walker [Legends]"').replace(' id="', ' id="l-')
    text = text[:end] + legends + text[end:]  # a Legends datasheet of that name, readable
    host.write_text(text.replace('<characteristic name="SV" typeId="ch-sv">4+</characteristic>', blank, 1),
                    encoding="utf-8")
    report = build.add_checkout(folder)
    assert list(report.unreadable) == ["Dune Walker"]
    asked = run("show", "dune walkers")  # as a player types it: not silently the Legends one (a trial's find)
    why = report.unreadable["Dune Walker"]
    assert (asked.exit_code, asked.output) == (
        2, f"error: Dune Walker is in your 10e checkout but could not be read when it was indexed ({why}); 'Dune "
           "Walker [Legends]' is another datasheet: write its name to ask about it\n")
    assert run("show", "dune walker [legends]").exit_code == 0
    # the other way round, the Legends one unread: the current one is answered, as typed in any form (a review's find)
    legends_first = text.replace(blank, '<characteristic name="SV" typeId="ch-sv">4+</characteristic>')
    at = legends_first.index('name="Dune Walker [Legends]"')
    host.write_text(legends_first[:at] + legends_first[at:].replace(
        '<characteristic name="SV" typeId="ch-sv">4+</characteristic>', blank, 1), encoding="utf-8")
    assert list(build.add_checkout(folder).unreadable) == ["Dune Walker [Legends]"]
    assert run("show", "dune walkers").output.startswith("Dune Walker (Sand Host")


def test_a_sweep_looks_its_units_up_in_each_editions_index(both, tmp_path, monkeypatch):
    """A review found 'situations.edition = ["11e"]' answering the 10th's Gravel Wardens under the 11th's rules, where
    `unit --edition 11e` takes the 11th's; a trial then found a sweep of both editions answering both rows of a unit
    from one edition's datasheet (the player's). Five Wardens at five T4 Sv3+ W10 models (no damage wasted): in the
    10th, pebble rifles (A2 BS3+ S4 AP-1) 10 x 2/3 x 1/2 x 1/2 = 5/3 and rock fists (A3 WS4+ S4 AP0) 15 x 1/2 x 1/2
    x 1/3 = 5/4; in the 11th, Blast 2 adds 2 attacks a model against 5 models, 20 x 1/6 = 10/3, and Cleave 1 one with
    WS3+, 20 x 2/3 x 1/2 x 1/3 = 20/9. Each row says its edition; a unit one edition lacks gets that edition's rows
    refused, saying so."""
    from mathhammer_exact.sweep.queries import answer
    from mathhammer_exact.sweep.spec import SpecError, read_spec

    monkeypatch.delenv("MATHHAMMER_EDITION", raising=False)
    path = tmp_path / "spec.toml"
    missing = "{} is not a unit of the {} edition's index (it is of the {})"
    means = {("10e", "shooting"): Fraction(5, 3), ("10e", "fight"): Fraction(5, 4),
             ("11e", "shooting"): Fraction(10, 3), ("11e", "fight"): Fraction(20, 9)}
    for editions, player in (('["11e"]', None), ('["10e"]', "11e"), ('["10e", "11e"]', None),
                             ('["10e", "11e"]', "11e")):
        if player:
            monkeypatch.setenv("MATHHAMMER_EDITION", player)
        path.write_text("phases = ['shooting', 'fight']\n[attackers]\nunits = ['Gravel Wardens']\n[targets]\n"
                        f"profiles = ['T4 Sv3+ W10 x5']\n[situations]\nedition = {editions}\n")
        grid = read_spec(path).grid
        rows = [answer(grid, n) for n in range(grid.size)]
        assert [row["edition"] for row in rows] == json.loads(editions) * 2  # shooting, then fighting
        assert [row["mean_damage"] for row in rows] == pytest.approx(
            [float(means[row["edition"], row["phase"]]) for row in rows], rel=1e-12), (editions, player)
        assert {row["attacker_points"] for row in rows} == {90}
    monkeypatch.delenv("MATHHAMMER_EDITION")
    # units of one edition alone, selected and named: their rows of the other are refused, saying so
    path.write_text("[attackers]\nselect = [{faction = 'Gravel Host'}]\n[targets]\nstandard = ['MEQ']\n"
                    "[situations]\nedition = ['10e', '11e']\n")
    grid = read_spec(path).grid
    assert [a.label for a in grid.attackers] == ["Gravel Wardens", "Warden Captain", "Scree Walker", "Shale Stalker",
                                                 "Rubble Drone"]  # in the index's order, the 10th's first
    reasons = {(row["attacker"], row["edition"]): row["reason"] for row in (answer(grid, n) for n in range(grid.size))}
    assert reasons["Rubble Drone", "10e"] == missing.format("Rubble Drone", "10th", "11th")
    assert reasons["Scree Walker", "11e"] == missing.format("Scree Walker", "11th", "10th")
    assert reasons["Rubble Drone", "11e"] is None and reasons["Scree Walker", "10e"] is None
    path.write_text("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nunits = ['Rubble Drone']\n"
                    "[situations]\nedition = ['10e', '11e']\n")
    grid = read_spec(path).grid
    tenth, eleventh = answer(grid, 0), answer(grid, 1)
    assert (tenth["reason"], tenth["target_models"], tenth["target_points"]) == (
        missing.format("Rubble Drone", "10th", "11th"), None, None)
    assert eleventh["reason"] is None and eleventh["target_models"] == 1
    # a size one edition's unit comes in and the other's not: that edition's rows give its reason, not 'not a unit'
    # (a review), nor the other edition's faction
    path.write_text("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nunits = ['Gravel Wardens x10']\n"
                    "[situations]\nedition = ['10e', '11e']\n")
    grid = read_spec(path).grid
    tenth, eleventh = answer(grid, 0), answer(grid, 1)
    assert (tenth["reason"], tenth["target_models"]) == (None, 10)
    assert (eleventh["reason"], eleventh["target_faction"]) == ("Gravel Wardens comes in units of 5 models, not 10",
                                                                None)
    path.write_text("[attackers]\nunits = ['Rubble Droid']\n[targets]\nstandard = ['MEQ']\n[situations]\n"
                    "edition = ['10e', '11e']\n")
    with pytest.raises(SpecError, match=r"attackers.units\[0\]: unknown unit 'Rubble Droid'"):  # in neither
        read_spec(path)


def test_a_sweep_refuses_a_name_one_edition_holds_several_units_of(data_dir, tmp_path, monkeypatch):
    # a review found an ambiguous name's rows of one edition said 'not a unit of' it: refused when the spec is read,
    # as in one edition (tests/fixtures/bsdata-factions: Old Dreadnought of Iron Wardens and of Slate Brothers)
    from mathhammer_exact.sweep.queries import answer
    from mathhammer_exact.sweep.spec import SpecError, read_spec

    monkeypatch.delenv("MATHHAMMER_EDITION", raising=False)
    build.add_checkout(FIXTURES / "bsdata-factions")
    build.add_checkout(ELEVENTH)
    path = tmp_path / "spec.toml"
    path.write_text("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nunits = ['Old Dreadnought']\n"
                    "[situations]\nedition = ['10e', '11e']\n")
    with pytest.raises(SpecError, match=r"targets.units\[0\]: 'Old Dreadnought' is a unit of several factions"):
        read_spec(path)
    # a selection of a faction one edition's index lacks picks nothing there, and takes nothing from the others (a
    # trial's Chaos Space Marines, absent from the 11th's checkout, lost every 11th-edition row of the Necrons)
    path.write_text("[attackers]\nweapons = ['A1 BS3+ S4 AP0 D1']\n[targets]\nselect = [{faction = 'Stone Legion'}, "
                    "{faction = 'Gravel Host'}]\n[situations]\nedition = ['10e', '11e']\n")
    grid = read_spec(path).grid
    rows = [answer(grid, n) for n in range(grid.size)]
    answered = {(row["target"], row["edition"]) for row in rows if row["reason"] is None}
    assert ("Gravel Wardens", "11e") in answered and ("Rampart Squad", "10e") in answered
    path.write_text(path.read_text().replace("Gravel Host", "Gravel Hoast"))
    with pytest.raises(SpecError, match=r"targets.select\[1\].faction: no faction 'Gravel Hoast'"):
        read_spec(path)  # a faction no edition has is refused, as in one

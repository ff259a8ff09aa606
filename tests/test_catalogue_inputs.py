"""Hard inputs to `data add` and `roster` (issue 14, point 9): each is refused with one line naming the
file and the problem (exit 2, no traceback), and a refused `data add` keeps the index already there.
Also New Recruit's JSON export, read as the army list it is (tests/fixtures/army.json: the roster of
tests/fixtures/army.ros, written as New Recruit writes it)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from mathhammer_exact import MathhammerError, Target
from mathhammer_exact.catalogue import build, index
from mathhammer_exact.catalogue.roster import _split, read_roster
from mathhammer_exact.cli import cli
from mathhammer_exact.decide.unit_attack import unit_attack
from mathhammer_exact.units import by_name

FIXTURES = Path(__file__).parent / "fixtures"
CHECKOUT = FIXTURES / "bsdata"
GRAVEL = "Test - Gravel Host.cat"
ARMY = FIXTURES / "army.ros"
ARMY_JSON = FIXTURES / "army.json"


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def refused(out, message: str) -> None:
    """One line, 'error: ' and the message (which names the file), exit status 2. (`data add` draws its
    progress bar on stderr first; without a terminal, that is its label alone.)"""
    assert out.exit_code == 2, out.output
    lines = out.output.splitlines()
    if lines[:1] == ["reading catalogues"]:
        lines = lines[1:]
    assert lines == [f"error: {message}"], out.output


@pytest.fixture
def indexed(tmp_path, monkeypatch):
    """An index of the fixture checkout in a data folder of our own; yields the index's bytes."""
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(CHECKOUT)
    return index.index_path().read_bytes()


def checkout_with(tmp_path: Path, edits: dict[str, tuple[str, str]] | None = None,
                  extra: dict[str, bytes] | None = None) -> Path:
    """A copy of the fixture checkout, with `old` replaced by `new` (once) in the files `edits` names, and
    the files of `extra` added."""
    folder = tmp_path / "checkout"
    shutil.copytree(CHECKOUT, folder)
    for name, (old, new) in (edits or {}).items():
        text = (folder / name).read_text(encoding="utf-8")
        assert old in text
        (folder / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    for name, data in (extra or {}).items():
        (folder / name).write_bytes(data)
    return folder


def add_is_refused(folder: Path, message: str, before: bytes) -> None:
    refused(run("data", "add", str(folder)), message)
    assert index.index_path().read_bytes() == before  # the old index is kept


# --------------------------------------------------------------------- data add
def test_a_link_cycle_is_refused_naming_the_file_and_the_entries(indexed):
    # 'Looped Squad' links its 'Kit' group to 'Satchel', which links back to 'Kit': read naively, the walk
    # would never end (a RecursionError before); nothing of the checkout is indexed, not even 'Steady Squad'
    cycle = FIXTURES / "bsdata-cycle"
    add_is_refused(cycle, f"{cycle / 'Loop - Loop Host.cat'}: a link cycle among entries, 'Kit' -> 'Satchel' -> "
                          "'Kit' (an entryLink leads back to an entry it is inside); reading it would never end",
                   indexed)


def test_an_entry_linking_to_itself_is_a_cycle_too(tmp_path, indexed):
    folder = checkout_with(tmp_path, {"Test - Library.cat": (
        'id="se-rock-fist" collective="true">',
        'id="se-rock-fist" collective="true"><entryLinks><entryLink name="Again" hidden="false" '
        'type="selectionEntry" id="el-again" targetId="se-rock-fist"/></entryLinks>')})
    add_is_refused(folder, f"{folder / 'Test - Library.cat'}: a link cycle among entries, 'Rock fist' -> 'Rock fist' "
                           "(an entryLink leads back to an entry it is inside); reading it would never end", indexed)


_LEADER_MIN = 'value="1" field="selections" scope="parent" shared="true" id="c-wl-min"'
_WARDEN_MAX = 'value="9" field="selections" scope="parent" shared="true" id="c-wd-max"'


def test_a_minimum_of_a_hundred_quadrillion_models_is_refused_naming_the_limit(tmp_path, indexed):
    # before: a MemoryError when the unit was used, building a list of 10^17 models
    folder = checkout_with(tmp_path, {GRAVEL: (_LEADER_MIN, _LEADER_MIN.replace('"1"', '"100000000000000000"'))})
    add_is_refused(folder, f"{folder / GRAVEL}: a constraint asks for at least 100000000000000000 of 'Warden Leader', "
                           "more than a unit may have here (at most 1000 models: MAX_TARGET_MODELS)", indexed)


def test_a_maximum_beyond_any_unit_is_read_as_no_limit(tmp_path, indexed):
    # A maximum of 10^17 Wardens is no real limit (as -1 is BattleScribe's "no limit"): the unit's size
    # comes from its model group (5 to 10), as for a model kind without a maximum. Before, the unit came
    # in sizes 5 or 10^17 + 1, and `--size 100000000000000001` ran out of memory.
    folder = checkout_with(tmp_path, {GRAVEL: (_WARDEN_MAX, _WARDEN_MAX.replace('"9"', '"100000000000000000"'))})
    assert run("data", "add", str(folder)).exit_code == 0
    sheet = by_name.datasheet("Gravel Wardens")
    assert sheet.sizes == (5, 10) and sheet.points == {5: 90, 10: 180}
    refused(run("unit", "Gravel Wardens", "--size", "100000000000000001", "-t", "MEQ"),
            "Gravel Wardens comes in units of 5 or 10 models, not 100000000000000001")
    refused(run("unit", "Warden Captain", "--size", "5", "-t", "MEQ"),  # not 'units of 1 models' (a trial)
            "Warden Captain is a unit of one model, not 5")


def test_a_data_folder_that_is_a_file(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.write_text("my notes")
    monkeypatch.setenv(index.ENVIRONMENT, str(data))
    refused(run("data", "add", str(CHECKOUT)), f"{data}: cannot be the data folder: it is a file (set "
                                               "$MATHHAMMER_DATA to a folder)")
    assert data.read_text() == "my notes"


def test_a_data_folder_below_a_file(tmp_path, monkeypatch):
    (tmp_path / "notes").write_text("my notes")
    data = tmp_path / "notes" / "data"
    monkeypatch.setenv(index.ENVIRONMENT, str(data))
    refused(run("data", "add", str(CHECKOUT)), f"{data}: cannot be the data folder: it lies below "
                                               f"{tmp_path / 'notes'}, which is a file (set $MATHHAMMER_DATA to a "
                                               "folder)")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write in any folder")
def test_a_data_folder_that_is_not_writable(indexed):
    folder = index.index_path().parent
    folder.chmod(0o555)
    try:
        add_is_refused(CHECKOUT, f"{folder}: the data folder is not writable; set $MATHHAMMER_DATA to a folder you "
                                 "can write", indexed)
    finally:
        folder.chmod(0o755)


def test_a_data_folder_said_not_writable(indexed, monkeypatch):
    # the check the test above makes, where this test runs as root: the folder's mode says "not writable"
    folder, access = index.index_path().parent, os.access
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != folder and access(path, mode))
    add_is_refused(CHECKOUT, f"{folder}: the data folder is not writable; set $MATHHAMMER_DATA to a folder you can "
                             "write", indexed)


def test_a_data_folder_where_no_file_can_be_made(indexed, monkeypatch):
    # what a folder that is not writable does when the check of its mode cannot tell (as root, or on a
    # file system mounted read-only): making the new index's file fails, and that is said
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    folder = index.index_path().parent
    add_is_refused(CHECKOUT, f"{folder}: cannot write in the data folder (Permission denied); set $MATHHAMMER_DATA "
                             "to a folder you can write", indexed)


def test_a_game_system_named_as_a_catalogue(tmp_path, indexed):
    # before: read as one more file, and the faction whose catalogue it replaced silently lost its units
    folder = checkout_with(tmp_path, extra={GRAVEL: (CHECKOUT / "Test System.gst").read_bytes()})
    add_is_refused(folder, f"{folder / GRAVEL}: not a BattleScribe catalogue file: it is a game system file (named "
                           ".gst)", indexed)


def test_a_catalogue_named_as_a_game_system(tmp_path, indexed):
    folder = checkout_with(tmp_path)
    (folder / GRAVEL).rename(folder / "Gravel Host.gst")
    add_is_refused(folder, f"{folder / 'Gravel Host.gst'}: not a BattleScribe game system file: it is a catalogue "
                           "file (named .cat)", indexed)


def test_two_game_systems(tmp_path, indexed):
    folder = checkout_with(tmp_path, extra={"Copy.gst": (CHECKOUT / "Test System.gst").read_bytes()})
    add_is_refused(folder, f"{folder}: 2 game system files here (Copy.gst, Test System.gst); a checkout has one",
                   indexed)


def test_a_copy_of_a_catalogue_is_refused_naming_both(tmp_path, indexed):
    # Two files of one catalogue would list each of its units twice, and which one is current cannot be
    # told (a player's stray copy, an old download): refused, naming both, so one can be removed.
    copy = (CHECKOUT / GRAVEL).read_bytes().replace(b'revision="1"', b'revision="2"', 1)
    folder = checkout_with(tmp_path, extra={"Test - Gravel Host (new).cat": copy})
    add_is_refused(folder, f"{folder / GRAVEL}: the same catalogue (id 'cat-gravel') as Test - Gravel Host (new).cat, "
                           "revision 1 here and 2 there: its units would be listed twice; keep one of the two files",
                   indexed)


def test_another_catalogue_defining_the_same_entries_is_refused(tmp_path, indexed):
    # a copy under another catalogue id (a fork): its units would still be listed twice
    copy = (CHECKOUT / GRAVEL).read_bytes().replace(b'id="cat-gravel" name="Test - Gravel Host"',
                                                    b'id="cat-fork" name="Test - Gravel Fork"', 1)
    folder = checkout_with(tmp_path, extra={"Test - Gravel Fork.cat": copy})
    add_is_refused(folder, f"{folder / GRAVEL}: defines 'Gravel Wardens' (id 'se-wardens') again, as Test - Gravel "
                           "Fork.cat does: its units would be listed twice; keep one of the two files", indexed)


def test_a_game_system_of_another_edition(tmp_path, indexed):
    folder = checkout_with(tmp_path, {"Test System.gst": (
        'id="sys-test" name="Test System for Warhammer 40,000 10th Edition"',
        'id="28ec-711c-d87f-3aeb" name="Warhammer 40,000 9th Edition"')})
    add_is_refused(folder, f"{folder / 'Test System.gst'}: made for 'Warhammer 40,000 9th Edition', another edition; "
                           "this program reads Warhammer 40,000 10th and 11th Editions", indexed)


def test_a_catalogue_of_another_game_system(tmp_path, indexed):
    folder = checkout_with(tmp_path, {"Test - Sand Host.cat": ('gameSystemId="sys-test"', 'gameSystemId="sys-aos"')})
    add_is_refused(folder, f"{folder / 'Test - Sand Host.cat'}: a catalogue of another game system (id 'sys-aos'; "
                           "Test System.gst is 'sys-test')", indexed)


def test_entries_nested_beyond_any_real_unit(tmp_path, indexed):
    # 150 groups, one inside the other, below the Warden: refused before a reader descending level by
    # level runs out of stack
    deep = "".join(f'<selectionEntryGroups><selectionEntryGroup name="G{i}" id="g{i}">' for i in range(150))
    deep += "".join("</selectionEntryGroup></selectionEntryGroups>" for _ in range(150))
    folder = checkout_with(tmp_path, {GRAVEL: ('<entryLinks>\n                <entryLink import="true" '
                                               'name="Pebble rifle" hidden="false" type="selectionEntry" '
                                               'id="el-wd-rifle"', deep + '<entryLinks>\n                '
                                               '<entryLink import="true" name="Pebble rifle" hidden="false" '
                                               'type="selectionEntry" id="el-wd-rifle"')})
    add_is_refused(folder, f"{folder / GRAVEL}: entries nested more than 100 levels deep below 'Gravel Wardens' (a "
                           "real unit has about 10)", indexed)


# --------------------------------------------------------------------- roster
def army_with(tmp_path: Path, old: bytes, new: bytes, name: str = "army.ros") -> Path:
    data = ARMY.read_bytes()
    assert old in data
    path = tmp_path / name
    path.write_bytes(data.replace(old, new, 1))
    return path


def roster_is_refused(path: Path, message: str) -> None:
    refused(run("roster", str(path)), f"{path}: {message}")
    refused(run("unit", f"{path}#1", "--target", "MEQ"), f"{path}: {message}")


def test_an_encrypted_roster_zip():
    # tests/fixtures/encrypted.rosz: army.ros zipped with a password (before: a RuntimeError traceback)
    path = FIXTURES / "encrypted.rosz"
    roster_is_refused(path, "army.ros in this zip is encrypted (it has a password); export the list again without one")


_WARDENS = b'name="Warden" entryId="se-warden" number="9"'


@pytest.mark.parametrize("digit", ["\u0669", "\uff19", "\u09ef"])  # 9 in Arabic-Indic, full-width, Bengali
def test_numbers_in_other_digits_are_refused(tmp_path, digit):
    # Python's int() reads them (before: 9 models); a BattleScribe file writes ASCII digits only
    path = army_with(tmp_path, _WARDENS, _WARDENS.replace(b'"9"', f'"{digit}"'.encode()))
    roster_is_refused(path, f"the number of 'Warden' is '{digit}', not a whole number 0 or more")


def test_a_number_of_no_models_is_refused(tmp_path):
    # before: the nine Wardens were silently dropped and the unit had one model
    path = army_with(tmp_path, _WARDENS, _WARDENS.replace(b'"9"', b'"0"'))
    roster_is_refused(path, "the number of 'Warden' is 0: an army list holds only what was taken (at least 1)")


def test_a_number_of_no_weapons_is_refused(tmp_path):
    fists = b'name="Rock fist" entryId="se-rock-fist" number="9"'
    path = army_with(tmp_path, fists, fists.replace(b'"9"', b'"0"'))
    roster_is_refused(path, "the number of 'Rock fist' is 0: an army list holds only what was taken (at least 1)")


def test_more_weapons_than_models_that_cannot_be_shared_evenly_is_refused(tmp_path):
    # 11 rock fists on 9 Wardens: two of them would carry two, but which cannot be read (before: spread
    # round the models silently)
    fists = b'name="Rock fist" entryId="se-rock-fist" number="9"'
    path = army_with(tmp_path, fists, fists.replace(b'"9"', b'"11"'))
    roster_is_refused(path, "9 'Warden' carry 11 'Rock fist': more than one each, but not the same number each, so "
                            "which models carry more cannot be read")


def test_more_weapons_than_models_shared_evenly_is_that_many_each():
    # 18 fists on 9 models: two each; 7 rifles and 2 slingshots (fewer than the models) go to different models
    groups = _split("W", 9, [("rifle", 7), ("sling", 2), ("fist", 18)], {})
    assert [(g["min"], g["equipment"]) for g in groups] == [(7, ["rifle", "fist", "fist"]),
                                                             (2, ["sling", "fist", "fist"])]


@pytest.mark.parametrize(("system", "message"), [
    (b'gameSystemId="28ec-711c-d87f-3aeb" gameSystemName="Warhammer 40,000 9th Edition"',
     "made for 'Warhammer 40,000 9th Edition', another edition; this program reads Warhammer 40,000 10th and 11th "
     "Editions"),
    (b'gameSystemId="sys-invented-12e" gameSystemName="Warhammer 40,000 12th Edition"',
     "made for 'Warhammer 40,000 12th Edition', another edition; this program reads Warhammer 40,000 10th and 11th "
     "Editions"),
    (b'gameSystemId="e51d-b1a3-75fc-dc3g" gameSystemName="Age of Sigmar 4.0"',
     "made for 'Age of Sigmar 4.0', another game; this program reads Warhammer 40,000 10th and 11th Editions"),
    (b'gameSystemId="sys-x" gameSystemName=""',
     "made for an unnamed game system (id 'sys-x'), another game; this program reads Warhammer 40,000 10th and "
     "11th Editions"),
])
def test_a_roster_of_another_edition_or_game_says_which(tmp_path, system, message):
    path = army_with(tmp_path, b'gameSystemId="sys-test" gameSystemName="Test System for Warhammer 40,000 10th '
                               b'Edition"', system)
    roster_is_refused(path, message)


def test_the_tenth_edition_is_known_by_its_id_whatever_the_name():
    from mathhammer_exact.catalogue.battlescribe import TENTH_EDITION, check_edition

    check_edition(TENTH_EDITION, "", "x")  # BSData's id of the 10th edition: read
    check_edition("sys-fork", "Warhammer 40,000 10th Edition (house rules)", "x")  # the name says so: read
    with pytest.raises(MathhammerError, match="another edition"):
        check_edition("28ec-711c-d87f-3aeb", "Warhammer 40,000 8th Edition", "x")


def test_a_roster_nested_beyond_any_real_one(tmp_path):
    deep = b"".join(b'<selections><selection name="Box" type="upgrade" number="1">' for _ in range(60))
    deep += b"".join(b"</selection></selections>" for _ in range(60))
    path = army_with(tmp_path, b"<forces>", deep + b"<forces>")
    roster_is_refused(path, "nested more than 100 levels deep (a real file has about 20)")


# --------------------------------------------------------------------- New Recruit's JSON export
def _units(path: Path) -> list[dict]:
    return [{k: v for k, v in unit.items() if k != "source"} for unit in read_roster(path).units]


def test_a_new_recruit_export_reads_as_the_same_army_list():
    # the same list as army.ros: the same units, models, wargear, points and rules, by the same reader
    assert read_roster(ARMY_JSON).name == read_roster(ARMY).name == "Gravel Host test list"
    assert _units(ARMY_JSON) == _units(ARMY)
    assert read_roster(ARMY_JSON).units[0]["source"] == "army list army.json"
    sheet = by_name.datasheet(f"{ARMY_JSON}#1")
    assert [(m.name, m.count, m.equipment) for m in sheet.models] == [
        ("Warden #1", 7, ("pebble rifle", "rock fist")),
        ("Warden #2", 2, ("slingshot", "rock fist")),
        ("Warden Leader", 1, ("slingshot", "rock fist"))]
    assert sheet.points == {10: 180}
    assert {(m.profile.invulnerable, m.profile.feel_no_pain) for m in sheet.models} == {(5, 6)}


def test_a_new_recruit_export_wherever_an_army_list_goes():
    listed = run("roster", str(ARMY_JSON))
    assert listed.exit_code == 0, listed.output
    assert listed.output == run("roster", str(ARMY)).output.replace(str(ARMY), str(ARMY_JSON))
    target = Target.parse("T4 Sv3+ W2 x5")
    from_json = unit_attack(f"{ARMY_JSON}#Rockbiter", target, exact=True).result
    from_xml = unit_attack(f"{ARMY}#Rockbiter", target, exact=True).result
    assert from_json.damage == from_xml.damage
    out = run("unit", f"{ARMY_JSON}#1", "--target", f"{ARMY_JSON}#3", "--profile", "boulder")
    assert out.exit_code == 0, out.output
    assert out.output.startswith("Gravel Wardens (Gravel Host)  ->  Rockbiter (Gravel Host)\n")


def _json_with(tmp_path: Path, old: str, new: str) -> Path:
    text = ARMY_JSON.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "army.json"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: _json_with(p, '"roster": {', '"roster": {,'), "not a readable JSON file (Expecting property name"),
    (lambda p: _json_with(p, '"roster": {', '"list": {'),
     'not a New Recruit army list (no "roster" object at the top of the JSON)'),
    (lambda p: _json_with(p, '"number": 9', '"number": 0'),
     "the number of 'Warden' is 0: an army list holds only what was taken (at least 1)"),
    (lambda p: _json_with(p, '"number": 9', '"number": 1e400'), "the number of 'Warden' is 'inf', not a whole number"),
    (lambda p: _json_with(p, '"gameSystemName": "Test System for Warhammer 40,000 10th Edition"',
                          '"gameSystemName": "Warhammer 40,000 9th Edition"'), "another edition"),
    (lambda p: _json_with(p, '"costs": [', '"costs": ["lots",'), "not a New Recruit army list ('costs' holds str "
                                                                 "values, not objects)"),
    (lambda p: _json_with(p, '"roster": {', '"roster": {"x": ' + "[" * 100_000 + "]" * 100_000 + ', '),
     "not a readable JSON file"),
])
def test_a_bad_new_recruit_export_is_one_line(tmp_path, make, message):
    path = make(tmp_path)
    out = run("roster", str(path))
    assert out.exit_code == 2, out.output
    [line] = out.output.splitlines()
    assert re.match(rf"error: {re.escape(str(path))}: .*{re.escape(message)}", line), line

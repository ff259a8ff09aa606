"""Units by the names players type, and names that several factions use, on an invented checkout in the
BSData schema (tests/fixtures/bsdata-factions):

- Stone Legion ('Realm - Adamant Host - Stone Legion') has two chapters, Marble Sons and Slate Brothers,
  whose catalogues import its units (importRootEntries) within its group of names: it is their parent;
- Envoys is imported by Stone Legion, its chapters and Iron Wardens (as Agents of the Imperium are);
- Iron Wardens keeps its units in a library ('Realm - Iron Wardens - Library'), which also holds a
  Shade Court unit (its Faction keyword names the Shade Court catalogue that links the library);
- 'Library - Beasts' is imported by Stone Legion; its unit has no Faction keyword;
- Stone Legion's army rules Legion Oath and Slate Vows are each hidden by the army's catalogue (Slate Vows
  outside Slate Brothers armies, Legion Oath in them); Rampart Squad and Slate Brothers' Boulder Tank link both;
- Boulder Tank is a unit of Stone Legion (Sv3+), Slate Brothers (Sv2+) and Iron Wardens (Sv4+); Old
  Dreadnought of Slate Brothers and Iron Wardens; Envoy Herald of Envoys and Marble Sons; Legion
  Captain of Stone Legion (leads Rampart Squad) and Iron Wardens (leads Warden Militia); Cairn Walker of
  Stone Legion and its chapter Slate Brothers alone.
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from math import comb
from pathlib import Path

import attrs
import defusedxml.ElementTree as SafeET
import pytest
from click.testing import CliRunner

from mathhammer_exact import MathhammerError
from mathhammer_exact.catalogue import build, index
from mathhammer_exact.catalogue.factions import Catalogues, Factions, faction_name
from mathhammer_exact.catalogue.library import factions
from mathhammer_exact.cli import cli
from mathhammer_exact.data import load
from mathhammer_exact.data.names import loose
from mathhammer_exact.units import by_name, lookup

CHECKOUT = Path(__file__).parent / "fixtures" / "bsdata-factions"


@pytest.fixture
def realm(tmp_path, monkeypatch):
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(CHECKOUT)


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def mean_damage(*args: str) -> Fraction:
    """The exact mean damage of a `unit` answer."""
    out = run("unit", *args, "--exact", "--json")
    assert out.exit_code == 0, out.output
    return Fraction(json.loads(out.output)["damage"]["mean"])


def capped(shots: int, p: Fraction, wounds: int) -> Fraction:
    """E[min(X, wounds)] for X ~ Binomial(shots, p): the damage of D1 attacks on one model of `wounds`."""
    return sum((min(k, wounds) * comb(shots, k) * p ** k * (1 - p) ** (shots - k) for k in range(shots + 1)),
               Fraction(0))


# --------------------------------------------------------------------- names and factions as the data has them
@pytest.mark.parametrize(("name", "form"), [
    ("Carnifexes", "carnifex"), ("Carnifex", "carnifex"), ("Eradicator Squad", "eradicator"),
    ("Eradicators", "eradicator"), ("Guardsmen", "guardsman"), ("Wolf Guard [Legends]", "wolf guard"),
    ("Fenrisian Wolves", "fenrisian wolf"), ("Boyz", "boyz"), ("T'au Empire", "tau empire"), ("Squad", ""),
    ("Kâhl", "kahl"), ("Brôkhyr Iron-master", "brokhyr iron master"),  # accents fold: players type 'Kahl'

])
def test_the_loose_form_of_a_name(name, form):
    assert loose(name) == form


@pytest.mark.parametrize(("catalogue", "library", "faction"), [
    ("Imperium - Adeptus Astartes - Blood Angels", False, "Blood Angels"),
    ("Xenos - Orks", False, "Orks"),
    ("Unaligned Forces", True, "Unaligned Forces"),
    ("Imperium - Astra Militarum - Library", True, "Astra Militarum"),
    ("Aeldari - Aeldari Library", True, "Aeldari"),
    ("Library - Titans", True, "Titans"),
])
def test_the_faction_a_catalogue_name_stands_for(catalogue, library, faction):
    assert faction_name(catalogue, library) == faction


def test_a_library_name_completed_by_the_faction_that_links_it():
    # 'Chaos - Daemons Library' is linked by 'Chaos - Chaos Daemons' (and others): its units are Chaos Daemons'
    def catalogue(ident: str, name: str, library: bool, links: str = "", units: str = "") -> str:
        return (f'<catalogue id="{ident}" name="{name}" library="{str(library).lower()}"><catalogueLinks>{links}'
                f'</catalogueLinks><sharedSelectionEntries>{units}</sharedSelectionEntries></catalogue>')
    link = '<catalogueLink targetId="lib" importRootEntries="true"/>'
    roots = [SafeET.fromstring(text) for text in (
        catalogue("lib", "Chaos - Daemons Library", True,
                  units='<selectionEntry type="unit" name="Bloodletters"/>'),
        catalogue("cd", "Chaos - Chaos Daemons", False, link),
        catalogue("csm", "Chaos - Chaos Space Marines", False, link))]
    found = Catalogues.read(roots)
    assert found.home("lib") == "Chaos Daemons"
    assert found.relations().army["chaos space marines"] == {"chaos daemons"}


def test_unit_factions_and_how_factions_draw_on_each_other(realm):
    # a library's units: of the linking faction their Faction keyword names, else of the library's own name
    assert [by_name.datasheet(name).faction for name in ("Warden Militia", "Shade Stalker", "Grove Beast")] == [
        "Iron Wardens", "Shade Court", "Beasts"]
    assert factions() == Factions(
        names=("Beasts", "Envoys", "Iron Wardens", "Marble Sons", "Shade Court", "Slate Brothers", "Stone Legion"),
        army={"iron wardens": frozenset({"envoys"}),
              "marble sons": frozenset({"beasts", "envoys", "stone legion"}),
              "slate brothers": frozenset({"beasts", "envoys", "stone legion"}),
              "stone legion": frozenset({"beasts", "envoys"})},
        parent={"marble sons": "Stone Legion", "slate brothers": "Stone Legion"})
    relations = factions()
    assert [relations.rank("Marble Sons", other) for other in
            ("marble sons", "Stone Legion", "Envoys", "Slate Brothers", "Iron Wardens")] == [0, 1, 1, 2, None]


def test_an_army_rule_hidden_by_the_armys_catalogue_is_not_the_units(realm):
    # each unit shows the army rule its own faction's catalogue keeps: not a chapter's rule on the parent's unit
    assert by_name.datasheet("Rampart Squad").army_rules == ("Legion Oath",)
    assert by_name.datasheet("Boulder Tank @ Slate Brothers").army_rules == ("Slate Vows",)
    assert "Slate Vows" not in run("unit", "Rampart Squad", "--target", "MEQ").output
    # the parent's unit asked for by a chapter (Slate Brothers import Stone Legion's units): that army's rules
    slate = by_name.datasheet("Rampart Squad @ Slate Brothers")
    assert (slate.army_rules, slate.notes[-1]) == (
        ("Slate Vows",), "army rules in a Slate Brothers army: Slate Vows (not Legion Oath)")
    assert "Slate Vows" in slate.abilities and "Legion Oath" not in slate.abilities
    assert by_name.datasheet("Rampart Squad @ Marble Sons").army_rules == ("Legion Oath",)  # as its own


def test_a_weapons_ability_is_not_the_units(realm):
    # the lasrifle links the Heavy rule: a keyword of the weapon's profile, not an ability of the Warden Militia
    militia = by_name.datasheet("Warden Militia")
    assert "Heavy" not in militia.abilities
    assert [w.heavy for w in militia.weapons["lasrifle"].values()] == [True]


# --------------------------------------------------------------------- names as players type them
@pytest.mark.parametrize(("typed", "unit", "faction"), [
    ("Rampart Squad", "Rampart Squad", "Stone Legion"),
    ("ramparts", "Rampart Squad", "Stone Legion"),  # plural, without 'Squad'
    ("Rampart", "Rampart Squad", "Stone Legion"),
    ("Rampart Squads", "Rampart Squad", "Stone Legion"),
    ("Carnifex", "Carnifexes", "Iron Wardens"),  # singular of a plural name
    ("Stone Legion Ramparts", "Rampart Squad", "Stone Legion"),  # a faction in front
    ("Iron Warden Carnifex", "Carnifexes", "Iron Wardens"),
    ("Boulder Tank @ slate", "Boulder Tank", "Slate Brothers"),  # a part of the faction's name that fits one
    ("Slate Brothers Boulder Tank", "Boulder Tank", "Slate Brothers"),
    ("Boulder Tank @ Marble Sons", "Boulder Tank", "Stone Legion"),  # what Marble Sons field, before a sibling's
    ("Marble Sons Ramparts", "Rampart Squad", "Stone Legion"),
])
def test_names_as_players_type_them(realm, typed, unit, faction):
    sheet = by_name.datasheet(typed)
    assert (sheet.name, sheet.faction) == (unit, faction)


def test_a_faction_named_finds_the_indexed_unit_beside_a_datasheet_of_rules_of_that_name(realm):
    # a trial found 'Incursor Squad @ Space Marines' answered with the Blood Angels Incursor Squad of rules/: a
    # datasheet of rules/ stood for its name in every faction its army fields. As if rules/ shipped a Slate Brothers
    # (a chapter of Stone Legion) Rampart Squad:
    rampart = by_name.datasheet("Rampart Squad")
    shipped = {"Rampart Squad": attrs.evolve(rampart, faction="Slate Brothers", points={})}
    names = load.library(None).names

    def meant(typed: str) -> tuple[str, ...]:
        return tuple(option.faction for option in lookup.named(typed, shipped, names).options)

    assert meant("Rampart Squad") == ("Slate Brothers",)  # the name alone: the datasheet of rules/
    assert meant("Rampart Squad @ Slate Brothers") == ("Slate Brothers",)
    assert meant("Rampart Squad @ Stone Legion") == meant("Rampart Squad @ Marble Sons") == ("Stone Legion",)
    assert lookup.named("Rampart Squad @ Stone Legion", shipped, names).options[0].datasheet().points == \
        rampart.points  # the index's, with its points


def test_words_that_two_longer_names_hold_are_refused_naming_both(realm):
    # a trial typed 'tyranid warriors' and read 'unknown unit' (did you mean ...), where two units are named so with
    # more words after: named, to choose among, as 'acolyte hybrids' is
    rampart = by_name.datasheet("Rampart Squad")
    shipped = {name: attrs.evolve(rampart, name=name) for name in ("Stone Warriors with Melee Bio-weapons",
                                                                   "Stone Warriors with Ranged Bio-weapons")}
    with pytest.raises(MathhammerError) as refused:
        lookup.named("stone warriors", shipped, load.library(None).names)
    assert str(refused.value) == ("'stone warriors' could be Stone Warriors with Melee Bio-weapons or Stone Warriors "
                                  "with Ranged Bio-weapons, each holding these words: write more of the unit's name")
    assert lookup.named("stone warriors ranged bio weapons", shipped, load.library(None).names).options[0].name == \
        "Stone Warriors with Ranged Bio-weapons"


def test_a_unit_of_the_parent_asked_for_by_a_chapter_says_so(realm):
    assert by_name.datasheet("Rampart Squad @ Marble Sons").notes[0] == (
        "the Stone Legion unit of this name, for Marble Sons: Marble Sons armies field Stone Legion units")


@pytest.mark.parametrize(("typed", "message"), [
    ("Warden Militia @ Stone Legion", "'Warden Militia' is no unit of Stone Legion or of a faction its army fields "
                                      "(it is a unit of Iron Wardens)"),
    ("Boulder Tank @ Realm", "no faction called 'Realm' (factions: Astra Militarum, Beasts, Blood Angels, Envoys, "
                             "Iron Wardens, Marble Sons, Shade Court, Slate Brothers, Stone Legion)"),
    ("Rampart Squad @ Iron Wardens", "'Rampart Squad' is no unit of Iron Wardens or of a faction its army fields"),
])
def test_a_faction_that_does_not_fit_is_refused(realm, typed, message):
    with pytest.raises(MathhammerError) as refused:
        by_name.datasheet(typed)
    assert str(refused.value).startswith(message)


# --------------------------------------------------------------------- the names table
def test_the_shipped_names_table_loads():
    names = load.library().names
    assert names.units[loose("Guardsmen")] == ("Cadian Shock Troops", "rules/names.toml [units] 'Guardsmen'")
    assert names.factions[loose("Tau")][0] == "T'au Empire"


def test_a_players_own_names_are_read_and_said(realm, tmp_path):
    own = tmp_path / "rules"
    own.mkdir()
    (own / "names.toml").write_text('[units]\nMilitiamen = "Warden Militia"\n[factions]\nWardens = "Iron Wardens"\n')
    sheet = by_name.datasheet("Militiaman", user=own)  # singular of the entry, as any name
    assert (sheet.name, sheet.notes[0]) == ("Warden Militia", f"'Militiaman' read as Warden Militia ({own}/names.toml "
                                                              "[units] 'Militiamen')")
    assert by_name.datasheet("Wardens Boulder Tank", user=own).faction == "Iron Wardens"
    assert by_name.datasheet("Boulder Tank @ wardens", user=own).faction == "Iron Wardens"
    # a search finds it by that name too, first, and says so (a trial's 'fire warriors' found Necron Warriors)
    found = CliRunner().invoke(cli, ["datasheets", "--search", "militiamen", "--rules-dir", str(own)]).output
    assert found.splitlines()[:2] == [f"'militiamen' is what players call Warden Militia ({own}/names.toml [units] "
                                      "'Militiamen')", "Warden Militia (Iron Wardens)"]


@pytest.mark.parametrize(("text", "message"), [
    ('[units]\nIntercessors = "Intercessor Squad"', "[units] 'Intercessors': stands for itself ('Intercessor Squad'); "
                                                    "plurals and 'Squad' are matched without an entry"),
    ('[units]\nGrots = "Gretchin"\ngrot = "Gretchin"', "[units] 'grot': the same name as "),
    ('[units]\n"" = "Gretchin"', "[units] '': a name and the name it stands for are words"),
    ('[units]\nGrots = 3', "names.toml units.'Grots': expected text in quotes, got 3 (a whole number)"),
    ('[armies]\nGrots = "Gretchin"', "names.toml: unknown field armies (allowed: units, factions)"),
])
def test_a_bad_names_table_is_one_line(tmp_path, text, message):
    (tmp_path / "names.toml").write_text(text)
    with pytest.raises(MathhammerError) as refused:
        load.library(tmp_path)
    assert message in str(refused.value) and "\n" not in str(refused.value)


# --------------------------------------------------------------------- a name that several factions use
@pytest.mark.parametrize(("attacker", "target", "title", "mean"), [
    # Marble Guard: 10 shots A2 BS3+ S4 AP0 D1 at a T10 W12 tank: each one unsaved wound with 2/3 * 1/6 * P(save
    # failed), no overkill (10 < 12): the parent's tank, not the sibling's (Sv3+ fails 1/3)
    ("Marble Guard", "Boulder Tank", "Marble Guard (Marble Sons)  ->  Boulder Tank (Stone Legion)", Fraction(10, 27)),
    ("Marble Guard", "Boulder Tank @ slate", "Marble Guard (Marble Sons)  ->  Boulder Tank (Slate Brothers)",
     Fraction(5, 27)),  # Sv2+ fails 1/6
    # the target's faction settles the attacker's name: Stone Legion's tank, 2 shots S8 AP-2 D1 at T4 Sv3+ W2:
    # 2 * 2/3 * 5/6 * 2/3
    ("Boulder Tank", "Marble Guard", "Boulder Tank (Stone Legion)  ->  Marble Guard (Marble Sons)", Fraction(20, 27)),
    # 20 lasrifle shots A2 BS3+ S3 AP0 at the Iron Wardens' Sv4+ tank: p = 2/3 * 1/6 * 1/2, at most 12 wounds
    ("Warden Militia", "Boulder Tank", "Warden Militia (Iron Wardens)  ->  Boulder Tank (Iron Wardens)",
     capped(20, Fraction(1, 18), 12)),
    # a sibling's, before an unrelated faction's: T9 Sv2+ W8 (p = 2/3 * 1/6 * 1/6), at most 8 wounds
    ("Marble Guard", "Old Dreadnought", "Marble Guard (Marble Sons)  ->  Old Dreadnought (Slate Brothers)",
     capped(10, Fraction(1, 54), 8)),
])
def test_the_other_units_faction_settles_a_shared_name(realm, attacker, target, title, mean):
    out = run("unit", attacker, "--target", target)
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == title
    assert mean_damage(attacker, "--target", target) == mean


def test_the_header_says_what_settled_a_name(realm):
    out = run("unit", "Marble Guard", "--target", "Boulder Tank").output.splitlines()
    assert ("  target note (Boulder Tank): the Stone Legion unit of this name, for Marble Guard (Marble Sons): Marble "
            "Sons armies field Stone Legion units; also a unit of Slate Brothers, Iron Wardens ('Boulder Tank @ "
            "FACTION' asks for another)") in out
    out = run("unit", "Boulder Tank", "--target", "Warden Militia").output.splitlines()
    assert out[0] == "Boulder Tank (Iron Wardens)  ->  Warden Militia (Iron Wardens)"
    assert ("  note: the Iron Wardens unit of this name, for Warden Militia (Iron Wardens): the same faction; also a "
            "unit of Slate Brothers, Stone Legion ('Boulder Tank @ FACTION' asks for another)") in out
    out = run("unit", "Marble Guard", "--target", "Old Dreadnought").output.splitlines()
    assert any("Slate Brothers and Marble Sons are both parts of Stone Legion" in line for line in out)
    sheet, found = by_name.matchup("Warden Militia", "Envoy Herald")  # a faction Iron Wardens armies field
    assert found.sheet is not None and (found.sheet.faction, found.label) == ("Envoys", "Envoy Herald (Envoys)")


_SETTLED_TANK = ("the Stone Legion unit of this name, for Marble Guard (Marble Sons): Marble Sons armies field Stone "
                 "Legion units; also a unit of Slate Brothers, Iron Wardens ('Boulder Tank @ FACTION' asks for "
                 "another)")


@pytest.mark.parametrize(("args", "lines"), [
    # the target settled by the units named to attack it, as `unit` settles it
    (["plan", "-w", "Marble Guard", "-t", "Boulder Tank"],
     ["best order  ->  Boulder Tank (Stone Legion)", f"  target note (Boulder Tank): {_SETTLED_TANK}"]),
    (["turn", "-t", "Boulder Tank", "-s", "Marble Guard", "-f", "5x Melee A3 WS3+ S4 AP0 D1", "-d", "7"],
     [f"  target note (Boulder Tank): {_SETTLED_TANK}"]),
    # a unit named to attack settled by the target, and the header says so
    (["plan", "-w", "Boulder Tank", "-t", "Marble Guard"],
     ["  Boulder Tank (Stone Legion) the weapons of its loadout (its datasheet's default, or as its army list has "
      "it), attacking as `mathhammer unit` makes them attack (its abilities, wargear rules and Leader applied); the "
      "lines after its name are that command's",
      f"  Boulder Tank: note: {_SETTLED_TANK}"]),
])
def test_plan_and_turn_settle_a_shared_name_as_unit_does(realm, args, lines):
    out = run(*args)
    assert out.exit_code == 0, out.output
    assert all(line in out.output.splitlines() for line in lines), out.output


@pytest.mark.parametrize(("army_a", "army_b", "mean", "faction"), [
    ("Marble Guard", "Boulder Tank", Fraction(10, 27), "Stone Legion"),  # as `unit` (the parametrized test above)
    ("Boulder Tank", "Marble Guard", Fraction(20, 27), "Stone Legion"),
    ("Marble Guard", "Boulder Tank @ slate", Fraction(5, 27), "Slate Brothers"),
])
def test_a_matchup_settles_a_shared_name_by_the_other_army(realm, army_a, army_b, mean, faction):
    out = run("matchup", army_a, army_b, "--format", "json")
    assert out.exit_code == 0, out.output
    [row] = json.loads(out.output)["rows"]
    assert faction in (row["attacker_faction"], row["target_faction"])
    assert row["mean_damage"] == pytest.approx(float(mean), abs=1e-12)


def test_a_matchup_settles_a_shared_name_by_its_own_army_first(realm):
    # beside Marble Guard (Marble Sons) the Boulder Tank is Stone Legion's (Sv3+), facing Warden Militia alone it is
    # the Iron Wardens' own (Sv4+): 20 lasrifle shots at it, p = 2/3 x 1/6 x 1/3 (Sv3+) or 1/2 (Sv4+), at most 12
    out = run("matchup", "Warden Militia", "Marble Guard, Boulder Tank", "--format", "json")
    assert out.exit_code == 0, out.output
    tank = [row for row in json.loads(out.output)["rows"] if row["target"] == "#2 Boulder Tank"]
    assert [(row["target_faction"], row["mean_damage"]) for row in tank] == [
        ("Stone Legion", pytest.approx(float(capped(20, Fraction(1, 27), 12)), abs=1e-12))]
    alone = json.loads(run("matchup", "Warden Militia", "Boulder Tank", "--format", "json").output)["rows"]
    assert [(row["target_faction"], row["mean_damage"]) for row in alone] == [
        ("Iron Wardens", pytest.approx(float(capped(20, Fraction(1, 18), 12)), abs=1e-12))]


def test_the_api_settles_a_shared_name_as_the_command_line_does(realm):
    pytest.importorskip("fastapi", reason="the server needs the [web] extra")
    from fastapi.testclient import TestClient

    from mathhammer_exact.web.app import create_app

    with TestClient(create_app(workers=1, time_limit=5.0)) as client:
        plan = client.post("/api/plan", json={"weapons": [{"unit": "Marble Guard"}], "targets": ["Boulder Tank"]})
        turn = client.post("/api/turn", json={"target": "Boulder Tank", "shoot": [{"unit": "Marble Guard"}],
                                              "fight": [{"weapon": "Melee A3 WS3+ S4 AP0 D1", "models": 5}],
                                              "distance": 7})
        matchup = client.post("/api/matchup", json={"army_a": {"units": ["Marble Guard"]},
                                                    "army_b": {"units": ["Boulder Tank"]}})
    assert (plan.status_code, turn.status_code, matchup.status_code) == (200, 200, 200), (plan.text, turn.text)
    for answer in (plan.json(), turn.json()):
        assert f"target note (Boulder Tank): {_SETTLED_TANK}" in json.dumps(answer)
    [row] = matchup.json()["rows"]
    assert row["target_faction"] == "Stone Legion" and row["mean_damage"] == pytest.approx(10 / 27, abs=1e-12)


@pytest.mark.parametrize(("args", "message"), [
    (["unit", "Boulder Tank", "--target", "MEQ"],
     "'Boulder Tank' is a unit of several factions (Slate Brothers, Stone Legion, Iron Wardens): write "
     "'Boulder Tank @ FACTION', e.g. 'Boulder Tank @ Slate Brothers'"),
    (["unit", "Rampart Squad", "--target", "MEQ", "--leader", "Legion Captain"],  # settled by its bodyguard alone
     "'Legion Captain' is a unit of several factions (Stone Legion, Iron Wardens): write 'Legion Captain @ FACTION'"),
    (["unit", "Rampart Squad", "--target", "Envoy Herald"],  # both equally near Stone Legion
     "'Envoy Herald' is a unit of several factions (Marble Sons, Envoys), and Rampart Squad (Stone Legion) does not "
     "decide between them"),
    (["unit", "Boulder Tank", "--target", "Old Dreadnought"],  # two pairs of one faction each
     "'Boulder Tank' is a unit of several factions (Slate Brothers, Stone Legion, Iron Wardens), and Old Dreadnought "
     "(Slate Brothers/Iron Wardens) does not decide between them"),
    (["attack", "-w", "A1 BS3+ S4 AP0 D1", "--target", "Boulder Tank"], "'Boulder Tank' is a unit of several"),
    (["survive", "Old Dreadnought"], "'Old Dreadnought' is a unit of several factions (Slate Brothers, Iron Wardens)"),
    (["show", "Envoy Herald"], "'Envoy Herald' is a unit of several factions (Marble Sons, Envoys)"),
])
def test_a_shared_name_nothing_settles_is_refused(realm, args, message):
    out = run(*args)
    assert out.exit_code == 2
    assert out.output.startswith(f"error: {message}") and out.output.count("\n") == 1


def test_a_leader_is_taken_from_its_bodyguards_faction(realm):
    found = by_name.target_unit("Ramparts", leader="Legion Captain", near=by_name.datasheet("Marble Guard"))
    assert found.label == "Rampart Squad (Stone Legion) led by Legion Captain (Stone Legion)"
    assert [(p.name, n, p.toughness) for p, n in found.target.groups] == [("Rampart", 5, 4), ("Legion Captain", 1, 4)]
    assert found.notes[0].startswith("target note (Legion Captain): the Stone Legion unit of this name, for Rampart "
                                     "Squad (Stone Legion): the same faction")


def test_a_leader_settles_its_units_shared_name(realm):
    # Old Dreadnought is Slate Brothers' and Iron Wardens'; Warden Castellan, who leads it, is Iron Wardens' alone
    refused = run("unit", "Old Dreadnought", "-t", "MEQ")
    assert refused.exit_code == 2 and "'Old Dreadnought' is a unit of several factions" in refused.output
    led = run("unit", "Old Dreadnought", "--led-by", "Warden Castellan", "-t", "MEQ").output.splitlines()
    assert led[0] == "Old Dreadnought (Iron Wardens)  ->  MEQ"
    assert ("  note: the Iron Wardens unit of this name, for Warden Castellan (Iron Wardens): the same faction; also a "
            "unit of Slate Brothers ('Old Dreadnought @ FACTION' asks for another)") in led
    # the target's Leader before the attacker: Marble Guard alone takes Slate Brothers' (a sibling's) Dreadnought
    assert run("unit", "Marble Guard", "-t", "Old Dreadnought", "--leader", "Warden Castellan").output.splitlines()[
        0] == "Marble Guard (Marble Sons)  ->  Old Dreadnought (Iron Wardens) led by Warden Castellan (Iron Wardens)"
    assert run("unit", "Marble Guard", "-t", "Old Dreadnought").output.splitlines()[0].endswith("(Slate Brothers)")


@pytest.mark.parametrize(("typed", "message"), [
    ("envoys", "'envoys' is the name of a faction (Envoys), not of a unit: name one of its units (`mathhammer "
               "datasheets --search 'envoys'` lists them)"),  # not taken for Envoy Herald, the unit holding the word
    ("iron wardens", "'iron wardens' is the name of a faction (Iron Wardens), not of a unit"),
])
def test_a_factions_name_is_no_units(realm, typed, message):
    with pytest.raises(MathhammerError) as refused:
        by_name.datasheet(typed)
    assert str(refused.value).startswith(message)


def test_a_units_name_with_squad_is_never_a_factions(realm, tmp_path):
    # a faction named as a unit is: 'Envoys Squad' (the loose form drops 'Squad') is refused as no unit, not as the
    # faction's name (a review found 'sisters of battle squads' called a faction's name)
    with pytest.raises(MathhammerError) as refused:
        by_name.datasheet("envoys squads")
    assert str(refused.value).startswith("unknown unit 'envoys squads'")


def test_words_in_front_that_name_a_faction_whose_army_has_no_such_unit_are_read_as_the_units(realm):
    # 'beast' names the Beasts, whose army fields no unit holding 'hand'; Iron Wardens' Beast Handler holds both words
    # (a trial found 'daemon prince' refused as "'Prince Yriel' is no unit of Chaos Daemons")
    found = by_name.datasheet("beast hand")
    assert (found.name, found.faction) == ("Beast Handler", "Iron Wardens")
    assert "'beast hand' read as Beast Handler (the one unit whose name holds these words)" in found.notes


def test_compared_scenarios_take_the_points_of_the_units_chosen(realm):
    out = run("compare", "-s", "unit 'Marble Guard' -t 'Boulder Tank'", "-s", "unit 'Marble Guard' -t 'Boulder Tank @ "
              "iron'", "--json")
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["rows"]
    assert [(r["points"], r["target_points"]) for r in rows] == [(95, 150), (95, 140)]  # the two tanks' points


def test_every_title_names_the_factions(realm):
    assert run("attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "Boulder Tank @ iron").output.splitlines()[0] == \
        "1 x [A1 BS3+ S4 AP0 D1]  ->  Boulder Tank (Iron Wardens)"
    assert run("survive", "Ramparts", "-a", "lasguns").output.splitlines()[0] == \
        "Rampart Squad (Stone Legion) against the standard attackers"
    assert run("unit", "Marble Guard", "-t", "meq").output.splitlines()[0] == "Marble Guard (Marble Sons)  ->  MEQ"
    assert run("turn", "-t", "Carnifex", "-f", "5x Melee A3 WS3+ S4 AP0 D1", "-d", "7").output.splitlines()[0] == \
        "charge 7\", then 5 x [Melee A3 WS3+ S4 AP0 D1]  ->  Carnifexes (Iron Wardens)"


# --------------------------------------------------------------------- names of a parent and its chapters, and misses
def test_a_datasheet_of_a_parent_and_its_chapters_is_the_parents(realm):
    # Cairn Walker: Stone Legion's and Slate Brothers' (a part of Stone Legion) alone; a standard target settles
    # nothing, so the parent's is taken, and the header says so and how to ask for the chapter's
    out = run("unit", "Cairn Walker", "--target", "MEQ")
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == "Cairn Walker (Stone Legion)  ->  MEQ"
    assert ("the Stone Legion unit of this name: Slate Brothers is a part of Stone Legion and prints it too ('Cairn "
            "Walker @ Slate Brothers' asks for theirs)") in out.output
    assert by_name.datasheet("Cairn Walker @ Slate Brothers").faction == "Slate Brothers"
    # the other unit's faction still settles it first
    assert by_name.datasheet("Cairn Walker", near="Old Dreadnought @ slate").faction == "Slate Brothers"


def test_the_one_unit_whose_name_holds_the_words_typed_is_taken_and_said(realm):
    sheet = by_name.datasheet("militia")  # Warden Militia, the only name with that word
    assert (sheet.name, sheet.faction) == ("Warden Militia", "Iron Wardens")
    assert "'militia' read as Warden Militia (the one unit whose name holds these words)" in sheet.notes
    assert by_name.datasheet("cairn").name == "Cairn Walker"


def test_a_word_one_unit_alone_holds_names_it_however_many_words_its_name_has_besides(tmp_path, monkeypatch):
    # a trial found 'sunforge' (Crisis Sunforge Battlesuits) and 'hekaton' (Hekaton Land Fortress) refused, each the
    # one name that holds the word: two words left over were too many. The Grove Beast as 'Elder Grove Beast':
    checkout = tmp_path / "checkout"
    shutil.copytree(CHECKOUT, checkout)
    for cat in checkout.glob("*.cat"):
        text = cat.read_text(encoding="utf-8").replace('name="Grove Beast"', 'name="Elder Grove Beast"')
        if "Slate Brothers" in cat.name:  # and the Slate Brothers' Old Dreadnought as 'Brothers Old Dreadnought'
            text = text.replace('name="Old Dreadnought"', 'name="Brothers Old Dreadnought"')
        cat.write_text(text, encoding="utf-8")
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(checkout)
    sheet = by_name.datasheet("grove")
    assert sheet.name == "Elder Grove Beast"
    assert "'grove' read as Elder Grove Beast (the one unit whose name holds these words)" in sheet.notes
    # not a part of a word ('grov'), nor a word of the unit's faction ('brothers' for the Slate Brothers' Brothers Old
    # Dreadnought, as a review found 'angels' taken for a Blood Angels Captain)
    assert by_name.datasheet("brothers old").name == "Brothers Old Dreadnought"  # one word left: as before
    for typed in ("grov", "brothers"):
        with pytest.raises(MathhammerError, match=f"^unknown unit '{typed}'"):
            by_name.datasheet(typed)


@pytest.mark.parametrize(("typed", "message"), [
    # several names hold the letters: each is offered, in order; one spelt alike
    ("ar", "unknown unit 'ar' (did you mean one of 'Carnifexes', 'Marble Guard', 'Rampart Squad', 'Warden Castellan', "
            "'Warden Militia'?)"),
    ("Bolder Tank", "unknown unit 'Bolder Tank' (did you mean 'Boulder Tank'?)"),
    # nothing close: what the index holds, not the two datasheets of rules/
    ("zzyzx", "unknown unit 'zzyzx': none of the 19 units of the 10e index has that name or its words"),
    ("", "no unit named: give a unit's name"),
    ("インターセッサー", "unknown unit 'インターセッサー': the data names units in Latin letters: give a unit's name"),
    # an army list's file without a unit of it (a trial found only "unknown unit 'um.rosz'"): said without opening it
    ("army.rosz", "'army.rosz' names an army list, not one of its units: add '#' and the unit's number or name, e.g. "
                  "'army.rosz#1'"),
])
def test_a_miss_names_the_indexed_units_it_may_mean(realm, typed, message):
    with pytest.raises(MathhammerError) as caught:
        by_name.datasheet(typed)
    assert str(caught.value).startswith(message)
    assert "Incursor Squad" not in str(caught.value)


@pytest.mark.parametrize("typed", ["", "  "])
def test_no_target_named_is_said_so(realm, typed):
    # a trial's empty target read "unknown unit '' (did you mean one of ... or 1395 more?)"
    with pytest.raises(MathhammerError, match="^no target named: give a unit's name"):
        by_name.target_unit(typed)


def test_a_miss_near_a_name_of_rules_says_so_with_an_index(realm):
    # the index has nothing close to 'MEQQ'; the standard target MEQ is (an index used to hide it)
    out = run("attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "MEQQ")
    assert (out.exit_code, out.output) == (2, "error: unknown unit 'MEQQ' (did you mean 'MEQ'?)\n")
    out = run("unit", "Tempestus Comand Squad", "-t", "MEQ")
    assert out.exit_code == 2 and "did you mean 'Tempestus Command Squad'?" in out.output


def test_a_miss_names_the_catalogues_the_checkout_lacks(tmp_path, monkeypatch):
    # Marble Sons' catalogue links Stone Legion's, which this copy of the checkout lacks: a Stone Legion unit cannot be
    # found, and the miss says why it may be
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for path in CHECKOUT.iterdir():
        if path.name != "Realm - Adamant Host - Stone Legion.cat":
            (checkout / path.name).write_bytes(path.read_bytes())
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(checkout)
    with pytest.raises(MathhammerError) as caught:
        by_name.datasheet("Rampart Squad")
    assert str(caught.value).endswith("; your 10e checkout lacks catalogues that others link (Realm - Adamant Host - "
                                      "Stone Legion): a unit of theirs is not indexed")


# --------------------------------------------------------------------- names typed apart, [Legends], nearest first
@pytest.fixture
def clans(tmp_path, monkeypatch):
    """tests/fixtures/bsdata-names: K'Tor Clans, whose README says what each unit is for."""
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(CHECKOUT.parent / "bsdata-names")


@pytest.mark.parametrize("typed", ["gate keeper ul vorn", "Gatekeeper Ulvorn", "gate-keeper ul'vorn"])
def test_words_a_names_punctuation_joins_may_be_typed_apart_or_together(clans, typed):
    assert by_name.datasheet(typed).name == "Gate-Keeper Ul'Vorn"


def test_a_legends_unit_is_not_taken_for_words_a_unit_of_today_also_holds(clans):
    # 'sentry': Sentry Guns [Legends] holds it with one word more, Sentry Heavy Walkers with two; the player may
    # mean either, so neither is taken, and the unit of today is offered first
    with pytest.raises(MathhammerError) as caught:
        by_name.datasheet("sentry")
    assert str(caught.value) == ("unknown unit 'sentry' (did you mean one of 'Sentry Heavy Walkers', "
                                 "'Sentry Guns [Legends]'?)")
    assert by_name.datasheet("sentry guns").name == "Sentry Guns [Legends]"  # named: taken, as written


def test_a_search_lists_the_nearest_names_first(clans):
    # 'ktor': the faction's name typed without its apostrophe; the name given whole before the longer one,
    # and a unit of today before a [Legends] one whatever their words
    assert run("datasheets", "--search", "ktor pikemen").output.splitlines() == [
        "Pikemen (K'Tor Clans)", "Beast Riding Pikemen (K'Tor Clans)"]
    assert run("datasheets", "--search", "sentry").output.splitlines() == [
        "Sentry Heavy Walkers (K'Tor Clans)", "Sentry Guns [Legends] (K'Tor Clans)"]
    with pytest.raises(MathhammerError, match=r"did you mean one of 'Sentry Heavy Walkers', 'Sentry Guns"):
        by_name.datasheet("ktor sentry")  # the faction in front, then the words


def test_datasheets_searches_the_edition_asked_for(clans):
    assert run("datasheets", "--search", "pikemen", "--edition", "10e").output.startswith("Pikemen (K'Tor Clans)")
    out = run("datasheets", "--search", "pikemen", "--edition", "11e")
    assert (out.exit_code, out.output) == (0, "no unit's name has every word of 'pikemen' (the 11th edition's "
                                              "data is not indexed: `mathhammer data add PATH`)\n")
    assert run("datasheets", "--edition", "11e").output.splitlines()[:2] == ["Datasheets:",
                                                                             "  none of the 11th edition in rules/ "
                                                                             "(its indexed units: --search TEXT)"]


def test_a_factions_name_in_front_finds_its_own_unit_that_holds_the_words(clans):
    # 'heavy walkers' is Vorn Marches' unit, which K'Tor armies do not field; K'Tor's own unit holding the words is
    assert by_name.datasheet("ktor clans heavy walkers").name == "Sentry Heavy Walkers"
    found = by_name.datasheet("heavy walkers @ ktor")
    assert (found.name, found.faction) == ("Sentry Heavy Walkers", "K'Tor Clans")
    assert "'heavy walkers' read as Sentry Heavy Walkers (the one unit a K'Tor Clans army fields whose name holds " \
           "these words)" in found.notes
    assert by_name.datasheet("heavy walkers").faction == "Vorn Marches"  # no faction named: the name as written


def test_a_name_several_factions_use_lists_the_units_its_loose_form_names_too(clans):
    with pytest.raises(MathhammerError, match="^'Gate Guards' is a unit of several factions \\(Ashen Reach, Vorn "
                                              "Marches, K'Tor Clans\\): write 'Gate Guards @ FACTION'"):
        by_name.datasheet("gate guards")
    assert by_name.datasheet("gate guards @ ktor clans").name == "Gate Guard"
    assert by_name.datasheet("gate guard").faction == "K'Tor Clans"  # as written, one faction's: taken


def test_knives_are_a_knifes_plural():
    assert loose("Fireknives") == loose("Fireknife") == "fireknife"
    assert loose("Hives") == "hive"


def test_a_word_that_begins_several_names_is_the_one_name_holding_it_whole():
    # a trial found 'wraiths' refused: Wraithguard and Wraithblades begin with the word, Canoptek Wraiths holds it
    lib = load.library()
    base = next(iter(lib.sheets.values()))
    sheets = {n.lower(): attrs.evolve(base, name=n) for n in ("Canoptek Wraiths", "Wraithguard", "Wraithblades")}
    found = lookup.named("wraiths", sheets, lib.names, base.edition)
    assert [o.name for o in found.options] == ["Canoptek Wraiths"]
    assert found.reading == ("'wraiths' read as Canoptek Wraiths (the one unit whose name holds these words)",)
    del sheets["canoptek wraiths"]  # two names that begin with it and none holding it whole: refused, as before
    assert not lookup.named("wraiths", sheets, lib.names, base.edition).options


def test_a_name_holding_the_words_is_not_the_one_where_a_longer_name_holds_them_as_well():
    # a trial found 'acolytes' read as Acolyte Iconward, "the one unit whose name holds these words", where Acolyte
    # Hybrids with Autopistols holds them too (with more words left): refused, naming both, as the player may mean
    # either
    lib = load.library()
    base = next(iter(lib.sheets.values()))
    other = "Sand Host" if base.faction != "Sand Host" else "Gravel Host"
    names = {"Acolyte Iconward": base.faction, "Acolyte Hybrids with Autopistols": base.faction,
             "Acolyte Hybrids with Hand Flamers": base.faction, "Rogal Dorn Commander": base.faction,
             "Rogal Dorn Battle Tank": other, "Canoptek Wraiths": base.faction, "Wraithguard": base.faction,
             "Nemesis Dreadknight": base.faction, "Grand Master in Nemesis Dreadknight": base.faction,
             "Ripper Swarms": base.faction, "Ripper Swarms (Parasite of Mortrex)": base.faction,
             "Thunderhawk Gunship": base.faction, "Grey Knights Thunderhawk Gunship": base.faction}
    sheets = {n.lower(): attrs.evolve(base, name=n, faction=f) for n, f in names.items()}

    def read(typed: str) -> list[str]:
        return [o.name for o in lookup.named(typed, sheets, lib.names, base.edition).options]

    with pytest.raises(MathhammerError, match=r"^'acolytes' could be Acolyte Iconward, Acolyte Hybrids with "
                                              r"Autopistols or Acolyte Hybrids with Hand Flamers, all holding these "
                                              r"words: write more of the unit's name$"):
        read("acolytes")
    for typed in ("acolyte hybrids", "rogal dorn"):
        with pytest.raises(MathhammerError, match=f"^'{typed}' could be "):
            read(typed)
    # where the name holds them as whole words and the longer one does not, it is still the one; so where the longer
    # name holds this one's (a model in it, a faction's in front) or is a variant in brackets
    assert read("wraiths") == ["Canoptek Wraiths"]
    assert read("dreadknight") == ["Nemesis Dreadknight"]
    assert read("thunderhawk") == ["Thunderhawk Gunship"]
    assert read("rippers") == ["Ripper Swarms"]
    # the faction named settles it: only the units its army fields count
    assert read(f"rogal dorn @ {base.faction}") == ["Rogal Dorn Commander"]
    del sheets["acolyte hybrids with autopistols"], sheets["acolyte hybrids with hand flamers"]
    assert read("acolytes") == ["Acolyte Iconward"]


def test_a_chapters_name_in_front_of_a_word_its_own_unit_and_its_parents_hold_is_refused_naming_both(realm):
    # a trial typed 'space wolves terminators' and was given the Space Marines' Terminator Squad, which Space Wolves
    # armies field, where they have Wolf Guard Terminators of their own. As if Slate Brothers (a chapter of Stone
    # Legion) had a Slate Rampart Guard:
    rampart = by_name.datasheet("Rampart Squad")
    shipped = {"Slate Rampart Guard": attrs.evolve(rampart, name="Slate Rampart Guard", faction="Slate Brothers",
                                                   points={})}
    names = load.library(None).names
    with pytest.raises(MathhammerError) as refused:
        lookup.named("slate brothers rampart", shipped, names)
    assert str(refused.value) == ("'slate brothers rampart' could be Slate Rampart Guard (Slate Brothers) or Rampart "
                                  "Squad (Stone Legion, which Slate Brothers armies field): write the unit's name")
    assert lookup.named("marble sons rampart", shipped, names).options[0].faction == "Stone Legion"  # none of its own
    assert lookup.named("slate brothers rampart squad", shipped, names).options[0].faction == "Stone Legion"  # whole
    two = {**shipped, "Slate Rampart Wall": attrs.evolve(shipped["Slate Rampart Guard"], name="Slate Rampart Wall")}
    with pytest.raises(MathhammerError, match=r"^'slate brothers rampart' could be Slate Rampart Guard, Slate Rampart "
                                              r"Wall \(Slate Brothers\) or Rampart Squad \(Stone Legion, which"):
        lookup.named("slate brothers rampart", two, names)  # (a review: two of its own were not refused)

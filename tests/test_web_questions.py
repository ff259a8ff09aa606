"""The API's decision questions (need, plan, turn, survive), the player's units (search, a datasheet, an army
list sent with a question) and their examples: each answer is the command's `--json`, refusals are one line."""

from __future__ import annotations

import base64
import gzip
from fractions import Fraction
from pathlib import Path

import pytest

from mathhammer_exact.units import by_name

pytest.importorskip("fastapi", reason="the server needs the [web] extra")

from fastapi.testclient import TestClient  # noqa: E402

from mathhammer_exact.web import questions, units  # noqa: E402
from mathhammer_exact.web.app import create_app  # noqa: E402

from .test_web_api import cli_json as command_json  # noqa: E402
from .test_web_api import post  # noqa: E402

ARMY = Path(__file__).parent / "fixtures" / "army.ros"
SENT = base64.b64encode(ARMY.read_bytes()).decode()


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(workers=1, time_limit=5.0)) as client:
        yield client


def cli_json(*args: str) -> dict:
    return command_json(list(args))


# --------------------------------------------------------------------- how many
def test_attack_need_pins_the_hand_derived_answer_and_gives_the_cli_json(client):
    # one attack destroys a W1 model with no save with 1/6 (Lethal Hits) + 4/6 * 1/2 = 1/2, so P(at least 2 of 2)
    # is P(Binomial(n, 1/2) >= 2): 1/4 with 2 models, 1/2 with 3
    body = {"weapons": [{"weapon": "A1 BS2+ S4 AP-6 D1 [LETHAL HITS]"}], "target": "T4 Sv7+ W1 x2", "need": "1/2",
            "exact": True}
    data = post(client, "/api/attack/need", body)
    assert data["need"] == {"models": 3, "at_least": 2, "wanted": "1/2", "p": "1/2", "p_below": "1/4"}
    assert data == cli_json("attack", "-w", "A1 BS2+ S4 AP-6 D1 [LETHAL HITS]", "-t", "T4 Sv7+ W1 x2", "--need",
                            "1/2", "--exact")
    assert data["title"] == "3 x [A1 BS2+ S4 AP-6 D1 [LETHAL HITS]]  ->  T4 Sv7+ W1 x2"
    assert post(client, "/api/attack/need", {**body, "need": 0.5}) == data  # 0.5 is exactly 1/2
    questions.AttackNeedAnswer.model_validate(data)


def test_attack_need_of_one_of_several_weapons(client):
    body = {"weapons": [{"weapon": "A2 BS3+ S4 AP-1 D1", "models": 5}, {"weapon": "A1 BS3+ S9 AP-3 D=3"}],
            "target": "MEQ", "need": "50%", "at_least": 3, "weapon": 2, "situation": {"cover": True}}
    assert post(client, "/api/attack/need", body) == cli_json(
        "attack", "-w", "5x A2 BS3+ S4 AP-1 D1", "-w", "?x A1 BS3+ S9 AP-3 D=3", "-t", "MEQ", "--need", "50%",
        "--at-least", "3", "--cover")


@pytest.mark.parametrize(("change", "message"), [
    ({"weapon": None}, 'with several weapons, "weapon" says whose models "need" looks for (numbered from 1)'),
    ({"weapon": 3}, '"weapon" numbers the weapons from 1 to 2, got 3'),
    ({"weapon": 1}, '"need" looks for the models of weapon 1: leave out its "models"'),
    ({"points": 100}, '"points", "target_points" and "order" go with a single attack, not with "need"'),
    ({"need": "nine"}, "\"need\" takes a chance such as 0.9, 9/10 or 90%, got 'nine'"),
    ({"need": 1.5}, "\"need\" takes a chance above 0 and at most 1, got '1.5'"),
])
def test_attack_need_refusals_name_the_request_keys(client, change, message):
    body = {"weapons": [{"weapon": "A2 BS3+ S4 AP-1 D1", "models": 5}, {"weapon": "A1 BS3+ S9 AP-3 D=3"}],
            "target": "MEQ", "need": "50%", "weapon": 2, **change}
    assert post(client, "/api/attack/need", body, 422) == {"error": message}


def test_unit_need_gives_the_cli_json(client):
    body = {"attacker": "Incursor Squad", "target": "MEQ", "need": 0.6, "at_least": 1}
    data = post(client, "/api/unit/need", body)
    assert data == cli_json("unit", "Incursor Squad", "-t", "MEQ", "--need", "0.6", "--at-least", "1")
    assert data["need"]["models"] == 10 and data["firings"][0]["models"] == 10
    questions.UnitNeedAnswer.model_validate(data)
    assert post(client, "/api/unit/need", {**body, "size": 5}, 422) == {
        "error": '"need" finds the unit\'s size: leave out "size"'}
    # no size reaches it: an answer (200), not a refusal (a trial found 422, the status of a bad request)
    beyond = post(client, "/api/unit/need", {**body, "need": 0.999999})
    assert beyond == cli_json("unit", "Incursor Squad", "-t", "MEQ", "--need", "0.999999", "--at-least", "1")
    assert (beyond["need"]["models"], beyond["need"]["largest"]) == (None, 10)
    questions.UnitNeedAnswer.model_validate(beyond)


# --------------------------------------------------------------------- plan, turn, survive
def test_plan_with_a_unit_by_name_and_two_targets_gives_the_cli_json(client):
    body = {"weapons": [{"unit": "Incursor Squad"}, {"weapon": "A1 BS3+ S9 AP-3 D=3"}],
            "targets": ["MEQ", "T4 Sv4+ W1 x3"], "goal": "kills", "exact": True}
    data = post(client, "/api/plan", body)
    assert data == cli_json("plan", "-w", "Incursor Squad", "-w", "A1 BS3+ S9 AP-3 D=3", "-t", "MEQ", "-t",
                            "T4 Sv4+ W1 x3", "--goal", "kills", "--exact")
    assert data["weapons"] == ["5 x [Incursor Squad: occulus bolt carbine]", "1 x [A1 BS3+ S9 AP-3 D=3]"]
    assert len(data["rows"]) == 6  # both at one target (2 orders) or the other (2), or one at each (2 ways)
    questions.PlanAnswer.model_validate(data)


def test_turn_with_overwatch_and_a_unit_by_name_gives_the_cli_json(client):
    body = {"target": "MEQ", "shoot": [{"weapon": "A2 BS3+ S4 AP-1 D1", "models": 5}],
            "fight": [{"unit": "Incursor Squad"}], "distance": 7, "charge_reroll": True,
            "overwatch": [{"weapon": "A1 BS6+ S4 AP0 D1"}], "charger": "T4 Sv3+ W2", "situation": {"cover": True}}
    data = post(client, "/api/turn", body)
    assert data == cli_json("turn", "-t", "MEQ", "-s", "5x A2 BS3+ S4 AP-1 D1", "-f", "Incursor Squad", "-d", "7",
                            "--charge-reroll", "--fire-overwatch", "A1 BS6+ S4 AP0 D1", "--charger", "T4 Sv3+ W2",
                            "--cover")
    # 2D6 >= 7 is 21/36 = 7/12, re-rolled when it fails: 1 - (5/12)^2 = 119/144; a float where the others are (a
    # trial found it the one string of a float answer)
    assert Fraction(post(client, "/api/turn", {**body, "exact": True})["p_charge"]) == Fraction(119, 144)
    assert data["p_charge"] == float(Fraction(119, 144)) and isinstance(data["p_destroyed"], float)
    questions.TurnAnswer.model_validate(data)
    mixed = {**body, "overwatch": [{"weapon": "A1 BS6+ S4 AP0 D1", "models": 5}, {"weapon": "A1 BS6+ S5 AP0 D1"}]}
    assert post(client, "/api/turn", mixed, 422)["error"].startswith('give every "overwatch" weapon its "models"')
    assert post(client, "/api/turn", {**body, "overwatch": []}, 422) == {"error": '"charger" goes with "overwatch"'}


def test_turn_with_named_rules_gives_the_cli_json(client):
    body = {"target": "MEQ", "shoot": [{"unit": "Tempestus Command Squad"}], "fight": [{"unit": "Tempestus Command "
                                                                                              "Squad"}],
            "distance": 8, "with": ["take-aim"], "exact": True}
    data = post(client, "/api/turn", body)
    assert data == cli_json("turn", "-t", "MEQ", "-s", "Tempestus Command Squad", "-f", "Tempestus Command Squad",
                            "-d", "8", "--with", "take-aim", "--exact")
    assert "\"with\" 'take-aim': applied in the shooting only" in data["header"]  # its keys, not the options


def test_survive_gives_the_cli_json(client):
    data = post(client, "/api/survive", {"unit": "Incursor Squad", "at_least": 2, "exact": True})
    assert data == cli_json("survive", "Incursor Squad", "--at-least", "2", "--exact")
    assert all(row["k"] == 2 for row in data["rows"]) and data["title"].endswith("against the standard attackers")
    questions.SurviveAnswer.model_validate(data)
    some = [a["name"] for a in client.get("/api/catalogue").json()["attackers"][:2]]
    chosen = post(client, "/api/survive", {"unit": "MEQ", "attackers": some})
    assert chosen == cli_json("survive", "MEQ", *(f"--attacker={name}" for name in some))
    assert len(chosen["rows"]) == 2
    # its edition, as the CLI's --edition (a trial found the 11th's units refused with advice to give a key that the
    # endpoint refused); any other situation refused, each attacker having its own
    eleventh = post(client, "/api/survive", {"unit": "MEQ", "attackers": some, "situation": {"edition": "11e"}})
    assert eleventh == cli_json("survive", "MEQ", "--edition", "11e", *(f"--attacker={name}" for name in some))
    assert any("11th edition" in line for line in eleventh["header"])
    assert post(client, "/api/survive", {"unit": "MEQ", "situation": {"cover": True}}, 422) == {
        "error": '"situation.cover": survive takes its edition alone (each standard attacker attacks in its own '
                 "situation)"}


# --------------------------------------------------------------------- the player's units
def test_an_army_list_sent_is_read_as_the_roster_command_reads_the_file(client):
    data = post(client, "/api/army", {"army": SENT})
    assert data == cli_json("roster", str(ARMY))
    units.ArmyAnswer.model_validate(data)
    assert post(client, "/api/army", {"army": base64.b64encode(gzip.compress(ARMY.read_bytes())).decode()}) == data


def test_units_of_the_army_list_sent_attack_as_from_the_file(client):
    body = {"attacker": "#1", "target": "#Scree Walker", "profiles": ["boulder"], "army": SENT, "exact": True}
    data = post(client, "/api/unit", body)
    assert data == cli_json("unit", f"{ARMY}#1", "--target", f"{ARMY}#Scree Walker", "--profile", "boulder",
                            "--exact")
    assert data["title"] == "Gravel Wardens (Gravel Host)  ->  Rockbiter (Gravel Host)"
    compared = post(client, "/api/compare", {"scenarios": [{"unit": {k: v for k, v in body.items()
                                                                     if k not in ("army", "exact")}}],
                                             "army": SENT, "exact": True})
    assert compared["models_destroyed_1"] == data["models_destroyed"]


@pytest.mark.parametrize(("path", "body", "message"), [
    ("/api/unit", {"attacker": "#1", "target": "MEQ"},
     "'#1' names a unit of an army list, and none came with the question (send the list with it; on the command "
     "line, write its file before the '#': FILE.rosz#1)"),
    ("/api/unit", {"attacker": "#9", "target": "MEQ", "army": SENT},
     "the army list: no unit #9 (units: 1: Gravel Wardens; 2: Warden Captain; 3: Rockbiter)"),
    ("/api/unit", {"attacker": "#1", "target": "MEQ", "army": "not base64!"},
     "army: not base64 (Only base64 data is allowed)"),
    ("/api/army", {"army": base64.b64encode(b"<catalogue/>").decode()},
     "the army list: not a BattleScribe roster file (root element 'catalogue')"),
    ("/api/compare", {"scenarios": [{"unit": {"attacker": "#1", "target": "MEQ", "army": SENT}}]},
     'scenarios.0: "army" goes on the comparison, not in a scenario'),
])
def test_army_list_refusals_are_one_line(client, path, body, message):
    assert post(client, path, body, 422) == {"error": message}


def test_units_are_found_as_players_type_them(client):
    found = client.get("/api/units", params={"q": "incursors"}).json()
    assert found["units"][0] == {"name": "Incursor Squad", "faction": by_name.datasheet("Incursor Squad").faction,
                                 "points": {}}
    units.FoundUnits.model_validate(found)
    names = [u["name"] for u in client.get("/api/units", params={"q": "squad", "limit": 1}).json()["units"]]
    assert len(names) == 1 and client.get("/api/units", params={"q": "squad", "limit": 1}).json()["more"]
    assert client.get("/api/units", params={"q": "zzz"}).json() == {"units": [], "more": False, "elsewhere": []}
    assert client.get("/api/units", params={"q": "squad", "limit": 0}).status_code == 422
    # an unknown parameter is refused, as a request's unknown key is (a trial's 'foo=1' was ignored; a review found
    # /api/catalogue and /api/situation taking any)
    assert client.get("/api/units", params={"q": "squad", "lmit": 1}).json() == {
        "error": "lmit: unknown query parameter; allowed: q, limit, edition"}
    for path in ("/api/catalogue", "/api/situation"):
        assert client.get(path, params={"edition": "11e"}).json() == {
            "error": "edition: unknown query parameter; it takes none"}


def test_a_datasheet_gives_the_sizes_and_wargear_its_controls_offer(client):
    data = post(client, "/api/datasheet", {"name": "Tempestus Command Squad"})
    sheet = by_name.datasheet("Tempestus Command Squad")
    assert data["sizes"] == list(sheet.allowed_sizes()) and data["choices"] == sorted(sheet.choices())
    assert {m["name"]: m["count"] for m in data["models"]} == sheet.counts()
    units.DatasheetAnswer.model_validate(data)
    walker = post(client, "/api/datasheet", {"name": "#3", "army": SENT})
    assert (walker["name"], walker["sizes"], walker["points"]) == ("Rockbiter", [1], {"1": 120})


def test_every_example_in_the_description_is_answered(client):
    # docs/server.md: each request schema has an example body (a trial found ten without); an army list's is a file
    spec = client.get("/openapi.json").json()
    without = []
    for path, methods in spec["paths"].items():
        body = methods.get("post", {}).get("requestBody", {}).get("content", {}).get("application/json", {})
        if not body:
            continue
        name = body.get("schema", {}).get("$ref", "").rsplit("/", 1)[-1]
        examples = spec["components"]["schemas"].get(name, {}).get("examples", [])
        without += [path] if not examples else []
        for example in examples:
            post(client, path, example)
    assert without == ["/api/army"]


@pytest.mark.parametrize(("path", "body"), [
    ("/api/plan", {"weapons": [{"unit": "Incursor Squad"}], "targets": ["MEQ"]}),
    ("/api/turn", {"target": "MEQ", "shoot": [{"unit": "Incursor Squad"}], "fight": [{"unit": "Incursor Squad"}],
                   "distance": 7}),
    ("/api/unit", {"attacker": "Incursor Squad", "target": "MEQ"}),
    ("/api/compare", {"scenarios": [{"unit": {"attacker": "Incursor Squad", "target": "MEQ"}}]}),
])
def test_every_key_an_answer_names_is_one_its_request_has_or_says_whose(client, path, body):
    # a review found a plan's answer naming "with", and a survive's "target_loadout", keys those requests have not
    import re

    from mathhammer_exact.web.keys import request_keys
    from mathhammer_exact.web.schemas import CompareQuery, UnitQuery

    requests = {"/api/plan": questions.PlanQuery, "/api/turn": questions.TurnQuery, "/api/unit": UnitQuery,
                "/api/compare": CompareQuery}
    keys = request_keys(requests[path])
    header = post(client, path, body)["header"]
    named = [(m[1], line[m.end():]) for line in header for m in re.finditer(r'"([a-z_]+)[".]', line)]
    assert named  # the unit's Oath of Moment, given with "with"
    for key, after in named:
        assert key in keys or after.lstrip('"').startswith(" (of `POST /api/unit`)"), (key, path)


def test_a_line_that_says_whose_options_it_names_is_not_told_twice():
    # a trial read '"with" (of POST /api/unit) 'Waaagh!' (of `POST /api/unit`, a unit attacking it)' in a survive
    from mathhammer_exact.web.keys import in_keys

    line = "not applied: X; --with 'X' (of `mathhammer unit`, a unit attacking it) assumes it"
    assert in_keys(line, questions.SurviveQuery) == ("not applied: X; \"with\" 'X' (of `POST /api/unit`, a unit "
                                                    "attacking it) assumes it")
    assert in_keys("not applied: X; --with 'X' assumes it", questions.SurviveQuery) == \
        "not applied: X; \"with\" (of `POST /api/unit`) 'X' assumes it"
    assert in_keys("not applied: X; --with 'X' assumes it", questions.PlanQuery) == \
        "not applied: X; \"with\" 'X' assumes it"  # a plan takes it too now (a trial found it pointed elsewhere)

"""The matchup question over the API: army against army, its answer the command's `matchup --format json` for
the same armies (by name, an army list sent with the question, or units of it by number), each cell the
/api/unit answer for its pair, refusals in one line, and the server's limits."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mathhammer_exact.cli import cli
from mathhammer_exact.engine import limits
from mathhammer_exact.errors import MathhammerError

pytest.importorskip("fastapi", reason="the server needs the [web] extra")
from fastapi.testclient import TestClient  # noqa: E402

from mathhammer_exact.web import answers  # noqa: E402
from mathhammer_exact.web.app import create_app  # noqa: E402
from mathhammer_exact.web.matchups import MatchupAnswer, MatchupQuery  # noqa: E402

from .test_web_api import post  # noqa: E402

ARMY = Path(__file__).parent / "fixtures" / "army.ros"
SENT = base64.b64encode(ARMY.read_bytes()).decode()
MINE = ["Incursor Squad x10", "Tempestus Command Squad"]
THEIRS = ["Tempestus Command Squad", "Incursor Squad"]


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(workers=1, time_limit=3.0)) as client:
        yield client


def command(*args: str) -> dict:
    out = CliRunner().invoke(cli, ["matchup", *args, "--format", "json"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def test_armies_by_name_give_the_commands_json(client):
    body = {"army_a": {"units": MINE}, "army_b": {"units": THEIRS}, "phase": "both", "both": True,
            "situation": {"cover": True, "reroll_hits": "ones"}}
    data = post(client, "/api/matchup", body)
    assert data == command(", ".join(MINE), ", ".join(THEIRS), "--phase", "both", "--both", "--cover",
                           "--reroll-hits", "ones")
    MatchupAnswer.model_validate(data)
    assert len(data["rows"]) == 2 * 2 * 2 * 2  # units x units x phases x directions
    assert [r["army"] for r in data["rows"]] == ["army A"] * 8 + ["army B"] * 8
    assert data["assumptions"][-3:] == ["situation: target has the Benefit of Cover",  # (no header's indent: a trial)
                                        "rolls: re-roll hit rolls of 1", "rules: 10th edition, current printing"]


def test_each_cell_is_the_unit_answer_for_its_pair(client):
    data = post(client, "/api/matchup", {"army_a": {"units": MINE}, "army_b": {"units": THEIRS}, "phase": "fight"})
    for row in data["rows"]:
        attacker, target = (MINE + THEIRS)[int(row["attacker"][1]) - 1], THEIRS[int(row["target"][1]) - 1]
        name, _, size = attacker.partition(" x")
        unit = {"attacker": name, "target": target, "melee": True, **({"size": int(size)} if size else {})}
        answer = post(client, "/api/unit", unit)
        assert row["mean_damage"] == answer["damage"]["mean"]
        assert row["mean_models_destroyed"] == answer["models_destroyed"]["mean"]
        assert row["p_destroyed"] == answer["p_destroyed"]
        assert row["phase"] == "fight" and row["reason"] is None


def test_an_army_list_sent_gives_the_commands_json_for_its_file(client):
    data = post(client, "/api/matchup", {"army_a": {"army": SENT}, "army_b": {"units": ["Incursor Squad"]}})
    assert data == command(str(ARMY), "Incursor Squad")
    assert [r["attacker"] for r in data["rows"]] == ["#1 Gravel Wardens", "#2 Warden Captain", "#3 Rockbiter"]
    # units of the list by number, in the order given, on both sides (each side its own list)
    picked = post(client, "/api/matchup", {"army_a": {"army": SENT, "units": ["#3", "#1"], "name": "army A"},
                                           "army_b": {"army": SENT, "units": ["#2"], "name": "army B"}})
    assert picked == command(f"{ARMY}#3, {ARMY}#1", f"{ARMY}#2")
    assert [r["attacker"] for r in picked["rows"]] == ["#1 Rockbiter", "#2 Gravel Wardens"]


@pytest.mark.parametrize(("body", "message"), [
    ({"army_a": {}, "army_b": {"units": THEIRS}},
     'army_a: give the army\'s "units" by name, or its army list as "army" (or both: its units \'#NUMBER\' of the '
     "list)"),
    ({"army_a": {"units": ["#1"]}, "army_b": {"units": THEIRS}},
     "'#1' names a unit of an army list, and none came with the question (send the list with it; on the command "
     "line, write its file before the '#': FILE.rosz#1)"),
    ({"army_a": {"units": ["Incursor Squad x7"]}, "army_b": {"units": THEIRS}},
     "Incursor Squad comes in units of 5 or 10 models, not 7"),
    ({"army_a": {"units": ["Incursor Squad"] * 31}, "army_b": {"units": THEIRS}},
     "army_a.units: List should have at most 30 items after validation, not 31"),
    ({"army_a": {"units": MINE}, "army_b": {"units": THEIRS}, "exact": True}, "exact: Extra inputs are not permitted"),
    ({"army_a": {"units": MINE}, "army_b": {"units": THEIRS}, "phase": "melee"},
     "phase: Input should be 'shooting', 'fight' or 'both'"),
])
def test_bad_matchups_are_refused_in_one_line(client, body, message):
    assert post(client, "/api/matchup", body, 422) == {"error": message}


@pytest.mark.parametrize("name", ["/etc/passwd", "army.ros#1", "army.rosz", "..\\rules", "#/etc/passwd"])
def test_no_unit_name_is_read_as_a_file(client, name):
    error = post(client, "/api/matchup", {"army_a": {"units": [name]}, "army_b": {"units": THEIRS}}, 422)["error"]
    assert error.startswith("army_a.units.0: the server reads no files: send the army list with the question")


def test_a_name_like_a_text_file_of_names_is_a_name(tmp_path, monkeypatch):
    """The command reads ARMY.txt as a file of unit names; the server looks it up as one unit's name, even with
    such a file in its working folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.txt").write_text("Incursor Squad\n")
    with pytest.raises(MathhammerError, match="^unknown datasheet 'mine.txt'"):
        answers.matchup_answer(MatchupQuery.model_validate({"army_a": {"units": ["mine.txt"]},
                                                            "army_b": {"units": THEIRS}}))


def test_a_matchup_too_large_for_the_light_lane_is_handed_on_not_answered_with_reasons():
    """Under the light lane's share of the limits a cell too large for it stops the matchup (so that the heavy
    lane answers it); with the whole limits, a cell too large for the engine is that cell's reason."""
    query = MatchupQuery.model_validate({"army_a": {"units": MINE}, "army_b": {"units": THEIRS}})
    with limits.share(1e-9), pytest.raises(limits.TooLarge):
        answers.matchup_answer(query)
    assert all(row["reason"] is None for row in json.loads(answers.matchup_answer(query))["rows"])


def test_a_matchup_past_the_time_limit_is_refused_in_one_line():
    body = {"army_a": {"units": ["Incursor Squad x10"] * 30}, "army_b": {"units": ["Incursor Squad x10"] * 30},
            "phase": "both", "both": True}  # 3,600 unit questions (and their rows): far past half a second
    with TestClient(create_app(workers=1, time_limit=0.5)) as quick:
        assert post(quick, "/api/matchup", body, 422) == {
            "error": "the query took longer than this server's limit of 0.5 s per request; ask a smaller one"}

"""`mathhammer unit --need`: the smallest unit size its datasheet allows that reaches a chance."""

import json

from click.testing import CliRunner

from mathhammer_exact.cli import cli


def test_the_smallest_size_that_reaches_the_chance():
    # an Incursor's carbine (A2 BS3+ S4 AP0 D1) against one T4 W1 model with no save: each attack destroys it
    # with 2/3 * 1/2 = 1/3, so P(destroyed) = 1 - (2/3)^10 with 5 models (0.983) and 1 - (2/3)^20 with 10
    out = CliRunner().invoke(cli, ["unit", "Incursor Squad", "-t", "T4 Sv7+ W1", "--need", "99%", "--exact", "--json"])
    assert out.exit_code == 0, out.output
    need = json.loads(out.stdout)["need"]
    assert need == {"models": 10, "at_least": 1, "wanted": "99/100", "p": "3485735825/3486784401",
                    "p_below": "58025/59049"}
    assert (3486784401 - 3485735825, 59049 - 58025) == (2 ** 20, 2 ** 10)  # (2/3)^20 and (2/3)^10, as above
    text = CliRunner().invoke(cli, ["unit", "Incursor Squad", "-t", "T4 Sv7+ W1", "--need", "0.98"]).stdout
    assert text.splitlines()[1] == "fewest models: 5  (P(at least 1 destroyed) = 98.2658% >= 98.0000%)"


def test_need_is_refused_where_it_cannot_be_answered():
    runner = CliRunner()
    for args, message in (
            (["--need", "0.9", "--size", "5"], "--need finds the unit's size: leave out --size"),
            (["--at-least", "1"], "--at-least goes with --need")):
        out = runner.invoke(cli, ["unit", "Incursor Squad", "-t", "T4 Sv7+ W1", *args])
        assert (out.exit_code, out.output) == (2, f"error: {message}\n")


def test_a_chance_no_unit_size_reaches_is_an_answer():
    # a trial found it refused as bad input (exit 2; 422 from the server): the question is good, its answer is that
    # no size reaches it, with the largest size's chance and answer. 10 Incursors, 2 attacks each hitting on 3+ and
    # wounding T4 on 4+: a model survives a shot with 2/3, so P(the W1 target destroyed) = 1 - (2/3)^20
    runner = CliRunner()
    out = runner.invoke(cli, ["unit", "Incursor Squad", "-t", "T4 Sv7+ W1", "--need", "1", "--exact", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["need"] == {"models": None, "at_least": 1, "wanted": "1",
                                              "p": "3485735825/3486784401", "p_below": None, "largest": 10}
    text = runner.invoke(cli, ["unit", "Incursor Squad", "-t", "T4 Sv7+ W1", "--need", "1"]).stdout
    assert text.splitlines()[1] == ("no unit size reaches it: 10 models (the largest unit its datasheet allows) give "
                                    "P(at least 1 destroyed) = 99.9699% < 100.0000%")
    # a unit of one size (an army list's: the list's) is not said to be its datasheet's largest
    out = runner.invoke(cli, ["unit", "Militarum Tempestus Command Squad", "-t", "T4 Sv7+ W1", "--need", "1"])
    assert "no unit size reaches it: 5 models (the only size it comes in here) give" in out.stdout

"""The command line through click's runner: output shapes, the JSON schema and clean errors."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from mathhammer_exact import Target, Weapon, attack
from mathhammer_exact.cli import cli

ISSUE_QUERY = ["attack", "--weapon", "A2 BS3+ S4 AP-1 D1 [SUSTAINED HITS 1, LETHAL HITS]", "--models", "5",
               "--target", "T4 Sv3+ inv5+ W2 x5 fnp6+ [INFANTRY]"]


def run(args: list[str]):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def test_table_output_lists_means_then_tables():
    out = run(ISSUE_QUERY + ["--cover", "--half-range", "--charged"])
    assert out.exit_code == 0
    text = out.output
    assert text.index("mean") < text.index("models destroyed\n")
    assert "P(unit destroyed)" in text and "#" in text


def test_a_target_with_its_move_is_answered_as_without():
    # docs/cli.md says Move is read and kept; the answer is the pinned one for 'T4 Sv3+ W2 x5' (DESIGN.md)
    out = run(["attack", "-w", "A1 BS3+ S4 AP-1 D1", "-m", "10", "-t", 'M5" T4 Sv3+ W2 x5', "--exact", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["models_destroyed"]["mean"] == "138805/236196"


def test_json_matches_the_api_exactly():
    out = run(["attack", "-w", "A1 BS3+ S4 AP-1 D1", "-m", "10", "-t", "T4 Sv3+ W2 x5", "--exact", "--json"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert set(data) == {"title", "header", "attacks", "hits", "wounds", "unsaved", "damage", "models_destroyed",
                         "p_destroyed", "p_below_half", "groups"}
    assert data["title"] == "10 x [A1 BS3+ S4 AP-1 D1]  ->  T4 Sv3+ W2 x5"
    assert data["header"] == ["10 x Attacks 1 | BS 3+ | Strength 4 | AP -1 | Damage 1",
                              "target: 5 models: Toughness 4 | Save 3+ | Wounds 2",
                              "rules: 10th edition, current printing"]
    assert data["models_destroyed"]["mean"] == "138805/236196"
    assert data["damage"]["mean"] == "5/3"
    assert data["models_destroyed"]["pmf"][0] == "9765625/20155392"
    assert sum(Fraction(p) for p in data["damage"]["pmf"]) == 1
    api = attack(Weapon.parse("A1 BS3+ S4 AP-1 D1"), Target.parse("T4 Sv3+ W2 x5"), 10, exact=True)
    assert Fraction(data["p_destroyed"]) == api.p_destroyed


def test_float_json_indexes_pmf_by_value():
    data = json.loads(run(["attack", "-w", "A1 BS3+ S4 AP0 D1", "-m", "3", "-t", "T4 Sv7+ W1 x5", "--json"]).output)
    assert len(data["attacks"]["pmf"]) == 4 and data["attacks"]["pmf"][3] == 1.0
    assert abs(sum(data["hits"]["pmf"]) - 1) < 1e-12


PLAIN = "A1 BS4+ S4 AP0 D1"  # against T4 with no save: hits 1/2, wounds 1/2 * 1/2 = 1/4


@pytest.mark.parametrize(("weapon", "options", "stat", "expected", "why"), [
    (PLAIN, [], "wounds", Fraction(1, 4), "hit 4+, wound S4 v T4 on 4+"),
    (PLAIN, ["--reroll-hits", "failed"], "hits", Fraction(3, 4), "1/2 + 1/2 * 1/2"),
    (PLAIN, ["--reroll-wounds", "ones"], "wounds", Fraction(7, 24), "hit 1/2, wound 1/2 + 1/6 * 1/2 = 7/12"),
    (PLAIN, ["--hit-mod", "-1"], "hits", Fraction(1, 3), "hits on 5+"),
    (PLAIN, ["--wound-mod", "1"], "wounds", Fraction(1, 3), "hit 1/2, wound on 3+: 2/3"),
    (PLAIN + " [LETHAL HITS]", [], "wounds", Fraction(1, 3), "a 6 wounds by itself (1/6), a 4 or 5 wounds on 4+ (1/6)"),
    (PLAIN + " [LETHAL HITS]", ["--crit-hit", "5"], "wounds", Fraction(5, 12), "5 and 6 wound by themselves (1/3), "
                                                                           "a 4 wounds on 4+ (1/12)"),
    (PLAIN + " [HEAVY]", ["--stationary"], "hits", Fraction(2, 3), "Heavy: +1 to hit, 3+"),
    (PLAIN, ["--overwatch"], "hits", Fraction(1, 6), "only unmodified 6s hit"),
    ("A1 BS2+ S4 AP0 D1 [INDIRECT FIRE]", ["--indirect"], "hits", Fraction(1, 2), "current: hit rolls of 1-3 fail"),
    ("A1 BS2+ S4 AP0 D1 [INDIRECT FIRE]", ["--indirect", "--rules", "2023"], "hits", Fraction(2, 3),
     "2023: -1 to hit, BS2+ hits on 3+"),
])
def test_each_option_changes_the_answer_as_derived(weapon, options, stat, expected, why):
    out = run(["attack", "-w", weapon, "-t", "T4 Sv7+ W1 x5", "--exact", "--json", *options])
    assert out.exit_code == 0, out.output
    assert Fraction(json.loads(out.output)[stat]["mean"]) == expected, why


@pytest.mark.parametrize(("weapon", "target", "extra", "fragment"), [
    ("AD7 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", [], "D7"),
    ("A1 BS7+ S4 AP0 D1", "T4 Sv3+ W2 x5", [], "BS/WS must be 2+ to 6+, got 7+"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x0", [], "x0"),
    ("A1 BS3+ S4 AP+1 D1", "T4 Sv3+ W2 x5", [], "AP+1"),
    ("A1 BS3+ S4 AP0 D1 [WOBBLY]", "T4 Sv3+ W2 x5", [], "WOBBLY"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W0 x5", [], "W must be at least 1"),
    ("A2D BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", [], "2D"),
    ("A1 BS3+ S4 AP0", "T4 Sv3+ W2 x5", [], "missing D"),
    ("A1 BS3+ S4 AP0 D1", "T4 W2", [], "missing Sv"),
    ("A1 BS3+ S4 AP0 D1 [BLAST]", "T4 Sv3+ W2 x5", ["--engaged"], "BLAST"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["--models", "-1"], "at least 1"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["-m", "0"], "the number of attacking models must be at least 1, got 0"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["--plot", ""], "the path is empty"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["--reroll-hits", "twice"], "twice"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["--crit-hit", "1"], "critical hit"),
    ("A1 BS3+ S4 AP0 D1", "T4 Sv3+ W2 x5", ["--rules", "2019"], "2019"),
])
def test_bad_input_exits_2_with_one_line(weapon, target, extra, fragment):
    out = CliRunner().invoke(cli, ["attack", "-w", weapon, "-t", target, *extra])
    assert out.exit_code == 2, out.output
    assert out.exception is None or isinstance(out.exception, SystemExit)
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], out.output


def test_missing_required_option_is_one_line():
    out = CliRunner().invoke(cli, ["attack", "-w", "A1 BS3+ S4 AP0 D1"])
    assert out.exit_code == 2
    assert out.output.strip().splitlines() == ["error: Missing option '--target' / '-t'."]


ONCE = "is given more than once; it takes one value"


@pytest.mark.parametrize(("args", "message"), [
    (["unit", "Tempestus Command Squad", "-t", "MEQ", "-t", "GEQ"], f"--target {ONCE}"),
    (["unit", "Incursor Squad", "--target-models", "5", "--target-models", "6", "-t", "MEQ"],
     f"--target-models {ONCE}"),
    (["roll", "charge", "-d", "9", "--distance", "8"], f"--distance {ONCE}"),  # a group's command, a short name
    (["attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "MEQ", "--reroll-hits", "ones", "--reroll-hits", "failed"],
     f"--reroll-hits {ONCE}"),
    (["unit", "Tempestus Command Squad", "-t", "MEQ", "-l", "plasma gun", "-l", "meltagun"],
     f"--loadout {ONCE} (several as one, comma separated: 'a, b')"),
])
def test_an_option_of_one_value_given_twice_is_refused(args, message):
    # click keeps the last of them silently: a second --target took the first one's place
    out = CliRunner().invoke(cli, args)
    assert (out.exit_code, out.output) == (2, f"error: {message}\n")


def test_json_and_another_format_are_refused_together():
    # --json is --format json: with --format table the answer was JSON, without a word
    out = CliRunner().invoke(cli, ["attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "MEQ", "--format", "table", "--json"])
    assert (out.exit_code, out.output) == (2, "error: --json is --format json; it cannot go with --format table: give "
                                              "one of them\n")
    both = CliRunner().invoke(cli, ["attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "MEQ", "--format", "json", "--json"])
    assert both.exit_code == 0 and json.loads(both.output)["title"].endswith("->  MEQ")


def test_options_that_repeat_still_repeat():
    out = CliRunner().invoke(cli, ["attack", "-w", "A1 BS3+ S4 AP0 D1", "-w", "A1 BS3+ S4 AP0 D1", "-t", "MEQ"])
    assert out.exit_code == 0 and out.output.startswith("1 x [A1 BS3+ S4 AP0 D1] + 1 x [A1 BS3+ S4 AP0 D1]")


def test_help_works():
    assert "attack" in run(["--help"]).output
    assert "--reroll-hits" in run(["attack", "--help"]).output


def test_attack_on_a_mixed_or_attached_target_uses_the_unit_engine():
    out = run(["attack", "-w", "A1 BS2+ S5 AP-2 D=3 [PRECISION]", "-m", "4", "-t", "T4 Sv3+ W2 x5; T4 Sv3+ W3 leader",
               "--json", "--exact"])
    data = json.loads(out.output)
    assert set(data) == {"title", "header", "attacks", "hits", "wounds", "unsaved", "damage", "models_destroyed",
                         "p_destroyed", "groups", "p_below_half"}  # every model saves alike: unsaved wounds too
    leader = data["groups"][1]
    assert leader["name"] == "leader" and Fraction(leader["p_destroyed"]) == 1 - Fraction(17, 27) ** 4
    # each shot gets through with 5/6 * 2/3 * 2/3 = 10/27 and kills one model (D3 against W2 or W3)
    assert Fraction(data["models_destroyed"]["mean"]) == Fraction(data["unsaved"]["mean"]) == 4 * Fraction(10, 27)
    assert Fraction(data["wounds"]["mean"]) == 4 * Fraction(5, 6) * Fraction(2, 3)
    # a leader that saves unlike its bodyguards: the unsaved wounds depend on where each wound goes
    unlike = run(["attack", "-w", "A1 BS2+ S5 AP-2 D=3 [PRECISION]", "-m", "4", "-t",
                  "T4 Sv3+ W2 x5; T4 Sv3+ inv4+ W3 leader", "--json", "--exact"])
    assert "wounds" in json.loads(unlike.output) and "unsaved" not in json.loads(unlike.output)


def test_attack_with_a_command_reroll():
    # two shots hitting on 4+, the first miss re-rolled: 0, 1, 2 hits with 1/8, 3/8, 1/2; each kills on 2+.
    data = json.loads(run(["attack", "-w", "A2 BS4+ S8 AP-6 D1", "-t", "T4 Sv2+ W1 x5", "--command-reroll", "hit",
                           "--json", "--exact"]).output)
    assert Fraction(data["models_destroyed"]["pmf"][0]) == Fraction(1, 8) + Fraction(3, 8) / 6 + Fraction(1, 2) / 36


# --------------------------------------------------------------------- the header says what was asked
SITUATION = [  # option, words in the header
    (["--cover"], "situation: target has the Benefit of Cover"),
    (["--half-range"], "situation: within half range"),
    (["--charged"], "situation: attacker charged"),
    (["--stationary"], "situation: attacker Remained Stationary"),
    (["--advanced"], "situation: attacker Advanced"),
    (["--overwatch"], "situation: Fire Overwatch"),
    (["--indirect"], "situation: target not visible (Indirect Fire)"),
    (["--engaged"], "situation: target within Engagement Range of your army"),
    (["--hit-mod", "-1"], "rolls: hit roll -1"),
    (["--wound-mod", "1"], "rolls: wound roll +1"),
    (["--reroll-hits", "ones"], "rolls: re-roll hit rolls of 1"),
    (["--reroll-wounds", "failed"], "rolls: re-roll failed wound rolls"),
    (["--reroll-hits", "noncrit"], "rolls: re-roll hit rolls that are not critical"),
    (["--crit-hit", "5"], "rolls: Critical Hits on 5+"),
    (["--command-reroll", "save"], "rolls: a Command Re-roll kept for the saving throw"),
    (["--rules", "2023"], "rules: 10th edition, 2023 printing (Devastating Wounds as mortal wounds that spill over, "
                          "Indirect Fire -1 to hit, a failed Hazardous test destroys a model)"),
    (["--rules", "unsaveable-devastating"], "rules: 10th edition, unsaveable-devastating printing (Devastating "
                                            "Wounds as unsaveable normal damage)"),
]
PLAIN = ["attack", "-w", "A2 BS3+ S4 AP-1 D1 [ASSAULT]", "-t", "T4 Sv4+ W1 x5"]


def header(args: list[str]) -> list[str]:
    """The lines between the profiles as understood (one weapon, one target) and the table of means."""
    lines = run(args).output.splitlines()
    return lines[3:next(i for i, line in enumerate(lines) if line.split()[:1] == ["mean"])]


def test_the_header_says_each_profile_as_understood():
    lines = run(PLAIN).output.splitlines()
    assert lines[1:3] == ["  1 x Attacks 2 | BS 3+ | Strength 4 | AP -1 | Damage 1 | Assault",
                          "  target: 5 models: Toughness 4 | Save 4+ | Wounds 1"]
    rolled = run(["attack", "-w", "A1 BS3+ S12 AP-3 DD3", "-t", "T4 Sv4+ W1 x5"]).output.splitlines()
    assert rolled[1] == "  1 x Attacks 1 | BS 3+ | Strength 12 | AP -3 | Damage D3 (roll)"


@pytest.mark.parametrize(("option", "words"), SITUATION, ids=[" ".join(o) for o, _ in SITUATION])
def test_the_header_names_each_situation_option(option, words):
    edition = [] if words.startswith("rules:") else [EDITION]  # every answer names its rules edition and printing
    asked = PLAIN if option != ["--indirect"] else [*PLAIN[:2], "A2 BS3+ S4 AP-1 D1 [INDIRECT FIRE]", *PLAIN[3:]]
    assert header(asked + option) == [f"  {words}", *edition]


EDITION = "  rules: 10th edition, current printing"


def test_the_header_names_only_the_edition_for_the_default_situation_and_lists_several_in_order():
    assert header(PLAIN) == [EDITION]
    assert header(PLAIN + ["--rules", "current", "--hit-mod", "0", "--crit-hit", "6"]) == [EDITION]  # defaults
    assert header(PLAIN + ["--cover", "--half-range", "--hit-mod", "-1", "--reroll-hits", "failed", "--rules",
                           "launch"]) == [
        "  situation: within half range, target has the Benefit of Cover",
        "  rolls: hit roll -1, re-roll failed hit rolls",
        "  rules: 10th edition, 2023 printing (Devastating Wounds as mortal wounds that spill over, Indirect Fire -1 "
        "to hit, a failed Hazardous test destroys a model)",
    ]


def test_the_unit_command_names_its_situation_too():
    text = run(["unit", "Tempestus Command Squad", "--target", "MEQ", "--cover", "--charged"]).output
    assert "  situation: target has the Benefit of Cover, attacker charged\n" in text
    markdown = run(["unit", "Tempestus Command Squad", "--target", "MEQ", "--cover", "--format", "markdown"]).output
    assert "- situation: target has the Benefit of Cover\n" in markdown


def test_every_context_field_is_named_in_the_header():
    """A field added to Context later, and left out of the header, fails here: two questions would look alike."""
    import attrs

    from mathhammer_exact import Context, Rules
    from mathhammer_exact.present.situation import situation

    changed = {"extra_attacks": 1, "hit_modifier": 1, "wound_modifier": -1, "reroll_hits": "ones",
               "reroll_wounds": "noncrit", "critical_hit": 5, "rules": Rules.named("2023"), "command_reroll": "hit",
               "critical_wound": 5, "critical_mortals": "hit 1", "damage_bonus": 1, "reroll_damage": "ones",
               "wound_modifier_against": -1, "worsen_ap": 1, "save_modifier": 1, "reroll_saves": "ones",
               "lethal_hits": "always", "edition": "11e"}
    seen = {situation(Context())}
    for field in attrs.fields(Context):
        lines = situation(Context(**{field.name: changed.get(field.name, True)}))
        assert lines and lines not in seen, field.name
        seen.add(lines)


# --------------------------------------------------------------------- which printing of the rules
DEVASTATING = ["attack", "-w", "A6 BS2+ S4 AP0 D=3 [DEVASTATING WOUNDS]", "-t", "T4 Sv2+ W2 x5 fnp-mortal5+", "--json",
               "--exact"]  # D3 against W2 (spill-over or not) and Feel No Pain against mortal wounds only


def test_rules_printings_have_plain_names_and_the_old_names_still_work():
    from mathhammer_exact import Rules
    from mathhammer_exact.model import DevastatingWounds, Hazardous, IndirectFire

    assert Rules.named("current") == Rules.named("seed") == Rules() and Rules().name == "current"
    launch = Rules(DevastatingWounds.LAUNCH, IndirectFire.LAUNCH, Hazardous.DESTROY)
    assert Rules.named("2023") == Rules.named("launch") == Rules.named(" LAUNCH ") == launch and launch.name == "2023"
    unsaveable = Rules(devastating_wounds=DevastatingWounds.UNSAVEABLE)
    assert Rules.named("unsaveable-devastating") == Rules.named("unsaveable") == unsaveable
    assert Rules(hazardous=Hazardous.DESTROY).name is None  # a mix of printings: no preset name
    answers = {name: run([*DEVASTATING, "--rules", name]).output for name in
               ("current", "seed", "2023", "launch", "unsaveable-devastating", "unsaveable")}
    assert answers["current"] == answers["seed"] and answers["2023"] == answers["launch"]
    assert answers["unsaveable-devastating"] == answers["unsaveable"]
    assert len({answers["current"], answers["2023"], answers["unsaveable-devastating"]}) == 3
    assert run(DEVASTATING).output == answers["current"]  # current is the default


def test_an_unknown_printing_names_the_allowed_ones():
    out = CliRunner().invoke(cli, [*DEVASTATING, "--rules", "seed002"])
    assert out.exit_code == 2
    assert out.output.strip() == ("error: unknown rules printing 'seed002' "
                                  "(allowed: current, 2023, unsaveable-devastating)")
    out = CliRunner().invoke(cli, ["roll", "hazardous", "--weapons", "1", "--rules", "2019"])
    assert out.exit_code == 2 and out.output.strip().startswith("error: unknown rules printing '2019'")


def test_hazardous_under_the_2023_printing_says_so():
    # one weapon, bearer T3 Sv4+ W1: a failed test (a 1, chance 1/6) destroys it under either printing
    data = json.loads(run(["roll", "hazardous", "--weapons", "1", "--rules", "2023", "--json", "--exact"]).output)
    assert data["pmf"] == ["5/6", "1/6"]
    title = run(["roll", "hazardous", "--weapons", "1", "--rules", "2023"]).output.splitlines()[0]
    assert title == "Hazardous tests for 1 weapons (2023 rules: a failed test destroys a model)"


def test_a_bearer_is_one_model():
    out = CliRunner().invoke(cli, ["roll", "hazardous", "--weapons", "2", "--bearer", "T3 Sv4+ W1 x5"])
    assert out.exit_code == 2
    assert out.output.strip() == "error: 'T3 Sv4+ W1 x5' describes one model: leave out the x count and 'leader'"


@pytest.mark.parametrize(("weapon", "said"), [
    ("A2 BS3+ S4 AP0 D1", True),  # AP 0 against a 3+ save: cover adds nothing (SPEC: cover)
    ("A2 BS3+ S4 AP-1 D1", False),  # AP -1: the save is 4+, and cover makes it 3+
    ("A2 BS3+ S4 AP-1 D1 [IGNORES COVER]", True),
])
def test_the_header_says_when_the_benefit_of_cover_changes_no_save(weapon, said):
    out = CliRunner().invoke(cli, ["attack", "-w", weapon, "--cover", "-t", "T4 Sv3+ W2 x5"])
    assert out.exit_code == 0, out.output
    assert ("  the Benefit of Cover changes no save here" in out.output) == said


@pytest.mark.parametrize(("args", "said"), [
    (["--edition", "11e", "--cover"], True),  # the 11th's cover worsens BS: ignored by a PSYCHIC weapon
    (["--edition", "11e", "--hit-mod", "-1"], True),
    (["--edition", "11e", "--hit-mod", "1"], False),  # a bonus it keeps: nothing ignored
    (["--edition", "11e"], False),
    (["--hit-mod", "-1"], False),  # the 10th: a PSYCHIC weapon ignores nothing
])
def test_the_header_says_when_a_psychic_weapon_ignores_penalties_it_names(args, said):
    # a trial found the 11th's Psychic rule unsaid beside 'situation: target has the Benefit of Cover' and 'rolls:
    # hit roll -1', the hits those of BS3+ unmodified
    out = CliRunner().invoke(cli, ["attack", "-w", "A12 BS3+ S4 AP0 D1 [PSYCHIC]", "-t", "T4 Sv3+ W2 x5", *args])
    assert out.exit_code == 0, out.output
    assert ("  Psychic: its PSYCHIC weapon ignores the penalties to its hit roll and BS (docs/rules.md)"
            in out.output) == said

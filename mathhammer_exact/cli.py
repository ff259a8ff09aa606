"""The `mathhammer` command line: thin commands that parse, call the API and render.

Every error a user can cause ends in one line on stderr and exit status 2.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

import click

from . import dice_tests, render
from .dice_tests import PassFail
from .errors import MathhammerError
from .model import COMMAND_REROLLS, Context, Reroll, Rules, Target, Weapon
from .parsing import parse_model
from .pmf import Number, Pmf
from .sequence import attack as attack_sequence

REROLLS = click.Choice([r.name.lower() for r in Reroll if r is not Reroll.NONE], case_sensitive=False)


class Commands(click.Group):
    """A group that turns every user error into a one-line message and exit status 2."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            sys.exit(0)
        except (MathhammerError, click.ClickException) as exc:
            message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
            click.echo(f"error: {message}", err=True)
            sys.exit(2)
        except click.exceptions.Abort:
            click.echo("error: aborted", err=True)
            sys.exit(2)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mathhammer_exact")
def cli() -> None:
    """Exact Warhammer 40,000 odds: every outcome of an attack, no sampling."""


def situation_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options that describe the situation, shared by `attack` and `unit`."""
    options = [
        click.option("--cover", is_flag=True, help="The target has the Benefit of Cover."),
        click.option("--half-range", is_flag=True, help="Within half range (Rapid Fire, Melta)."),
        click.option("--charged", is_flag=True, help="The attacker charged this turn (Lance)."),
        click.option("--stationary", is_flag=True, help="The attacker Remained Stationary (Heavy)."),
        click.option("--advanced", is_flag=True, help="The attacker Advanced: only Assault weapons shoot."),
        click.option("--overwatch", is_flag=True, help="Fire Overwatch: only unmodified 6s hit."),
        click.option("--indirect", is_flag=True, help="Indirect Fire at a target that is not visible."),
        click.option("--engaged", is_flag=True, help="The target is within Engagement Range of your army (no Blast)."),
        click.option("--hit-mod", default=0, type=int, help="Hit roll modifier (the net is capped to -1..+1)."),
        click.option("--wound-mod", default=0, type=int, help="Wound roll modifier (the net is capped to -1..+1)."),
        click.option("--reroll-hits", type=REROLLS, help="Re-roll hit rolls of 1, failed ones, or all but crits."),
        click.option("--reroll-wounds", type=REROLLS, help="Re-roll wound rolls of 1, failed ones, or all but crits."),
        click.option("--crit-hit", default=6, show_default=True, type=int,
                     help="Unmodified hit roll that is a Critical Hit."),
        click.option("--command-reroll", type=click.Choice(COMMAND_REROLLS, case_sensitive=False),
                     help="Keep a Command Re-roll for the first failed hit roll, wound roll or saving throw."),
        click.option("--rules", "rules_name", default="seed", show_default=True,
                     type=click.Choice(list(Rules.PRESETS), case_sensitive=False),
                     help="Which printing of changed rules (Devastating Wounds, Indirect Fire, Hazardous)."),
    ]
    for option in reversed(options):
        command = option(command)
    return output_options(command)


def output_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--exact, --format, --json and --plot, shared by every command that answers with odds."""
    options = [
        click.option("--exact", is_flag=True, help="Exact fractions instead of floating point."),
        click.option("--format", "fmt", default="table", show_default=True,
                     type=click.Choice(render.FORMATS, case_sensitive=False), help="How to print the answer."),
        click.option("--json", "as_json", is_flag=True, help="Shortcut for --format json."),
        click.option("--plot", type=click.Path(dir_okay=False),
                     help="Also draw the odds to FILE.png or FILE.svg (needs the [plot] extra)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def emit(report: render.Report, fmt: str, as_json: bool, plot: str | None) -> None:
    """Print the report in the chosen format, and draw it if asked."""
    if plot:
        from .plot import save_plot  # matplotlib loads only when a plot is asked for

        save_plot(report, plot)
    click.echo(render.render(report, "json" if as_json else fmt.lower()).rstrip("\n"))


def context_from(options: dict[str, Any]) -> Context:
    """The `Context` described by the situation options (removed from `options`)."""
    return Context(
        half_range=options.pop("half_range"), charged=options.pop("charged"),
        stationary=options.pop("stationary"), advanced=options.pop("advanced"),
        overwatch=options.pop("overwatch"), cover=options.pop("cover"), indirect=options.pop("indirect"),
        engaged=options.pop("engaged"), hit_modifier=options.pop("hit_mod"),
        wound_modifier=options.pop("wound_mod"),
        reroll_hits=options.pop("reroll_hits") or Reroll.NONE,
        reroll_wounds=options.pop("reroll_wounds") or Reroll.NONE,
        critical_hit=options.pop("crit_hit"), rules=Rules.named(options.pop("rules_name")),
        command_reroll=options.pop("command_reroll"),
    )


@cli.command()
@click.option("--weapon", "-w", required=True, help="Weapon profile, e.g. 'A2 BS3+ S4 AP-1 D1 [LETHAL HITS]'.")
@click.option("--target", "-t", required=True, help="Target unit, e.g. 'T4 Sv3+ inv5+ W2 x5 fnp6+ [INFANTRY]'.")
@click.option("--models", "-m", default=1, show_default=True, type=int, help="Models attacking with the weapon.")
@situation_options
def attack(weapon: str, target: str, models: int, exact: bool, fmt: str, as_json: bool, plot: str | None,
           **situation: Any) -> None:
    """One weapon profile fired (or fought with) by MODELS models at one target unit.

    A target of different models (groups separated by ';', a leader marked 'leader') or a
    Command Re-roll uses the whole-unit engine, which reports losses per group instead of
    wound and unsaved-wound counts."""
    context = context_from(situation)
    profile, unit_target = Weapon.parse(weapon), Target.parse(target)
    title = f"{models} x [{weapon.strip()}]  ->  {target.strip()}"
    if len(unit_target.groups) > 1 or context.command_reroll:
        from .unit import Firing, attack_unit

        result = attack_unit([Firing(profile, models)], unit_target, context, exact)
        emit(render.whole_unit_report(result, title), fmt, as_json, plot)
    else:
        emit(render.attack_report(attack_sequence(profile, unit_target, models, context, exact), title), fmt,
             as_json, plot)


def resolve_target(text: str, models: int | None, leader: str | None) -> Target:
    """A target by datasheet or standard-target name, or written as a profile."""
    from . import rules_data

    if re.match(r"\s*T\d", text, re.IGNORECASE):
        target = Target.parse(text)
    else:
        sheets, standard = rules_data.datasheets(), rules_data.standard_targets()
        names = {**{n: ("sheet", n) for n in sheets}, **{n: ("standard", n) for n in standard}}
        aliases = {a: s.name for s in sheets.values() for a in s.aliases}
        kind, name = rules_data.find(text, names, "target (datasheet or standard target)", aliases)
        target = sheets[name].as_target(models) if kind == "sheet" else standard[name].target
        models = None if kind == "sheet" else models
    if models is not None:
        if len(target.groups) != 1:
            raise MathhammerError("--models sets the size of a target whose models are all alike")
        target = Target.of(target.groups[0][0], models)
    if leader:
        profile, count, _ = parse_model(leader + " leader", name="leader")
        target = Target((*target.groups, (profile, count)), attached=True)
    return target


@cli.command()
@click.argument("attacker")
@click.option("--loadout", "-l", default="", help="Wargear choices, comma separated, e.g. 'plasma gun, meltagun'.")
@click.option("--size", type=int, help="Models in the attacking unit (default: its smallest size).")
@click.option("--target", "-t", required=True,
              help="A datasheet ('Incursor Squad'), a standard target (MEQ, TEQ, ...) or a profile string.")
@click.option("--models", "-m", type=int, help="Models in the target unit.")
@click.option("--leader", help="Attach a leader to the target, e.g. 'T4 Sv3+ inv4+ W4 Ld6+'.")
@click.option("--with", "with_", multiple=True, help="A named ability, stratagem or Order (repeatable).")
@click.option("--melee", is_flag=True, help="Fight with melee weapons instead of shooting.")
@click.option("--pistols", is_flag=True, help="Models shoot their Pistols instead of their other ranged weapons.")
@click.option("--profile", "profiles", multiple=True, help="Weapon profile to use, e.g. supercharge or krak.")
@click.option("--order", help="Defender's allocation order of target model groups, e.g. '1,0'.")
@click.option("--insane-bravery", is_flag=True, help="The target passes its Battle-shock test.")
@situation_options
def unit(attacker: str, loadout: str, size: int | None, target: str, models: int | None, leader: str | None,
         with_: tuple[str, ...], melee: bool, pistols: bool, profiles: tuple[str, ...], order: str | None,
         insane_bravery: bool, exact: bool, fmt: str, as_json: bool, plot: str | None, **situation: Any) -> None:
    """A datasheet unit (by name) attacks a target with its whole loadout."""
    from . import rules_data
    from .query import unit_attack

    context = context_from(situation)
    target_unit = resolve_target(target, models, leader)
    group_order = None
    if order:
        try:
            group_order = [int(i) for i in order.split(",")]
        except ValueError:
            raise MathhammerError(f"--order takes group numbers separated by commas, e.g. '1,0', got {order!r}") \
                from None
    items = [item for item in loadout.split(",") if item.strip()]
    report = unit_attack(attacker, target_unit, items, size, with_, context, melee, pistols, profiles, exact,
                         group_order, insane_bravery)
    sheet = rules_data.datasheet(attacker)
    emit(render.unit_report(report, f"{sheet.name}  ->  {target.strip()}"), fmt, as_json, plot)


@cli.command()
def datasheets() -> None:
    """List the datasheets, standard targets and named abilities/stratagems in rules/."""
    from . import rules_data

    click.echo("Datasheets:")
    for sheet in rules_data.datasheets().values():
        click.echo(f"  {sheet.name} ({sheet.faction})")
    click.echo("Standard targets:")
    for name, std in rules_data.standard_targets().items():
        click.echo(f"  {name}: {std.description}")
    click.echo("Abilities, stratagems, Orders (use with --with):")
    for key, mod in rules_data.modifiers().items():
        click.echo(f"  {key}: {mod.name} ({mod.kind})")


@cli.command()
@click.argument("name")
def show(name: str) -> None:
    """Show a datasheet, standard target or named rule."""
    click.echo(render.card(name))


@cli.command()
@click.option("--out", default="docs/tables", show_default=True, type=click.Path(file_okay=False),
              help="Folder to write the tables to.")
def tables(out: str) -> None:
    """Write probability tables (Markdown and CSV): hit, wound, save, charge, seed weapons vs standard targets."""
    from pathlib import Path

    from .tables import write_tables

    for path in write_tables(Path(out)):
        click.echo(f"wrote {path}")


@cli.group()
def roll() -> None:
    """The other dice tests of the seeds: charge, advance, battle-shock, desperate-escape, hazardous, grenade."""


def _test_report(title: str, test: PassFail, roll_label: str) -> render.Report:
    roll_pmf = {"roll": test.roll} if test.roll is not None else {}
    return render.Report(title, roll_pmf, {"p_success": test.p_success}, {"roll": roll_label})


def _count_report(title: str, key: str, pmf: Pmf, chances: dict[str, Number] | None = None) -> render.Report:
    return render.Report(title, {key: pmf}, chances or {}, flat=True)


@roll.command()
@click.option("--distance", "-d", required=True, type=int, help="Inches the charge must cover (9 after Deep Strike).")
@click.option("--reroll", is_flag=True, help="Re-roll the whole roll when it fails (e.g. Command Re-roll).")
@click.option("--modifier", default=0, type=int, help="Added to the roll, e.g. -2.")
@output_options
def charge(distance: int, reroll: bool, modifier: int, exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Charge roll: 2D6 (plus modifier) at least the distance."""
    test = dice_tests.charge(distance, reroll, modifier, exact)
    title = f"charge {distance}\"" + (f" with {modifier:+d}" if modifier else "") + (", re-rolled" if reroll else "")
    emit(_test_report(title, test, "charge roll"), fmt, as_json, plot)


@roll.command()
@output_options
def advance(exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Advance roll: D6 inches added to Move."""
    emit(_count_report("advance roll", "advance", dice_tests.advance(exact)), fmt, as_json, plot)


@roll.command(name="battle-shock")
@click.option("--ld", required=True, type=int, help="The unit's best Leadership, e.g. 7 for Ld7+.")
@click.option("--insane-bravery", is_flag=True, help="The stratagem: the test is passed.")
@output_options
def battle_shock(ld: int, insane_bravery: bool, exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Battle-shock test: 2D6 at least Leadership passes."""
    test = dice_tests.battle_shock_test(ld, insane_bravery, exact)
    emit(_test_report(f"Battle-shock test at Ld{ld}+", test, "2D6"), fmt, as_json, plot)


@roll.command(name="desperate-escape")
@click.option("--tests", required=True, type=int, help="Number of Desperate Escape tests.")
@output_options
def desperate_escape(tests: int, exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Desperate Escape: each test fails on a 1-2 and a model is destroyed."""
    pmf = dice_tests.desperate_escape(tests, exact)
    emit(_count_report(f"{tests} Desperate Escape tests", "models_lost", pmf), fmt, as_json, plot)


@roll.command()
@click.option("--weapons", required=True, type=int, help="Hazardous weapons used.")
@click.option("--bearer", default="T3 Sv4+ W1", show_default=True, help="Profile of the models carrying them.")
@click.option("--rules", "rules_name", default="seed", show_default=True,
              type=click.Choice(list(Rules.PRESETS), case_sensitive=False),
              help="seed: 3 mortal wounds (seed 002); launch: the model is destroyed (seed 000).")
@output_options
def hazardous(weapons: int, bearer: str, rules_name: str, exact: bool, fmt: str, as_json: bool,
              plot: str | None) -> None:
    """Hazardous tests: one D6 per weapon, each 1 costs a model."""
    profile, _, _ = parse_model(bearer)
    pmf = dice_tests.hazardous(weapons, Rules.named(rules_name), profile, exact)
    emit(_count_report(f"Hazardous tests for {weapons} weapons", "models_lost", pmf), fmt, as_json, plot)


@roll.command()
@click.option("--target", "-t", required=True, help="The target unit, e.g. 'T3 Sv5+ W1 x10' or GEQ.")
@output_options
def grenade(target: str, exact: bool, fmt: str, as_json: bool, plot: str | None) -> None:
    """Grenade stratagem: six D6, each 4+ is a mortal wound (spilling over, Feel No Pain applies)."""
    unit = resolve_target(target, None, None)
    pmf = dice_tests.grenade(unit, exact)
    report = _count_report(f"Grenade against {target.strip()}", "models_destroyed", pmf,
                           {"p_destroyed": pmf.p(unit.model_count)})
    emit(report, fmt, as_json, plot)


def main() -> None:
    """Entry point of the `mathhammer` console script."""
    cli(prog_name="mathhammer")

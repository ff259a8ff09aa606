"""Options shared by several commands (the situation, the output format) and printing the answer."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import attrs
import click

from ..errors import MathhammerError
from ..model import CommandReroll, Context, DamageReroll, Reroll, Rules, Target
from ..parsing import is_profile
from ..present import report as present
from ..present.plot import save_plot
from ..present.situation import situation

if TYPE_CHECKING:
    from ..data.datasheet import TargetUnit

REROLLS = click.Choice([r.name.lower() for r in Reroll if r is not Reroll.NONE], case_sensitive=False)
SAVE_REROLLS = click.Choice([r.name.lower() for r in (Reroll.ONES, Reroll.FAILED)], case_sensitive=False)
DAMAGE_REROLLS = click.Choice([r.value for r in DamageReroll if r is not DamageReroll.NONE], case_sensitive=False)


def situation_options(command: Callable[..., Any], output: bool = True) -> Callable[..., Any]:
    """The options that describe the situation, shared by `attack` and `unit`; `output`: with the
    output options too."""
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
        click.option("--far", is_flag=True,
                     help="The target is beyond the range stated by CONVERSION: Critical Hits on 4+."),
        click.option("--crit-wound", default=6, show_default=True, type=int,
                     help="Unmodified wound roll that is a Critical Wound (Anti-X may lower it further)."),
        click.option("--crit-mortals", metavar="hit|wound N [instead]",
                     help="Critical Hits or Wounds inflict N mortal wounds (a number or dice), as well as normal "
                          "damage or 'instead' of it; they land after the unit's other attacks and spill over. "
                          "E.g. 'hit 1', 'wound D3 instead'."),
        click.option("--damage-bonus", default=0, type=int, help="Add this to each attack's Damage (e.g. +1 Damage)."),
        click.option("--reroll-damage", type=DAMAGE_REROLLS,
                     help="Re-roll a Damage roll of 1, the lowest die when below a die's average (one-die), or the "
                          "whole roll when below its average."),
        click.option("--save-mod", default=0, type=int,
                     help="Saving throw modifier; with AP and cover never more than +1 in total."),
        click.option("--reroll-saves", type=SAVE_REROLLS,
                     help="The target re-rolls saving throws of 1, or failed ones."),
        click.option("--worsen-ap", default=0, type=int,
                     help="Worsen the AP of attacks against the target by this much (never better than AP 0)."),
        click.option("--wound-mod-against", default=0, type=int,
                     help="Wound roll modifier from the target's rules, e.g. -1 (capped with --wound-mod to -1..+1)."),
        click.option("--command-reroll", type=click.Choice([k.value for k in CommandReroll], case_sensitive=False),
                     help="Keep a Command Re-roll for one roll: the attacks roll, the first failed hit roll, wound "
                          "roll or saving throw, or a poor damage roll."),
        rules_option("Which printing of the rules that changed (Devastating Wounds, Indirect Fire, Hazardous): "
                     "current, 2023 (at the edition's launch), or unsaveable-devastating (current, with "
                     "Devastating Wounds as unsaveable normal damage). Old names seed, launch, unsaveable."),
    ]
    for option in reversed(options):
        command = option(command)
    return output_options(command) if output else command


def rules_option(help_text: str) -> Callable[..., Any]:
    """--rules NAME, given to the command as a `Rules` (an unknown name is a one-line error)."""
    return click.option("--rules", default="current", show_default=True, metavar="|".join(Rules.PRESETS),
                        callback=lambda _ctx, _param, name: Rules.named(name), help=help_text)


def _plot_path(_ctx: click.Context, _param: click.Parameter, path: str | None) -> str | None:
    if path is not None and not path.strip():
        raise click.BadParameter("the path is empty; give a file such as odds.png or odds.svg")
    return path


def output_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--exact, --format, --json and --plot, shared by every command that answers with odds."""
    options = [
        click.option("--exact", is_flag=True, help="Exact fractions instead of floating point."),
        click.option("--format", "fmt", default="table", show_default=True,
                     type=click.Choice(present.FORMATS, case_sensitive=False), help="How to print the answer."),
        click.option("--json", "as_json", is_flag=True, help="Shortcut for --format json."),
        click.option("--plot", type=click.Path(dir_okay=False), callback=_plot_path,
                     help="Also draw the odds to FILE.png or FILE.svg (needs the [plot] extra)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def emit(report: present.Report, fmt: str, as_json: bool, plot: str | None, context: Context | None = None) -> None:
    """Print the report in the chosen format, and draw it if asked; the situation of `context`
    (every assumption that is not the default) is named in the report's header."""
    if context is not None:
        report = attrs.evolve(report, preface=report.preface + situation(context))
    if plot:
        save_plot(report, plot)
    click.echo(present.render(report, "json" if as_json else fmt.lower()).rstrip("\n"))


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
        critical_hit=options.pop("crit_hit"), rules=options.pop("rules"),
        command_reroll=options.pop("command_reroll"),
        beyond_conversion_range=options.pop("far"), critical_wound=options.pop("crit_wound"),
        critical_mortals=options.pop("crit_mortals"), damage_bonus=options.pop("damage_bonus"),
        reroll_damage=options.pop("reroll_damage"), save_modifier=options.pop("save_mod"),
        reroll_saves=options.pop("reroll_saves") or Reroll.NONE, worsen_ap=options.pop("worsen_ap"),
        wound_modifier_against=options.pop("wound_mod_against"),
    )


def named_target(text: str) -> TargetUnit:
    """The target an option writes out or names, with what its datasheets say was inferred or left out
    (for the header). A profile is read here, so that a question written out in full loads neither the
    rules data nor the player's index: they load only for a name."""
    from ..data.datasheet import TargetUnit  # the type alone: no rules data, index or cattrs

    if is_profile(text):
        return TargetUnit(Target.parse(text), " ".join(text.split()))
    from ..data.load import target_unit

    return target_unit(text)


RULES_DIR = click.option(  # the environment variable is data.load.ENVIRONMENT (not imported: it loads the data layer)
    "--rules-dir", type=click.Path(file_okay=False), envvar="MATHHAMMER_RULES", show_envvar=True,
    help="Your own rules folder, layered over the shipped rules/ (see docs/data.md).")

TARGET_MODELS = click.option(  # no short form: -m counts the attacking models in `attack` and `plan`
    "--target-models", type=int, help="Models in the target unit (default: as named or written).")


def _order_numbers(_ctx: click.Context, _param: click.Parameter, text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        return tuple(int(number) for number in text.split(","))
    except ValueError:
        raise click.BadParameter(f"group numbers separated by commas, e.g. '2,1', got {text!r}") from None


ORDER = click.option(
    "--order", callback=_order_numbers, metavar="GROUPS",
    help="The defender's allocation order of the target's model groups, numbered from 1 as the answer lists "
         "them, e.g. '2,1'.")



def chance(text: str) -> Fraction:
    """A wanted chance as written, exactly: 0.9, 9/10 or 90%."""
    try:
        value = Fraction(text.strip().removesuffix("%")) / (100 if text.strip().endswith("%") else 1)
    except (ValueError, ZeroDivisionError):
        raise MathhammerError(f"--need takes a chance such as 0.9, 9/10 or 90%, got {text!r}") from None
    if not 0 < value <= 1:
        raise MathhammerError(f"--need takes a chance above 0 and at most 1, got {text!r}")
    return value

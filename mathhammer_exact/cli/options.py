"""Options shared by several commands (the situation, the output format) and printing the answer."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ..editions import answered_in, asked
from ..errors import MathhammerError
from ..model import Context, Rules, SituationField, Target, declared_fields
from ..parsing import is_profile
from ..present import report as present
from ..present.plot import save_plot
from .command import edition_name

if TYPE_CHECKING:
    from ..data.datasheet import TargetUnit

def situation_option(field: SituationField, **change: Any) -> Callable[..., Any]:
    """The command's option for one declared field of the situation, given to the command under the
    field's name; `change` replaces what the declaration says (e.g. another help text)."""
    declared = field.declared
    spoken = field.spoken
    kind: dict[str, Any]
    if isinstance(field.default, bool):
        kind = {"is_flag": True}
    elif declared.metavar is not None:
        kind = {"default": spoken, "metavar": declared.metavar}
    elif declared.choices:  # the default is the option left out
        kind = {"type": click.Choice([c for c in declared.choices if c != spoken], case_sensitive=False)}
    else:
        kind = {"default": spoken, "type": type(field.default)}
    shown = {"show_default": True} if spoken and not isinstance(spoken, bool) else {}
    return click.option(declared.option, field.name, **{**kind, **shown, "help": declared.help, **change})


def situation_options(command: Callable[..., Any], fields_of: type = Context,
                      output: bool = True) -> Callable[..., Any]:
    """The options that describe the situation, one for each declared field of `fields_of`, and (with
    `output`) the output options: shared by `attack`, `unit`, `plan` and `turn`."""
    command = _looking_up_in_its_edition(command)
    for field in reversed(declared_fields(fields_of)):
        command = situation_option(field)(command)
    return output_options(command) if output else command


def _looking_up_in_its_edition(command: Callable[..., Any]) -> Callable[..., Any]:
    """The command (or a click command's callback) with the units it names looked up in the edition its
    --edition asks for."""
    if isinstance(command, click.Command):
        if command.callback is not None:
            command.callback = _looking_up_in_its_edition(command.callback)
        return command

    @functools.wraps(command)
    def run(**params: Any) -> Any:
        with asked(params.get("edition")):
            return command(**params)

    return run


def edition_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """--edition for a command that names units but states no situation (`show`, `survive`): the units it names
    looked up in that edition's index, and its answer given in that edition's rules."""
    field = next(field for field in declared_fields() if field.name == "edition")
    return situation_option(field, help="The edition whose units to look up and whose rules answer: 10e or 11e "
                                        "(default: as for every command, see docs/cli.md).", callback=edition_name)(
        _looking_up_in_its_edition(command))


def rules_option(help_text: str) -> Callable[..., Any]:
    """--rules NAME, given to the command as a `Rules` (an unknown name is a one-line error)."""
    rules = next(field for field in declared_fields() if field.name == "rules")
    return situation_option(rules, help=help_text, callback=lambda _ctx, _param, name: Rules.named(name))


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
    ctx = click.get_current_context(silent=True)
    if as_json and fmt.lower() != "json" and ctx is not None and \
            ctx.get_parameter_source("fmt") is click.core.ParameterSource.COMMANDLINE:
        raise MathhammerError(f"--json is --format json; it cannot go with --format {fmt.lower()}: give one of them")
    if context is not None:
        report = present.assuming(report, context)
    if plot:
        save_plot(report, plot)
    click.echo(present.render(report, "json" if as_json else fmt.lower()).rstrip("\n"))


def context_from(options: dict[str, Any], fields_of: type = Context) -> Context:
    """The situation (a `fields_of`) described by its options (removed from `options`); an option
    left out is the field's default, and the edition left out the player's ($MATHHAMMER_EDITION, `answered_in`)."""
    given = {field.name: options.pop(field.name) for field in declared_fields(fields_of)}
    given["edition"] = answered_in(given["edition"])
    return fields_of(**{name: value for name, value in given.items() if value is not None})


def named_target(text: str) -> TargetUnit:
    """The target an option writes out or names, with what its datasheets say was inferred or left out
    (for the header). A profile is read here, so that a question written out in full loads neither the
    rules data nor the player's index: they load only for a name."""
    from ..data.datasheet import TargetUnit  # the type alone: no rules data, index or cattrs

    if is_profile(text):
        return TargetUnit(Target.parse(text), " ".join(text.split()))
    from ..units.by_name import target_unit

    return target_unit(text)


RULES_DIR = click.option(  # the environment variable is data.load.ENVIRONMENT (not imported: it loads the data layer)
    "--rules-dir", type=click.Path(file_okay=False), envvar="MATHHAMMER_RULES", show_envvar=True,
    help="Your own rules folder, layered over the shipped rules/ (see docs/data.md).")

TARGET_MODELS = click.option(  # no short form: -m counts the attacking models in `attack` and `plan`
    "--target-models", type=int, help="Models in the target unit (default: as named or written; one that has lost "
                                      "models is written after its name: 'Incursor Squad x3/5', 3 left of 5).")
TWO_LEADERS = "twice for two Leaders, where a Leader's datasheet allows it (a Captain and a Lieutenant)"
LEADER = click.option("--leader", multiple=True, help="Attach a leader to the target unit: a CHARACTER unit by name, "
                      f"or a profile such as 'T4 Sv3+ inv4+ W4 Ld6+'; {TWO_LEADERS}.")
LEADER_WARGEAR = ("each choice goes to the Leader that can take it, or to the one named before a colon: 'Captain: "
                  "power fist'")
TARGET_LOADOUT = click.option("--target-loadout", default="",
                              help="The target's wargear choices, comma separated, e.g. 'medi-pack'.")
LED_BY_LOADOUT = click.option("--led-by-loadout", default="", help="The wargear choices of the attacking unit's "
                              f"Leaders (--led-by), comma separated; {LEADER_WARGEAR}.")
LEADER_LOADOUT = click.option("--leader-loadout", default="", help="The wargear choices of the target's Leaders "
                              f"(--leader), comma separated; {LEADER_WARGEAR}.")
LED_BY = click.option("--led-by", multiple=True, help="A Leader (a CHARACTER unit by name) joined to the attacking "
                      "unit (in a turn, the first unit named that it can lead, in each phase that unit attacks in): "
                      f"its weapons attack with the unit's; {TWO_LEADERS}.")


def items(loadout: str) -> list[str]:
    """The wargear choices of a comma-separated loadout option."""
    return [item for item in loadout.split(",") if item.strip()]


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

"""Each situation field is declared once, on `Context`: the command's options, the web request's model
and the answer's header are made from the declaration, and a field declared alone shows up in each."""

from __future__ import annotations

from typing import Any, get_args

import attrs
import click
import pytest
from click.testing import CliRunner

from mathhammer_exact import Context
from mathhammer_exact.cli import cli
from mathhammer_exact.cli.options import context_from, situation_options
from mathhammer_exact.model import Declared, SituationField, declared_fields, situation_field
from mathhammer_exact.present.situation import situation
from mathhammer_exact.web import schemas

FIELDS = declared_fields()
TEXT = {"critical_mortals": "hit 1"}  #: a value for each field of free text (no choices)


IN_ELEVENTH = {"lethal_hits": {"edition": "11e"}}  #: fields whose choices the 10th edition does not all allow


def other_value(field: SituationField) -> Any:
    """A value of the field, as a player writes it, that is not its default."""
    declared = field.declared
    if isinstance(field.default, bool):
        return True
    if declared.choices:
        return next(choice for choice in reversed(declared.choices) if choice != field.spoken)
    if declared.metavar is not None:
        return TEXT[field.name]
    return declared.high if declared.high != field.default else declared.low


def choices_of(annotation: Any) -> set[Any]:
    """The values a `Literal` (or an optional one) allows, None included."""
    args = get_args(annotation)
    if not args:
        return {None} if annotation is type(None) else set()
    return set().union(*(choices_of(arg) if get_args(arg) or arg is type(None) else {arg} for arg in args))


def cli_params(command: str) -> dict[str, click.Parameter]:
    with click.Context(cli) as ctx:
        found = cli.get_command(ctx, command)
    assert found is not None
    return {param.name: param for param in found.params if param.name}


def test_every_field_of_context_is_declared_in_order():
    assert [field.name for field in FIELDS] == [field.name for field in attrs.fields(Context)]
    assert len({field.declared.option for field in FIELDS}) == len(FIELDS)


@click.command()
@situation_options
def plain(**options: Any) -> None:
    """The situation options alone, as every command has them."""


def given(*args: str, command: click.Command = plain) -> dict[str, Any]:
    """What `command` receives for these arguments."""
    return command.make_context(command.name or "", list(args)).params


@pytest.mark.parametrize("command", ["attack", "unit", "plan", "turn"])
def test_each_command_has_an_option_for_each_declared_field_with_its_help_and_choices(command):
    params = cli_params(command)
    for field in FIELDS:
        declared, param = field.declared, params[field.name]
        assert isinstance(param, click.Option) and param.opts == [declared.option], field.name
        assert param.help == declared.help and param.is_flag == isinstance(field.default, bool), field.name
        if declared.choices and declared.metavar is None:  # left out: the default
            assert isinstance(param.type, click.Choice), field.name
            assert {*param.type.choices, field.spoken} - {None} == set(declared.choices), field.name


def test_the_options_left_out_are_the_declared_defaults_and_each_option_sets_its_field():
    assert context_from(given()) == Context()
    for field in FIELDS:
        value = other_value(field)
        args = [field.declared.option] if value is True else [field.declared.option, str(value)]
        assert context_from(given(*args)) == Context(**{field.name: value}), field.name


@pytest.mark.parametrize("field", [f for f in FIELDS if f.declared.high is not None], ids=lambda f: f.name)
def test_the_command_refuses_a_value_out_of_the_declared_bounds_and_takes_the_bounds(field):
    declared = field.declared
    base = ["attack", "-w", "A1 BS3+ S4 AP0 D1", "-t", "T4 Sv3+ W2"]
    for wrong in (declared.low - 1, declared.high + 1):
        out = CliRunner().invoke(cli, [*base, declared.option, str(wrong)])
        assert out.exit_code == 2 and out.output.startswith(f"error: {declared.label} must be "), out.output
    for bound in (declared.low, declared.high):
        assert getattr(Context(**{field.name: bound}), field.name) == bound


def test_the_web_request_has_each_declared_field_with_its_default_bounds_choices_and_help():
    model = schemas.Situation
    schema = model.model_json_schema()["properties"]
    assert list(model.model_fields) == [field.name for field in FIELDS]
    for field in FIELDS:
        declared, info = field.declared, model.model_fields[field.name]
        assert info.default == field.spoken and info.description == declared.help, field.name
        assert schema[field.name].get("minimum") == declared.low, field.name
        assert schema[field.name].get("maximum") == declared.high, field.name
        if declared.choices:
            assert choices_of(info.annotation) - {None} == set(declared.choices), field.name
            assert (None in choices_of(info.annotation)) == (field.spoken is None), field.name
            # the page's options say each choice in the header's words (its control is built from this schema)
            # (a choice in the 11th edition's situation, as Lethal Hits' policies are, is made there)
            words = {choice: declared.say(getattr(Context(**{field.name: choice, **IN_ELEVENTH.get(field.name, {})}),
                                                  field.name))
                     for choice in declared.choices if choice != field.spoken}
            assert schema[field.name]["x-words"] == words, field.name
        elif declared.metavar is not None:
            assert schema[field.name]["x-metavar"] == declared.metavar, field.name
        given = model.model_validate({field.name: other_value(field)})
        assert given.context() == Context(**{field.name: other_value(field)}), field.name


def test_the_header_states_each_declared_field_in_its_words():
    edition = "  rules: 10th edition, current printing"
    assert situation(Context()) == (edition,)  # every answer names its edition and printing
    for field in FIELDS:  # a capped modifier within its cap (beyond it: the test below)
        context = Context(**{field.name: 1 if field.declared.capped else other_value(field)})
        words = field.declared.say(getattr(context, field.name))
        # (an edition's own lines, what it assumes and takes from reports, follow its rules line)
        (line,) = [line for line in situation(context)
                   if line != edition and not line.startswith(("  rules assumed", "  rule reported"))]
        assert line.startswith(f"  {field.declared.line.replace('against the target', 'rolls')}: "), field.name
        assert line.endswith(words), (field.name, line)


@pytest.mark.parametrize(("fields", "said"), [
    ({"hit_modifier": 1}, "  rolls: hit roll +1"),  # within the cap: as asked
    ({"hit_modifier": 5}, "  rolls: hit roll +5 (counted as +1: a roll's modifiers together are capped at ±1)"),
    ({"wound_modifier": -2}, "  rolls: wound roll -2 (counted as -1: a roll's modifiers together are capped at ±1)"),
])
def test_a_roll_modifier_beyond_the_editions_cap_is_said_to_count_as_the_cap(fields, said):
    assert situation(Context(**fields))[0] == said


@attrs.frozen
class Wider(Context):
    """A situation with two fields that no code names: only declared."""

    teleported: bool = situation_field(False, Declared(
        "--teleported", "The attacker arrived by teleport.", "attacker teleported", "situation"))
    fervour: int = situation_field(0, Declared(
        "--fervour", "Fervour points spent.", "fervour {}", low=0, high=3, label="fervour"))


def test_a_field_added_to_the_declaration_alone_shows_up_everywhere():
    @click.command()
    def wider(**options: Any) -> None:
        click.echo("\n".join(situation(context_from(options, Wider))))

    wider = situation_options(wider, Wider)
    names = {param.name for param in wider.params}
    assert names - {param.name for param in plain.params} == {"teleported", "fervour"}
    out = CliRunner().invoke(wider, ["--teleported", "--fervour", "2", "--cover"])
    assert out.exit_code == 0, out.output
    assert out.output == ("  situation: target has the Benefit of Cover, attacker teleported\n  rolls: fervour 2\n"
                          "  rules: 10th edition, current printing\n")
    wrong = CliRunner().invoke(wider, ["--fervour", "4"])
    assert "fervour must be 0 to 3, got 4" in str(wrong.exception)

    model = schemas.situation_model(Wider, "WiderSituation")
    assert model.model_fields["teleported"].default is False
    assert model.model_json_schema()["properties"]["fervour"] == {
        "default": 0, "description": "Fervour points spent.", "maximum": 3, "minimum": 0, "title": "Fervour",
        "type": "integer"}
    # the page builds its situation controls from this schema: tests/test_browser.py gives it this one and finds
    # the two fields' controls, with these defaults and bounds, in its URL and its requests
    context = model.model_validate({"teleported": True, "fervour": 1, "reroll_saves": "ones"}).context()
    assert context == Wider(teleported=True, fervour=1, reroll_saves="ones")
    assert situation(context) == ("  situation: attacker teleported",  # in the declared order: Context's first
                                  "  rolls: against the target: re-roll save rolls of 1, fervour 1",
                                  "  rules: 10th edition, current printing")


STACKED = [field for field in FIELDS if field.declared.stack]


def _rule_effect(field: SituationField, line: str) -> Any:
    """The effect of a named rule read from a rules file as `rules/*.toml` writes it, with `line` its
    effect (a rule of the target's for a field stated against the target)."""
    import tomllib

    from mathhammer_exact.data.load import READER
    from mathhammer_exact.data.modifiers import NamedRule

    side = "target" if field.declared.line == "against the target" else "attacker"
    text = f'name = "X"\nkind = "ability"\nsource = "t"\nsummary = "s"\nphase = "either"\nsituation = "{side}"\n'
    return READER.structure("x.toml [x]", {"key": "x", **tomllib.loads(text + f"effect = {{ {line} }}\n")},
                            NamedRule).effect


def _toml(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else repr(value).replace("'", '"')


@pytest.mark.parametrize("field", STACKED, ids=lambda f: f.name)
def test_a_named_rule_may_set_each_stacked_field_as_its_option_would(field):
    """Each situation field declared with a `stack` is a named-rule effect field: read from a rules file
    with the option's spelling, it sets the field as the option does, and the effect says it."""
    from mathhammer_exact import Target, Weapon
    from mathhammer_exact.data.modifiers import Effect, _improved_context

    value = other_value(field)
    effect = _rule_effect(field, f"{field.name} = {_toml(value)}")
    assert effect == Effect(**{field.name: value})
    weapon, target = Weapon.parse("A1 BS3+ S4 AP0 D1"), Target.parse("T4 Sv3+ W2 x5")
    assert _improved_context(Context(), weapon, target, effect) == Context(**{field.name: value})
    assert effect.describe() == field.declared.granted(getattr(Context(**{field.name: value}), field.name))


@pytest.mark.parametrize("field", [f for f in STACKED if f.declared.high is not None], ids=lambda f: f.name)
def test_a_named_rule_out_of_a_fields_bounds_is_refused_as_the_option_is(field):
    from mathhammer_exact import MathhammerError

    assert field.declared.high is not None
    with pytest.raises(MathhammerError, match=f"{field.declared.label} must be"):
        _rule_effect(field, f"{field.name} = {field.declared.high + 1}")

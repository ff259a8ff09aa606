"""The `mathhammer` command line: thin commands that parse, call the API and render.

Every error a user can cause ends in one line on stderr and exit status 2.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from . import render
from .errors import MathhammerError
from .model import Context, Reroll, Rules, Target, Weapon
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


@cli.command()
@click.option("--weapon", "-w", required=True, help="Weapon profile, e.g. 'A2 BS3+ S4 AP-1 D1 [LETHAL HITS]'.")
@click.option("--target", "-t", required=True, help="Target unit, e.g. 'T4 Sv3+ inv5+ W2 x5 fnp6+ [INFANTRY]'.")
@click.option("--models", "-m", default=1, show_default=True, type=int, help="Models firing the weapon.")
@click.option("--cover", is_flag=True, help="The target has the Benefit of Cover.")
@click.option("--half-range", is_flag=True, help="Within half range (Rapid Fire, Melta).")
@click.option("--charged", is_flag=True, help="The attacker charged this turn (Lance).")
@click.option("--stationary", is_flag=True, help="The attacker Remained Stationary (Heavy).")
@click.option("--overwatch", is_flag=True, help="Fire Overwatch: only unmodified 6s hit.")
@click.option("--indirect", is_flag=True, help="Indirect Fire at a target that is not visible.")
@click.option("--engaged", is_flag=True, help="The target is within Engagement Range of your army (no Blast).")
@click.option("--hit-mod", default=0, type=int, help="Hit roll modifier (the net is capped to -1..+1).")
@click.option("--wound-mod", default=0, type=int, help="Wound roll modifier (the net is capped to -1..+1).")
@click.option("--reroll-hits", type=REROLLS, help="Re-roll hit rolls of 1, failed ones, or all but Critical Hits.")
@click.option("--reroll-wounds", type=REROLLS, help="Re-roll wound rolls of 1, failed ones, or all but crits.")
@click.option("--crit-hit", default=6, show_default=True, type=int, help="Unmodified hit roll that is a Critical Hit.")
@click.option("--rules", "rules_name", default="seed", show_default=True,
              type=click.Choice(list(Rules.PRESETS), case_sensitive=False),
              help="Which printing of rules that changed (Devastating Wounds, Indirect Fire, Hazardous).")
@click.option("--exact", is_flag=True, help="Exact fractions instead of floating point.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of tables.")
def attack(weapon: str, target: str, models: int, cover: bool, half_range: bool, charged: bool, stationary: bool,
           overwatch: bool, indirect: bool, engaged: bool, hit_mod: int, wound_mod: int, reroll_hits: str | None,
           reroll_wounds: str | None, crit_hit: int, rules_name: str, exact: bool, as_json: bool) -> None:
    """One weapon profile fired (or fought with) by MODELS models at one target unit."""
    weapon_profile = Weapon.parse(weapon)
    target_unit = Target.parse(target)
    context = Context(
        half_range=half_range, charged=charged, stationary=stationary, overwatch=overwatch, cover=cover,
        indirect=indirect, engaged=engaged, hit_modifier=hit_mod, wound_modifier=wound_mod,
        reroll_hits=reroll_hits or Reroll.NONE, reroll_wounds=reroll_wounds or Reroll.NONE,
        critical_hit=crit_hit, rules=Rules.named(rules_name),
    )
    result = attack_sequence(weapon_profile, target_unit, models, context, exact)
    if as_json:
        click.echo(render.dumps(render.result_json(result)))
    else:
        click.echo(render.result_text(result, f"{models} x [{weapon.strip()}]  ->  {target.strip()}"))


def main() -> None:
    """Entry point of the `mathhammer` console script."""
    cli(prog_name="mathhammer")

"""The class of every command: an option of one value given twice is refused (kept apart from `options`, so that
a command needs nothing else to start)."""

from __future__ import annotations

import click


class Command(click.Command):
    """A command that refuses an option of one value given twice (click would keep the last one silently: a second
    --led-by took the first Leader's place)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            _, _, order = self.make_parser(ctx).parse_args(args=list(args))
        except click.ClickException:  # said by the parse below, as click says it
            order = []
        seen: set[str | None] = set()
        for param in order:
            if isinstance(param, click.Option) and not (param.multiple or param.count or param.is_flag):
                if param.name in seen:
                    several = " (several as one, comma separated: 'a, b')" if "comma separated" in (param.help or "") \
                        else ""
                    raise click.UsageError(f"{max(param.opts, key=len)} is given more than once; it takes one value"
                                           f"{several}", ctx)
                seen.add(param.name)
        return super().parse_args(ctx, args)


class Group(click.Group):
    """A group of commands (`roll`, `data`) whose commands are `Command`s."""

    command_class = Command


def edition_name(_ctx: click.Context | None, _param: click.Parameter | None, name: str | None) -> str | None:
    """The edition an --edition names, as this program calls it ('11' and '11th' are '11e'), or None if none (here,
    not in `options`: `data` loads no numpy)."""
    from ..editions import edition

    return None if name is None else edition(name).name

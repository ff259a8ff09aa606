"""The command line's words in an API answer or refusal, written as the request's: the engine's messages and headers
are the command's (`--with 'Take Aim!'`), and a request names the same things by its keys ("with")."""

from __future__ import annotations

import re

from ..model import declared_fields

#: the command's options that the engine's messages name -> the request's keys that do the same
KEYS = {"--target-models": '"target_models"', "--loadout": '"loadout"', "--with": '"with"', "--profile": '"profiles"',
        "--melee": '"melee"', "--pistols": '"pistols"', "--half-range-for": '"half_range_for"',
        "--cover-for": '"cover_for"', "--no-precision": '"precision": false', "--precision-on": '"precision_on"',
        "--exact": '"exact"', "--order": '"order"', "--led-by": '"led_by"',
        "--target-loadout": '"target_loadout"', "--without": '"without"', "--need": '"need"',
        "--led-by-loadout": '"led_by_loadout"', "--leader-loadout": '"leader_loadout"', "--leader": '"leader"',
        "--at-least": '"at_least"', "--size": '"size"',
        **{field.declared.option: f'"situation.{field.name}"' for field in declared_fields()}}


def in_keys(message: str) -> str:
    """An engine message (or a header line) with each command option it names written as the request's key, e.g.
    `--cover-for` as "cover_for", and the search command it suggests as the API's search (the command prints the
    message as it is)."""
    message = re.sub(r"`mathhammer datasheets --search '?([^`']*)'?`",
                     lambda search: f"`GET /api/units?q={search[1].replace(' ', '+')}`", message)
    return re.sub(r"--[a-z][a-z-]*", lambda flag: KEYS.get(flag[0], flag[0]), message)

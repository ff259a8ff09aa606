"""The command line's words in an API answer or refusal, written as the request's: the engine's messages and headers
are the command's (`--with 'Take Aim!'`), and a request names the same things by its keys ("with")."""

from __future__ import annotations

import functools
import re

from pydantic import BaseModel

from ..model import declared_fields

COMMANDS = ("attack", "unit", "compare", "plan", "turn", "survive", "matchup")  #: the commands the API answers as

#: the command's options that the engine's messages name -> the request's keys that do the same
KEYS = {"--target-models": '"target_models"', "--loadout": '"loadout"', "--with": '"with"', "--profile": '"profiles"',
        "--melee": '"melee"', "--pistols": '"pistols"', "--half-range-for": '"half_range_for"',
        "--cover-for": '"cover_for"', "--no-precision": '"precision": false', "--precision-on": '"precision_on"',
        "--exact": '"exact"', "--order": '"order"', "--led-by": '"led_by"',
        "--target-loadout": '"target_loadout"', "--without": '"without"', "--need": '"need"',
        "--led-by-loadout": '"led_by_loadout"', "--leader-loadout": '"leader_loadout"', "--leader": '"leader"',
        "--at-least": '"at_least"', "--size": '"size"', "--charge-reroll": '"charge_reroll"',
        "--charge-mod": '"charge_modifier"',
        **{field.declared.option: f'"situation.{field.name}"' for field in declared_fields()}}


@functools.cache
def request_keys(request: type[BaseModel]) -> frozenset[str]:
    """Every key a request of this kind may carry, at any depth (its JSON schema's properties, by their aliases)."""
    schema = request.model_json_schema(by_alias=True)
    parts = (schema, *schema.get("$defs", {}).values())
    return frozenset(name for part in parts for name in part.get("properties", {}))


def in_keys(message: str, request: type[BaseModel] | None = None) -> str:
    """An engine message (or a header line) with each command option it names written as the request's key, e.g.
    `--cover-for` as "cover_for", and the command it suggests as the API's path (the command prints the message as
    it is). Where the `request` answered has no such key, whose key it is: a rule a survive's unit is said to need is
    asked for with `POST /api/unit` (a review found "with" named to a plan, which had none); a request's own key for
    an option where it has one (`OPTION_KEYS`: survive's "loadout" for --target-loadout)."""
    said = "`mathhammer unit`" in message  # the line says whose options it names already (a trial read it twice)
    message = re.sub(r"`mathhammer datasheets --search '?([^`']*)'?`",
                     lambda search: f"`GET /api/units?q={search[1].replace(' ', '+')}`", message)
    message = re.sub(rf"`mathhammer ({'|'.join(COMMANDS)})`", r"`POST /api/\1`", message)
    keys = request_keys(request) if request is not None else None
    own: dict[str, str] = getattr(request, "OPTION_KEYS", {})

    def key(flag: str) -> str:
        written = own.get(flag) or KEYS.get(flag)
        if written is None or keys is None or said or written.strip('"').split('"')[0].split(".")[0] in keys:
            return written or flag
        return f"{written} (of `POST /api/unit`)"

    return re.sub(r"--[a-z][a-z-]*", lambda flag: key(flag[0]), message)

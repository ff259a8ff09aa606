"""The one exception type a user sees: bad input, said plainly; and the "did you mean" its messages offer."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping


class MathhammerError(ValueError):
    """Input the rules do not allow (an impossible BS, a malformed dice expression, ...).

    The message is one line saying what was wrong and what is allowed; the CLI
    prints it and exits with status 2.
    """


def did_you_mean(candidates: Iterable[str], known: Mapping[str, str]) -> str:
    """`` (did you mean 'X'?)`` for the known name closest to a candidate (the first that has one
    close), or nothing. `known` maps each name as compared (e.g. lower case) to the name as shown.

    >>> did_you_mean(["letal hits"], {"lethal hits": "LETHAL HITS", "lance": "LANCE"})
    " (did you mean 'LETHAL HITS'?)"
    """
    for candidate in candidates:
        close = difflib.get_close_matches(candidate, list(known), n=1, cutoff=0.6)
        if close:
            return f" (did you mean {known[close[0]]!r}?)"
    return ""

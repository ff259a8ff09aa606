"""Unit and faction names as players type them, for matching against the names the data uses."""

from __future__ import annotations

import re


def normalise(name: str) -> str:
    """Names as players type them: case, apostrophes and punctuation do not matter ("T'au" = "tau")."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", re.sub(r"['’`]", "", name.lower())).split())


"""Unit and faction names as players type them, for matching against the names the data uses."""

from __future__ import annotations

import re
import unicodedata


def normalise(name: str) -> str:
    """Names as players type them: case, accents, apostrophes and punctuation do not matter ("T'au" = "tau",
    "Kâhl" = "Kahl")."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", name.lower()) if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", re.sub(r"['’`]", "", plain)).split())


_TAGS = re.compile(r"\[[^\]]*\]")  # '[Legends]', '[Crucible]'
_PLURALS = (("sses", "ss"), ("ies", "y"), ("men", "man"), ("lves", "lf"), ("xes", "x"), ("ches", "ch"), ("shes", "sh"))


def _singular(word: str) -> str:
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    for plural, single in _PLURALS:
        if word.endswith(plural):
            return word[:-len(plural)] + single
    return word.removesuffix("s")


def loose(name: str) -> str:
    """A name without what players leave out or change: its plurals ('Carnifexes' and 'Carnifex',
    'Guardsmen' and 'Guardsman' are one), the word 'Squad', and tags such as '[Legends]'."""
    words = (_singular(w) for w in normalise(_TAGS.sub(" ", name)).split())
    return " ".join(w for w in words if w != "squad")

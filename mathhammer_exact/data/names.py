"""Unit and faction names as players type them, for matching against the names the data uses."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence


@functools.lru_cache(maxsize=1 << 16)  # the same names, again and again, when a checkout is indexed
def normalise(name: str) -> str:
    """Names as players type them: case, accents, apostrophes and punctuation do not matter ("T'au" = "tau",
    "Kâhl" = "Kahl")."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", name.lower()) if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", re.sub(r"['’`]", "", plain)).split())


_TAGS = re.compile(r"\[[^\]]*\]")  # '[Legends]', '[Crucible]'
_PLURALS = (("sses", "ss"), ("ies", "y"), ("men", "man"), ("lves", "lf"), ("knives", "knife"), ("xes", "x"),
            ("ches", "ch"), ("shes", "sh"))


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


def compact(name: str) -> str:
    """A loose name without its spaces: the words a name's punctuation joins, typed apart or together, are one
    ('lion el jonson' for Lion El'Jonson, 'war boss' for Warboss)."""
    return loose(name).replace(" ", "")


SMALL_WORDS = frozenset({"the", "of", "with", "and", "in", "on", "w"})  #: not counted among a name's own words


def holds_words(name: str, text: str) -> bool:
    """Whether `name` holds every word of `text`, as typed or loosely (a plural for a singular): 'fireknife
    battlesuits' holds for Crisis Fireknife Battlesuits, 'silent king' for The Silent King."""
    words = [(w, loose(w) or w) for w in normalise(text).split()]
    return bool(words) and all(w in normalise(name) or single in loose(name) for w, single in words)


def starts_words(name: str, words: Sequence[str]) -> bool:
    """Whether each of `words` starts a word of `name`, as typed or loosely ('silent king' of The Silent King,
    'spinefist' of Spinefists; not 'ain' of Warden Captain)."""
    own = normalise(name).split() + loose(name).split()
    return bool(words) and all(any(o.startswith(loose(w) or w) or o.startswith(w) for o in own) for w in words)


def words_left(name: str, text: str) -> int:
    """How many of `name`'s own words (not SMALL_WORDS) no word of `text` starts: the fewer, the nearer the name
    is to what was typed ('ork boyz' is nearer Boyz than Beast Snagga Boyz)."""
    typed = [(w, loose(w) or w) for w in normalise(text).split()]
    own = [w for w in loose(name).split() if w not in SMALL_WORDS]
    return sum(not any(o.startswith(w) or o.startswith(single) for w, single in typed) for o in own)


def nearest_first(name: str, text: str) -> tuple[bool, bool, int, bool, str]:
    """The order to list the names `text` may mean: a name it gives whole first, then the units of today before
    the [Legends] ones, each the fewest words left first (`words_left`), a name that starts as typed first,
    then by name."""
    left = words_left(name, text)
    return left > 0, "[" in name, left, not normalise(name).startswith(normalise(text)), name

"""New Recruit's JSON export of an army list: the BattleScribe roster written as JSON. It is turned back
into the roster's XML elements, so that one reader (roster.py) reads both.

How New Recruit writes the roster: `{"roster": {...}}`, where an object is an element; its text, number and
true/false members are the element's attributes; a list member is the container element of that name,
holding one element per item, named by the singular (`"selections": [...]` holds `selection`s,
`"categories"` `category`s); `"$text"` is an element's text (a characteristic's value) and a rule's
`"description"` is its description element.
"""

from __future__ import annotations

import json
from xml.etree.ElementTree import Element, SubElement

from ..errors import MathhammerError
from .battlescribe import SCHEMA, SCHEMAS

_TEXT = "$text"
_CHILD_TEXT = ("description",)  #: text members written as child elements in the XML roster


def is_json(data: bytes) -> bool:
    """True for a JSON object (a New Recruit export), False for XML or anything else."""
    return data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"


def _singular(name: str) -> str:
    return name[:-3] + "y" if name.endswith("ies") else name[:-1] if name.endswith("s") else name


def _attribute(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def roster_element(data: bytes, where: str) -> Element:
    """The roster element that the XML export of the same army list would have."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError) as exc:  # a UnicodeDecodeError is a ValueError; RecursionError: nesting
        raise MathhammerError(f"{where}: not a readable JSON file ({str(exc) or 'nested too deep'})") from None
    roster = document.get("roster") if isinstance(document, dict) else None
    if not isinstance(roster, dict):
        raise MathhammerError(f"{where}: not a New Recruit army list (no \"roster\" object at the top of the JSON)")
    root = Element(f"{{{roster.get('xmlns', SCHEMA + SCHEMAS['roster'])}}}roster")
    pending = [(root, roster)]
    while pending:  # without recursion: the nesting is checked afterwards (check_depth)
        element, members = pending.pop()
        for key, value in members.items():
            if isinstance(value, list):
                box = SubElement(element, key)
                for item in value:
                    if not isinstance(item, dict):
                        raise MathhammerError(f"{where}: not a New Recruit army list ({key!r} holds "
                                              f"{type(item).__name__} values, not objects)")
                    pending.append((SubElement(box, _singular(key)), item))
            elif key == _TEXT:
                element.text = _attribute(value)
            elif key in _CHILD_TEXT:
                SubElement(element, key).text = _attribute(value)
            elif value is not None and not isinstance(value, dict) and key != "xmlns":
                element.set(key, _attribute(value))
    return root

"""New Recruit's JSON form of the BattleScribe schema: its army-list export, and the data files of the
11th-edition checkout (BSData/wh40k-11e writes its game system and catalogues in this form). A JSON file
is turned back into the XML elements of the same file, so that one reader reads both forms.

How the JSON is written: `{"roster": {...}}` (or `"gameSystem"`, `"catalogue"`), where an object is an
element; its text, number and true/false members are the element's attributes; a list of objects is the
container element of that name, holding one element per item, named by the singular (`"selections":
[...]` holds `selection`s, `"categories"` `category`s, `"sharedRules"` `rule`s); `"$text"` is an
element's text (a characteristic's value); a rule's `"description"` is its description element, and
each string of a rule's `"alias"` list an alias element.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree.ElementTree import Element, SubElement

from ..errors import MathhammerError
from .battlescribe import KINDS, SCHEMA, SCHEMAS, check_schema, parse_xml, read_bytes

_TEXT = "$text"
_CHILD_TEXT = ("description", "comment", "readme")  #: text members written as child elements in the XML
_TEXT_LISTS = ("alias",)  #: lists of strings, each string a child element of that name in the XML


def is_json(data: bytes) -> bool:
    """True for JSON (New Recruit's form is an object; a list is JSON too, and refused as not that form), False for
    XML or anything else."""
    return data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"[")


def _singular(name: str) -> str:
    """The element name of an item of the list `name`: 'selections' holds 'selection', 'categories'
    'category', and the shared lists of a data file the same elements ('sharedRules' holds 'rule')."""
    if name.startswith("shared") and name[6:7].isupper():
        name = name[6].lower() + name[7:]
    return name[:-3] + "y" if name.endswith("ies") else name[:-1] if name.endswith("s") else name


def _attribute(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _wanted(kinds: tuple[str, ...]) -> str:
    """What a file of `kinds` is called in a refusal."""
    if kinds == ("roster",):
        return "New Recruit army list"
    return "BattleScribe " + " or ".join(KINDS[k][0] for k in kinds) + " in JSON"


def json_element(data: bytes, where: str, kinds: tuple[str, ...]) -> Element:
    """The root element that the XML form of the same file (of one of `kinds`) would have."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError) as exc:  # a UnicodeDecodeError is a ValueError; RecursionError: nesting
        raise MathhammerError(f"{where}: not a readable JSON file ({str(exc) or 'nested too deep'})") from None
    found = [k for k in KINDS if isinstance(document, dict) and isinstance(document.get(k), dict)]
    if not found or found[0] not in kinds:
        tops = " or ".join(f'"{k}"' for k in kinds)
        other = f": it is a BattleScribe {KINDS[found[0]][0]} in JSON" if found else \
            f" (no {tops} object at the top of the JSON)"
        raise MathhammerError(f"{where}: not a {_wanted(kinds)}{other}")
    kind = found[0]
    top = document[kind]
    root = Element(f"{{{top.get('xmlns', SCHEMA + SCHEMAS[kind])}}}{kind}")
    pending = [(root, top)]
    while pending:  # without recursion: the nesting is checked afterwards (check_depth)
        element, members = pending.pop()
        for key, value in members.items():
            if isinstance(value, list) and key in _TEXT_LISTS and all(isinstance(v, str) for v in value):
                for text in value:
                    SubElement(element, key).text = text
            elif isinstance(value, list):
                box = SubElement(element, key)
                for item in value:
                    if not isinstance(item, dict):
                        raise MathhammerError(f"{where}: not a {_wanted(kinds)} ({key!r} holds "
                                              f"{type(item).__name__} values, not objects)")
                    pending.append((SubElement(box, _singular(key)), item))
            elif key == _TEXT:
                element.text = _attribute(value)
            elif key in _CHILD_TEXT:
                SubElement(element, key).text = _attribute(value)
            elif value is not None and not isinstance(value, dict) and key != "xmlns":
                element.set(key, _attribute(value))
    return root


def read_document(path: Path, kinds: tuple[str, ...]) -> Element:
    """The checked root element of a BattleScribe file of one of `kinds`, in either form: XML (.gst, .cat,
    .ros, or zipped: .rosz, .catz) or New Recruit's JSON."""
    return document(read_bytes(path), str(path), kinds)


def document(data: bytes, where: str, kinds: tuple[str, ...]) -> Element:
    """`read_document` for a file's bytes (a zip already unpacked: `battlescribe.unpacked`); `where` names it."""
    root = json_element(data, where, kinds) if is_json(data) else parse_xml(data, where)
    check_schema(root, where, kinds)
    return root

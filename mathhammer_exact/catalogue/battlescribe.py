"""The BattleScribe XML vocabulary shared by data files (.gst/.cat) and army lists (.ros/.rosz).

Files come from strangers, so they are parsed with defusedxml (no entity expansion, no external
entities), and every problem ends in one `MathhammerError` that names the file.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from ..errors import MathhammerError

SCHEMA = "http://www.battlescribe.net/schema/"
SCHEMAS = {"gameSystem": "gameSystemSchema", "catalogue": "catalogueSchema", "roster": "rosterSchema"}
SUPPORTED_VERSIONS = ("2.",)  #: battleScribeVersion prefixes read here (2.00 to 2.03 are in use)
WEAPON_TYPES = ("Ranged Weapons", "Melee Weapons")
MAX_BYTES = 64 * 2**20  #: the largest file read (the largest catalogue is about 4 MB, a roster well under 1 MB)


def tag(element: Element) -> str:
    """The element's name without its namespace."""
    return element.tag.rpartition("}")[2]


def kids(element: Element | None, container: str, name: str) -> Iterator[Element]:
    """The `name` children of `element`'s `container` child, e.g. kids(entry, "profiles", "profile")."""
    if element is None:
        return
    for box in element:
        if tag(box) == container:
            yield from (child for child in box if tag(child) == name)


def characteristics(profile: Element) -> dict[str, str]:
    """A profile's characteristics by name, e.g. {"T": "4", "SV": "3+"}."""
    return {c.get("name", ""): (c.text or "").strip() for c in kids(profile, "characteristics", "characteristic")}


def hidden(element: Element) -> bool:
    return element.get("hidden") == "true"


def _root(data: bytes, where: str) -> Element:
    try:
        root = SafeET.fromstring(data)
    except (ParseError, DefusedXmlException) as exc:
        raise MathhammerError(f"{where}: not a readable BattleScribe XML file ({exc})") from None
    assert isinstance(root, Element)
    return root


def check_schema(root: Element, where: str, kinds: tuple[str, ...]) -> str:
    """The root's kind (gameSystem, catalogue or roster), refusing other documents and schema versions."""
    kind = tag(root)
    namespace = root.tag[1:].partition("}")[0] if root.tag.startswith("{") else ""
    if kind not in kinds or namespace != SCHEMA + SCHEMAS[kind]:
        wanted = " or ".join(kinds)
        raise MathhammerError(f"{where}: not a BattleScribe {wanted} file (root element {root.tag!r})")
    version = root.get("battleScribeVersion", "")
    if not version.startswith(SUPPORTED_VERSIONS):
        raise MathhammerError(f"{where}: unknown BattleScribe schema version {version!r} (this program reads 2.x)")
    return kind


def _check_size(where: str, size: int) -> None:
    if size > MAX_BYTES:
        raise MathhammerError(f"{where}: {size / 2**20:.0f} MB is too large for a BattleScribe file (at most "
                              f"{MAX_BYTES // 2**20} MB)")


def read_xml(path: Path, kinds: tuple[str, ...]) -> Element:
    """The checked root element of a .gst/.cat/.ros file, or of the one .ros inside a .rosz/.catz zip."""
    where = str(path)
    if path.is_dir():
        raise MathhammerError(f"{where}: is a folder, not a file")
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                members = [m for m in archive.infolist() if m.filename.lower().endswith((".ros", ".cat", ".gst"))]
                if len(members) != 1:
                    raise MathhammerError(f"{where}: a zipped file must hold exactly one .ros, .cat or .gst "
                                          f"file, found {len(members)}")
                _check_size(where, members[0].file_size)
                data = archive.read(members[0])
        else:
            _check_size(where, path.stat().st_size)
            data = path.read_bytes()
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise MathhammerError(f"{where}: cannot read ({exc})") from None
    root = _root(data, where)
    check_schema(root, where, kinds)
    return root


def profile_label(weapon: str, profile: str) -> str:
    """'default' for a weapon's only profile, else the part that names the profile ('supercharge')."""
    clean = profile.replace("➤", "").strip()
    if clean.lower() == weapon.strip().lower():
        return "default"
    for sep in (" - ", " – ", ": "):
        head, found, tail = clean.partition(sep)
        if found and head.strip().lower() == weapon.strip().lower():
            return tail.strip()
    return clean

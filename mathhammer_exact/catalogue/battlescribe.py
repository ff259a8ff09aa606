"""The BattleScribe XML vocabulary shared by data files (.gst/.cat) and army lists (.ros/.rosz), and the
editions of Warhammer 40,000 whose files are read (the 10th and the 11th).

Files come from strangers, so they are parsed with defusedxml (no entity expansion, no external
entities), and every problem ends in one `MathhammerError` that names the file.
"""

from __future__ import annotations

import io
import os
import re
import stat
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from ..errors import MathhammerError

SCHEMA = "http://www.battlescribe.net/schema/"
SCHEMAS = {"gameSystem": "gameSystemSchema", "catalogue": "catalogueSchema", "roster": "rosterSchema"}
KINDS = {"gameSystem": ("game system", ".gst"), "catalogue": ("catalogue", ".cat"), "roster": ("roster", ".ros")}
TENTH_EDITION = "sys-352e-adc2-7639-d6a9"  #: BSData's id of the Warhammer 40,000 10th Edition game system
ELEVENTH_EDITION = "sys-352e-adc2-7639-d610"  #: BSData's id of the 11th Edition game system (BSData/wh40k-11e)
EDITIONS = {"10e": (TENTH_EDITION, "10th"), "11e": (ELEVENTH_EDITION, "11th")}  #: edition -> (system id, ordinal)
SUPPORTED_VERSIONS = ("2.",)  #: battleScribeVersion prefixes read here (2.00 to 2.03 are in use)
WEAPON_TYPES = ("Ranged Weapons", "Melee Weapons")
MAX_DEPTH = 100  #: levels of nesting read: elements of an army list, entries below entries of a unit (real: about 20)
MAX_BYTES = 64 * 2**20  #: the largest file read (the largest catalogue is about 4 MB, a roster well under 1 MB)


def tag(element: Element) -> str:
    """The element's name without its namespace (which only a document's root still has: `parse_xml`)."""
    name = element.tag
    return name.rpartition("}")[2] if name[:1] == "{" else name


def kids(element: Element | None, container: str, name: str) -> list[Element]:
    """The `name` children of `element`'s `container` child, e.g. kids(entry, "profiles", "profile").
    Below the root, an element's tag is its bare name (`parse_xml`, `newrecruit.json_element`). Looked up by
    ElementTree's own search (the reading's most frequent call: a generator over the children was a tenth of it)."""
    if element is None:
        return []
    boxes = element.findall(container)
    if len(boxes) == 1:  # as BattleScribe writes every container
        return boxes[0].findall(name)
    return [child for box in boxes for child in box.findall(name)]


_WEAPON_CHARACTERISTICS = frozenset({"Range", "A", "S", "AP", "D"})  #: and a BS or WS: a weapon's, whatever its type


def is_weapon(profile: Element) -> bool:
    """Whether a profile is a weapon's: a Ranged or Melee Weapons profile, or one of another type with a weapon's
    characteristics (a Tesseract Vault's 'C'tan Powers')."""
    if profile.get("typeName") in WEAPON_TYPES:
        return True
    names = {c.get("name", "") for c in kids(profile, "characteristics", "characteristic")}
    return _WEAPON_CHARACTERISTICS <= names and bool(names & {"BS", "WS"})


def characteristics(profile: Element) -> dict[str, str]:
    """A profile's characteristics by name, e.g. {"T": "4", "SV": "3+"}."""
    return {c.get("name", ""): (c.text or "").strip() for c in kids(profile, "characteristics", "characteristic")}


def hidden(element: Element) -> bool:
    return element.get("hidden") == "true"


def unit_entries(catalogue: Element) -> Iterator[Element]:
    """The entries defined at the top of a catalogue that may be units (a "unit", or a single "model")."""
    for container in ("sharedSelectionEntries", "selectionEntries"):
        yield from (entry for entry in kids(catalogue, container, "selectionEntry")
                    if entry.get("type") in ("unit", "model") and not hidden(entry))


_UTF8 = re.compile(rb"<\?xml[^>]*?\bencoding\s*=\s*([\"'])(?i:utf-8|us-ascii|ascii)\1")  #: a declaration of UTF-8


def _plain(data: bytes) -> bool:
    """True for a document in UTF-8 (or ASCII) with no DOCTYPE declaration. Without one it can declare no
    entity, so what defusedxml guards against (entity expansion, external entities, DTDs) cannot happen
    in it, and the standard library's C parser reads it, a third faster (every BSData file is such a
    document). In UTF-8 a DOCTYPE is written as these very bytes; any other encoding goes to defusedxml."""
    text = data.removeprefix(b"\xef\xbb\xbf")
    head = text[:text.find(b">") + 1] if text.startswith(b"<?xml") else b""  # the XML declaration, if any
    return text[:1] == b"<" and (b"encoding" not in head or _UTF8.match(head) is not None) \
        and b"<!DOCTYPE" not in text


#: a document's root start tag declaring its default namespace (after an XML declaration, if any)
_ROOT_NAMESPACE = re.compile(rb"(?:\xef\xbb\xbf)?(?:<\?xml[^<>]*\?>)?\s*<[^\s<>/!?]+"
                             rb"(?:\s+[^\s=<>]+\s*=\s*(?:\"[^\"<]*\"|'[^'<]*'))*"  # the attributes before it
                             rb"\s+(xmlns\s*=\s*([\"'])([^\"'<>&\s]*)\2)")


_BETWEEN_ELEMENTS = re.compile(rb">\s+<")  #: the whitespace from the end of one tag to the start of the next


def _parsed(data: bytes) -> Element:
    """A plain document parsed without the whitespace between its elements: the indentation, which no reader
    looks at (a BattleScribe file has no text beside elements) and which would be a tenth of the parsing,
    made and freed as strings. A document with CDATA, where such whitespace may be text, is parsed as it is;
    one that does not parse is parsed again as it is, to be refused at the line and column of its fault."""
    if b"<![CDATA[" in data:
        return ElementTree.fromstring(data)
    try:
        return ElementTree.fromstring(_BETWEEN_ELEMENTS.sub(b"><", data))
    except ParseError:
        return ElementTree.fromstring(data)


def parse_xml(data: bytes, where: str) -> Element:
    """The root of an XML document, its namespace kept (it names the schema: `check_schema`) and every other
    element's tag its bare name, as in the JSON form (`newrecruit.json_element`). A plain document
    (`_plain`) whose one namespace is its root's default one (every BSData file) is parsed with that
    declaration blanked out, so its elements come with bare names (a sixth of the reading, when each of
    them was renamed after); the root's name is given its namespace back. Its indentation between elements
    is dropped first (`_parsed`)."""
    plain = _plain(data)
    declared = _ROOT_NAMESPACE.match(data) if plain and data.count(b"xmlns") == 1 else None
    if declared is not None:  # blanked with as many spaces, so that an error's line and column stay true
        start, end = declared.span(1)
        data = data[:start] + b" " * (end - start) + data[end:]
    try:
        root = _parsed(data) if plain else SafeET.fromstring(data)
    except ParseError as exc:
        raise MathhammerError(f"{where}: not a readable BattleScribe XML file ({exc})") from None
    except DefusedXmlException:  # (its message is a Python repr: a trial read one)
        raise MathhammerError(f"{where}: not read: it declares entities or a document type, which BattleScribe "
                              "files never do (and which could make an XML reader fetch or build more than the "
                              "file)") from None
    assert isinstance(root, Element)
    if declared is not None:
        root.tag = f"{{{declared[3].decode()}}}{root.tag}"
        return root
    for element in root.iter():  # namespaces stripped once, here, rather than at every look at a tag
        if element is not root and element.tag[:1] == "{":
            element.tag = element.tag.rpartition("}")[2]
    return root


def check_schema(root: Element, where: str, kinds: tuple[str, ...]) -> str:
    """The root's kind (gameSystem, catalogue or roster), refusing other documents and schema versions."""
    kind = tag(root)
    namespace = root.tag[1:].partition("}")[0] if root.tag.startswith("{") else ""
    wanted = " or ".join(KINDS[k][0] for k in kinds)
    if kind in KINDS and kind not in kinds and namespace == SCHEMA + SCHEMAS[kind]:
        name, suffix = KINDS[kind]
        raise MathhammerError(f"{where}: not a BattleScribe {wanted} file: it is a {name} file (named {suffix})")
    if kind in kinds and namespace != SCHEMA + SCHEMAS[kind]:  # (a trial read the root it names as the one wanted)
        said = f"the namespace {namespace!r}" if namespace else "no namespace"
        raise MathhammerError(f"{where}: not a BattleScribe {wanted} file: its root element {kind!r} has {said}, "
                              f"where BattleScribe's is {SCHEMA + SCHEMAS[kind]!r}")
    if kind not in kinds:
        raise MathhammerError(f"{where}: not a BattleScribe {wanted} file (root element {root.tag!r})")
    version = root.get("battleScribeVersion", "")
    if not version.startswith(SUPPORTED_VERSIONS):
        raise MathhammerError(f"{where}: unknown BattleScribe schema version {version!r} (this program reads 2.x)")
    return kind


def check_edition(system_id: str, system_name: str, where: str) -> str:
    """The edition ("10e" or "11e") a file is made for, known by BSData's game system id or by the name;
    a file of another game or edition is refused, saying which it is (8th and 9th share one id; their
    names tell them apart), so that no profile of another edition is read as one of these."""
    name = " ".join(system_name.split())
    said = re.search(r"40,?000\b.*\b(\d+)(?:st|nd|rd|th) edition", name, re.IGNORECASE)
    by_id = [edition for edition, (ident, _) in EDITIONS.items() if system_id == ident]
    by_name = [edition for edition, (_, ordinal) in EDITIONS.items() if said and f"{said[1]}th" == ordinal]
    if by_id or by_name:
        return (by_id or by_name)[0]  # BSData's id first: a renamed copy keeps it
    called = f"{name!r}" if name else f"an unnamed game system (id {system_id!r})"
    other = "another edition" if said else "another game"
    known = " and ".join(ordinal for _, ordinal in EDITIONS.values())
    raise MathhammerError(f"{where}: made for {called}, {other}; this program reads Warhammer 40,000 {known} Editions")


_WHOLE = re.compile(r"\s*([+-]?)0*([0-9]+)(?:\.0*)?\s*")


def whole(text: str | None, what: str, default: int = 0, most: int | None = None, limit: str = "",
          signed: bool = False) -> int:
    """The whole number that a file gives as `text` ("4", or "85.0" as costs are written), 0 or more
    unless `signed` (constraints write -1 for "no limit"), refusing fractions, infinities, words and
    (if `most` is given) more than `most`, the limit that `limit` names."""
    if text is None:
        return default
    if text.isascii() and text.isdigit() and len(text) < 4 and (most is None or int(text) <= most):
        return int(text)  # as nearly every number is written ("1", "-1" and "85.0" go the long way)
    found = _WHOLE.fullmatch(text)  # ASCII digits only: '٣' is no number here
    if not found or (found[1] == "-" and not signed and found[2] != "0"):
        wanted = "a whole number" if signed else "a whole number 0 or more"
        raise MathhammerError(f"{what} is {text!r}, not {wanted}")
    digits = found[2]
    if most is not None and (len(digits) > len(str(most)) or int(digits) > most):
        raise MathhammerError(f"{what} is {digits}, more than {most} ({limit})")
    if len(digits) > 18:  # far beyond any count or cost, and short of Python's limit on long integer strings
        raise MathhammerError(f"{what} is {digits}, too large")
    return -int(digits) if found[1] == "-" else int(digits)


def _check_size(where: str, size: int, measured: bool = True) -> None:
    """Refuse more than MAX_BYTES: `size` as the file or zip states it, or (not `measured`) as read."""
    if size > MAX_BYTES:
        amount = f"{size / 2**20:.0f} MB is " if measured else ""
        raise MathhammerError(f"{where}: {amount}too large for a BattleScribe file (at most "
                              f"{MAX_BYTES // 2**20 or MAX_BYTES} {'MB' if MAX_BYTES >= 2**20 else 'bytes'})")


def _read_file(path: Path) -> bytes:
    """The bytes of a regular file (after following links), at most MAX_BYTES of them. Devices, pipes
    and sockets are refused before a byte is read: /dev/zero never ends and a pipe may never answer.
    The file is opened without blocking and checked through its handle, so it cannot be swapped."""
    where = str(path)
    if path.is_dir():
        raise MathhammerError(f"{where}: is a folder, not a file")
    if path.exists() and not path.is_file():  # checked before opening: opening a pipe would wait for a writer
        raise MathhammerError(f"{where}: not a regular file (a device, pipe or socket); give a file")
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise MathhammerError(f"{where}: not a regular file (a device, pipe or socket); give a file")
        _check_size(where, info.st_size)
        data = handle.read(MAX_BYTES + 1)
    _check_size(where, len(data), measured=False)  # a file that grew, or one that states no size (/proc)
    return data


def check_depth(root: Element, where: str) -> None:
    """Refuse a document nested more than MAX_DEPTH levels deep, before a reader descending level by level
    meets it."""
    level, depth = [root], 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            raise MathhammerError(f"{where}: nested more than {MAX_DEPTH} levels deep (a real file has about 20)")
        level = [child for element in level for child in element]


def read_bytes(path: Path) -> bytes:
    """The bytes of a file, or of the one .ros/.cat/.gst inside a .rosz/.catz zip."""
    where = str(path)
    try:
        data = _read_file(path)
    except OSError as exc:
        raise MathhammerError(f"{where}: cannot read ({exc})") from None
    return unpacked(data, where)


_GZIP = b"\x1f\x8b"  #: how a gzip stream starts
_ZIP = b"PK\x03\x04"  #: how a zip file starts (its first entry's header)


def unpacked(data: bytes, where: str) -> bytes:
    """`data` as read from a file (`where` names it in messages): a gzip stream unpacked (how the web page sends an
    army list), then the one .ros/.cat/.gst inside a zip (.rosz/.catz), anything else as it is;
    never more than MAX_BYTES, whatever a zip or gzip states."""
    try:
        if data.startswith(_GZIP):
            inflate = zlib.decompressobj(wbits=31)
            data = inflate.decompress(data, MAX_BYTES + 1)
            if not inflate.eof:
                if len(data) > MAX_BYTES:
                    _check_size(where, len(data), measured=False)
                raise MathhammerError(f"{where}: cannot read (the gzip stream ends early)")
        if zipfile.is_zipfile(io.BytesIO(data)):  # (a .rosz sent gzipped too: a trial found it refused)
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = [m for m in archive.infolist() if m.filename.lower().endswith((".ros", ".cat", ".gst"))]
                if len(members) != 1:
                    raise MathhammerError(f"{where}: a zipped file must hold exactly one .ros, .cat or .gst "
                                          f"file, found {len(members)}")
                if members[0].flag_bits & 0x1:
                    raise MathhammerError(f"{where}: {members[0].filename} in this zip is encrypted (it has a "
                                          "password); export the list again without one")
                _check_size(where, members[0].file_size)
                with archive.open(members[0]) as member:
                    data = member.read(MAX_BYTES + 1)  # the size a zip states may be a lie
                _check_size(where, len(data), measured=False)
        elif data.startswith(_ZIP):  # a zip's first entry, and no directory at its end
            raise MathhammerError(f"{where}: cannot read (a zip file that ends early: cut short or damaged; export "
                                  "the list again)")
    except (OSError, zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError) as exc:
        raise MathhammerError(f"{where}: cannot read ({exc})") from None
    return data


_PROFILE_SEPARATORS = (" - ", " – ", ": ")  #: between a weapon's name and its profile's ('Plasma gun - supercharge')


def profile_label(weapon: str, profile: str) -> str:
    """'default' for a weapon's only profile, else the part that names the profile ('supercharge')."""
    clean = profile.replace("➤", "").strip()
    if clean.lower() == weapon.strip().lower():
        return "default"
    for sep in _PROFILE_SEPARATORS:
        head, found, tail = clean.partition(sep)
        if found and head.strip().lower() == weapon.strip().lower():
            return tail.strip()
    return clean


def weapon_of(profile: str) -> str:
    """The weapon a profile's name is of: 'L7 missile launcher' for '➤ L7 missile launcher - blast'."""
    clean = profile.replace("➤", "").strip()
    for sep in _PROFILE_SEPARATORS:
        head, found, _ = clean.partition(sep)
        if found:
            return head.strip()
    return clean


_SEVERAL = re.compile(r"([0-9]+)\s*[x×]?\s+(.+)", re.I)  #: '2 Fragstorm Grenade Launchers', '2x Lascannon'


def several(name: str, profiles: list[str]) -> tuple[int, str]:
    """(2, 'Fragstorm Grenade Launcher') for wargear named '2 Fragstorm Grenade Launchers' whose weapon
    profiles are all of 'Fragstorm Grenade Launcher' (a pair of one weapon written as one entry); else
    (1, name)."""
    match = _SEVERAL.fullmatch(name.strip())
    if match is None or not profiles:
        return 1, name
    bases = {weapon_of(profile) for profile in profiles}
    base = next(iter(bases))
    written = match[2].strip().lower()
    if len(bases) == 1 and written in (base.lower(), base.lower() + "s", base.lower() + "es"):
        return int(match[1]), base
    return 1, name


def named_once(models: list[dict[str, Any]]) -> None:
    """Number the kinds of model that share a name ('Hearthkyn Warrior w/ heavy weapon' with a missile
    launcher, and another with a rail rifle: '... #1', '... #2'), so that counting models by kind never
    counts one kind's models twice."""
    names = Counter(m["name"] for m in models)
    seen: Counter[str] = Counter()
    for m in models:
        if names[m["name"]] > 1:
            seen[m["name"]] += 1
            m["name"] = f"{m['name']} #{seen[m['name']]}"

"""Indexing shared among processes (`build.read_checkout`) gives what one process gives: the same records in
the same order, the same unreadable units, the same counts (in the same order, which the report's ties
follow), the same index rows, and the same refusal of a defect, naming the same file. And the files that
the standard library's C parser reads (`battlescribe._plain`) read as defusedxml reads them, while
every document that could declare an entity still goes to defusedxml."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sqlite3
import time
from pathlib import Path
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as SafeET
import pytest

from mathhammer_exact import MathhammerError
from mathhammer_exact.catalogue import battlescribe, bsdata, build, index

FIXTURES = Path(__file__).parent / "fixtures"
CHECKOUTS = ["bsdata", "bsdata-factions"]  #: the fixtures of more than one catalogue (one reads alone)

FORK = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                          reason="processes share the reading only where they can fork")
XML_FILES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".cat", ".gst", ".ros"))


def _shape(element: Element) -> tuple:
    """What a reader sees of an element: whitespace between elements (the indentation) is no text."""
    text, tail = (None if words is None or words.isspace() else words for words in (element.text, element.tail))
    return element.tag, element.attrib, text, tail, [_shape(child) for child in element]


@pytest.mark.parametrize("path", XML_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_plain_file_reads_as_defusedxml_reads_it(path):
    data = path.read_bytes()
    assert battlescribe._plain(data)  # every fixture, as every BSData file, takes the faster parser
    safe = SafeET.fromstring(data)
    for element in safe.iter():
        if element is not safe:
            element.tag = element.tag.rpartition("}")[2]
    assert _shape(battlescribe.parse_xml(data, str(path))) == _shape(safe)


_DOCUMENTS = {  #: plain documents whose root declares its namespace, or not only it: each read as defusedxml reads it
    "one namespace, quoted so": b"\xef\xbb\xbf<r a='1' xmlns = 'urn:x'><e/></r>",
    "no namespace": b'<?xml version="1.0"?><r><e/></r>',
    "a second one": b'<r xmlns="urn:x" xmlns:y="urn:y"><y:e/><e/></r>',
    "the words in an attribute": b"<r a='xmlns=\"urn:q\"'><e/></r>",
    "on a child only": b'<r><e xmlns="urn:x"><f/></e></r>',
    "after a comment": b'<!-- c --><r xmlns="urn:x"><e/></r>',
    "CDATA, its spaces text": b'<r xmlns="urn:x"><e><![CDATA[a >  <b]]></e>\n  <e/></r>',
}


@pytest.mark.parametrize("name", _DOCUMENTS)
def test_a_namespace_reads_as_defusedxml_reads_it(name):
    data = _DOCUMENTS[name]
    assert battlescribe._plain(data)
    safe = SafeET.fromstring(data)
    for element in safe.iter():
        if element is not safe:
            element.tag = element.tag.rpartition("}")[2]
    assert _shape(battlescribe.parse_xml(data, name)) == _shape(safe)


def test_a_broken_document_is_refused_at_its_line_and_column():
    # the root's namespace blanked (as many spaces): expat still points at the 'f' of '</f>', line 3, column 7
    # (counted from 0), as it does reading the document as written
    data = b'<?xml version="1.0"?>\n<r id="1" xmlns="urn:x">\n  <e></f>\n</r>'
    with pytest.raises(MathhammerError, match=r"^broken: not a readable BattleScribe XML file \(mismatched tag: "
                                              r"line 3, column 7\)$"):
        battlescribe.parse_xml(data, "broken")


_BOMB = ('<?xml version="1.0" encoding="{}"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
         '<r>&b;</r>')


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "latin-1"])
def test_entities_are_refused_in_any_encoding(encoding):
    data = _BOMB.format(encoding).encode(encoding)
    assert not battlescribe._plain(data)
    with pytest.raises(MathhammerError, match=r"^bomb: not read: it declares entities or a document type, which "
                                              r"BattleScribe files never do"):
        battlescribe.parse_xml(data, "bomb")


@pytest.mark.parametrize("head", [b'<?xml version="1.0" encoding="cp037"?>', b"<?xml version='1.0' encoding='utf-16'?>",
                                  b'<?xml version="1.0" encoding="utf-8+x"?>', b"\xff\xfe", b" <"])
def test_a_document_in_another_encoding_goes_to_defusedxml(head):
    assert not battlescribe._plain(head + b"<r/>")


def _in_order(tally: build.Tally) -> list[list[tuple[str, int]]]:
    return [list(counts.items()) for counts in (tally.weapons, tally.units, tally.failures, tally.unmodelled,
                                                tally.abilities, tally.abilities_unmodelled)]


@FORK
def test_a_process_busy_with_one_file_leaves_the_others_to_the_rest(monkeypatch):
    # this process keeps to its first file until the worker has taken every other one: no file waits for it
    data = bsdata.load_checkout(FIXTURES / "bsdata-factions")
    files = build._catalogues(data)
    take, parent = build._take, os.getpid()

    def slow(first, shared):
        if os.getpid() == parent:
            deadline = time.monotonic() + 60  # a bound on the wait, should the worker never finish
            while shared[2].value <= len(files) and time.monotonic() < deadline:
                time.sleep(0.01)
        return take(first, shared)

    slow.__module__, slow.__qualname__ = take.__module__, take.__qualname__  # handed over by name, as the real one
    monkeypatch.setattr(build, "_take", slow)
    converted = build.to_datasheet

    def where(record, tally):
        tally.units[f"pid {os.getpid()}"] += 1
        return converted(record, tally)

    monkeypatch.setattr(build, "to_datasheet", where)
    _, (rows, _, tally) = build.read_checkout(FIXTURES / "bsdata-factions", workers=2)
    first = [r for r, _, _ in bsdata.units(data, {files[0]})]
    assert len(files) == 8 and tally.units[f"pid {parent}"] == len(first) == 1  # Grove Beast, of Library - Beasts
    assert sum(n for key, n in tally.units.items() if key.startswith("pid ")) == len(rows) == 19


@FORK
@pytest.mark.parametrize("name", CHECKOUTS)
def test_processes_read_what_one_process_reads(name, monkeypatch):
    alone = build.read_checkout(FIXTURES / name, workers=1)[1]
    read = build._read

    def where(files, data):  # counts the processes that read a file: this one and a worker
        found = read(files, data)
        found[2].units[f"pid {os.getpid()}"] += 1
        return found

    monkeypatch.setattr(build, "_read", where)
    _, (rows, unreadable, tally) = build.read_checkout(FIXTURES / name, workers=2)
    pids = {key for key in tally.units if key.startswith("pid ")}
    assert len(pids) == 2 and f"pid {os.getpid()}" in pids
    for key in pids:
        del tally.units[key]
    assert rows == alone[0] and list(unreadable.items()) == list(alone[1].items())
    assert _in_order(tally) == _in_order(alone[2])


def _rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute("select rowid, key, loose, name, faction, record from units order by rowid").fetchall()


@FORK
@pytest.mark.parametrize("name", CHECKOUTS)
def test_processes_write_the_index_one_process_writes(name, tmp_path, monkeypatch):
    rows = []
    for workers in (1, 2):
        monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / str(workers)))
        rows.append(_rows(build.add_checkout(FIXTURES / name, workers=workers).path))
    assert rows[0] and rows[0] == rows[1]


_LOOPS = {  #: a checkout, and the catalogues in it (in file order) whose entry there can be made to link to itself
    "bsdata": {"Test - Library.cat": 'id="se-rock-fist" collective="true">'},  # met through the first one's units
    "bsdata-factions": {"Realm - Adamant Host - Marble Sons.cat": 'id="se-u-41">',
                        "Realm - Adamant Host - Slate Brothers.cat": 'id="se-s-66">'},
}


@FORK
@pytest.mark.parametrize("checkout", _LOOPS)
def test_a_defect_is_refused_as_one_process_refuses_it(checkout, tmp_path, monkeypatch):
    # bsdata-factions: a worker takes the second catalogue and meets its defect; this process, done with the
    # first, takes the third and meets its defect: the refusal still names the second, as one process does
    folder = tmp_path / "checkout"
    shutil.copytree(FIXTURES / checkout, folder)
    for name, old in _LOOPS[checkout].items():
        text = (folder / name).read_text(encoding="utf-8")
        assert old in text
        ident = old.split('"')[1]
        again = f'<entryLinks><entryLink name="Again" type="selectionEntry" id="el-again" targetId="{ident}"/>' \
                '</entryLinks>'
        (folder / name).write_text(text.replace(old, old + again, 1), encoding="utf-8")
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    messages = []
    for workers in (1, 2):
        with pytest.raises(MathhammerError) as refusal:
            build.add_checkout(folder, workers=workers)
        messages.append(str(refusal.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith(f"{folder / next(iter(_LOOPS[checkout]))}: a link cycle among entries")


@FORK
def test_a_worker_killed_leaves_the_reading_to_this_process(monkeypatch):
    alone = build.read_checkout(FIXTURES / "bsdata", workers=1)[1]
    parent, read = os.getpid(), build._read

    def dying(files, data=None):  # a worker dies as one killed for want of memory dies
        if os.getpid() != parent:
            os._exit(9)
        return read(files, data)

    dying.__module__, dying.__qualname__ = read.__module__, read.__qualname__  # handed over by name, as the real one
    monkeypatch.setattr(build, "_read", dying)
    _, (rows, unreadable, tally) = build.read_checkout(FIXTURES / "bsdata", workers=2)
    assert rows == alone[0] and unreadable == alone[1] and _in_order(tally) == _in_order(alone[2])


def test_a_process_takes_no_file_after_the_checkout_is_refused():
    # this process sets the next file to STOP when it refuses the checkout: a worker ends after the file it is on
    data = bsdata.load_checkout(FIXTURES / "bsdata-factions")
    files = build._catalogues(data)
    following = multiprocessing.get_context().Value("i", build.STOP)
    assert [place for place, _ in build._take(2, (data, files, following))] == [2]
    following.value = 3
    assert [place for place, _ in build._take(2, (data, files, following))] == [2, *range(3, len(files))]


def test_a_process_that_refuses_the_checkout_stops_the_others(monkeypatch):
    # a worker's refusal too (a review found only this process's stopped the others, which read on to no use)
    data = bsdata.load_checkout(FIXTURES / "bsdata-factions")
    files = build._catalogues(data)
    following = multiprocessing.get_context().Value("i", 3)

    def refusing(files, data):
        raise MathhammerError("a defect")

    monkeypatch.setattr(build, "_read", refusing)
    with pytest.raises(MathhammerError, match="a defect"):
        build._take(2, (data, files, following))
    assert following.value == build.STOP

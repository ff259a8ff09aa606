"""Indexing a BSData checkout: read every file, check every unit converts, write the index, report."""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from ..errors import MathhammerError
from . import bsdata
from .battlescribe import EDITIONS, tag
from .convert import Tally, to_datasheet
from .index import Row, index_path, ready_folder, row, write_index

if TYPE_CHECKING:
    from multiprocessing.sharedctypes import Synchronized


@attrs.frozen
class IndexReport:
    """What `mathhammer data add` understood of a checkout."""

    path: Path
    files: int
    units: int
    unreadable: dict[str, str]  #: unit name -> why it could not be read
    tally: Tally
    seconds: float
    edition: str  #: of the checkout's game system (battlescribe.EDITIONS)
    missing: dict[str, list[str]]  #: a catalogue linked but not read -> the catalogues linking it

    @property
    def partial(self) -> int:
        """Units with links to entries in no file read (their notes name them)."""
        return self.tally.units["partial"]

    def lines(self, top: int = 20) -> list[str]:
        weapons, tally = self.tally.weapons, self.tally
        out = [f"indexed {self.units} units of the {EDITIONS[self.edition][1]} edition from {self.files} files in "
               f"{self.seconds:.1f} s into {self.path}",
               f"weapon profiles: {weapons['found']} found, {weapons['parsed']} parsed, {weapons['failed']} not "
               "readable yet",
               f"model profiles: {tally.units['model profiles']} found, {tally.units['model profiles failed']} not "
               "readable yet"]
        if self.missing:
            out.append("catalogues linked but not in the checkout (their units are not indexed): " + ", ".join(
                f"{name} (linked by {len(by)})" for name, by in sorted(self.missing.items())))
        if self.partial:
            out.append(f"units with links to entries in no file read: {self.partial} (each one's notes name them)")
        if self.tally.units["incomplete"]:
            out.append(f"of which {self.tally.units['incomplete']} lack wargear their models carry by default (refused "
                       "when asked about, naming it)")
        if self.unreadable:
            out.append(f"units not readable: {len(self.unreadable)} ({', '.join(sorted(self.unreadable)[:5])}"
                       f"{', ...' if len(self.unreadable) > 5 else ''})")
        if tally.failures:
            out.append("profiles left out, by reason: " + ", ".join(
                f"{reason} ({n})" for reason, n in tally.failures.most_common(top)))
        kinds = tally.abilities
        if kinds:
            out.append(f"abilities: {kinds.total()} read, {kinds['effects']} applied as effects (when a query settles "
                       f"their condition), {kinds['profile']} in the model profile (invulnerable saves, Feel No Pain), "
                       f"{kinds['unmodelled']} not modelled (named in the answers), {kinds['others']} for other units' "
                       f"attacks, {kinds['other']} not about attacks")
        if tally.abilities_unmodelled:
            out.append("abilities not modelled, by units: " + ", ".join(
                f"{name} ({n})" for name, n in tally.abilities_unmodelled.most_common(top)))
        if tally.unmodelled:
            out.append("rules not modelled (reported when used), by profiles: " + ", ".join(
                f"{rule} ({n})" for rule, n in tally.unmodelled.most_common(top)))
        return out


def _revision(folder: Path) -> str:
    """The git commit of the checkout, if it is a git work tree (for `data list`)."""
    try:
        done = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while a checkout is read. The parsed files are some 350,000 elements
    (10e BSData) and hold no cycle, but the collector would walk them all again and again as they grow (more
    CPU than the parsing itself); what cycles the reading leaves are collected once it is done."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


PARALLEL_FROM = 2**22  #: bytes of a checkout from which its reading is shared among processes (BSData's: 37 MB)
MOST_WORKERS = 4  #: processes that read a checkout at most: each holds its own parse (10e BSData: about 250 MB)
STOP = 2**31 - 1  #: the next file to take, once this process has refused the checkout: none
Read = tuple[list[Row], dict[str, str], Tally]  #: the records' index rows, why other units could not be read, counts
Shared = tuple[bsdata.Data, list[Path], "Synchronized[int]"]  #: the checkout, its files in order, the next to take
_following: Synchronized[int] | None = None  #: in a worker process, the next file to take
_shared: Shared | None = None  #: in a worker process, the checkout it parsed, kept until it ends (never freed)


def _adopt(following: Synchronized[int]) -> None:
    """Start a worker: it reads one checkout and ends, so it never needs the cycle collector (`_collector_paused`)."""
    global _following
    gc.disable()
    _following = following


def _read(files: frozenset[Path] | None, data: bsdata.Data) -> Read:
    """The index rows of the records of the units of `files` (all if None) that convert to datasheets, why the
    others could not be read, and the counts of what parsed (with the units whose links lead to no file read)."""
    rows, unreadable, tally = [], {}, Tally()
    for record, name, problem in bsdata.units(data, files):
        if record is None:
            unreadable[name] = problem
            continue
        try:
            to_datasheet(record, tally)
        except MathhammerError as exc:
            unreadable[name] = str(exc)
            continue
        rows.append(row(record))
        tally.units["partial"] += bool(record["unresolved"])
        tally.units["incomplete"] += bool(record["incomplete"])
    return rows, unreadable, tally


def _catalogues(data: bsdata.Data) -> list[Path]:
    """The checkout's catalogue files, in order: those whose units the processes share."""
    return [path for path, root in data.roots if tag(root) == "catalogue"]


def _take(first: int, shared: Shared) -> list[tuple[int, Read]]:
    """`_read` of file `first`, then of the next file no process has taken yet, and so on until none is left:
    (the file's place, what it gave) of each. Files cost very unlike amounts (a catalogue that links
    another's units costs more per unit), so each process takes the next one when it is done with its own
    rather than being handed a share of them beforehand. A process that refuses the checkout has every other
    take no more files (STOP)."""
    data, files, following = shared
    done = []
    place = first
    try:
        while place < len(files):
            done.append((place, _read(frozenset([files[place]]), data)))
            with following.get_lock():
                place = following.value
                following.value = min(place + 1, STOP)
    except BaseException:
        with following.get_lock():
            following.value = STOP
        raise
    return done


def _parse_and_take(folder: Path, first: int) -> list[tuple[int, Read]]:
    """A worker's share: it parses the checkout itself, while this process parses it too (a parse inherited
    by fork would be copied page by page as it is read, slower than parsing it again on a core of its own),
    then `_take`s files from `first` on."""
    global _shared
    assert _following is not None
    data = bsdata.load_checkout(folder)
    _shared = data, _catalogues(data), _following
    return _take(first, _shared)


def read_checkout(folder: Path, progress: Callable[[Path], None] | None = None,
                  workers: int | None = None) -> tuple[bsdata.Data, Read]:
    """The parsed checkout (`bsdata.load_checkout`, calling `progress` after each file) and `_read` of every
    unit, shared among `workers` processes (by default, the cores where the checkout has PARALLEL_FROM bytes
    or more, MOST_WORKERS at most; never more than its catalogues): this one and workers it forks, which parse
    the checkout beside it (`_parse_and_take`), each reading one whole catalogue at a time (`_take`; where there
    is no fork, this process reads them all).
    What they give is joined in file order, so the result is the one a single process gives. Each process checks
    the units it reads (`bsdata.checked_units`); where one finds a defect of the files, the others stop after the
    file they are on and this process reads the whole checkout again as one process does, so that the defect is
    refused as one process refuses it (the first in file order, met by the same path)."""
    files = bsdata.checkout_files(folder)
    if workers is None:
        size = sum(path.stat().st_size for path in files)
        workers = min(os.cpu_count() or 1, MOST_WORKERS) if size >= PARALLEL_FROM else 1
    workers = min(workers, len(files) - 1)  # a catalogue each, at least (one file is the game system)
    data: bsdata.Data | None = None
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        data = bsdata.load_checkout(folder, progress)
        return data, _read(None, data)
    context = multiprocessing.get_context("fork")
    following = context.Value("i", workers)  # each process starts on a file of its own
    try:
        with ProcessPoolExecutor(workers - 1, context, _adopt, (following,)) as pool:
            later = [pool.submit(_parse_and_take, folder, first) for first in range(1, workers)]
            try:
                data = bsdata.load_checkout(folder, progress)
                done = _take(0, (data, _catalogues(data), following))
                done += [share for future in later for share in future.result()]
            except BaseException:  # this process's parse or a worker's refusal: the others take no more files
                with following.get_lock():
                    following.value = STOP
                raise
    except BrokenProcessPool:  # a worker killed (out of memory, say): this process reads them all instead
        data = bsdata.load_checkout(folder, progress) if data is None else data
        return data, _read(None, data)
    except MathhammerError:
        if data is None:  # this process's parse refused a file, as one process refuses it
            raise
        # a defect met by some process: read again as one process does, from the parse alone (what was checked,
        # in another order, is forgotten)
        data = bsdata.Data(data.roots, data.edition)
        return data, _read(None, data)
    rows, unreadable, tally = [], {}, Tally()
    for _, (file_rows, file_unreadable, file_tally) in sorted(done, key=lambda share: share[0]):
        rows += file_rows
        unreadable.update(file_unreadable)
        tally.add(file_tally)
    return data, (rows, unreadable, tally)


def add_checkout(folder: Path, progress: Callable[[Path], None] | None = None,
                 workers: int | None = None) -> IndexReport:
    """Index a BSData checkout into the data directory, replacing the previous index of its edition only once
    the new one is complete (the other edition's index stays as it is). The data directory is checked first,
    so that a bad one is said before the reading. `workers`: processes reading the units (`read_checkout`)."""
    with _collector_paused():  # until the parsed files are freed: then the collector has little left to walk
        return _add(folder, progress, workers)


def _add(folder: Path, progress: Callable[[Path], None] | None, workers: int | None) -> IndexReport:
    start = time.perf_counter()
    ready_folder()
    data, (rows, unreadable, tally) = read_checkout(folder, progress, workers)
    meta = {"source": str(folder.resolve()), "revision": _revision(folder), "indexed": time.strftime("%Y-%m-%d %H:%M"),
            "edition": data.edition, "units": len(rows), "files": len(data.roots), "missing": data.missing,
            "unreadable": unreadable,
            "factions": data.catalogues.relations().to_json()}
    path = write_index(rows, meta, index_path(data.edition))
    return IndexReport(path, len(data.roots), len(rows), unreadable, tally, time.perf_counter() - start,
                       data.edition, data.missing)

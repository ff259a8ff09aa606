"""The committed probability tables are what `mathhammer tables` writes now, their numbers hold,
and writing them never loses a file: nothing the program did not write is replaced, no symbolic
link is written through, and a failure leaves nothing half-written."""

from __future__ import annotations

import csv
import os
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from mathhammer_exact import files
from mathhammer_exact.cli import cli
from mathhammer_exact.present import tables as table_module

COMMITTED = Path(__file__).resolve().parent.parent / "docs" / "tables"
NAMES = sorted(p.name for p in COMMITTED.iterdir())


def test_committed_tables_match_a_fresh_run(tmp_path):
    out = CliRunner().invoke(cli, ["tables", "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    fresh = sorted(p.name for p in tmp_path.iterdir())
    assert fresh == sorted(p.name for p in COMMITTED.iterdir())
    for name in fresh:
        assert (tmp_path / name).read_text() == (COMMITTED / name).read_text(), \
            f"{name} is stale: mathhammer tables --out docs/tables"
    again = tmp_path / "again"
    CliRunner().invoke(cli, ["tables", "--out", str(again)])
    assert all((again / n).read_text() == (tmp_path / n).read_text() for n in fresh)  # idempotent


def _rows(name):
    with (COMMITTED / f"{name}.csv").open() as handle:
        return list(csv.DictReader(handle))


def test_table_values_by_hand():
    hit = {(r["BS/WS"], r["modifier"]): r for r in _rows("hit")}
    assert Fraction(hit[("3+", "+0")]["re-roll none"]) == Fraction(2, 3)
    assert Fraction(hit[("3+", "+0")]["re-roll failed"]) == Fraction(2, 3) + Fraction(1, 3) * Fraction(2, 3)
    assert Fraction(hit[("6+", "-1")]["re-roll none"]) == Fraction(1, 6)  # a 6 always hits
    wound = {r["S \\ T"]: r for r in _rows("wound")}
    assert [Fraction(wound["S4"][f"T{t}"]) for t in (2, 3, 4, 5, 8)] == [Fraction(n, 6) for n in (5, 4, 3, 2, 1)]
    save = {(r["Sv"], r["invulnerable"]): r for r in _rows("save")}
    assert Fraction(save[("3+", "none")]["AP0 cover"]) == Fraction(1, 3)  # no cover bonus for 3+ against AP0
    assert Fraction(save[("4+", "none")]["AP-1 cover"]) == Fraction(1, 2)
    assert Fraction(save[("3+", "4+")]["AP-3"]) == Fraction(1, 2)  # the invulnerable save is better
    charge = {r["distance"]: r for r in _rows("charge")}
    assert (Fraction(charge['9"']["no re-roll"]), Fraction(charge['9"']["re-roll"])) == (Fraction(5, 18),
                                                                                       Fraction(155, 324))
    weapons = {(r["weapon"], r["target"]): r for r in _rows("weapons")}
    pistol = weapons[("Incursor Squad: bolt pistol", "GEQ")]
    assert Fraction(pistol["E[damage]"]) == Fraction(2, 3) ** 3  # hit 3+, wound T3 on 3+, Sv5+ fails 2/3


# --------------------------------------------------------------------- safe writing
WRITTEN = sorted(["README.md", "a.md", "a.csv", "b.md", "b.csv", files.RECORD])


@pytest.fixture
def quick(monkeypatch):
    """Two tiny tables instead of the real ones: how files are written does not depend on what."""
    small = [table_module.Table(name, name.upper(), "", ("x",), (("1",),)) for name in ("a", "b")]
    monkeypatch.setattr(table_module, "all_tables", lambda: small)


def tables(*args: str):
    return CliRunner().invoke(cli, ["tables", *args])


def refused(out, fragment: str) -> None:
    """Exit 2 with one line `error: ...` containing `fragment`, and no traceback."""
    assert out.exit_code == 2, out.output
    assert out.exception is None or isinstance(out.exception, SystemExit), out.exception
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], out.output


def contents(folder: Path) -> dict[str, bytes]:
    """Every entry of a folder (hidden ones too): file bytes, or the link's target for a link."""
    return {p.name: os.readlink(p).encode() if p.is_symlink() else p.read_bytes() for p in folder.iterdir()}


def test_the_record_lists_every_file_with_its_digest(quick, tmp_path):
    assert tables("--out", str(tmp_path / "t")).exit_code == 0
    lines = (tmp_path / "t" / files.RECORD).read_text().splitlines()
    assert lines[0] == files.HEADER
    listed = dict(reversed(line.split("  ")) for line in lines[1:])
    assert sorted(listed) == [n for n in WRITTEN if n != files.RECORD]
    assert all(files.digest((tmp_path / "t" / n).read_bytes()) == sha for n, sha in listed.items())


def test_out_is_required_and_not_empty(quick, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused(tables(), "Missing option '--out'")
    refused(tables("--out", ""), "--out needs a folder name")
    refused(tables("--out", "  "), "--out needs a folder name")
    assert list(tmp_path.iterdir()) == []  # nothing written in the current folder


def test_a_users_file_is_never_replaced_without_force(quick, tmp_path):
    (tmp_path / "README.md").write_text("my own notes\n")
    refused(tables("--out", str(tmp_path)), f"{tmp_path / 'README.md'} was not written by mathhammer")
    assert contents(tmp_path) == {"README.md": b"my own notes\n"}  # all or none: nothing else written
    assert tables("--out", str(tmp_path), "--force").exit_code == 0
    assert sorted(contents(tmp_path)) == WRITTEN
    assert tables("--out", str(tmp_path)).exit_code == 0  # now the program's own: replaced freely


def test_a_file_changed_since_it_was_written_is_the_users(quick, tmp_path):
    assert tables("--out", str(tmp_path)).exit_code == 0
    (tmp_path / "a.csv").write_text("edited\n")
    before = contents(tmp_path)
    refused(tables("--out", str(tmp_path)), "a.csv was not written by mathhammer (or was changed since)")
    assert contents(tmp_path) == before


def test_other_files_in_the_folder_are_left_alone(quick, tmp_path):
    (tmp_path / "notes.txt").write_text("keep\n")
    assert tables("--out", str(tmp_path)).exit_code == 0
    assert (tmp_path / "notes.txt").read_text() == "keep\n"
    assert sorted(contents(tmp_path)) == sorted([*WRITTEN, "notes.txt"])


def test_a_record_the_program_did_not_write_is_refused(quick, tmp_path):
    (tmp_path / files.RECORD).write_text("abc  README.md\n")  # no header: someone else's file
    refused(tables("--out", str(tmp_path)), files.RECORD)
    assert contents(tmp_path) == {files.RECORD: b"abc  README.md\n"}


def test_a_symbolic_link_is_never_written_through(quick, tmp_path):
    out, outside = tmp_path / "out", tmp_path / "precious.txt"
    assert tables("--out", str(out)).exit_code == 0
    outside.write_text("precious\n")
    (out / "README.md").unlink()
    (out / "README.md").symlink_to(outside)
    refused(tables("--out", str(out)), "README.md was not written by mathhammer")
    assert outside.read_text() == "precious\n" and (out / "README.md").is_symlink()
    assert tables("--out", str(out), "--force").exit_code == 0  # replaces the link, not its target
    assert outside.read_text() == "precious\n" and not (out / "README.md").is_symlink()


def test_a_symbolic_link_listed_in_the_record_is_still_refused(quick, tmp_path):
    out = tmp_path / "out"
    assert tables("--out", str(out)).exit_code == 0
    (tmp_path / "copy.csv").write_bytes((out / "a.csv").read_bytes())  # same bytes, so the same digest
    (out / "a.csv").unlink()
    (out / "a.csv").symlink_to(tmp_path / "copy.csv")
    refused(tables("--out", str(out)), "a.csv was not written by mathhammer")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX feature")
def test_a_named_pipe_in_the_way_is_refused_without_waiting(quick, tmp_path):
    os.mkfifo(tmp_path / "a.md")
    refused(tables("--out", str(tmp_path)), "a.md was not written by mathhammer")


def test_out_may_not_be_a_file(quick, tmp_path):
    (tmp_path / "file").write_text("x")
    refused(tables("--out", str(tmp_path / "file")), "is a file")  # click's own check
    assert contents(tmp_path) == {"file": b"x"}


def test_out_is_made_but_not_its_parents(quick, tmp_path):
    refused(tables("--out", str(tmp_path / "missing" / "tables")), f"there is no folder {tmp_path / 'missing'}")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_where_a_file_belongs_is_refused_even_with_force(quick, tmp_path):
    (tmp_path / "a.md").mkdir()
    refused(tables("--out", str(tmp_path), "--force"), "a.md: it is a folder")
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs file permissions that apply")
def test_a_read_only_folder_is_one_line_and_leaves_nothing(quick, tmp_path):
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o555)
    try:
        refused(tables("--out", str(out)), "permission denied")
        assert list(out.iterdir()) == []
    finally:
        out.chmod(0o755)


def _failing_after(count: int, real):
    calls = []

    def stage(*args):
        calls.append(args)
        if len(calls) > count:
            raise OSError(28, "No space left on device")
        return real(*args)

    return stage


@pytest.mark.parametrize("failing", [1, 3, 6])  # the first file, one in the middle, the record (written last)
def test_a_failure_while_writing_leaves_nothing_behind(quick, tmp_path, monkeypatch, failing):
    """A failed write (the disk fills up at the n-th file) removes every staged file, and the
    folder this run made; an existing folder keeps exactly what it had."""
    stage = files._stage
    monkeypatch.setattr(files, "_stage", _failing_after(failing - 1, stage))
    refused(tables("--out", str(tmp_path / "new")), "no space left on device")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(files, "_stage", stage)
    assert tables("--out", str(tmp_path)).exit_code == 0
    before = contents(tmp_path)
    monkeypatch.setattr(files, "_stage", _failing_after(failing - 1, stage))
    refused(tables("--out", str(tmp_path)), "no space left on device")
    assert contents(tmp_path) == before


@pytest.mark.parametrize("hard_links", [True, False], ids=["hard links", "no hard links"])
@pytest.mark.parametrize("failing", [1, 4, 6])
def test_a_failure_while_renaming_puts_everything_back(quick, tmp_path, monkeypatch, failing, hard_links):
    """The n-th rename fails, after n - 1 files were replaced: every replaced file is put back, a
    forced user's file included, no new file or temporary file is left; also on a file system
    without hard links, where the old files are moved aside instead."""
    if not hard_links:
        def no_link(*args, **kwargs):
            raise OSError(1, "Operation not permitted")

        monkeypatch.setattr(files.os, "link", no_link)
    assert tables("--out", str(tmp_path)).exit_code == 0
    (tmp_path / "README.md").write_text("a user's file, replaced only with --force\n")
    (tmp_path / "b.csv").unlink()  # a file that did not exist before must not exist after
    before = contents(tmp_path)
    real, renames = os.replace, []

    def replace(source, destination):
        renames.append(source)
        if str(source).endswith(".part") and len([r for r in renames if str(r).endswith(".part")]) == failing:
            raise OSError(5, "Input/output error")
        real(source, destination)

    monkeypatch.setattr(files.os, "replace", replace)
    refused(tables("--out", str(tmp_path), "--force"), "input/output error")
    monkeypatch.setattr(files.os, "replace", real)
    assert contents(tmp_path) == before

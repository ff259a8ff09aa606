"""Writing files without losing anything: never over a file the program did not write, never
through a symbolic link, and all of a set of files or none of them.

How the program knows a file is its own: each folder it writes to gets a small record,
``.mathhammer.sha256``, listing the SHA-256 of every file it wrote there. A file may be replaced
only while it is listed and its content is still what was written; a file someone else made, or
changed since, is refused (the caller may offer ``force``). A symbolic link in place of a file
is never written through: with ``force`` the link itself is replaced, never its target (a folder
given as a link is used as the folder it points to).

Every file is first written in full to a hidden temporary file in the same folder, then renamed
over its name (a rename within one folder is atomic). If anything fails, the files already renamed
are taken back (the ones they replaced are put back), the temporary files and the folder if this
call made it are removed, and the error is one `MathhammerError`: all the files or none.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from .errors import MathhammerError

RECORD = ".mathhammer.sha256"
HEADER = "# Files written by mathhammer_exact, with their SHA-256: it replaces them only while they are unchanged."


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes | None:
    """The bytes of a regular file, without following a symbolic link; None for anything else
    (opened without waiting, so a named pipe put in the way cannot make the program hang)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read() if stat.S_ISREG(os.fstat(handle.fileno()).st_mode) else None


def recorded(folder: Path) -> dict[str, str] | None:
    """File name -> SHA-256 of what the program wrote in `folder`; None if the record is not its own."""
    if not os.path.lexists(folder / RECORD):
        return {}
    data = _read(folder / RECORD)
    lines = data.decode("utf-8", "replace").splitlines() if data is not None else []
    if not lines or lines[0] != HEADER:
        return None
    entries = (line.split("  ", 1) for line in lines[1:])
    return {name: sha for sha, name in (e for e in entries if len(e) == 2) if "/" not in name}


def owned(folder: Path, name: str, record: Mapping[str, str] | None) -> bool:
    """Whether `folder/name` is a regular file the program wrote and nobody changed since."""
    data = _read(folder / name)
    return record is not None and data is not None and record.get(name) == digest(data)


def _problem(folder: Path, exc: OSError) -> MathhammerError:
    return MathhammerError(f"cannot write into {folder}: {(exc.strerror or str(exc)).lower()}")


def _folder(folder: Path, make: bool) -> bool:
    """Check that `folder` is a folder, or make it if `make` (its parent must exist); True if made now."""
    if folder.is_dir():
        return False
    if os.path.lexists(folder):
        raise MathhammerError(f"cannot write into {folder}: it is not a folder")
    if not make:
        raise MathhammerError(f"cannot write into {folder}: there is no such folder")
    if not folder.parent.is_dir():
        raise MathhammerError(f"cannot make the folder {folder}: there is no folder {folder.parent}")
    try:
        folder.mkdir()
    except OSError as exc:
        raise _problem(folder, exc) from None
    return True


def _hidden(folder: Path, name: str, kind: str) -> Path:
    """A fresh hidden name next to `name` for a file being written ("part") or kept ("old")."""
    return folder / f".{name}.{secrets.token_hex(4)}.{kind}"


def _stage(folder: Path, name: str, data: bytes) -> Path:
    """Write `data` in full to a new hidden file next to `name` (permissions as the umask allows)."""
    path = _hidden(folder, name, "part")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def _check(folder: Path, names: list[str], force: bool, hint: str) -> dict[str, str] | None:
    """Refuse a name that is a folder, or a file that is not the program's own (unless `force`);
    return the folder's record."""
    record = recorded(folder)
    for name in [*names, RECORD]:
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            raise MathhammerError(f"cannot write {path}: it is a folder")
        theirs = record is None if name == RECORD else not owned(folder, name, record)
        if os.path.lexists(path) and theirs and not force:
            raise MathhammerError(f"{path} was not written by mathhammer (or was changed since): not replacing it"
                                  + (f"; {hint}" if hint else ""))
    return record


def _commit(staged: dict[Path, Path]) -> None:
    """Rename each staged file over its name; if one rename fails, put back every file replaced
    so far (kept meanwhile under a hidden name) and remove the new ones, then raise."""
    kept: dict[Path, Path] = {}
    done: list[Path] = []
    try:
        for path, part in staged.items():
            if os.path.lexists(path):
                kept[path] = _hidden(path.parent, path.name, "old")
                try:  # a second name for the old file: it stays in place until the new one replaces it
                    os.link(path, kept[path], follow_symlinks=False)
                except (OSError, NotImplementedError):  # no hard links here: move the old file aside instead
                    os.replace(path, kept[path])
            os.replace(part, path)
            done.append(path)
    except OSError:
        for path in reversed(done):
            if path not in kept:
                path.unlink(missing_ok=True)
        for path, old in kept.items():
            try:
                os.replace(old, path)
            except OSError:
                continue  # better left under its hidden name than lost
            old.unlink(missing_ok=True)  # still there if `path` was never replaced (a rename onto itself does nothing)
        raise
    for old in kept.values():
        old.unlink(missing_ok=True)


def write_files(folder: Path, files: Mapping[str, bytes], force: bool = False, hint: str = "",
                make: bool = False) -> list[Path]:
    """Write each name -> bytes into `folder`, all or none; return the paths written. `make`: the
    folder may be made (not its parents).

    Refuses (before writing anything) a name that is a folder, and one that exists but is not the
    program's own unless `force`; `hint` is added to that refusal (e.g. how to force it)."""
    for name in files:
        if not name or "/" in name or name in (".", "..", RECORD):
            raise MathhammerError(f"cannot write a file named {name!r}")
    made = _folder(folder, make)
    record = _check(folder, list(files), force, hint)
    listed = {n: sha for n, sha in (record or {}).items() if n not in files and owned(folder, n, record)}
    listed.update({name: digest(data) for name, data in files.items()})
    listing = "\n".join([HEADER, *(f"{sha}  {name}" for name, sha in sorted(listed.items()))]) + "\n"
    staged: dict[Path, Path] = {}
    try:
        for name, data in {**files, RECORD: listing.encode()}.items():
            staged[folder / name] = _stage(folder, name, data)
        _commit(staged)
    except OSError as exc:
        for part in staged.values():
            part.unlink(missing_ok=True)
        if made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise _problem(folder, exc) from None
    return [folder / name for name in files]


def write_new(folder: Path, name: str, data: bytes) -> Path:
    """Write a file that must not exist yet, atomically (in full under a hidden name, then linked to
    its name, which fails if anything took that name meanwhile): many files written one by one, e.g.
    the parts of a sweep, each whole or absent, and nothing replaced, so no record is kept."""
    path = folder / name
    part: Path | None = None
    try:
        part = _stage(folder, name, data)
        try:
            os.link(part, path, follow_symlinks=False)
        except (NotImplementedError, PermissionError):  # no hard links here: rename, after a last look
            if os.path.lexists(path):
                raise FileExistsError(path) from None
            os.replace(part, path)
    except FileExistsError:
        raise MathhammerError(f"{path} exists: not replacing it") from None
    except OSError as exc:
        raise _problem(folder, exc) from None
    finally:
        if part is not None:
            part.unlink(missing_ok=True)
    return path

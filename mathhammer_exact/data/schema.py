"""The declared shape of the rules/ files, and a strict reader for it (cattrs).

TOML tables are structured into frozen attrs classes by a cattrs converter with strict hooks:
a string where a number belongs, 2.5 as a model count, "5" as a count, or a string where a
list belongs is an error, never a silent conversion. Every problem becomes ONE message naming
the file, the entry and the field (`structure`); attrs validators in the classes speak a
player's language.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError
from cattrs.gen import make_dict_structure_fn, override

from ..errors import MathhammerError
from ..model import CommandReroll, CriticalMortals, DamageReroll, Reroll

T = TypeVar("T")


def _kind(value: Any) -> str:
    return {str: "text", int: "a whole number", float: "a decimal number", bool: "true/false", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _expect(ok: bool, wanted: str, value: Any) -> None:
    if not ok:
        raise MathhammerError(f"expected {wanted}, got {_shown(value)} ({_kind(value)})")


def _int(value: Any, _: type) -> int:
    _expect(isinstance(value, int) and not isinstance(value, bool), "a whole number such as 5", value)
    return int(value)


def _str(value: Any, _: type) -> str:
    _expect(isinstance(value, str), "text in quotes", value)
    return str(value)


def _bool(value: Any, _: type) -> bool:
    _expect(isinstance(value, bool), "true or false", value)
    return bool(value)


def _is_tuple(kind: Any) -> bool:
    return typing.get_origin(kind) is tuple


def _is_dict(kind: Any) -> bool:
    return typing.get_origin(kind) in (dict, Mapping)


def _is_literal(kind: Any) -> bool:
    return typing.get_origin(kind) is Literal


class Located(Exception):
    """A problem inside one item of a list (`step` "[2]") or of a table (`step` ".'name'")."""

    def __init__(self, step: str, inner: BaseException) -> None:
        super().__init__(step, inner)
        self.step, self.inner = step, inner


class Reader:
    """A strict cattrs converter: structure(file, entry, table, class) or one clear error."""

    def __init__(self) -> None:
        self.converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
        c = self.converter
        c.register_structure_hook(int, _int)
        c.register_structure_hook(str, _str)
        c.register_structure_hook(bool, _bool)
        c.register_structure_hook_factory(_is_tuple, self._tuple_hook)
        c.register_structure_hook_factory(_is_dict, self._dict_hook)
        c.register_structure_hook_factory(_is_literal, self._literal_hook)
        c.register_structure_hook(Reroll, lambda v, _: Reroll.parse(_str(v, str)))
        c.register_structure_hook(CommandReroll, lambda v, _: CommandReroll.parse(_str(v, str)))
        c.register_structure_hook(DamageReroll, lambda v, _: DamageReroll.parse(_str(v, str)))
        c.register_structure_hook(CriticalMortals, lambda v, _: CriticalMortals.parse(_str(v, str)))

    def rename(self, cls: type, **names: str) -> None:
        """Fields of `cls` written under another name in the files (e.g. `with_` as "with")."""
        overrides: dict[str, Any] = {field: override(rename=name) for field, name in names.items()}
        self.converter.register_structure_hook(
            cls, make_dict_structure_fn(cls, self.converter, _cattrs_forbid_extra_keys=True, **overrides))

    def _tuple_hook(self, kind: Any) -> Callable[[Any, Any], tuple[Any, ...]]:
        item = typing.get_args(kind)[0]

        def hook(value: Any, _: Any) -> tuple[Any, ...]:
            _expect(isinstance(value, list), 'a list such as ["A", "B"]', value)
            return tuple(self._item(f"[{i}]", v, item) for i, v in enumerate(value))

        return hook

    def _dict_hook(self, kind: Any) -> Callable[[Any, Any], dict[str, Any]]:
        item = typing.get_args(kind)[1]

        def hook(value: Any, _: Any) -> dict[str, Any]:
            _expect(isinstance(value, dict), "a table", value)
            return {key: self._item(f".{key!r}", v, item) for key, v in value.items()}

        return hook

    def _item(self, step: str, value: Any, kind: Any) -> Any:
        try:
            return self.converter.structure(value, kind)
        except Exception as exc:
            raise Located(step, exc) from None

    def _literal_hook(self, kind: Any) -> Callable[[Any, Any], Any]:
        allowed = typing.get_args(kind)

        def hook(value: Any, _: Any) -> Any:
            if value not in allowed:
                raise MathhammerError(f"{_shown(value)} is not allowed (allowed: {', '.join(map(str, allowed))})")
            return value

        return hook

    def structure(self, where: str, table: Any, cls: type[T]) -> T:
        """`table` as a `cls`, or a MathhammerError naming `where` and the field."""
        if not isinstance(table, dict):
            raise MathhammerError(f"{where}: expected a table of fields, got {_shown(table)} ({_kind(table)})")
        try:
            return self.converter.structure(table, cls)
        except (ClassValidationError, IterableValidationError, ForbiddenExtraKeysError, Located) as exc:
            path, message = first_problem(exc)
            raise MathhammerError(f"{where} {path}: {message}" if path else f"{where}: {message}") from None
        except MathhammerError as exc:  # a check across fields, in the class itself
            raise MathhammerError(f"{where}: {exc}") from None


def first_problem(exc: BaseException, path: str = "") -> tuple[str, str]:
    """The path and message of the first leaf problem in a cattrs error group."""
    if isinstance(exc, Located):
        return first_problem(exc.inner, path + exc.step)
    if isinstance(exc, ForbiddenExtraKeysError):
        allowed = ", ".join(a.name for a in attrs.fields(exc.cl)) if attrs.has(exc.cl) else ""
        return path, f"unknown field {', '.join(sorted(exc.extra_fields))} (allowed: {allowed})"
    if isinstance(exc, ClassValidationError | IterableValidationError):
        inner = exc.exceptions[0]
        for note in getattr(inner, "__notes__", ()):
            name = getattr(note, "name", None)
            index = getattr(note, "index", None)
            if name is not None:
                return first_problem(inner, f"{path}.{name}" if path else name)
            if index is not None:
                return first_problem(inner, f"{path}[{index}]")
        return first_problem(inner, path)
    if isinstance(exc, KeyError):
        return path, "missing (this field is required)"
    if isinstance(exc, MathhammerError):
        return path, str(exc)
    return path, f"{type(exc).__name__}: {exc}"

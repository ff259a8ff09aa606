"""The package's layout has one direction: every import, at the top of a module or inside a function, points
down this list of layers (a module may import its own layer). The units' sources (rules/ in `data`, the
catalogues and army lists in `catalogue`) sit below `units`, which resolves a name across them; the questions
(`decide`) use units; a new source is one module beside the others."""

from __future__ import annotations

import ast
from pathlib import Path

import mathhammer_exact

PACKAGE = Path(mathhammer_exact.__file__).parent
#: bottom to top; the package's own __init__ (names loaded lazily for the API) and __main__ stand outside
LAYERS = ("errors", "sizes", "files", "weights", "pmf", "dice", "abilities", "parsing", "editions", "model", "stages",
          "engine", "rolls",
          "data", "catalogue", "units", "decide", "present", "sweep", "web", "cli")


def _layer(module: str) -> str:
    """'mathhammer_exact.data.load' -> 'data'."""
    return module.split(".")[1]


def _imports(module: str, text: str, package: bool = False) -> list[tuple[str, int]]:
    """The package's modules that the source `text` of `module` imports, with the line of each import."""
    here = module.split(".") if package else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[: len(here) - (node.level - 1)]
            names = [node.module] if node.module else [alias.name for alias in node.names]
            found += [(".".join([*base, name]), node.lineno) for name in names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mathhammer_exact."):
            found.append((node.module or "", node.lineno))
        elif isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if alias.name.startswith("mathhammer_exact.")]
    return found


def _upward(module: str, text: str, package: bool = False) -> list[str]:
    """The imports of `module` that point up the layers."""
    low = LAYERS.index(_layer(module))
    return [f"{module}:{line} imports {target}" for target, line in _imports(module, text, package)
            if target.count(".") >= 1 and LAYERS.index(_layer(target)) > low]


def test_every_import_points_down_the_layers():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        package = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if package else parts)
        if module in ("mathhammer_exact", "mathhammer_exact.__main__"):
            continue
        upward += _upward(module, path.read_text(), package)
    assert upward == []


def test_an_upward_import_is_seen():
    # the premise: the rules data reaching up to the catalogue (as data.load once did), in each spelling
    for text in ("from ..catalogue.library import close_names", "from ..catalogue import library",
                 "import mathhammer_exact.catalogue.index", "def f():\n    from ..units.by_name import datasheet"):
        assert len(_upward("mathhammer_exact.data.load", text)) == 1, text
    assert _upward("mathhammer_exact.units.by_name", "from ..data.load import find\nfrom .lookup import named") == []
    assert _upward("mathhammer_exact.data", "from .load import find", package=True) == []


def test_every_module_is_in_a_layer():
    tops = {path.relative_to(PACKAGE).parts[0].removesuffix(".py") for path in PACKAGE.glob("*")
            if path.suffix == ".py" or (path / "__init__.py").exists()}
    assert tops - {"__init__", "__main__"} == set(LAYERS)


def test_the_number_mode_is_chosen_at_the_entry_point_alone():
    # below `attack(exact=...)` the engine takes the query's `pmf.Mode`, or the mode of the distributions given
    taking = []
    for folder in ("engine", "stages"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    if "exact" in [a.arg for a in (*node.args.args, *node.args.kwonlyargs)]:
                        taking.append(f"{folder}/{path.name}:{node.name}")
    assert taking == ["engine/resolve.py:attack"]

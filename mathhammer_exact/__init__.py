"""mathhammer_exact: exact Warhammer 40,000 attack probabilities.

>>> from mathhammer_exact import Weapon, Target, attack
>>> result = attack(Weapon.parse("A2 BS3+ S4 AP0 D1"), Target.parse("T4 Sv3+ W2 x5"), models=5, exact=True)
>>> result.hits.mean
Fraction(20, 3)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .dice import Dice
    from .engine.resolve import attack
    from .engine.results import AttackResult, GroupLosses
    from .errors import MathhammerError
    from .model import (
        CommandReroll,
        Context,
        CriticalMortals,
        DamageReroll,
        DevastatingWounds,
        Firing,
        Hazardous,
        IndirectFire,
        ModelProfile,
        MortalWounds,
        Reroll,
        Rules,
        Target,
        Weapon,
    )
    from .pmf import Pmf

#: where each public name lives; a name's module loads on first use (PEP 562), so that a command
#: that needs only the dice (``mathhammer roll charge``) loads neither the attack engine nor the rules data
_HOMES = {
    "Dice": "dice", "attack": "engine.resolve", "AttackResult": "engine.results", "GroupLosses": "engine.results",
    "MathhammerError": "errors", "Pmf": "pmf",
    **{name: "model" for name in ("CommandReroll", "Context", "CriticalMortals", "DamageReroll", "DevastatingWounds",
                                  "Firing", "Hazardous",
                                  "IndirectFire", "ModelProfile", "MortalWounds", "Reroll", "Rules", "Target",
                                  "Weapon")},
}


def __dir__() -> list[str]:
    return sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)


__all__ = [
    "AttackResult",
    "CommandReroll",
    "Context",
    "CriticalMortals",
    "DamageReroll",
    "DevastatingWounds",
    "Dice",
    "Firing",
    "GroupLosses",
    "Hazardous",
    "IndirectFire",
    "MathhammerError",
    "ModelProfile",
    "MortalWounds",
    "Pmf",
    "Reroll",
    "Rules",
    "Target",
    "Weapon",
    "attack",
]

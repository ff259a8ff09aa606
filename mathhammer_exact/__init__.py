"""mathhammer_exact: exact Warhammer 40,000 attack probabilities.

>>> from mathhammer_exact import Weapon, Target, attack
>>> result = attack(Weapon.parse("A2 BS3+ S4 AP0 D1"), Target.parse("T4 Sv3+ W2 x5"), models=5, exact=True)
>>> result.hits.mean
Fraction(20, 3)
"""

from .dice import Dice
from .engine.resolve import attack
from .engine.results import AttackResult, GroupLosses
from .errors import MathhammerError
from .model import (
    CommandReroll,
    Context,
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

__all__ = [
    "AttackResult",
    "CommandReroll",
    "Context",
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
